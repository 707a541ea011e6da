package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	memory "github.com/memory-mcp/memory-mcp"
)

// Subject is what an agent's call would change as it stands now, for the
// risk gate's rules that the call's arguments cannot decide: publish_fact
// with the id of a core policy may move it to another category, and an
// edit of a block names only its label, which may be a shared block's.
func (db *DB) Subject(ctx context.Context, who memory.Identity, factID, blockLabel string) (memory.Subject, error) {
	var s memory.Subject
	err := db.View(ctx, func(tx *Tx) error {
		if factID != "" {
			var category string
			err := tx.queryRow(ctx, `SELECT category FROM snapshot WHERE fact_id = ?`, factID).Scan(&category)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("read fact %s: %w", factID, err)
			}
			s.FactCategory = memory.FactCategory(category)
		}
		if blockLabel != "" {
			// The block an agent's label names: its own, else a shared one
			// it may read (lookup's order).
			var scope string
			err := tx.queryRow(ctx, `SELECT scope FROM blocks WHERE label = ? AND scope IN (?, ?)
				ORDER BY scope = ? LIMIT 1`, blockLabel, who.AgentID, sharedScope, sharedScope).Scan(&scope)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("read block %s: %w", blockLabel, err)
			}
			s.SharedBlock = scope == sharedScope
		}
		return nil
	})
	return s, err
}
