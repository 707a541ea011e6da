package consolidation

import (
	"context"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// batch is how many memories retention archives in one transaction, so
// that searches and writes wait for no more than one batch.
const batch = 500

// retain archives the agent's expired memories (they leave the indexes)
// and those older than their category's retention period, and counts them
// in rep. A dry run returns the ids it would archive, which the rest of
// the run then leaves out.
func (s *Service) retain(ctx context.Context, h *hold, agent string, rep *memory.ConsolidationReport) (map[string]bool, error) {
	gone := map[string]bool{}
	n, err := s.archiveAll(ctx, h, store.Retirement{Agent: agent, Expired: true}, memory.ArchiveExpired, rep, gone)
	if err != nil {
		return nil, err
	}
	rep.Expired += n // expired memories were not counted active
	now := s.DB.Now.Now()
	for _, c := range memory.Categories {
		period, ok := s.Config.Retention.Period(agent, c)
		if !ok {
			continue
		}
		r := store.Retirement{Agent: agent, Category: c, WrittenBefore: now.Add(-period)}
		n, err := s.archiveAll(ctx, h, r, memory.ArchiveRetention, rep, gone)
		if err != nil {
			return nil, err
		}
		rep.Retention += n
	}
	return gone, s.recount(ctx, agent, rep, rep.Retention)
}

// enforceCap archives the agent's least valuable active memories beyond
// Config.MaxMemories.
func (s *Service) enforceCap(ctx context.Context, h *hold, agent string, rep *memory.ConsolidationReport) error {
	if s.Config.MaxMemories <= 0 {
		return nil
	}
	over := rep.ActiveAfter - s.Config.MaxMemories
	if !rep.DryRun {
		var active int
		if err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
			active, err = tx.ActiveCount(ctx, agent)
			return err
		}); err != nil {
			return err
		}
		over = active - s.Config.MaxMemories
	}
	if over <= 0 {
		return nil
	}
	if rep.DryRun {
		// What a run would archive depends on the summaries it would
		// make; the count is what it would come to.
		rep.OverCap = over
		rep.ActiveAfter -= over
		return nil
	}
	for over > 0 {
		n, err := s.archiveBatch(ctx, h, store.Retirement{Agent: agent, LowestValue: true, Limit: min(over, batch)}, memory.ArchiveOverCap, rep)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		rep.OverCap += n
		over -= n
	}
	return s.recount(ctx, agent, rep, rep.OverCap)
}

// archiveAll archives every memory r selects, a batch at a time, and
// returns how many. A dry run (h nil) adds the ids it would archive to gone.
func (s *Service) archiveAll(ctx context.Context, h *hold, r store.Retirement, why memory.ArchiveReason, rep *memory.ConsolidationReport,
	gone map[string]bool) (int, error) {
	if h == nil {
		var ids []string
		r.Limit = -1 // all of them
		err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
			ids, err = tx.Retirements(ctx, r)
			return err
		})
		for _, id := range ids {
			gone[id] = true
		}
		return len(ids), err
	}
	total := 0
	for {
		r.Limit = batch
		n, err := s.archiveBatch(ctx, h, r, why, rep)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}

// archiveBatch archives up to r.Limit memories r selects in one
// transaction of the run holding h.
func (s *Service) archiveBatch(ctx context.Context, h *hold, r store.Retirement, why memory.ArchiveReason, rep *memory.ConsolidationReport) (int, error) {
	var n int
	held, err := h.write(ctx, func(tx *store.Tx, l store.Lease) error {
		ids, err := tx.Retirements(ctx, r)
		if err != nil {
			return err
		}
		n, err = tx.Archive(ctx, l, r.Agent, ids, why)
		return err
	})
	rep.LongestWrite = max(rep.LongestWrite, held)
	return n, err
}

// recount refreshes the report's active count and tokens after archived
// memories left search (not for a dry run, whose counts are computed).
func (s *Service) recount(ctx context.Context, agent string, rep *memory.ConsolidationReport, archived int) error {
	if archived == 0 {
		return nil
	}
	if rep.DryRun {
		rep.ActiveAfter -= archived
		return nil
	}
	var err error
	rep.ActiveAfter, rep.TokensAfter, err = s.active(ctx, agent)
	return err
}
