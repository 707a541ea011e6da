package consolidation

import (
	"context"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// gcBatch is how many memories one gc transaction purges: each batch is
// its own transaction (with its own audit row), so that a large purge
// never holds the write lock for long.
const gcBatch = 500

// Collection is what a gc run purged.
type Collection struct {
	// Erased sums the run's batches (Erasure is the last batch's audit row).
	Erased memory.ErasureReport
	// Batches is how many transactions purged something.
	Batches int
	// Skipped says why nothing was done: another maintenance run holds the
	// data directory's lease.
	Skipped string
}

// Collect purges for good the memories forgotten, retracted or expired more
// than grace ago (seed 003, 12.7.5: the soft delete is the first phase,
// this the second): agent's, or every agent's for "" (a human's call only).
// It holds the maintenance lease, so one maintenance run at a time per data
// directory, and ends with a scrub of the database file when one is owed:
// it purged anything, or an earlier erase's or gc's scrub did not complete. Retracted org facts are not collected: the fact log is the
// organisation's history, read back as of any time; erase removes a fact
// that must go.
func (s *Service) Collect(ctx context.Context, agent string, grace time.Duration) (Collection, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return Collection{}, err
	}
	if agent != who.AgentID && !who.Human {
		return Collection{}, memory.Errorf(memory.EFORBIDDEN, "only a human operator may purge other agents' memories")
	}
	h, skipped, err := s.acquire(ctx)
	if err != nil || h == nil {
		return Collection{Skipped: skipped}, err
	}
	defer h.release(ctx, "", false)
	out := Collection{Erased: memory.ErasureReport{Counts: map[string]int{}}}
	before := s.DB.Now.Now().Add(-grace)
	for {
		var rep memory.ErasureReport
		_, err := h.write(ctx, func(tx *store.Tx, _ store.Lease) (err error) {
			rep, err = tx.Collect(ctx, who, store.Collection{Agent: agent, Before: before, Grace: grace, Limit: gcBatch})
			return err
		})
		if err != nil {
			return out, fmt.Errorf("gc: %w", err)
		}
		if rep.Total() == 0 {
			break
		}
		out.Batches++
		for k, n := range rep.Counts {
			out.Erased.Counts[k] += n
		}
		out.Erased.Restored += rep.Restored
		out.Erased.Erasure, out.Erased.ErasedSHA256 = rep.Erasure, rep.ErasedSHA256
		if rep.Counts[memory.ErasedMemories] < gcBatch {
			break
		}
	}
	// The scrub owed is paid whether or not this run purged anything: an
	// earlier erase or gc whose own scrub failed is finished here.
	if out.Erased.Scrubbed, out.Erased.ScrubOwed, err = s.DB.ScrubOwed(ctx); err != nil || out.Erased.ScrubOwed {
		s.log().Warn("the database file was not rewritten or its write-ahead log not emptied (another process reading?); the scrub stays owed to the next erase, gc or server start", "err", err)
	}
	return out, nil
}

// collectDue is the scheduler's gc: every agent's for an operator's
// process, its own agent's for an agent's (see Schedule).
func (s *Service) collectDue(ctx context.Context, as memory.Identity) {
	agent := as.AgentID
	if as.Human {
		as, agent = Operator, ""
	}
	start := time.Now()
	c, err := s.Collect(memory.WithIdentity(ctx, as), agent, s.Config.GCGrace)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		s.log().Error("scheduled gc failed", "err", err)
	case c.Skipped != "":
		s.log().Info("scheduled gc skipped", "why", c.Skipped)
	case c.Batches > 0:
		s.log().Info("scheduled gc", "memories", c.Erased.Counts[memory.ErasedMemories], "batches", c.Batches,
			"scrubbed", c.Erased.Scrubbed, "took", time.Since(start).Round(time.Millisecond))
	case c.Erased.Scrubbed:
		s.log().Info("scheduled gc purged nothing and finished the scrub an earlier erase or gc owed", "took", time.Since(start).Round(time.Millisecond))
	}
}
