package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	memory "github.com/memory-mcp/memory-mcp"
)

// trendAgents bounds the agents whose active memories a trend follows.
const trendAgents = 8

// Trends counts, per step of q, the conflicts between memories found and
// decided, the memories consolidated into a summary, and each agent's active
// personal memories at the step's end. Each figure is one grouped scan: at
// 100k memories, reading the rows into Go per step would cost more than the
// page can wait. The active counts follow a memory from its creation to when
// it was first forgotten or archived; one restored since counts as active
// throughout, and expiry is not followed (memory_stats counts the present
// exactly).
func (s *MemoryService) Trends(ctx context.Context, q memory.TrendQuery) (memory.MemoryTrends, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.MemoryTrends{}, err
	}
	if !who.Human {
		return memory.MemoryTrends{}, memory.Errorf(memory.EFORBIDDEN, "trends count every agent's memories, for a human; you are %s: memory_stats counts your own", who.Describe())
	}
	if err := q.Check(); err != nil {
		return memory.MemoryTrends{}, err
	}
	out := memory.MemoryTrends{Active: []memory.AgentCounts{}}
	since, step := nanos(q.Since()), int64(q.Step)
	err = s.db.View(ctx, func(tx *Tx) error {
		var err error
		if out.ConflictsOpened, err = tx.perStep(ctx, q, `SELECT (detected_at - ?1) / ?2, count(*) FROM memory_conflicts
			WHERE detected_at >= ?1 GROUP BY 1`, since, step); err != nil {
			return err
		}
		if out.ConflictsSettled, err = tx.perStep(ctx, q, `SELECT (resolved_at - ?1) / ?2, count(*) FROM memory_conflicts
			WHERE resolved_at >= ?1 GROUP BY 1`, since, step); err != nil {
			return err
		}
		if out.Consolidated, err = tx.perStep(ctx, q, `SELECT (archived_at - ?1) / ?2, count(*) FROM memories
			WHERE archive_reason = 'consolidated' AND archived_at >= ?1 GROUP BY 1`, since, step); err != nil {
			return err
		}
		out.Active, err = tx.activeTrend(ctx, q, since, step)
		return err
	})
	return out, err
}

// perStep runs a query of (step, count) rows into counts per step.
func (tx *Tx) perStep(ctx context.Context, q memory.TrendQuery, query string, args ...any) ([]int, error) {
	rows, err := tx.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("trend: %w", err)
	}
	defer rows.Close()
	out := make([]int, q.Steps)
	for rows.Next() {
		var i int64
		var n int
		if err := rows.Scan(&i, &n); err != nil {
			return nil, err
		}
		if i >= 0 && i < int64(q.Steps) {
			out[i] += n
		}
	}
	return out, rows.Err()
}

// activeTrend counts each agent's memories by the step they were written in
// (-1: before the window) and the step they left search in (none: still in
// it), then adds them up per step's end.
func (tx *Tx) activeTrend(ctx context.Context, q memory.TrendQuery, since, step int64) ([]memory.AgentCounts, error) {
	// Written in what both engines read alike: CASE for the scalar min and
	// max, which PostgreSQL spells otherwise.
	rows, err := tx.query(ctx, `SELECT agent_id, CASE WHEN created_at < ?1 THEN -1 ELSE (created_at - ?1) / ?2 END AS born,
		(gone - ?1) / ?2 AS left_at, count(*)
		FROM (SELECT agent_id, created_at, CASE WHEN forgotten_at IS NULL THEN archived_at WHEN archived_at IS NULL THEN forgotten_at
			WHEN forgotten_at < archived_at THEN forgotten_at ELSE archived_at END AS gone FROM memories WHERE shared = 0) m
		WHERE gone IS NULL OR gone >= ?1 GROUP BY 1, 2, 3`, since, step)
	if err != nil {
		return nil, fmt.Errorf("active trend: %w", err)
	}
	defer rows.Close()
	per := map[string][]int{}
	for rows.Next() {
		var agent string
		var born int64
		var gone sql.NullInt64
		var n int
		if err := rows.Scan(&agent, &born, &gone, &n); err != nil {
			return nil, err
		}
		if per[agent] == nil {
			per[agent] = make([]int, q.Steps)
		}
		for i := max(born, 0); i < int64(q.Steps); i++ {
			if gone.Valid && gone.Int64 <= i {
				break
			}
			per[agent][i] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]memory.AgentCounts, 0, len(per))
	for a, c := range per {
		out = append(out, memory.AgentCounts{AgentID: a, Counts: c})
	}
	slices.SortFunc(out, func(a, b memory.AgentCounts) int {
		if d := cmp.Compare(b.Counts[q.Steps-1], a.Counts[q.Steps-1]); d != 0 {
			return d
		}
		return cmp.Compare(a.AgentID, b.AgentID)
	})
	return out[:min(len(out), trendAgents)], nil
}

// Agents lists every agent that has kept memories, with its active personal
// and shared ones, from memory_spaces (kept by triggers): one row per agent
// and space, however many memories it holds. An agent appears once it has
// had one memory in search, and stays when none is left.
func (s *MemoryService) Agents(ctx context.Context) ([]memory.AgentMemories, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return nil, err
	}
	if !who.Human {
		return nil, memory.Errorf(memory.EFORBIDDEN, "the list of agents is for a human; you are %s: memory_stats counts your own", who.Describe())
	}
	out := []memory.AgentMemories{}
	err = s.db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, `SELECT agent_id, shared, rows FROM memory_spaces ORDER BY agent_id, shared`)
		if err != nil {
			return fmt.Errorf("list agents: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var agent string
			var shared, n int
			if err := rows.Scan(&agent, &shared, &n); err != nil {
				return err
			}
			if len(out) == 0 || out[len(out)-1].AgentID != agent {
				out = append(out, memory.AgentMemories{AgentID: agent})
			}
			if a := &out[len(out)-1]; shared == 1 {
				a.Shared = n
			} else {
				a.Personal = n
			}
		}
		return rows.Err()
	})
	return out, err
}
