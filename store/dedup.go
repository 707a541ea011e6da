package store

import (
	"context"
	"database/sql"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// fillMeaningKeys gives the memories written before the semantic tier
// their meaning keys, so that a paraphrase of one of them is found.
func fillMeaningKeys(ctx context.Context, tx *Tx) error {
	type row struct {
		pk      int64
		content string
	}
	todo, err := collect(ctx, tx, `SELECT pk, content FROM memories`, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.pk, &r.content)
	})
	if err != nil {
		return err
	}
	for _, r := range todo {
		key := text.MeaningKey(r.content)
		if key == "" {
			continue
		}
		if _, err := tx.sql.ExecContext(ctx, `UPDATE memories SET meaning_key = ? WHERE pk = ?`, key, r.pk); err != nil {
			return err
		}
	}
	return nil
}
