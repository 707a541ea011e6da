package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrImported is the error of a merge import's write whose origin an
// earlier import already claimed (see Call.Origin): it wrote nothing.
var ErrImported = errors.New("imported before: the store keeps what that import made of it, in whatever state it is now")

// originPurpose keeps the hashes of import origins apart from every other
// use of the provenance key.
const originPurpose = "memory-mcp import origin v1"

// originHash is what import_origins keeps of an origin: a keyed hash, so
// that the table holds no text of what was imported.
func (db *DB) originHash(origin string) string {
	return db.KeyedHash(originPurpose, []byte(origin))
}

// claimOrigin records c's origin in the transaction of its first write, or
// returns ErrImported when an earlier import recorded it.
func (tx *Tx) claimOrigin(ctx context.Context, c *Call) error {
	res, err := tx.exec(ctx, `INSERT INTO import_origins (origin, imported_by, imported_at) VALUES (?, ?, ?) ON CONFLICT (origin) DO NOTHING`,
		tx.db.originHash(c.Origin), c.Principal, nanos(tx.Now()))
	if err != nil {
		return fmt.Errorf("claim import origin: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrImported
	}
	return nil
}

// ImportHeld is what a merge import finds the store holds already of the
// things it would write, by the names it asked about.
type ImportHeld struct {
	Origins   map[string]bool // imported before (import_origins)
	Memories  map[string]bool // memory ids the store holds in any state, or a merge import made a memory of (its source says so)
	Retracted map[string]bool // fact ids the store holds retracted
}

// importedSource is how a merge import names a memory's original in the
// source of the memory it writes: "imported: memory <id> of agent ...".
const importedSource = "imported: memory "

// HeldForImport reports which of origins an earlier merge import claimed,
// which of memories (ids) the store holds in any lifecycle state (active,
// superseded, consolidated, archived, forgotten) or made a memory of in a
// merge import, and which of facts it holds retracted: what a merge import
// must not write again.
func (db *DB) HeldForImport(ctx context.Context, origins, memories, facts []string) (ImportHeld, error) {
	held := ImportHeld{Origins: map[string]bool{}, Memories: map[string]bool{}, Retracted: map[string]bool{}}
	byHash := make(map[string]string, len(origins))
	hashes := make([]string, 0, len(origins))
	for _, o := range origins {
		h := db.originHash(o)
		byHash[h] = o
		hashes = append(hashes, h)
	}
	err := db.View(ctx, func(tx *Tx) error {
		if err := tx.inChunks(ctx, `SELECT origin FROM import_origins WHERE origin IN (%s)`, hashes, func(h string) { held.Origins[byHash[h]] = true }); err != nil {
			return err
		}
		if err := tx.inChunks(ctx, `SELECT id FROM memories WHERE id IN (%s)`, memories, func(id string) { held.Memories[id] = true }); err != nil {
			return err
		}
		if err := tx.inChunks(ctx, `SELECT fact_id FROM snapshot WHERE retracted_at IS NOT NULL AND fact_id IN (%s)`, facts, func(id string) { held.Retracted[id] = true }); err != nil {
			return err
		}
		if len(memories) == 0 {
			return nil
		}
		// Memories a merge import wrote before their origins were kept
		// (and any since): each names its original in its source.
		want := make(map[string]bool, len(memories))
		for _, id := range memories {
			want[id] = true
		}
		rows, err := tx.query(ctx, `SELECT source FROM memories WHERE source LIKE ?`, importedSource+"%")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var src string
			if err := rows.Scan(&src); err != nil {
				return err
			}
			id, _, _ := strings.Cut(strings.TrimPrefix(src, importedSource), " ")
			if want[id] {
				held.Memories[id] = true
			}
		}
		return rows.Err()
	})
	return held, err
}

// inChunks runs q, whose %s is a list of placeholders, over values a few
// hundred at a time, and calls fn with the first column of each row.
func (tx *Tx) inChunks(ctx context.Context, q string, values []string, fn func(string)) error {
	const chunk = 500
	for len(values) > 0 {
		n := min(chunk, len(values))
		args := make([]any, n)
		for i, v := range values[:n] {
			args[i] = v
		}
		rows, err := tx.query(ctx, fmt.Sprintf(q, placeholders(n)), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			fn(s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		values = values[n:]
	}
	return nil
}
