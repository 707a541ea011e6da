package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// ReindexOptions tune Reindex.
type ReindexOptions struct {
	// Batch is how many texts go to the embedder per call.
	Batch int
	// StaleOnly skips memories whose vector emb already made, unless the
	// vector is unusable (not emb.Dim finite float32s).
	StaleOnly bool
	// Progress, if set, is called after each batch with the memories done so
	// far and the total.
	Progress func(done, total int)
	// Stage writes the vectors beside the memories' own, for DeployEmbedder
	// to swap in at once, instead of into the memories: a run stopped
	// halfway changes no vector in use.
	Stage bool
	// Fence, when held, is the lease of the run reindexing: each batch's
	// transaction checks it, so a run that was taken over stops writing.
	Fence Lease
}

// Reindex re-embeds the active memories (forgotten ones are never searched)
// with emb, a batch at a time, each batch committed in its own transaction
// with a change-feed entry per memory so that running servers reload the new
// vectors. It returns how many memories it embedded. Interrupted, it can
// simply be run again.
func Reindex(ctx context.Context, db *DB, emb memory.Embedder, o ReindexOptions) (int, error) {
	if o.Batch < 1 {
		o.Batch = 64
	}
	cond, args := `forgotten_at IS NULL`, []any{}
	if o.StaleOnly {
		cond, args = cond+` AND (embedder IS DISTINCT FROM ? OR NOT memory_vector_ok(embedding, ?))`, []any{emb.ID, emb.Dim}
		if db.postgres {
			// SQLite's memory_vector_ok is a Go function of the connection;
			// here the same test is SQL: dim little-endian float32s, none
			// of them NaN or infinite (all eight exponent bits set).
			cond = `forgotten_at IS NULL AND (embedder IS DISTINCT FROM ? OR embedding IS NULL OR octet_length(embedding) <> 4 * ?
				OR EXISTS (SELECT 1 FROM generate_series(0, octet_length(embedding) / 4 - 1) AS i
					WHERE get_byte(embedding, 4 * i + 3) & 127 = 127 AND get_byte(embedding, 4 * i + 2) & 128 = 128))`
		}
	}
	var total int
	if err := db.sql.QueryRowContext(ctx, db.dialect(`SELECT count(*) FROM memories WHERE `+cond), db.args(args)...).Scan(&total); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	done := 0
	for after := int64(0); ; {
		batch, err := reindexBatch(ctx, db, cond, args, after, o.Batch)
		if err != nil || len(batch) == 0 {
			return done, err
		}
		if err := embedBatch(ctx, db, emb, batch, o); err != nil {
			return done, err
		}
		after = batch[len(batch)-1].pk
		done += len(batch)
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
}

type reindexRow struct {
	pk          int64
	id, content string
}

func reindexBatch(ctx context.Context, db *DB, cond string, args []any, after int64, n int) ([]reindexRow, error) {
	rows, err := db.sql.QueryContext(ctx, db.dialect(`SELECT pk, id, content FROM memories WHERE `+cond+` AND pk > ? ORDER BY pk LIMIT ?`),
		db.args(append(slices.Clone(args), after, n))...)
	if err != nil {
		return nil, fmt.Errorf("read memories to reindex: %w", err)
	}
	defer rows.Close()
	var out []reindexRow
	for rows.Next() {
		var r reindexRow
		if err := rows.Scan(&r.pk, &r.id, &r.content); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// embedBatch embeds a batch (outside any transaction: it may take a while)
// and stores the vectors in one, staged or in the memories.
func embedBatch(ctx context.Context, db *DB, emb memory.Embedder, batch []reindexRow, o ReindexOptions) error {
	texts := make([]string, len(batch))
	for i, r := range batch {
		texts[i] = r.content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed memories %s..%s: %w", batch[0].id, batch[len(batch)-1].id, err)
	}
	if len(vecs) != len(batch) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.ID, len(vecs), len(batch))
	}
	return db.Update(ctx, func(tx *Tx) error {
		if err := tx.fence(ctx, o.Fence); err != nil {
			return err
		}
		now := db.Now.Now()
		for i, r := range batch {
			if len(vecs[i]) != emb.Dim {
				return fmt.Errorf("embedder %s returned a vector of dimension %d for memory %s, want %d", emb.ID, len(vecs[i]), r.id, emb.Dim)
			}
		}
		if db.postgres && !o.Stage {
			return tx.storeVectorsPostgres(ctx, emb.ID, batch, vecs, now)
		}
		for i, r := range batch {
			// Each write names the memory by its row and its id: a memory
			// erased while the batch was embedded frees its row number,
			// which SQLite gives to the next memory, and its vector (of the
			// erased text) must not land on that one.
			if o.Stage {
				if _, err := tx.execOnce(ctx, `INSERT INTO memory_vectors_next (pk, embedder, embedding)
					SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM memories WHERE pk = ?1 AND id = ?4)
					ON CONFLICT (pk) DO UPDATE SET embedder = excluded.embedder, embedding = excluded.embedding`,
					r.pk, emb.ID, encodeVector(vecs[i]), r.id); err != nil {
					return fmt.Errorf("stage vector: %w", err)
				}
				continue
			}
			// updated_at stays: the memory did not change, its vector did.
			res, err := tx.execOnce(ctx, `UPDATE memories SET embedding = ?, embedder = ? WHERE pk = ? AND id = ?`,
				encodeVector(vecs[i]), emb.ID, r.pk, r.id)
			if err != nil {
				return fmt.Errorf("store vector: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue // erased meanwhile
			}
			if err := tx.RecordChange(ctx, memory.ChangeMemory, r.id, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// storeVectorsPostgres stores a batch's vectors in the memories and
// records a change per memory it wrote, in one statement: on PostgreSQL a
// statement per memory was two round trips per memory, most of a reindex's
// time after an import. Each row is named by its key and its id, as
// embedBatch's own writes are, and the changes follow the keys' order, as
// its loop writes them.
func (tx *Tx) storeVectorsPostgres(ctx context.Context, embedder string, batch []reindexRow, vecs [][]float32, now time.Time) error {
	args := make([]any, 0, 3*len(batch)+3)
	for i, r := range batch {
		args = append(args, encodeVector(vecs[i]), r.pk, r.id)
	}
	args = append(args, embedder, memory.ChangeMemory, now.UnixNano())
	tuple := "(CAST(? AS bytea), CAST(? AS bigint), CAST(? AS text))"
	_, err := tx.execOnce(ctx, `WITH v (embedding, pk, id) AS (VALUES `+valuesRows(tuple, len(batch))+`),
		stored AS (UPDATE memories AS m SET embedding = v.embedding, embedder = ? FROM v WHERE m.pk = v.pk AND m.id = v.id RETURNING m.pk, m.id)
		INSERT INTO changes (kind, ref, at) SELECT ?, id, ? FROM stored ORDER BY pk`, args...)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	return nil
}
