// Command memory-mcp is a Model Context Protocol server that gives LLM agents
// governed, persistent memory in one SQLite file.
//
// Usage:
//
//	memory-mcp [stdio] [flags]   serve MCP over stdin/stdout (the default)
//	memory-mcp serve [flags]     serve MCP over streamable HTTP at /mcp, for a team
//	memory-mcp token add|list|revoke  manage the HTTP server's bearer tokens
//	memory-mcp config [flags]    print the resolved configuration and where each value came from
//	memory-mcp replay [flags]    rebuild the shared state from the promotion ledger
//	memory-mcp reindex [flags]   re-embed the stored memories with the configured embedder
//	memory-mcp consolidate [flags] consolidate older memories into summaries, archiving the originals
//	memory-mcp stats [flags]     print the write metrics
//	memory-mcp erase [flags]     remove stored content for good (humans only)
//	memory-mcp gc [flags]        purge memories forgotten, retracted or expired past the grace period
//	memory-mcp verify [flags]    check every stored row against its provenance stamp
//	memory-mcp finetune [flags]  adapt the embedder to the stored memories and facts
//	memory-mcp backup PATH       write a verified online backup of the data directory's database
//	memory-mcp restore PATH      restore a backup into the configured, empty data directory
//	memory-mcp export [flags]    write the memory in the portable export format (JSON Lines)
//	memory-mcp import FILE       read an export into the data directory
//	memory-mcp version           print the version (also --version)
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
	cmd := "stdio"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	} else if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		cmd = "version"
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "memory-mcp", buildVersion())
		return nil
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	var staleOnly bool
	var err error
	var path string // backup's and restore's file
	var own func(*flag.FlagSet)
	cons := &consolidateFlags{}
	st := &statsFlags{}
	er := &eraseFlags{}
	gf := &gcFlags{}
	vf := &verifyFlags{}
	tf := &tokenFlags{}
	ft := &finetuneFlags{}
	ex := &exportFlags{}
	im := &importFlags{}
	switch cmd {
	case "reindex":
		args, staleOnly = cutFlag(args, "missing")
	case "consolidate":
		own = cons.define
	case "stats":
		own = st.define
	case "erase":
		own = er.define
	case "gc":
		own = gf.define
	case "verify":
		own = vf.define
	case "token":
		if args, tf, err = cutTokenVerb(args); err != nil {
			return err
		}
		own = tf.define
	case "finetune":
		own = ft.define
	case "backup", "restore":
		if path, args, err = cutPath(cmd, args); err != nil {
			return err
		}
	case "export":
		own = ex.define
	case "import":
		if im.file, args, err = cutPath(cmd, args); err != nil {
			return err
		}
		own = im.define
	}
	cfg, err := loadConfig(args, getenv, stderr, own)
	if err != nil {
		return err
	}
	switch cmd {
	case "stdio":
		return serveStdio(ctx, cfg, stdin, stdout, stderr)
	case "serve":
		return serveHTTP(ctx, cfg, stderr)
	case "token":
		return token(ctx, cfg, tf, stdout, stderr)
	case "config":
		cfg.Describe(stdout)
		return nil
	case "replay":
		return replay(ctx, cfg, stdout)
	case "reindex":
		return reindex(ctx, cfg, staleOnly, stderr)
	case "consolidate":
		return consolidate(ctx, cfg, cons, stdout, stderr)
	case "stats":
		return stats(ctx, cfg, st, stdout)
	case "erase":
		return erase(ctx, cfg, er, stdout, stderr)
	case "gc":
		return gc(ctx, cfg, gf, stdout, stderr)
	case "verify":
		return verify(ctx, cfg, vf, stdout)
	case "finetune":
		return fineTune(ctx, cfg, ft, stdout, stderr)
	case "backup":
		return backup(ctx, cfg, path, stdout)
	case "restore":
		return restore(ctx, cfg, path, stdout)
	case "export":
		return export(ctx, cfg, ex, stdout, stderr)
	case "import":
		return importFile(ctx, cfg, im, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

const usage = `usage: memory-mcp [command] [flags]

commands:
  stdio     serve MCP over stdin/stdout (the default)
  serve     serve MCP over streamable HTTP at /mcp for a team (--addr, default
            127.0.0.1:8080), each request acting as the identity of its bearer
            token (--auth token), of its OAuth access token (--auth oauth), or,
            on loopback only, as the configured identity (--auth none)
  token     the HTTP server's bearer tokens: token add --agent-id ID --seniority
            LEVEL [--autonomy LEVEL] [--human] [--label TEXT] prints a new token
            once; token list; token revoke ID
  config    print the resolved configuration and where each value came from
  replay    rebuild every shared table from the promotion ledger (events_memory)
  reindex   re-embed every memory with the configured embedder (--missing: only
            those without a vector from it), e.g. after changing --embedder
  consolidate
            consolidate the configured agent's older memories into summaries, or
            every agent's with --all-agents (as --human); --strategy, --older-than,
            --dry-run (print what would change), --wait/--no-wait (while another
            run holds the data directory); see "memory-mcp consolidate -h"
  stats     print the write metrics: calls of tools that write, their outcomes,
            the acceptance and dedup hit rates, refusals and each gate's latency
            (--window 24h, --json)
  erase     remove stored content for good, as a human (--human): --id (repeat),
            --agent-id (whose memories; your own id then comes from the
            environment or config file), --contains, --reason (required),
            --dry-run; see "memory-mcp erase -h"
  gc        purge memories forgotten, retracted or expired longer ago than
            --grace (default: the gc-grace setting, 30d), the configured
            agent's or every agent's with --all-agents (as --human)
  verify    check every memory, fact operation, ledger event and block
            version against its provenance stamp; lists the rows that do not
            match (by id) and fails if any; --json; --trust-unstamped first
            stamps the rows written before stamps, trusting them as they are
  finetune  adapt the embedder to the stored facts and memories, as a human
            (--human): train an adapter, measure it on held-out pairs and
            deploy it if it does better (--source, --agent-id, --namespace,
            --dry-run, --eval-only, --rollback); see "memory-mcp finetune -h"
  backup PATH
            write a consistent backup of the database while servers run, and
            verify it (integrity, migrations, provenance stamps); the key goes
            to PATH.key. Scheduled: --backup-dir, --backup-interval, --backup-keep
  restore PATH
            restore a backup into the configured data directory, which must be
            empty; the key comes from PATH.key or MEMORY_MCP_PROVENANCE_KEY
  export    write the memory as JSON Lines (docs/export.md) to standard output
            or --output FILE: --agent-id (an agent exports only its own),
            --namespace, --since, --until; --markdown DIR renders it for people
  import FILE
            read an export, as a human (--human): exact into an empty store,
            else through the write gates (--dry-run says what would change);
            or another tool's memory as your own (--format official-memory,
            claude-md, markdown or mem0; detected when not given)
  version   print the version (also --version)
  help      print this text

Run "memory-mcp stdio -h" for the flags; every flag can also be set in the
environment (MEMORY_MCP_<FLAG>) or in the JSON config file.
`

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
