package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// keptStateSQL is memory.StateOf without the clock, on alias m: the state
// memory_counts keeps a memory's count in (migration 0045 writes it again
// in its triggers).
const keptStateSQL = `CASE WHEN m.forgotten_at IS NOT NULL THEN 'forgotten'
	WHEN m.archive_reason = 'expired' THEN 'expired'
	WHEN m.archive_reason = 'consolidated' THEN 'consolidated'
	WHEN m.archive_reason IN ('superseded', 'merged') THEN 'superseded'
	WHEN m.archived_at IS NOT NULL THEN 'archived'
	ELSE 'active' END`

// spaceWhere is the condition on alias m (memories or memory_counts) for a
// space, an agent's personal memories or with shared the shared space,
// under the categories and namespaces given (none: all).
func spaceWhere(agent string, shared bool, cats []memory.Category, nss []string) (string, []any) {
	conds, args := []string{"m.agent_id = ?", "m.shared = 0"}, []any{agent}
	if shared {
		conds, args = []string{"m.shared = 1"}, nil
	}
	if len(cats) > 0 {
		conds = append(conds, "m.category IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(cats))
	}
	if len(nss) > 0 {
		conds = append(conds, "m.namespace IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(nss))
	}
	return strings.Join(conds, " AND "), args
}

// countStates counts a space's memories per category and state (see
// spaceWhere) as of now: memory_counts' kept counts, read without a row of
// memories, with the memories whose expires_at has passed by now moved from
// the state kept into expired (the clock moves no trigger; those are read
// from memories_expiring alone).
func (tx *Tx) countStates(ctx context.Context, agent string, shared bool, cats []memory.Category, nss []string,
	now time.Time) (map[memory.Category]*memory.StateCounts, error) {
	where, args := spaceWhere(agent, shared, cats, nss)
	out := map[memory.Category]*memory.StateCounts{}
	add := func(rows *sql.Rows, sign int) error {
		defer rows.Close()
		for rows.Next() {
			var cat memory.Category
			var st memory.MemoryState
			var n int
			if err := rows.Scan(&cat, &st, &n); err != nil {
				return err
			}
			if out[cat] == nil {
				out[cat] = &memory.StateCounts{}
			}
			out[cat].AddN(st, sign*n)
			if sign < 0 {
				out[cat].AddN(memory.StateExpired, n)
			}
		}
		return rows.Err()
	}
	rows, err := tx.queryOnce(ctx, `SELECT m.category, m.state, CAST(sum(m.n) AS BIGINT) FROM memory_counts m
		WHERE `+where+` GROUP BY 1, 2`, args...)
	if err != nil {
		return nil, fmt.Errorf("count memories: %w", err)
	}
	if err := add(rows, 1); err != nil {
		return nil, fmt.Errorf("count memories: %w", err)
	}
	rows, err = tx.queryOnce(ctx, `SELECT m.category, `+keptStateSQL+`, count(*) FROM memories m
		WHERE `+where+` AND m.forgotten_at IS NULL AND m.expires_at <= ?
		AND (m.archive_reason IS NULL OR m.archive_reason <> 'expired') GROUP BY 1, 2`, append(args, nanos(now))...)
	if err != nil {
		return nil, fmt.Errorf("count expired memories: %w", err)
	}
	if err := add(rows, -1); err != nil {
		return nil, fmt.Errorf("count expired memories: %w", err)
	}
	return out, nil
}

// Counts counts the memories List would page through under q's categories
// and namespaces, in every state, from the counts the database keeps.
func (s *MemoryService) Counts(ctx context.Context, q memory.ListQuery) (memory.StateCounts, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.StateCounts{}, err
	}
	if err := q.Validate(); err != nil {
		return memory.StateCounts{}, err
	}
	var total memory.StateCounts
	err = s.db.View(ctx, func(tx *Tx) error {
		agent := ""
		if !q.Shared {
			owner, err := ownerOf(ctx, tx, who, q.AgentID, "count the memories of")
			if err != nil {
				return err
			}
			agent = owner.AgentID
		}
		per, err := tx.countStates(ctx, agent, q.Shared, q.Categories, q.Namespaces, s.db.Now.Now())
		for _, c := range per {
			for _, st := range memory.MemoryStates {
				total.AddN(st, c.Of(st))
			}
		}
		return err
	})
	return total, err
}

// CountsMismatch is a key whose kept count (memory_counts) differs from
// the memories counted one by one.
type CountsMismatch struct {
	AgentID   string `json:"agent_id"`
	Shared    bool   `json:"shared"`
	Category  string `json:"category"`
	Namespace string `json:"namespace"`
	State     string `json:"state"`
	Kept      int64  `json:"kept"`
	Counted   int64  `json:"counted"`
}

// CheckCounts counts every memory one by one and compares each key's count
// with the one memory_counts keeps: a difference means the table was
// edited by hand, or a write reached memories with the triggers off.
func (db *DB) CheckCounts(ctx context.Context) ([]CountsMismatch, error) {
	var out []CountsMismatch
	err := db.View(ctx, func(tx *Tx) error {
		rows, err := tx.queryOnce(ctx, `SELECT k.agent_id, k.shared, k.category, k.namespace, k.state,
				coalesce(max(k.kept), 0), coalesce(max(k.counted), 0)
			FROM (SELECT agent_id, shared, category, namespace, state, n AS kept, NULL AS counted FROM memory_counts
				UNION ALL
				SELECT m.agent_id, m.shared, m.category, m.namespace, `+keptStateSQL+`, NULL, count(*) FROM memories m
				GROUP BY 1, 2, 3, 4, 5) k
			GROUP BY 1, 2, 3, 4, 5
			HAVING coalesce(max(k.kept), 0) <> coalesce(max(k.counted), 0)
			ORDER BY 1, 2, 3, 4, 5`)
		if err != nil {
			return fmt.Errorf("check the kept counts: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var m CountsMismatch
			if err := rows.Scan(&m.AgentID, &m.Shared, &m.Category, &m.Namespace, &m.State, &m.Kept, &m.Counted); err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, err
}
