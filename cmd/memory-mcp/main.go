// Command memory-mcp is a Model Context Protocol server that gives LLM agents
// governed, persistent memory in one SQLite file.
//
// Usage:
//
//	memory-mcp [command] [flags]
//
// "memory-mcp --help" lists the commands, "memory-mcp <command> --help"
// a command's flags and examples.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "memory-mcp:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	inv := &invocation{stdin: stdin, stdout: stdout, stderr: stderr}
	cmds := commands()
	switch {
	case len(args) == 0 || args[0] != "" && args[0][0] == '-' && !isHelp(args[0]) && args[0] != "--version" && args[0] != "-version":
		return cmds[0].execute(ctx, args, getenv, inv) // stdio, the default
	case args[0] == "--version" || args[0] == "-version":
		args[0] = "version"
	case isHelp(args[0]) && len(args) > 1 && !isHelp(args[1]): // help erase, help token add
		args = append(args[1:], "--help")
	case isHelp(args[0]): // help, help help
		fmt.Fprint(stdout, mainHelp(cmds, getenv))
		return nil
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.execute(ctx, args[1:], getenv, inv)
		}
	}
	return fmt.Errorf("unknown command %q\n\n%s", args[0], mainHelp(cmds, getenv))
}

// mainHelp is memory-mcp --help: the commands, a line each, and the global
// flags, once.
func mainHelp(cmds []*command, getenv func(string) string) string {
	var b strings.Builder
	b.WriteString(`memory-mcp gives LLM agents governed, persistent memory over MCP, in one SQLite file.

Usage:
  memory-mcp [command] [flags]

Commands:
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintf(&b, "  %-12s %s\n", "help", "print this text, or a command's help (help erase)")
	b.WriteString(`
Global flags (every command that opens the data directory):
`)
	fs := flag.NewFlagSet("memory-mcp", flag.ContinueOnError)
	flags := defineSettings(fs, getenv, func(name string) bool { return groupOf()[name] == "global" })
	fs.VisitAll(func(f *flag.Flag) { writeFlag(&b, f, flags.flagged[f.Name]) })
	b.WriteString(`
Run "memory-mcp <command> --help" for a command's flags and examples. Each
setting can also be set in the environment (MEMORY_MCP_<NAME>) or in the JSON
config file; "memory-mcp config" prints every value and where it came from.
`)
	return b.String()
}

// commands are memory-mcp's subcommands, stdio (the default) first, each
// with fresh flags.
func commands() []*command {
	var missing bool
	cons, st, er, gf, vf, ft := &consolidateFlags{}, &statsFlags{}, &eraseFlags{}, &gcFlags{}, &verifyFlags{}, &finetuneFlags{}
	ex, im := &exportFlags{}, &importFlags{}
	tf, cf := &tokenFlags{}, &copyFlags{}
	server := []string{"identity", "log", "server", "llm", "embedder", "retrieval", "consolidation", "gates", "backup"}
	return []*command{
		{name: "stdio", synopsis: "serve MCP over stdin/stdout (the default; what a client starts)",
			usage: []string{"memory-mcp [stdio] [flags]"},
			about: "Serves one client over stdin and stdout: stdout carries JSON-RPC only, logs go to stderr. A client such as " +
				"Claude Desktop, Claude Code or Cursor starts it; run by hand in a terminal it waits for a client on stdin.",
			reads: append(server, "finetune"),
			examples: []string{"memory-mcp", "memory-mcp stdio --agent-id ann --seniority senior",
				"MEMORY_MCP_DATA_DIR=/srv/memory memory-mcp stdio --embedder none"},
			run: func(ctx context.Context, c *invocation) error {
				return stopped(ctx, serveStdio(ctx, c.cfg, c.stdin, c.stdout, c.stderr))
			}},
		{name: "serve", synopsis: "serve MCP over streamable HTTP at /mcp, for a team",
			usage: []string{"memory-mcp serve [--addr HOST:PORT] [--auth token|oauth|none] [flags]"},
			about: "Serves many clients over streamable HTTP at /mcp, each request acting as the identity of its bearer token " +
				"(--auth token: tokens from \"memory-mcp token add\"), of its OAuth access token (--auth oauth), or, on a loopback " +
				"address only, as the configured identity (--auth none). /healthz, /readyz and /metrics answer beside it.",
			reads: append(server, "finetune", "http", "oauth"),
			examples: []string{"memory-mcp serve", "memory-mcp serve --addr 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem",
				"memory-mcp serve --auth none --addr 127.0.0.1:8080 --agent-id ann"},
			run: func(ctx context.Context, c *invocation) error { return serveHTTP(ctx, c.cfg, c.stderr) }},
		{name: "token", synopsis: "add, list or revoke the HTTP server's bearer tokens",
			usage: []string{"memory-mcp token add|list|revoke [flags]"},
			about: "A bearer token is the identity a request to \"memory-mcp serve\" acts as. A new token is printed once.",
			subs: []*command{
				{name: "token add", synopsis: "print a new token for an identity, once",
					usage: []string{"memory-mcp token add --agent-id ID --seniority LEVEL [--autonomy LEVEL] [--label TEXT]",
						"memory-mcp token add --agent-id ID --human [--label TEXT]"},
					about: "Prints the new token alone on stdout, so that a script can take it; what to do with it goes to stderr. " +
						"A human's token needs no seniority: humans pass the rules that name one. The operator who adds it (recorded as " +
						"its creator) is the agent-id of the environment or the config file.",
					define: tf.defineAdd,
					examples: []string{"TOKEN=$(memory-mcp token add --agent-id ci-bot --seniority junior --autonomy supervised --label ci)",
						"memory-mcp token add --agent-id olivia --human"},
					run: func(ctx context.Context, c *invocation) error {
						tf.verb = "add"
						return token(ctx, c.cfg, tf, c.stdout, c.stderr)
					}},
				{name: "token list", synopsis: "list every token, revoked ones too",
					usage: []string{"memory-mcp token list [--json]"}, define: tf.defineList,
					examples: []string{"memory-mcp token list", "memory-mcp token list --json"},
					run: func(ctx context.Context, c *invocation) error {
						tf.verb = "list"
						return token(ctx, c.cfg, tf, c.stdout, c.stderr)
					}},
				{name: "token revoke", synopsis: "revoke a token: a server refuses it from its next request on",
					usage: []string{"memory-mcp token revoke ID [flags]"}, arg: "token id (token list shows them)",
					about:    "The revoking operator, kept with the token, is --agent-id.",
					reads:    []string{"agent-id"},
					examples: []string{"memory-mcp token revoke tok-3f9a1c2b7d4e"},
					run: func(ctx context.Context, c *invocation) error {
						tf.verb, tf.id = "revoke", c.arg
						return token(ctx, c.cfg, tf, c.stdout, c.stderr)
					}},
			}},
		{name: "config", synopsis: "print the resolved configuration and where each value came from",
			usage: []string{"memory-mcp config [flags]"},
			about: "Takes every setting as a flag, so that you can see what a command line would resolve to.",
			reads: []string{"all"}, examples: []string{"memory-mcp config", "MEMORY_MCP_EMBEDDER=none memory-mcp config --agent-id ann"},
			run: func(_ context.Context, c *invocation) error { c.cfg.Describe(c.stdout); return nil }},
		{name: "replay", synopsis: "rebuild the shared state (facts, notes) from the promotion ledger",
			usage: []string{"memory-mcp replay [flags]"}, examples: []string{"memory-mcp replay --data-dir /srv/memory"},
			run: func(ctx context.Context, c *invocation) error { return replay(ctx, c.cfg, c.stdout) }},
		{name: "reindex", synopsis: "re-embed the stored memories with the configured embedder",
			usage: []string{"memory-mcp reindex [--missing] [flags]"},
			about: "Run it after changing the embedder, or with --missing when the logs say memories were stored without a vector.",
			reads: []string{"log", "embedder"},
			define: func(fs *flag.FlagSet) {
				fs.BoolVar(&missing, "missing", false, "embed only the memories without a vector from the configured embedder")
			},
			examples: []string{"memory-mcp reindex --missing", "memory-mcp reindex --embedder openai --embedding-model text-embedding-3-small"},
			run:      func(ctx context.Context, c *invocation) error { return reindex(ctx, c.cfg, missing, c.stderr) }},
		{name: "consolidate", synopsis: "consolidate older memories into summaries, archiving the originals",
			usage: []string{"memory-mcp consolidate [--all-agents --human] [--strategy S] [--older-than AGE] [--dry-run] [flags]"},
			about: "Consolidates the configured agent's older memories, or every agent's with --all-agents (as --human). " +
				"What changed (or, with --dry-run, would) goes to stdout, a line per agent; progress and logs go to stderr.",
			// --strategy and --older-than stand for their settings here
			// (which the environment and config file still give).
			reads: []string{"identity", "log", "llm", "embedder", "consolidation", "-consolidation-interval",
				"-consolidation-strategy", "-consolidation-older-than"}, define: cons.define,
			examples: []string{"memory-mcp consolidate --dry-run", "memory-mcp consolidate --all-agents --human --older-than 7d --no-wait"},
			run: func(ctx context.Context, c *invocation) error {
				return consolidate(ctx, c.cfg, cons, c.stdout, c.stderr)
			}},
		{name: "stats", synopsis: "print the write metrics: calls, outcomes, acceptance and dedup rates, refusals, gate latency",
			usage: []string{"memory-mcp stats [--window AGE] [--json] [flags]"}, define: st.define,
			examples: []string{"memory-mcp stats", "memory-mcp stats --window 7d --json"},
			run:      func(ctx context.Context, c *invocation) error { return stats(ctx, c.cfg, st, c.stdout) }},
		{name: "erase", synopsis: "remove stored content for good (humans only)",
			usage: []string{"memory-mcp erase --human --reason TEXT (--id ID ... | --contains TEXT | --agent-id ID) [--dry-run] [flags]"},
			about: "Removes memories (by id, by agent, or wherever a text occurs) from search, the archive, the files and the " +
				"ledger, keeping only an audit of who erased how much and why. Your own identity comes from --human and from " +
				"MEMORY_MCP_AGENT_ID or the config file: --agent-id here names whose memories to erase.",
			reads: []string{"identity", "log"}, define: er.define,
			examples: []string{`memory-mcp erase --human --contains "4111 1111" --reason "card number pasted by mistake" --dry-run`,
				`memory-mcp erase --human --agent-id ann --reason "ann left; request 9"`},
			run: func(ctx context.Context, c *invocation) error { return erase(ctx, c.cfg, er, c.stdout, c.stderr) }},
		{name: "gc", synopsis: "purge memories forgotten, retracted or expired past the grace period",
			usage: []string{"memory-mcp gc [--grace AGE] [--all-agents --human] [flags]"},
			reads: []string{"identity", "log", "consolidation-lease"}, define: gf.define, // --grace stands for gc-grace
			examples: []string{"memory-mcp gc", "memory-mcp gc --all-agents --human --grace 0"},
			run:      func(ctx context.Context, c *invocation) error { return gc(ctx, c.cfg, gf, c.stdout, c.stderr) }},
		{name: "verify", synopsis: "check every stored row against its provenance stamp",
			usage: []string{"memory-mcp verify [--json] [--trust-unstamped] [flags]"},
			about: "Checks every memory, fact operation, ledger event and block version against its provenance stamp, lists " +
				"the rows that do not match (by id) and fails if any does.",
			define: vf.define, examples: []string{"memory-mcp verify", "memory-mcp verify --json"},
			run: func(ctx context.Context, c *invocation) error { return verify(ctx, c.cfg, vf, c.stdout) }},
		{name: "finetune", synopsis: "adapt the embedder to the stored memories and facts (humans only)",
			usage: []string{"memory-mcp finetune --human [--source S] [--dry-run | --eval-only | --rollback] [flags]"},
			about: "Trains an adapter over the embedder, measures it on held-out pairs and deploys it if it does better, " +
				"re-embedding every memory. Your own identity comes from --human and from MEMORY_MCP_AGENT_ID or the config " +
				"file: --agent-id here narrows the memories learned from.",
			reads: []string{"identity", "log", "llm", "embedder", "retrieval"}, define: ft.define,
			examples: []string{"memory-mcp finetune --human --dry-run", "memory-mcp finetune --human --rollback"},
			run:      func(ctx context.Context, c *invocation) error { return fineTune(ctx, c.cfg, ft, c.stdout, c.stderr) }},
		{name: "backup", synopsis: "write a verified online backup of the data directory's database",
			usage: []string{"memory-mcp backup PATH [flags]"}, arg: "file to write the backup to (it must not exist)",
			about: "Copies the database with SQLite's online backup while servers keep writing, checks the copy (integrity, " +
				"migrations, every provenance stamp) and only then names it PATH; the provenance key is written beside it as PATH.key. " +
				"With --database (PostgreSQL) it writes the portable export from one snapshot and reads it back; back the cluster up " +
				"with pg_dump or pg_basebackup (docs/operations.md).",
			reads:    []string{"log"},
			examples: []string{"memory-mcp backup /backups/memory-2026-11-29.db"},
			run:      func(ctx context.Context, c *invocation) error { return backup(ctx, c.cfg, c.arg, c.stdout) }},
		{name: "restore", synopsis: "restore a backup into the configured, empty data directory",
			usage: []string{"memory-mcp restore PATH [flags]"}, arg: "backup file written by memory-mcp backup",
			about: "Refuses a data directory that holds anything. The key is read from PATH.key, or from MEMORY_MCP_PROVENANCE_KEY. " +
				"With --database it imports a backup (a portable one, or a SQLite backup through its export) into an " +
				"empty database.",
			reads:    []string{"log"},
			examples: []string{"memory-mcp restore /backups/memory-2026-11-29.db --data-dir /srv/memory"},
			run:      func(ctx context.Context, c *invocation) error { return restore(ctx, c.cfg, c.arg, c.stdout) }},
		{name: "copy", synopsis: "copy the data directory's SQLite memory into a new PostgreSQL database",
			usage: []string{"memory-mcp copy --to postgres://user@host:5432/db [flags]"},
			about: "Copies every table as it is stored (ids, history, archive, tokens, provenance stamps) into an empty " +
				"PostgreSQL database in one transaction, then checks that each table holds the rows it held and that every " +
				"stamped row verifies under the data directory's provenance key. Stop the servers on the data directory first.",
			reads: []string{"log"}, define: cf.define,
			examples: []string{"memory-mcp copy --data-dir /srv/memory --to postgres://memory@db.example.com:5432/memory?sslmode=require"},
			run:      func(ctx context.Context, c *invocation) error { return copyToPostgres(ctx, c.cfg, cf, c.stdout) }},
		{name: "export", synopsis: "write the memory in the portable export format (JSON Lines), or as Markdown",
			usage: []string{"memory-mcp export [--output FILE] [--agent-id ID] [--namespace NS] [--since T] [--until T] [flags]",
				"memory-mcp export --markdown DIR [flags]"},
			about: "Writes facts with their operation log, memories in every state, conflicts, blocks with their versions, notes, " +
				"the ledger, pending writes and approvals (docs/export.md). An agent exports only its own memory; a human, with " +
				"--human, anyone's. Your own identity comes from --human and from MEMORY_MCP_AGENT_ID or the config file: " +
				"--agent-id here names whose memory to export.",
			reads: []string{"identity", "log"}, define: ex.define,
			examples: []string{"memory-mcp export --output memory.jsonl", "memory-mcp export --human --agent-id ann --since 2026-11-01",
				"memory-mcp export --markdown ./memory-md"},
			run: func(ctx context.Context, c *invocation) error { return export(ctx, c.cfg, ex, c.stdout, c.stderr) }},
		{name: "import", synopsis: "read an export, or another tool's memory, into the data directory",
			usage: []string{"memory-mcp import FILE [--format F] [--dry-run] [flags]"}, arg: "file (or folder of Markdown notes) to import",
			about: "A memory-mcp export goes into an empty store exactly, or through the write gates into one that holds memory. " +
				"Another tool's memory (the official memory server's memory.jsonl, CLAUDE.md or MEMORY.md, Markdown notes with " +
				"front matter, mem0's export) becomes your own memories through the write gates.",
			reads: []string{"identity", "log", "embedder"}, define: im.define,
			examples: []string{"memory-mcp import memory.jsonl --human", "memory-mcp import ~/.claude/CLAUDE.md --dry-run",
				"memory-mcp import notes/ --format markdown"},
			run: func(ctx context.Context, c *invocation) error {
				im.file = c.arg
				return importFile(ctx, c.cfg, im, c.stdout, c.stderr)
			}},
		{name: "version", synopsis: "print the version (also --version)", usage: []string{"memory-mcp version"}, bare: true,
			run: func(_ context.Context, c *invocation) error {
				fmt.Fprintln(c.stdout, "memory-mcp", buildVersion())
				return nil
			}},
	}
}

// stopped is a server's error, but none when the server ended because it was
// told to stop (SIGTERM, or Ctrl-C in a terminal): that is how a client ends
// it, and no failure.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
