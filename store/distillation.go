package store

import (
	"context"
	"fmt"

	memory "github.com/memory-mcp/memory-mcp"
)

// RecentDistillations returns the agent's newest n personal memories
// tagged memory.DistillationTag, newest first: the records of its last
// tasks. Archived ones count (consolidation or retention moved them out
// of search, but they still say what the agent did); forgotten and
// expired ones do not, nor do summaries, which would pose as the newest.
func (tx *Tx) RecentDistillations(ctx context.Context, agent string, n int) ([]memory.Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	q := memory.ListQuery{Tags: []string{memory.DistillationTag},
		States: []memory.MemoryState{memory.StateActive, memory.StateConsolidated, memory.StateArchived}}
	where, args := listWhere(agent, q, tx.Now())
	out, err := scanEntries(tx.queryOnce(ctx, entryColumns+` FROM memories m WHERE `+where+
		` AND NOT EXISTS (SELECT 1 FROM memory_sources WHERE summary_id = m.id) ORDER BY m.created_at DESC, m.id DESC LIMIT ?`, append(args, n)...))
	if err != nil {
		return nil, fmt.Errorf("read distillations: %w", err)
	}
	return out, nil
}
