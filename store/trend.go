package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"

	memory "github.com/memory-mcp/memory-mcp"
)

// trendAgents bounds the agents whose active memories a trend follows.
const trendAgents = 8

// Trends counts, per step of q, the conflicts between memories found and
// decided, the memories consolidated into a summary, and each agent's active
// personal memories at the step's end. Each figure is grouped in SQL: at
// 100k memories, reading the rows into Go per step would cost more than the
// page can wait. The active counts follow a memory from its creation to when
// it was first forgotten or archived, counted back from the present (see
// activeTrend); one restored since counts as active throughout, and expiry
// is not followed (memory_stats counts the present exactly).
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

// activeTrend counts each agent's active personal memories at each step's
// end without reading every memory: a memory is active at a step's end
// when it was written before it and left search (was first forgotten or
// archived) after it, or has not left. Counted back from the memories
// active now (memory_counts' kept counts), only the memories written,
// forgotten or archived since the window began change a step's figure, and
// those are read from indexes (migration 0049), so the cost grows with
// what the window saw, not with the store. One restored since counts as
// active throughout, and expiry is not followed, as memory_counts' active
// state does not follow it. Two statements serve every agent: the kept
// counts, then what the window saw, grouped by agent.
func (tx *Tx) activeTrend(ctx context.Context, q memory.TrendQuery, since, step int64) ([]memory.AgentCounts, error) {
	active, err := tx.activeNow(ctx)
	if err != nil {
		return nil, err
	}
	ids := slices.Sorted(maps.Keys(active))
	per, err := tx.activeSteps(ctx, q, ids, since, step)
	if err != nil {
		return nil, err
	}
	for agent, n := range active {
		counts := per[agent]
		if counts == nil && n == 0 {
			continue // no memory in search within the window: no line of the chart
		}
		if counts == nil {
			counts = make([]int, q.Steps)
			per[agent] = counts
		}
		for i := range counts {
			counts[i] += n
		}
	}
	return topAgents(per, q.Steps), nil
}

// activeNow is each agent's active personal memories now, by the kept
// counts, for every agent that has kept a personal memory.
func (tx *Tx) activeNow(ctx context.Context) (map[string]int, error) {
	rows, err := tx.query(ctx, `SELECT agent_id, CAST(sum(CASE WHEN state = 'active' THEN n ELSE 0 END) AS BIGINT)
		FROM memory_counts WHERE shared = 0 GROUP BY agent_id`)
	if err != nil {
		return nil, fmt.Errorf("active trend: %w", err)
	}
	active := map[string]int{}
	for rows.Next() {
		var agent string
		var n int
		if err := rows.Scan(&agent, &n); err != nil {
			rows.Close()
			return nil, err
		}
		active[agent] = n
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("active trend: %w", err)
	}
	return active, nil
}

// topAgents are the trendAgents agents of per with the most active
// memories at the last step's end (a tie by id), with their counts.
func topAgents(per map[string][]int, steps int) []memory.AgentCounts {
	out := make([]memory.AgentCounts, 0, len(per))
	for a, c := range per {
		out = append(out, memory.AgentCounts{AgentID: a, Counts: c})
	}
	slices.SortFunc(out, func(a, b memory.AgentCounts) int {
		if d := cmp.Compare(b.Counts[steps-1], a.Counts[steps-1]); d != 0 {
			return d
		}
		return cmp.Compare(a.AgentID, b.AgentID)
	})
	return out[:min(len(out), trendAgents)]
}

// activeSteps counts, for each of agents that had a memory in search
// within the window, how its active personal memories at each step's end
// differ from those active now. The memories read are those written since
// the window began (memories_listing) and those written before it that
// left search within it or since, forgotten (memories_forgotten) or else
// archived (memories_archived_at): disjoint, each read from its index
// alone, one agent after another (agent_id leads each index, so the list
// of agents is what lets one statement seek them all). Of them, each
// counts at the steps it was active at, and those still active now are
// taken out, since the count now counted them at every step.
func (tx *Tx) activeSteps(ctx context.Context, q memory.TrendQuery, agents []string, since, step int64) (map[string][]int, error) {
	// CASE for the scalar min, which PostgreSQL spells otherwise.
	const gone = `CASE WHEN forgotten_at IS NULL THEN archived_at WHEN archived_at IS NULL THEN forgotten_at
		WHEN forgotten_at < archived_at THEN forgotten_at ELSE archived_at END`
	const mine = `agent_id IN (SELECT value FROM json_each(?1)) AND shared = 0`
	rows, err := tx.query(ctx, `SELECT agent_id, CASE WHEN created_at < ?2 THEN -1 ELSE (created_at - ?2) / ?3 END, (gone - ?2) / ?3, count(*)
		FROM (SELECT agent_id, created_at, `+gone+` AS gone FROM memories WHERE `+mine+` AND created_at >= ?2
			UNION ALL
			SELECT agent_id, created_at, `+gone+` FROM memories WHERE `+mine+` AND forgotten_at >= ?2 AND created_at < ?2
			UNION ALL
			SELECT agent_id, created_at, `+gone+` FROM memories WHERE `+mine+` AND archived_at >= ?2 AND created_at < ?2
				AND (forgotten_at IS NULL OR forgotten_at < ?2)) m
		WHERE gone IS NULL OR gone >= ?2 GROUP BY 1, 2, 3`, jsonList(agents), since, step)
	if err != nil {
		return nil, fmt.Errorf("active trend: %w", err)
	}
	defer rows.Close()
	per := map[string][]int{}
	for rows.Next() {
		var agent string
		var born int64
		var left sql.NullInt64
		var n int
		if err := rows.Scan(&agent, &born, &left, &n); err != nil {
			return nil, err
		}
		counts := per[agent]
		if counts == nil {
			counts = make([]int, q.Steps)
			per[agent] = counts
		}
		for i := range counts {
			if !left.Valid {
				counts[i] -= n // still active: the count now has it at every step
			}
			if int64(i) >= born && (!left.Valid || int64(i) < left.Int64) {
				counts[i] += n
			}
		}
	}
	return per, rows.Err()
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
