package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// everyCommand walks the command tree: each command with the words that
// name it on the command line.
func everyCommand(cmds []*command, visit func(c *command, path []string)) {
	for _, c := range cmds {
		visit(c, strings.Fields(c.name))
		everyCommand(c.subs, visit)
	}
}

var (
	listedFlag  = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)
	flagLine    = regexp.MustCompile(`^  --[a-z0-9-]+( [A-Z][A-Z:]*)?$`)
	namedFlag   = regexp.MustCompile(`(?:^|[\s(\[|"])--([a-z][a-z0-9-]*)`)
	helpEnvHome = map[string]string{"HOME": "/home/sam"}
)

// flagNames are the flags fs defines.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	slices.Sort(names)
	return names
}

// matches are the first groups of re's matches in text, sorted, once each.
func matches(re *regexp.Regexp, text string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestHelpEveryCommand: "memory-mcp X --help" (and "memory-mcp help X")
// succeeds for every command and action, lists exactly the flags the
// command accepts, each once, and names no flag it does not accept.
// TestHelpOfHelp: help is listed as a command, so asking for its help
// prints the main help rather than "unknown command".
func TestHelpOfHelp(t *testing.T) {
	getenv := mapEnv(helpEnvHome)
	var want bytes.Buffer
	if err := run(context.Background(), []string{"help"}, getenv, nil, &want, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"help", "help"}, {"help", "--help"}, {"--help", "help"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, getenv, nil, &out, io.Discard); err != nil || out.String() != want.String() {
			t.Errorf("%v = %v, and prints:\n%s", args, err, out.String())
		}
	}
}

func TestHelpEveryCommand(t *testing.T) {
	getenv := mapEnv(helpEnvHome)
	everyCommand(commands(), func(c *command, path []string) {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if err := run(context.Background(), append(slices.Clone(path), "--help"), getenv, nil, &out, &errb); err != nil {
				t.Fatalf("%s --help: %v", c.name, err)
			}
			var viaHelp bytes.Buffer
			if err := run(context.Background(), append([]string{"help"}, path...), getenv, nil, &viaHelp, &errb); err != nil || viaHelp.String() != out.String() {
				t.Errorf("help %s = %v, and differs from %s --help:\n%s", c.name, err, c.name, viaHelp.String())
			}
			help := out.String()
			if !strings.HasPrefix(help, "memory-mcp "+c.name+": "+c.synopsis) {
				t.Errorf("help does not open with the synopsis:\n%s", help)
			}
			fs, _ := c.flagSet(getenv)
			accepted := flagNames(fs)
			if len(c.subs) > 0 {
				accepted = nil // a command with actions takes none itself
			}
			var listed []string
			for _, m := range listedFlag.FindAllStringSubmatch(help, -1) {
				listed = append(listed, m[1])
			}
			if sorted := slices.Sorted(slices.Values(listed)); !slices.Equal(sorted, slices.Compact(slices.Clone(sorted))) {
				t.Errorf("a flag is listed twice: %v", sorted)
			}
			for _, line := range regexp.MustCompile(`(?m)^  --.*$`).FindAllString(help, -1) {
				if !flagLine.MatchString(line) { // a value named from words of the usage ("-auth memory-mcp token add") is not a value name
					t.Errorf("flag line %q is not --name or --name VALUE", line)
				}
			}
			if got := matches(listedFlag, help); !slices.Equal(got, accepted) {
				t.Errorf("help lists %v,\nthe command accepts %v", got, accepted)
			}
			for _, n := range matches(namedFlag, help) {
				if n != "help" && (n != "version" || c.name != "version") && !slices.Contains(accepted, n) { // memory-mcp --version is version
					t.Errorf("help names --%s, which %s does not accept", n, c.name)
				}
			}
			if len(c.subs) == 0 && !c.bare && !strings.Contains(help, "\nGlobal flags:\n  --config FILE") {
				t.Errorf("no global flags, apart:\n%s", help)
			}
		})
	})
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, getenv, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if !regexp.MustCompile(`(?m)^  ` + c.name + ` +` + regexp.QuoteMeta(c.synopsis) + `$`).MatchString(out.String()) {
			t.Errorf("memory-mcp --help has no line for %s:\n%s", c.name, out.String())
		}
	}
	if got := matches(namedFlag, out.String()); !slices.Equal(got, []string{"config", "data-dir", "database", "help", "version"}) {
		t.Errorf("memory-mcp --help names flags %v, want the global ones, --help and --version", got)
	}
}

// TestCommandsReadTheirSettings: each setting is in a group, and some
// command besides config reads it; a command takes as flags the settings
// it reads, and not the others (the HTTP server's flags are not stdio's).
func TestCommandsReadTheirSettings(t *testing.T) {
	getenv := mapEnv(helpEnvHome)
	groups := groupOf()
	known := map[string]bool{}
	for _, g := range settingGroups {
		known[g.name] = true
	}
	read := map[string]bool{}
	everyCommand(commands(), func(c *command, _ []string) {
		for _, r := range c.reads {
			if r != "all" && !known[strings.TrimPrefix(r, "-")] && groups[strings.TrimPrefix(r, "-")] == "" {
				t.Errorf("%s reads %q, which is neither a group nor a setting", c.name, r)
			}
		}
		if c.name == "config" || c.bare {
			return
		}
		_, flags := c.flagSet(getenv)
		for n := range flags.flagged {
			read[n] = true
		}
		for _, r := range c.reads { // a setting a command's own flag shadows is still read, from the environment or file
			read[strings.TrimPrefix(r, "-")] = !strings.HasPrefix(r, "-") || read[strings.TrimPrefix(r, "-")]
		}
	})
	for _, s := range settings(getenv) {
		if !known[groups[s.name]] {
			t.Errorf("setting %s has no group", s.name)
		}
		if !read[s.name] && !read[groups[s.name]] {
			t.Errorf("no command but config reads setting %s", s.name)
		}
	}
	for _, tt := range []struct {
		cmd       []string
		has, lack []string
	}{
		{[]string{"stdio"}, []string{"agent-id", "strategy", "rate-limits", "embedder", "finetune-every", "data-dir", "config"}, []string{"addr", "oauth-issuer", "tls-cert"}},
		{[]string{"serve"}, []string{"addr", "auth", "oauth-issuer", "tls-cert", "rate-limits", "finetune-every", "review-session"}, []string{"missing", "json"}},
		{[]string{"reindex"}, []string{"missing", "embedder", "embedding-batch-size"}, []string{"addr", "agent-id", "rate-limits"}},
		{[]string{"erase"}, []string{"agent-id", "human", "reason", "id"}, []string{"embedder", "addr"}},
		{[]string{"token", "add"}, []string{"agent-id", "seniority", "human", "label"}, []string{"auth", "log-level", "json"}},
		{[]string{"token", "list"}, []string{"json"}, []string{"agent-id", "auth"}},
		{[]string{"stats"}, []string{"window", "json"}, []string{"agent-id", "embedder"}},
		// A command's own flag stands for the setting it overrides, which
		// is listed once: as the command's flag.
		{[]string{"gc"}, []string{"grace", "human"}, []string{"gc-grace", "retention", "embedder"}},
		{[]string{"consolidate"}, []string{"strategy", "older-than", "retention", "embedder"},
			[]string{"consolidation-strategy", "consolidation-older-than", "consolidation-interval", "addr"}},
		{[]string{"config"}, []string{"addr", "oauth-issuer", "finetune-every", "rate-limits"}, nil},
	} {
		c := find(t, tt.cmd)
		fs, _ := c.flagSet(getenv)
		for _, n := range tt.has {
			if fs.Lookup(n) == nil {
				t.Errorf("%s does not take --%s", c.name, n)
			}
		}
		for _, n := range tt.lack {
			if fs.Lookup(n) != nil {
				t.Errorf("%s takes --%s, which it does not read", c.name, n)
			}
		}
	}
	// A flag the command does not read is refused, naming the command's help.
	err := run(context.Background(), []string{"stdio", "--addr", "127.0.0.1:9"}, getenv, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--addr") || !strings.Contains(err.Error(), "memory-mcp stdio --help") {
		t.Errorf("stdio --addr: %v", err)
	}
}

func find(t *testing.T, path []string) *command {
	t.Helper()
	var found *command
	everyCommand(commands(), func(c *command, p []string) {
		if slices.Equal(p, path) {
			found = c
		}
	})
	if found == nil {
		t.Fatalf("no command %v", path)
	}
	return found
}

// TestFlagsAnywhere: flags work before and after a command's argument,
// "--" ends the flags, and a human's token needs no seniority.
func TestFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	env := envOf(cleanEnv(t, dir))
	cli := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), args, env, nil, &out, &errb)
		return out.String(), err
	}
	for _, args := range [][]string{
		{"token", "add", "--data-dir", dir, "--agent-id", "jo", "--seniority", "junior"},
		{"token", "add", "--agent-id", "olivia", "--human", "--data-dir", dir, "--label", "laptop"},
	} {
		if out, err := cli(args...); err != nil || !strings.HasPrefix(out, "mmcp_") {
			t.Fatalf("%v: %q, %v", args, out, err)
		}
	}
	if _, err := cli("token", "add", "--agent-id", "bob", "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "--seniority") {
		t.Errorf("an agent's token without a seniority: %v", err)
	}
	out, err := cli("token", "list", "--json", "--data-dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tokens []struct {
			ID       string
			Identity struct {
				AgentID   string `json:"agent_id"`
				Seniority string
				Human     bool `json:"is_human"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tokens) != 2 {
		t.Fatalf("token list: %v\n%s", err, out)
	}
	for _, tok := range list.Tokens {
		if tok.Identity.AgentID == "olivia" && (!tok.Identity.Human || tok.Identity.Seniority != "") {
			t.Errorf("olivia's token: %+v", tok)
		}
	}
	before, err := cli("token", "revoke", "--data-dir", dir, list.Tokens[0].ID)
	if err != nil || !strings.Contains(before, "revoked "+list.Tokens[0].ID) {
		t.Errorf("flags before the id: %q, %v", before, err)
	}
	after, err := cli("token", "revoke", list.Tokens[1].ID, "--data-dir", dir)
	if err != nil || !strings.Contains(after, "revoked "+list.Tokens[1].ID) {
		t.Errorf("flags after the id: %q, %v", after, err)
	}
	if _, err := cli("token", "revoke", "--data-dir", dir, "--", "--json"); err == nil || !strings.Contains(err.Error(), `"--json"`) {
		t.Errorf("after --, --json is the id to revoke: %v", err)
	}
	if _, err := cli("token", "revoke", "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "give one token id") {
		t.Errorf("revoke without an id: %v", err)
	}
	if _, err := cli("stats", "extra", "--data-dir", dir); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("an argument to a command that takes none: %v", err)
	}
	if _, err := cli("token"); err == nil || !strings.Contains(err.Error(), "say what to do") {
		t.Errorf("token alone: %v", err)
	}
}

// TestConfigColumns: "memory-mcp config" aligns its columns for the longest
// setting name and the longest value that fits; a longer value pushes out
// only its own source, and a key is never printed.
func TestConfigColumns(t *testing.T) {
	long := strings.Repeat("x", 50)
	c := &Config{values: map[string]string{"a": "1", "rate-limits-exempt-humans": "true", "b": long, "llm-api-key": "sk-secret"},
		sources: map[string]string{"a": "default", "rate-limits-exempt-humans": "flag --rate-limits-exempt-humans", "b": "env B",
			"llm-api-key": "env OPENAI_API_KEY"}}
	var out strings.Builder
	c.Describe(&out)
	want := "a                          1      (default)\n" +
		"b                          " + long + "  (env B)\n" +
		"llm-api-key                (set)  (env OPENAI_API_KEY)\n" +
		"rate-limits-exempt-humans  true   (flag --rate-limits-exempt-humans)\n"
	if out.String() != want {
		t.Errorf("config prints\n%s\nwant\n%s", out.String(), want)
	}
}

// TestMakeRun: "make run", as a person types it in the clone, puts only
// JSON-RPC on stdout: make's echo of the build and of the command goes
// nowhere a client reads.
func TestMakeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary through make")
	}
	dir := t.TempDir()
	cmd := exec.Command("make", "run", "BIN="+filepath.Join(dir, "memory-mcp"))
	cmd.Dir = filepath.Join("..", "..")
	for _, kv := range os.Environ() { // as typed at a shell: not a sub-make of make test, no settings of the caller's
		if !strings.HasPrefix(kv, "MAKE") && !strings.HasPrefix(kv, "MFLAGS=") && !strings.HasPrefix(kv, "MEMORY_MCP_") &&
			!strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output() // the build cache stays the caller's
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(string(goEnv))
	cmd.Env = append(cmd.Env, "GOCACHE="+paths[0], "GOMODCACHE="+paths[1], "GOPATH="+paths[2],
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make run: %v\nstderr:\n%s", err, stderr.String())
	}
	if got := strings.TrimSpace(string(out)); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("make run's stdout is not the protocol alone:\n%s", out)
	}
}
