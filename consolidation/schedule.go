package consolidation

import (
	"context"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// Scheduled is who a scheduled run acts as. No caller asked for it, so it
// is not any agent: it acts with an operator's authority over every
// agent's memories (a human's, in the identity's terms), and the summaries
// it writes are recorded as an operator's (human, no seniority or
// autonomy), as when a human runs consolidate_memory for an agent.
var Scheduled = memory.Identity{AgentID: "maintenance", Human: true}

// Schedule maintains every agent's memories once per Config.Interval until
// ctx is done (0 turns it off). The interval is the data directory's, not
// the process's: each process looks for agents no run has maintained for
// an interval (RunDue), so that many short-lived processes do the work
// once between them. It first looks a minute after it starts (or after
// the interval, if shorter), out of the way of the client's first calls,
// then every hour (or interval).
func (s *Service) Schedule(ctx context.Context) {
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
		s.RunDue(ctx)
		t.Reset(min(every, time.Hour))
	}
}

// RunDue runs consolidation, as Scheduled, for each agent with personal
// memories that no run has maintained for Config.Interval, and returns the
// reports. When another run holds the lease it stops and leaves the rest
// to its next look; an agent whose run fails is logged and passed over.
func (s *Service) RunDue(ctx context.Context) []memory.ConsolidationReport {
	agents, err := s.Agents(ctx, s.DB.Now.Now().Add(-s.Config.Interval))
	if err != nil {
		s.log().Error("scheduled consolidation: list agents", "err", err)
		return nil
	}
	var out []memory.ConsolidationReport
	for _, agent := range agents {
		start := time.Now()
		rep, err := s.Consolidate(memory.WithIdentity(ctx, Scheduled), memory.ConsolidationRequest{AgentID: agent})
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
