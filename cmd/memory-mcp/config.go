package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
)

// Config is the resolved configuration. Every field is set by exactly one
// setting below, which can come (highest precedence first) from a flag
// (--data-dir), the environment (MEMORY_MCP_DATA_DIR), the config file
// ({"data-dir": ...}) or the default.
type Config struct {
	ConfigFile string
	DataDir    string
	// Database is a PostgreSQL URL to keep the memory in; "" means the
	// SQLite file memory.db in DataDir.
	Database        string
	Identity        memory.Identity
	WriteAccess     memory.WriteAccess
	MaxContentBytes int
	LogLevel        string
	Strategy        memory.Strategy
	Blocks          []memory.BlockSpec // default core memory blocks
	// BlockTools offers the memory_block_* tools besides the memory tool.
	BlockTools bool

	// Promotion (notes -> shared state).
	Interpreter        string     // rules or llm
	LLM                llm.Config // the LLM interpreter's endpoint
	PendingMaxAttempts int
	RunID              string // "" means a new run per process

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
	// ProvenanceKey (hex) keys the provenance stamps instead of the data
	// directory's key file; it comes only from the environment
	// (MEMORY_MCP_PROVENANCE_KEY), never from a file or a flag, and is never
	// printed.
	ProvenanceKey string
	// Retrieval tunes memory search; checked by Retrieval.Validate.
	Retrieval store.RetrievalConfig
	// EmbedderFloor takes Retrieval.VectorFloor from the embedder.
	EmbedderFloor bool

	// Consolidation tunes consolidation, retention and archival.
	Consolidation consolidation.Config

	// FineTune schedules retraining of the embedder's adapter.
	FineTune FineTuneConfig

	// Gates configures the write gates.
	Gates GateConfig

	// Serve configures the HTTP server (memory-mcp serve).
	Serve ServeConfig

	// Backup schedules the server's backups.
	Backup BackupConfig

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

// flagValue records a flag's raw text; boolean settings may be given bare (--human).
type flagValue struct {
	text    string
	boolean bool
}

func (v *flagValue) String() string     { return v.text }
func (v *flagValue) Set(s string) error { v.text = s; return nil }
func (v *flagValue) IsBoolFlag() bool   { return v.boolean }

func settings(getenv func(string) string) []setting {
	return append([]setting{
		{"data-dir", "directory holding memory.db (created on first run)", func() string { return defaultDataDir(getenv) },
			func(c *Config, v string) error {
				if v == "" {
					return errors.New("no home directory to put the data in: set --data-dir or MEMORY_MCP_DATA_DIR")
				}
				c.DataDir = v
				return nil
			}},
		{"database", "a PostgreSQL URL (postgres://user@host:5432/db?sslmode=require) to keep the memory in; empty: memory.db in the data directory", constant(""),
			func(c *Config, v string) error {
				if v != "" && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
					return fmt.Errorf("%s is not a PostgreSQL URL: give one (postgres://user@host:5432/db), or nothing for the SQLite file in the data directory", redactDatabase(v))
				}
				c.Database = v
				return nil
			}},
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
		{"write-access", "who may write each fact category, as comma-separated category=rule: a seniority (humans and agents of at least it), " +
			"agents:<seniority> (those agents, no human), human (humans only), any or none", constant("core_policy=senior"),
			func(c *Config, v string) (err error) { c.WriteAccess, err = memory.ParseWriteAccess(v); return }},
		{"max-content-bytes", "largest fact or memory content accepted, in bytes", constant(strconv.Itoa(memory.DefaultMaxContentBytes)),
			func(c *Config, v string) (err error) { c.MaxContentBytes, err = parsePositive(v); return }},
		{"interpreter", "how notes are interpreted: rules (offline) or llm", constant("rules"),
			func(c *Config, v string) error {
				if v != "rules" && v != "llm" {
					return fmt.Errorf("unknown interpreter %q: use rules or llm", v)
				}
				c.Interpreter = v
				return nil
			}},
		{"llm-base-url", "OpenAI-compatible endpoint of the LLM (the llm interpreter and consolidation strategy), including /v1", constant("https://api.openai.com/v1"),
			func(c *Config, v string) error { c.LLM.BaseURL = v; return nil }},
		{"llm-model", "model of the LLM", constant("gpt-4o-mini"),
			func(c *Config, v string) error { c.LLM.Model = v; return nil }},
		{"llm-api-key", "API key of the LLM endpoint (default: $OPENAI_API_KEY)", constant(""),
			func(c *Config, v string) error { c.LLM.APIKey = v; return nil }},
		{"llm-timeout", "time limit of one LLM call", constant("30s"),
			func(c *Config, v string) (err error) {
				if c.LLM.Timeout, err = time.ParseDuration(v); err == nil && c.LLM.Timeout <= 0 {
					err = fmt.Errorf("%q is not a positive duration", v)
				}
				return err
			}},
		{"pending-max-attempts", "retry passes before a pending write is marked stale for a curator", constant("5"),
			func(c *Config, v string) (err error) { c.PendingMaxAttempts, err = parsePositive(v); return }},
		{"run-id", "this process's run: notes are private per agent and run (default: a new run per process)", constant(""),
			func(c *Config, v string) error {
				if v != "" {
					if err := memory.CheckID("run-id", v); err != nil {
						return err
					}
				}
				c.RunID = v
				return nil
			}},
		{"log-level", "debug, info, warn or error (logs go to stderr)", constant("info"),
			func(c *Config, v string) error {
				switch v {
				case "debug", "info", "warn", "error":
					c.LogLevel = v
					return nil
				}
				return fmt.Errorf("unknown log level %q", v)
			}},
		{"strategy", "how memory reaches the model, deciding the tools and prompts offered: context, tool_based, self_editing or all", constant("all"),
			func(c *Config, v string) (err error) { c.Strategy, err = memory.ParseStrategy(v); return }},
		{"block-tools", "also offer the ten memory_block_* tools, for clients written against them (the memory tool does all they do) (true/false)", constant("false"),
			func(c *Config, v string) (err error) { c.BlockTools, err = parseBool(v); return }},
		{"blocks", `default core memory blocks as JSON, e.g. [{"label":"persona","description":"...","limit":2000}] (empty: persona, human, project)`, constant(""),
			func(c *Config, v string) (err error) {
				if v == "" {
					c.Blocks = memory.DefaultBlocks()
					return nil
				}
				c.Blocks, err = memory.ParseBlockSpecs(v)
				return err
			}},
	}, slices.Concat(memorySettings(), consolidationSettings(), gateSettings(), serveSettings(), finetuneSettings(), backupSettings())...)
}

// EnvName is the environment variable that carries setting name.
func EnvName(name string) string {
	return "MEMORY_MCP_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// settingFlags are the settings a flag set accepts as flags, with the
// config file's flag.
type settingFlags struct {
	fs      *flag.FlagSet
	config  *string
	flagged map[string]*flagValue
}

// defineSettings defines --config and, as flags, the settings accept
// admits (nil: every one) that fs does not define already: a subcommand's
// own flag shadows the setting of the same name, which then comes only
// from the environment, the file or its default (erase's --agent-id names
// whose memories to erase, not the operator). A setting not defined as a
// flag is still read from the environment and the file.
func defineSettings(fs *flag.FlagSet, getenv func(string) string, accept func(name string) bool) settingFlags {
	f := settingFlags{fs: fs, flagged: map[string]*flagValue{}}
	f.config = fs.String("config", "", "JSON config file (env MEMORY_MCP_CONFIG; default "+defaultConfigFile(getenv)+" if it exists)")
	for _, s := range settings(getenv) {
		if fs.Lookup(s.name) != nil || accept != nil && !accept(s.name) {
			continue
		}
		v := &flagValue{boolean: s.def() == "false" || s.def() == "true"}
		usage := fmt.Sprintf("%s (env %s, default %q)", s.usage, EnvName(s.name), s.def())
		if s.def() == "" {
			usage = fmt.Sprintf("%s (env %s)", s.usage, EnvName(s.name))
		}
		fs.Var(v, s.name, usage)
		f.flagged[s.name] = v
	}
	return f
}

// resolve gives every setting its value, from (highest precedence first)
// the flags parsed, the environment, the config file or the default.
func (f settingFlags) resolve(getenv func(string) string) (*Config, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	c := &Config{values: map[string]string{}, sources: map[string]string{}, Consolidation: consolidation.DefaultConfig()}
	file, fileValues, err := readConfigFile(*f.config, getenv)
	if err != nil {
		return nil, err
	}
	c.ConfigFile = file
	c.ProvenanceKey = getenv("MEMORY_MCP_PROVENANCE_KEY")
	c.EmbeddingAPIKey = getenv("MEMORY_MCP_EMBEDDING_API_KEY")
	if c.EmbeddingAPIKey == "" {
		c.EmbeddingAPIKey = getenv("OPENAI_API_KEY")
	}
	known := map[string]bool{}
	for _, s := range settings(getenv) {
		known[s.name] = true
		value, source := s.def(), "default"
		if v, ok := fileValues[s.name]; ok {
			value, source = v, "file "+file
		}
		if v := getenv(EnvName(s.name)); v != "" {
			value, source = v, "env "+EnvName(s.name)
		}
		if set[s.name] && f.flagged[s.name] != nil {
			value, source = f.flagged[s.name].text, "flag --"+s.name
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
	if key := getenv("OPENAI_API_KEY"); c.LLM.APIKey == "" && key != "" {
		c.LLM.APIKey = key
		c.values["llm-api-key"], c.sources["llm-api-key"] = key, "env OPENAI_API_KEY"
	}
	if why := c.llmUnusable(); why != "" {
		switch {
		case c.Interpreter == "llm":
			return nil, fmt.Errorf("interpreter llm: %s", why)
		case c.Gates.Judge == "llm":
			return nil, fmt.Errorf("contradiction-judge llm: %s", why)
		case c.Consolidation.Strategy == memory.ConsolidateLLM:
			return nil, fmt.Errorf("consolidation-strategy llm: %s", why)
		case c.Consolidation.DualMode.Abstractive == consolidation.AbstractiveLLM:
			return nil, fmt.Errorf("consolidation-summarizer llm: %s", why)
		}
	}
	return c, nil
}

// llmUnusable says why the LLM endpoint cannot serve a call and what to
// set, or "" when it can: a local server needs no key, OpenAI does.
func (c *Config) llmUnusable() string {
	url := cmp.Or(c.LLM.BaseURL, "https://api.openai.com/v1") // go-openai's default
	switch {
	case c.LLM.Model == "":
		return "no model is set: set llm-model (MEMORY_MCP_LLM_MODEL) to a model " + url + " serves"
	case c.LLM.APIKey == "" && strings.Contains(url, "api.openai.com"):
		return url + " needs an API key: set llm-api-key (MEMORY_MCP_LLM_API_KEY) or OPENAI_API_KEY, or point llm-base-url " +
			"at a local OpenAI-compatible server (e.g. http://localhost:11434/v1) and llm-model at one of its models"
	}
	return ""
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
		path, explicit = defaultConfigFile(getenv), false
	}
	if path == "" {
		return "", nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("config file: %w", err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 1000000 stays "1000000", not "1e+06"
	if err := dec.Decode(&raw); err != nil {
		return "", nil, fmt.Errorf("config file %s: %w", path, err)
	}
	values := map[string]string{}
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			values[k] = v
		case map[string]any:
			b, _ := json.Marshal(v)
			values[k] = string(b)
		case []any:
			if !scalars(v) { // a list of objects (the blocks setting) stays JSON
				b, _ := json.Marshal(v)
				values[k] = string(b)
				continue
			}
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

// scalars reports whether every element of a config-file list is a plain
// value, which joins into a comma-separated setting.
func scalars(v []any) bool {
	for _, e := range v {
		switch e.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

// Describe lists every setting with its value's source, for `memory-mcp
// config`, in columns as wide as the longest name and the longest value
// that fits a line (a longer value pushes its own source out, no other's).
func (c *Config) Describe(w io.Writer) {
	const valueFits = 44
	names := make([]string, 0, len(c.values))
	nameWidth, valueWidth := 0, 0
	shown := map[string]string{}
	for n, v := range c.values {
		if strings.HasSuffix(n, "api-key") && v != "" {
			v = "(set)" // never print a secret
		}
		if n == "database" {
			v = redactDatabase(v)
		}
		names, shown[n] = append(names, n), v
		nameWidth = max(nameWidth, len(n))
		if len(v) <= valueFits {
			valueWidth = max(valueWidth, len(v))
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%-*s  %-*s  (%s)\n", nameWidth, n, valueWidth, shown[n], c.sources[n])
	}
}

func constant(v string) func() string { return func() string { return v } }

// redactDatabase is a database URL without its password, for printing.
func redactDatabase(v string) string {
	u, err := url.Parse(v)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if store.MisencodedURL(v) {
		return "(a URL whose password needs percent-encoding: @ as %40, / as %2F)"
	}
	if u.Scheme == "" || u.Opaque != "" {
		// Not a URL (a key=value connection string, say): it may hold a
		// password anywhere, so none of it is shown.
		return "(a connection string that is not a URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// defaultDataDir is a stable per-user directory: $XDG_DATA_HOME/memory-mcp,
// ~/.local/share/memory-mcp, ~/Library/Application Support/memory-mcp on macOS,
// %LocalAppData%\memory-mcp on Windows. The environment is read through
// getenv, so that run is given its whole environment (tests run it in process).
func defaultDataDir(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "memory-mcp")
	}
	home := getenv("HOME")
	if runtime.GOOS == "windows" {
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "memory-mcp")
		}
		home = getenv("USERPROFILE")
	}
	switch {
	case home == "":
		return "" // never a relative or temporary directory: the user must choose
	case runtime.GOOS == "darwin":
		return filepath.Join(home, "Library", "Application Support", "memory-mcp")
	}
	return filepath.Join(home, ".local", "share", "memory-mcp")
}

// defaultConfigFile is memory-mcp/config.json in the user configuration
// directory (os.UserConfigDir's, read through getenv), or "" when there is none.
func defaultConfigFile(getenv func(string) string) string {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = getenv("AppData")
	case "darwin":
		if h := getenv("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Application Support")
		}
	default:
		if dir = getenv("XDG_CONFIG_HOME"); dir == "" && getenv("HOME") != "" {
			dir = filepath.Join(getenv("HOME"), ".config")
		}
	}
	if dir == "" {
		return ""
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
