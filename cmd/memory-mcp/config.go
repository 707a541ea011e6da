package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// Config is the resolved configuration. Every field is set by exactly one
// setting below, which can come (highest precedence first) from a flag
// (--data-dir), the environment (MEMORY_MCP_DATA_DIR), the config file
// ({"data-dir": ...}) or the default.
type Config struct {
	ConfigFile      string
	DataDir         string
	Identity        memory.Identity
	WriteAccess     memory.WriteAccess
	MaxContentBytes int
	LogLevel        string

	// Embedder is offline (the built-in word vectors), openai (an
	// OpenAI-compatible endpoint) or none (BM25 only).
	Embedder            string
	EmbeddingBaseURL    string
	EmbeddingModel      string
	EmbeddingDimensions int
	EmbeddingBatchSize  int
	// EmbeddingAPIKey comes only from the environment, never from a file or
	// a flag: MEMORY_MCP_EMBEDDING_API_KEY, else OPENAI_API_KEY.
	EmbeddingAPIKey string
	// Retrieval tunes memory search; checked by Retrieval.Validate.
	Retrieval memory.RetrievalConfig

	values  map[string]string // setting name -> resolved raw value
	sources map[string]string // setting name -> where that value came from
}

// setting is one configuration knob, named once and read from every source.
type setting struct {
	name  string // flag name; env is MEMORY_MCP_ + upper snake; file key is the same
	usage string
	def   func() string
	set   func(c *Config, v string) error
}

func settings() []setting {
	return append([]setting{
		{"data-dir", "directory holding memory.db (created on first run)", defaultDataDir,
			func(c *Config, v string) error { c.DataDir = v; return nil }},
		{"agent-id", "the caller's agent id (identity never comes from tool arguments)", defaultAgentID,
			func(c *Config, v string) error {
				if err := memory.CheckID("agent-id", v); err != nil {
					return err
				}
				c.Identity.AgentID = v
				return nil
			}},
		{"seniority", "the caller's seniority: junior, mid, senior, lead, principal", constant("mid"),
			func(c *Config, v string) (err error) { c.Identity.Seniority, err = memory.ParseSeniority(v); return }},
		{"autonomy", "the caller's autonomy: locked, supervised, semi, full", constant("semi"),
			func(c *Config, v string) (err error) { c.Identity.Autonomy, err = memory.ParseAutonomy(v); return }},
		{"human", "the caller is a human operator (true/false)", constant("false"),
			func(c *Config, v string) (err error) { c.Identity.Human, err = parseBool(v); return }},
		{"roles", "comma-separated roles of the caller, e.g. curator", constant(""),
			func(c *Config, v string) error { c.Identity.Roles = splitList(v); return nil }},
		{"write-access", "who may write each fact category: category=senior|mid|...|human|any, comma-separated", constant("core_policy=senior"),
			func(c *Config, v string) (err error) { c.WriteAccess, err = memory.ParseWriteAccess(v); return }},
		{"max-content-bytes", "largest fact or memory content accepted, in bytes", constant(strconv.Itoa(memory.DefaultMaxContentBytes)),
			func(c *Config, v string) (err error) { c.MaxContentBytes, err = parsePositive(v); return }},
		{"log-level", "debug, info, warn or error (logs go to stderr)", constant("info"),
			func(c *Config, v string) error {
				switch v {
				case "debug", "info", "warn", "error":
					c.LogLevel = v
					return nil
				}
				return fmt.Errorf("unknown log level %q", v)
			}},
	}, memorySettings()...)
}

// EnvName is the environment variable that carries setting name.
func EnvName(name string) string {
	return "MEMORY_MCP_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// LoadConfig resolves the configuration from args (flags after the
// subcommand), the environment and the config file.
func LoadConfig(args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet("memory-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFlag := fs.String("config", "", "JSON config file (env MEMORY_MCP_CONFIG; default "+defaultConfigFile()+" if it exists)")
	flagged := map[string]*string{}
	for _, s := range settings() {
		flagged[s.name] = fs.String(s.name, "", fmt.Sprintf("%s (env %s, default %q)", s.usage, EnvName(s.name), s.def()))
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	c := &Config{values: map[string]string{}, sources: map[string]string{}}
	file, fileValues, err := readConfigFile(*configFlag, getenv)
	if err != nil {
		return nil, err
	}
	c.ConfigFile = file
	c.EmbeddingAPIKey = getenv("MEMORY_MCP_EMBEDDING_API_KEY")
	if c.EmbeddingAPIKey == "" {
		c.EmbeddingAPIKey = getenv("OPENAI_API_KEY")
	}
	known := map[string]bool{}
	for _, s := range settings() {
		known[s.name] = true
		value, source := s.def(), "default"
		if v, ok := fileValues[s.name]; ok {
			value, source = v, "file "+file
		}
		if v := getenv(EnvName(s.name)); v != "" {
			value, source = v, "env "+EnvName(s.name)
		}
		if set[s.name] {
			value, source = *flagged[s.name], "flag --"+s.name
		}
		if err := s.set(c, strings.TrimSpace(value)); err != nil {
			return nil, fmt.Errorf("%s (from %s): %s", s.name, source, errorText(err))
		}
		c.values[s.name], c.sources[s.name] = value, source
	}
	for k := range fileValues {
		if !known[k] {
			return nil, fmt.Errorf("config file %s: unknown setting %q", file, k)
		}
	}
	return c, nil
}

// errorText is a domain error's message without its code, or a plain error's text.
func errorText(err error) string {
	if memory.ErrorCode(err) == memory.EINTERNAL {
		return err.Error()
	}
	return memory.ErrorMessage(err)
}

// readConfigFile reads the JSON config file named by flag, env or default
// location. A missing default file is not an error; a missing named one is.
func readConfigFile(flagValue string, getenv func(string) string) (string, map[string]string, error) {
	path, explicit := flagValue, true
	if path == "" {
		path = getenv("MEMORY_MCP_CONFIG")
	}
	if path == "" {
		path, explicit = defaultConfigFile(), false
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("config file: %w", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return "", nil, fmt.Errorf("config file %s: %w", path, err)
	}
	values := map[string]string{}
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			values[k] = v
		case []any:
			parts := make([]string, len(v))
			for i, p := range v {
				parts[i] = fmt.Sprint(p)
			}
			values[k] = strings.Join(parts, ",")
		default:
			values[k] = fmt.Sprint(v)
		}
	}
	return path, values, nil
}

// Describe lists every setting with its value's source, for `memory-mcp config`.
func (c *Config) Describe(w io.Writer) {
	names := make([]string, 0, len(c.values))
	for n := range c.values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%-20s %-40s (%s)\n", n, c.values[n], c.sources[n])
	}
}

func constant(v string) func() string { return func() string { return v } }

// defaultDataDir is a stable per-user directory: $XDG_DATA_HOME/memory-mcp,
// ~/.local/share/memory-mcp, ~/Library/Application Support/memory-mcp on macOS,
// %LocalAppData%\memory-mcp on Windows.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "memory-mcp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "memory-mcp-data"
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "memory-mcp")
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "memory-mcp")
		}
	}
	return filepath.Join(home, ".local", "share", "memory-mcp")
}

func defaultConfigFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "memory-mcp.json"
	}
	return filepath.Join(dir, "memory-mcp", "config.json")
}

// defaultAgentID is the login name, so that one developer's agents share a
// stable identity without configuration.
func defaultAgentID() string {
	if u, err := user.Current(); err == nil && memory.CheckID("agent-id", u.Username) == nil {
		return u.Username
	}
	return "agent"
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, nil
	case "", "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", v)
}

func parsePositive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive integer", v)
	}
	return n, nil
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
