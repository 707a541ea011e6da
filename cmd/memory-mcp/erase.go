package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// eraseFlags are the flags of `memory-mcp erase`. Its --agent-id selects
// whose memories to erase, as the tool's agent_id does; it shadows the
// agent-id setting, so the operator's own agent id comes from the
// environment or the config file (or the default).
type eraseFlags struct {
	ids      []string
	agent    string
	contains string
	reason   string
	dryRun   bool
}

func (f *eraseFlags) define(fs *flag.FlagSet) {
	fs.Func("id", "a memory id to erase (repeat for more)", func(s string) error { f.ids = append(f.ids, s); return nil })
	fs.StringVar(&f.agent, "agent-id", "", "erase only this agent's memories (with --id or --contains), or all of them (alone); "+
		"your own agent id comes from MEMORY_MCP_AGENT_ID or the config file here")
	fs.StringVar(&f.contains, "contains", "", "a text (at least 3 characters) to remove wherever it is stored")
	fs.StringVar(&f.reason, "reason", "", "why, kept in the audit (required; must not quote what is erased)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print what would be erased and change nothing")
}

// erase runs an erase as the configured identity, which must be a human's.
func erase(ctx context.Context, cfg *Config, f *eraseFlags, stdout, stderr io.Writer) error {
	log := newLogger(cfg, stderr)
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := store.NewMemoryService(db, nil)
	svc.Log = log
	rep, err := svc.Erase(memory.WithIdentity(ctx, cfg.Identity), memory.ErasureRequest{IDs: f.ids, AgentID: f.agent,
		Contains: f.contains, Reason: f.reason, DryRun: f.dryRun})
	if err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	fmt.Fprintln(stdout, tools.RenderErasure(rep))
	return nil
}

// gcFlags are the flags of `memory-mcp gc`.
type gcFlags struct {
	grace     string
	allAgents bool
	wait      time.Duration
}

func (f *gcFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.grace, "grace", "", "purge what was forgotten, retracted or expired longer ago than this, e.g. 30d; 0: all of it now (default: the gc-grace setting)")
	fs.BoolVar(&f.allAgents, "all-agents", false, "purge every agent's memories (needs --human); default: the configured agent's own")
	fs.DurationVar(&f.wait, "wait", 10*time.Minute, "while another maintenance run holds the data directory, wait this long for it, then fail")
}

// gc purges for good what was forgotten, retracted or expired more than
// the grace period ago, under the maintenance lease.
func gc(ctx context.Context, cfg *Config, f *gcFlags, stdout, stderr io.Writer) error {
	grace := cfg.Consolidation.GCGrace
	if f.grace != "" {
		d, err := memory.ParseAge("--grace", f.grace)
		if err != nil {
			return fmt.Errorf("%s", errorText(err))
		}
		grace = *d
	} else if grace == 0 {
		return fmt.Errorf("the gc-grace setting is 0 (no scheduled purge): give --grace, e.g. --grace 30d, or --grace 0 to purge everything forgotten, retracted or expired now")
	}
	agent := cfg.Identity.AgentID
	if f.allAgents {
		if !cfg.Identity.Human {
			return fmt.Errorf("--all-agents purges other agents' memories, which only a human operator may: add --human, or leave --all-agents out to purge %s's own", agent)
		}
		agent = ""
	}
	log := newLogger(cfg, stderr)
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := newConsolidation(cfg, db, nil, log, "gc")
	ctx = memory.WithIdentity(ctx, cfg.Identity)
	deadline := time.Now().Add(f.wait)
	for {
		c, err := svc.Collect(ctx, agent, grace)
		if err != nil {
			return fmt.Errorf("%s", errorText(err))
		}
		if c.Skipped == "" {
			if c.Batches == 0 {
				fmt.Fprintf(stdout, "gc: nothing forgotten, retracted or expired more than %s ago%s\n", grace, tools.RenderScrub(c.Erased))
				return nil
			}
			fmt.Fprintf(stdout, "gc (%d batches, grace %s): %s\n", c.Batches, grace, tools.RenderErasure(c.Erased))
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after waiting %s (--wait): %s", f.wait, c.Skipped)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
