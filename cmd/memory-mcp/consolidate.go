package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
)

// consolidateFlags are the flags of `memory-mcp consolidate` beside the
// server's.
type consolidateFlags struct {
	allAgents bool
	strategy  string
	olderThan string
	dryRun    bool
	wait      time.Duration
	noWait    bool
}

func (f *consolidateFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.allAgents, "all-agents", false, "consolidate every agent that has personal memories, one after another (needs --human)")
	fs.StringVar(&f.strategy, "strategy", "", "how a group becomes a summary: simple, dual_mode or llm (default: the consolidation-strategy setting)")
	fs.StringVar(&f.olderThan, "older-than", "", "consolidate only memories written longer ago than this, e.g. 36h or 7d; 0: all (default: the consolidation-older-than setting)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print each group, its sources, how it would be summarised and the summary, and change nothing")
	// An operator who runs the command wants the work done, and the run
	// in the way is most often a server's scheduled one that ends soon,
	// or a crashed one whose lease expires within consolidation-lease.
	fs.DurationVar(&f.wait, "wait", 10*time.Minute, "while another maintenance run holds the data directory, wait this long for it, then fail")
	fs.BoolVar(&f.noWait, "no-wait", false, "while another maintenance run holds the data directory, skip at once (and exit 0), saying who holds it")
}

// consolidate runs consolidation from the command line, over the
// configured agent's memories or, with --all-agents, every agent's. What
// changed (or, dry, would) goes to stdout, a line per agent; progress,
// waiting and logs go to stderr.
func consolidate(ctx context.Context, cfg *Config, f *consolidateFlags, stdout, stderr io.Writer) error {
	req := memory.ConsolidationRequest{DryRun: f.dryRun}
	var err error
	if req.Strategy, err = memory.ParseConsolidationStrategy(f.strategy); err != nil {
		return fmt.Errorf("--strategy: %s", errorText(err))
	}
	if req.OlderThan, err = memory.ParseAge("--older-than", f.olderThan); err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	if f.allAgents && !cfg.Identity.Human {
		return fmt.Errorf("--all-agents consolidates other agents' memories, which only a human operator may: add --human, or leave --all-agents out to consolidate %s's own", cfg.Identity.AgentID)
	}
	log := newLogger(cfg, stderr)
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	emb, err := newEmbedder(ctx, cfg)
	if err != nil {
		log.Error("embedder unavailable: summaries are stored without a vector until `memory-mcp reindex --missing`", "embedder", cfg.Embedder, "err", err)
		emb = nil
	}
	emb = inForce(ctx, cfg, db, emb, log)
	svc := newConsolidation(cfg, db, emb, log, "consolidate")
	agents := []string{cfg.Identity.AgentID}
	if f.allAgents {
		if agents, err = svc.Agents(ctx, time.Time{}); err != nil {
			return err
		}
		if len(agents) == 0 {
			fmt.Fprintln(stdout, "no agent has personal memories to consolidate")
		}
	}
	ctx = memory.WithIdentity(ctx, cfg.Identity)
	terminal := isTerminal(stderr)
	for _, agent := range agents {
		req.AgentID = agent
		rep, took, err := consolidateAgent(ctx, svc, req, f, stderr, terminal)
		if err != nil {
			return fmt.Errorf("consolidate %s: %w", agent, err)
		}
		printReport(stdout, rep, took)
	}
	return nil
}

// consolidateAgent runs one agent's consolidation, waiting (up to --wait,
// unless --no-wait) while another run holds the lease, and draws its
// progress on stderr. It returns the report and how long the run took
// (without the wait).
func consolidateAgent(ctx context.Context, svc *consolidation.Service, req memory.ConsolidationRequest, f *consolidateFlags,
	stderr io.Writer, terminal bool) (memory.ConsolidationReport, time.Duration, error) {
	deadline := time.Now().Add(f.wait)
	said := ""
	for {
		start := time.Now()
		svc.Progress = progressLines(stderr, "consolidate "+req.AgentID, "groups")
		if terminal {
			svc.Progress = progressBar(stderr, "consolidate "+req.AgentID, start)
		}
		rep, err := svc.Consolidate(ctx, req)
		took := time.Since(start)
		if terminal && rep.Skipped == "" {
			fmt.Fprintln(stderr)
		}
		if err != nil || rep.Skipped == "" || f.noWait {
			return rep, took, err
		}
		if time.Now().After(deadline) {
			return rep, took, fmt.Errorf("gave up after waiting %s (--wait): %s", f.wait, rep.Skipped)
		}
		if rep.Skipped != said {
			fmt.Fprintf(stderr, "consolidate %s: waiting up to %s (--no-wait skips instead): %s\n", req.AgentID, f.wait, rep.Skipped)
			said = rep.Skipped
		}
		select {
		case <-ctx.Done():
			return rep, 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// printReport writes an agent's line (and, for a dry run, its groups).
func printReport(w io.Writer, r memory.ConsolidationReport, took time.Duration) {
	if r.Skipped != "" {
		fmt.Fprintf(w, "%s: skipped: %s\n", r.AgentID, r.Skipped)
		return
	}
	verb := "consolidated"
	if r.DryRun {
		verb = "would consolidate"
	}
	fmt.Fprintf(w, "%s: %s %d memories into %d summaries (%s); active memories %d -> %d, tokens %d -> %d", r.AgentID, verb,
		r.Consolidated, len(r.Groups), r.Strategy, r.ActiveBefore, r.ActiveAfter, r.TokensBefore, r.TokensAfter)
	for _, a := range []struct {
		n   int
		why string
	}{{r.Retention, "by retention"}, {r.OverCap, "over the cap"}, {r.Expired, "expired"}} {
		if a.n > 0 {
			fmt.Fprintf(w, "; archived %d %s", a.n, a.why)
		}
	}
	fmt.Fprintf(w, "; %d memories in %s (%.0f/s)", r.ActiveBefore, took.Round(time.Millisecond), float64(r.ActiveBefore)/max(took.Seconds(), 1e-3))
	if !r.DryRun {
		fmt.Fprintf(w, ", longest write %s", r.LongestWrite.Round(10*time.Microsecond))
	}
	fmt.Fprintln(w)
	if !r.DryRun {
		return
	}
	for i, g := range r.Groups {
		fmt.Fprintf(w, "  group %d: %s/%s, %s: keeps %s; summarises %s\n", i+1, g.Namespace, g.Category, g.Mode,
			cmp.Or(g.Kept, "none"), strings.Join(g.Sources, ", "))
		for _, line := range strings.Split(g.Summary, "\n") {
			fmt.Fprintf(w, "    | %s\n", line)
		}
	}
}

// progressLines says how far a run is in plain lines, for a stderr that is
// not a terminal (a log, a pipe): one when it starts, then one at each
// tenth of the way.
func progressLines(w io.Writer, label, unit string) func(done, total int) {
	last := -1
	return func(done, total int) {
		tenth := 10
		if total > 0 {
			tenth = 10 * done / total
		}
		if tenth == last {
			return
		}
		last = tenth
		fmt.Fprintf(w, "%s: %d/%d %s (%d%%)\n", label, done, total, unit, 10*tenth)
	}
}

// isTerminal reports whether w is a terminal, where a bar can redraw itself.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// holderName names this process in the maintenance lease, for the
// messages of the runs that wait for it.
func holderName(cmd string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("memory-mcp %s, pid %d on %s", cmd, os.Getpid(), cmp.Or(host, "this machine"))
}
