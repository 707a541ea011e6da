package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// command is one subcommand: its help, its own flags, the settings it
// reads (which it alone accepts as flags; every setting is still read from
// the environment and the config file) and what it runs.
type command struct {
	name     string // as typed after memory-mcp: "erase", "token add"
	synopsis string // one line, for memory-mcp --help
	usage    []string
	about    string
	examples []string
	// reads names the setting groups (settingGroups) and single settings
	// the command reads beside the global ones; "-name" leaves one out.
	reads []string
	// define defines the command's own flags.
	define func(fs *flag.FlagSet)
	// arg names the one argument the command takes, "" for none.
	arg string
	// bare commands take no flags and no configuration (version).
	bare bool
	run  func(ctx context.Context, c *invocation) error
	subs []*command
}

// invocation is one run of a command: its configuration, argument and
// streams.
type invocation struct {
	cfg            *Config
	arg            string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// settingGroup is a titled group of settings, listed together in help.
type settingGroup struct{ name, title string }

// settingGroups orders the groups in help; "global" is listed apart.
var settingGroups = []settingGroup{
	{"identity", "Identity (who the caller is)"},
	{"log", "Logging"},
	{"server", "Server"},
	{"llm", "LLM endpoint (llm interpreter, judge, consolidation, fine-tuning questions)"},
	{"embedder", "Embedder"},
	{"retrieval", "Retrieval"},
	{"consolidation", "Consolidation, retention and gc"},
	{"gates", "Write gates"},
	{"finetune", "Scheduled fine-tuning"},
	{"backup", "Scheduled backups"},
	{"http", "HTTP server"},
	{"oauth", "OAuth (--auth oauth)"},
	{"global", "Global flags"},
}

// groupOf maps each setting to its group: by the file that defines it, or
// by name among the general settings.
func groupOf() map[string]string {
	g := map[string]string{}
	for group, ss := range map[string][]setting{"retrieval": memorySettings(), "consolidation": consolidationSettings(),
		"gates": gateSettings(), "http": serveSettings(), "finetune": finetuneSettings(), "backup": backupSettings()} {
		for _, s := range ss {
			g[s.name] = group
		}
	}
	for _, s := range settings(func(string) string { return "" }) {
		n := s.name
		switch {
		case n == "data-dir" || n == "database":
			g[n] = "global"
		case n == "agent-id" || n == "seniority" || n == "autonomy" || n == "human":
			g[n] = "identity"
		case n == "log-level":
			g[n] = "log"
		case strings.HasPrefix(n, "llm-"):
			g[n] = "llm"
		case n == "embedder" || strings.HasPrefix(n, "embedding-"):
			g[n] = "embedder"
		case strings.HasPrefix(n, "oauth-"):
			g[n] = "oauth"
		case g[n] == "":
			g[n] = "server"
		}
	}
	return g
}

// accepts reports whether the command takes setting name as a flag.
func (c *command) accepts(groups map[string]string) func(name string) bool {
	return func(name string) bool {
		if groups[name] == "global" || slices.Contains(c.reads, "all") {
			return true
		}
		if slices.Contains(c.reads, "-"+name) {
			return false
		}
		return slices.Contains(c.reads, name) || slices.Contains(c.reads, groups[name])
	}
}

// flagSet is the command's flag set: its own flags, then the settings it
// reads.
func (c *command) flagSet(getenv func(string) string) (*flag.FlagSet, settingFlags) {
	fs := flag.NewFlagSet("memory-mcp "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if c.define != nil {
		c.define(fs)
	}
	if c.bare {
		return fs, settingFlags{fs: fs}
	}
	return fs, defineSettings(fs, getenv, c.accepts(groupOf()))
}

// parseAnywhere parses flags before, between and after the arguments, as
// people type them; everything after "--" is an argument.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// isCommand reports whether name is one of memory-mcp's commands.
func isCommand(name string) bool {
	for _, c := range commands() {
		if c.name == name {
			return true
		}
	}
	return false
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// execute runs c with args (what follows its name), or prints its help.
func (c *command) execute(ctx context.Context, args []string, getenv func(string) string, inv *invocation) error {
	if len(c.subs) > 0 {
		if len(args) == 0 {
			return fmt.Errorf("%s: say what to do\n\n%s", c.name, c.help(getenv))
		}
		if isHelp(args[0]) {
			fmt.Fprint(inv.stdout, c.help(getenv))
			return nil
		}
		for _, sub := range c.subs {
			if strings.TrimPrefix(sub.name, c.name+" ") == args[0] {
				return sub.execute(ctx, args[1:], getenv, inv)
			}
		}
		return fmt.Errorf("%s: unknown action %q\n\n%s", c.name, args[0], c.help(getenv))
	}
	fs, flags := c.flagSet(getenv)
	pos, err := parseAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(inv.stdout, c.help(getenv))
		return nil
	}
	if err != nil {
		msg := strings.Replace(err.Error(), ": -", ": --", 1) // the flag package names flags with one dash
		return fmt.Errorf("%s: %s\nRun \"memory-mcp %s --help\" for its flags", c.name, msg, c.name)
	}
	switch {
	case c.arg == "" && len(pos) > 0 && (pos[0] == "true" || pos[0] == "false"):
		return fmt.Errorf("%s: unexpected argument %q: a switch takes its value after \"=\", as in --dedup=false", c.name, pos[0])
	case c.arg == "" && len(pos) > 0 && c.name == "stdio" && isCommand(pos[0]):
		return fmt.Errorf("%s: unexpected argument %q: put a command's flags after it, as in \"memory-mcp %s --data-dir DIR\"", c.name, pos[0], pos[0])
	case c.arg == "" && len(pos) > 0:
		return fmt.Errorf("%s: unexpected argument %q\nRun \"memory-mcp %s --help\" for its usage", c.name, pos[0], c.name)
	case c.arg != "" && len(pos) != 1:
		return fmt.Errorf("%s: give one %s\nUsage: %s", c.name, c.arg, c.usage[0])
	case c.arg != "":
		inv.arg = pos[0]
	}
	if !c.bare {
		if inv.cfg, err = flags.resolve(getenv); err != nil {
			return err
		}
	}
	return c.run(ctx, inv)
}

// help is the command's help: synopsis, usage, what it does, its own
// flags, the settings it reads by group, the global flags apart, examples.
func (c *command) help(getenv func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory-mcp %s: %s\n\nUsage:\n", c.name, c.synopsis)
	for _, u := range c.usage {
		fmt.Fprintf(&b, "  %s\n", u)
	}
	for _, p := range strings.Split(c.about, "\n\n") {
		if p != "" {
			fmt.Fprintf(&b, "\n%s\n", wrap(p, 0, 78))
		}
	}
	if len(c.subs) > 0 {
		b.WriteString("\nActions:\n")
		for _, s := range c.subs {
			fmt.Fprintf(&b, "  %-14s %s\n", strings.TrimPrefix(s.name, c.name+" "), s.synopsis)
		}
		fmt.Fprintf(&b, "\nRun \"memory-mcp %s <action> --help\" for an action's flags.\n", c.name)
	} else {
		c.helpFlags(&b, getenv)
	}
	if len(c.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range c.examples {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	return b.String()
}

func (c *command) helpFlags(b *strings.Builder, getenv func(string) string) {
	fs, flags := c.flagSet(getenv)
	if c.bare {
		return
	}
	groups := groupOf()
	byGroup := map[string][]string{}
	var own []string
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case f.Name == "config":
			byGroup["global"] = append(byGroup["global"], f.Name)
		case flags.flagged[f.Name] != nil:
			byGroup[groups[f.Name]] = append(byGroup[groups[f.Name]], f.Name)
		default:
			own = append(own, f.Name)
		}
	})
	list := func(title string, names []string) {
		if len(names) == 0 {
			return
		}
		fmt.Fprintf(b, "\n%s:\n", title)
		for _, n := range names {
			writeFlag(b, fs.Lookup(n), flags.flagged[n])
		}
	}
	list("Flags", own)
	for _, g := range settingGroups {
		list(g.title, byGroup[g.name])
	}
	b.WriteString("\nA setting's flag wins over its environment variable, which wins over the config file.\n")
}

// writeFlag writes one flag: its name and value, then what it does.
func writeFlag(b *strings.Builder, f *flag.Flag, setting *flagValue) {
	name := "--" + f.Name
	if v := valueName(f, setting); v != "" {
		name += " " + v
	}
	usage := f.Usage
	if setting == nil && f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
		usage += " (default " + strconv.Quote(f.DefValue) + ")"
	}
	fmt.Fprintf(b, "  %s\n%s\n", name, wrap(usage, 6, 78))
}

// valueNames are the value names that the last word of a flag's name does
// not say well.
var valueNames = map[string]string{"contains": "TEXT", "reason": "TEXT", "label": "TEXT", "blocks": "JSON", "retention-overrides": "JSON",
	"window": "AGE", "grace": "AGE", "older-than": "AGE", "wait": "DURATION", "addr": "HOST:PORT", "auth": "MODE",
	"config": "FILE", "tls-cert": "FILE", "tls-key": "FILE", "source": "SOURCE", "pairs": "SOURCES"}

// valueName names a flag's value in help: none for a boolean, else from
// the table, a number's N, or the last word of the flag's name.
func valueName(f *flag.Flag, setting *flagValue) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	if v, ok := valueNames[f.Name]; ok {
		return v
	}
	def := f.DefValue
	if setting != nil {
		_, def, _ = strings.Cut(f.Usage, `default "`)
		def = strings.TrimSuffix(def, `")`)
	}
	if _, err := strconv.ParseFloat(def, 64); err == nil {
		return "N"
	}
	words := strings.Split(f.Name, "-")
	return strings.ToUpper(words[len(words)-1])
}

// wrap fills text to width, each line indented by indent spaces.
func wrap(text string, indent, width int) string {
	pad := strings.Repeat(" ", indent)
	var lines []string
	line := pad
	for _, w := range strings.Fields(text) {
		if len(line) > indent && len(line)+1+len(w) > width {
			lines, line = append(lines, line), pad
		}
		if len(line) > indent {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
