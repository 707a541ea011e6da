package consolidation

import (
	"context"
	"slices"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Operator is who a scheduled run acts as when the process is an
// operator's (a human's stdio server, or the team server whatever identity
// it was started with): no caller asked for it, so it is no agent.
var Operator = memory.Identity{AgentID: "maintenance", Human: true}

// Schedule maintains memories once per Config.Interval until ctx is done
// (0 turns it off), for whom as may maintain: a human operator's process
// every agent's, as an operator (the team server passes Operator, whatever
// identity it runs as: its agents have no process of their own); an
// agent's process its own, as itself, since its configuration (retention,
// cap, strategy, model endpoint) is its own to apply, not to every agent's
// memories. The interval is the data directory's, not
// the process's: each process looks for agents no run has maintained for
// an interval (RunDue), so that many short-lived processes do the work
// once between them. It first looks a minute after it starts (or after
// the interval, if shorter), out of the way of the client's first calls,
// then every hour (or interval). Each look also purges (Collect) what was
// forgotten, retracted or expired more than Config.GCGrace ago, when that
// is positive: the same memories as above, as the same identity.
func (s *Service) Schedule(ctx context.Context, as memory.Identity) {
	every := s.Config.Interval
	if every <= 0 {
		return
	}
	t := time.NewTimer(min(every, time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.RunDue(ctx, as)
		if s.Config.GCGrace > 0 {
			s.collectDue(ctx, as)
		}
		t.Reset(min(every, time.Hour))
	}
}

// RunDue runs consolidation for each agent with personal memories that no
// run has maintained for Config.Interval, of those as may maintain (see
// Schedule), and returns the reports. When another run holds the lease it
// stops and leaves the rest to its next look; an agent whose run fails is
// logged and passed over.
func (s *Service) RunDue(ctx context.Context, as memory.Identity) []memory.ConsolidationReport {
	agents, err := s.Agents(ctx, s.DB.Now.Now().Add(-s.Config.Interval))
	if err != nil {
		s.log().Error("scheduled consolidation: list agents", "err", err)
		return nil
	}
	if as.Human {
		as = Operator
	} else {
		agents = slices.DeleteFunc(agents, func(a string) bool { return a != as.AgentID })
	}
	var out []memory.ConsolidationReport
	for _, agent := range agents {
		start := time.Now()
		rep, err := s.Consolidate(memory.WithIdentity(ctx, as), memory.ConsolidationRequest{AgentID: agent})
		switch {
		case ctx.Err() != nil:
			return out
		case err != nil:
			s.log().Error("scheduled consolidation failed", "agent", agent, "err", err)
			continue
		case rep.Skipped != "":
			s.log().Info("scheduled consolidation skipped", "agent", agent, "why", rep.Skipped)
			return append(out, rep)
		}
		s.log().Info("scheduled consolidation", "agent", agent, "groups", len(rep.Groups), "consolidated", rep.Consolidated,
			"retention", rep.Retention, "over_cap", rep.OverCap, "expired", rep.Expired, "active_before", rep.ActiveBefore, "active_after", rep.ActiveAfter, "took", time.Since(start).Round(time.Millisecond))
		out = append(out, rep)
	}
	return out
}

// Agents lists the agents that have personal memories in search; with a
// non-zero notRunSince, only those no run has maintained since.
func (s *Service) Agents(ctx context.Context, notRunSince time.Time) ([]string, error) {
	var agents []string
	err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
		agents, err = tx.PersonalAgents(ctx, notRunSince)
		return err
	})
	return agents, err
}
