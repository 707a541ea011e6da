package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	chromem "github.com/philippgille/chromem-go"

	memory "github.com/memory-mcp/memory-mcp"
)

// Index is the in-memory vector index over the stored memories: one chromem
// collection per space (an agent's personal memories, an agent's shared
// ones). SQLite stays the source of truth; the index is rebuilt from the
// stored vectors at start and kept current by tailing the change feed, which
// carries this process's writes and every other process's alike.
//
// chromem's pitfalls are handled here: nResults is clamped to Count(), Delete
// is only ever called with ids (never a non-nil empty filter, which deletes
// everything), and every Add and Delete happens under mu's write lock while
// queries hold its read lock.
type Index struct {
	db  *DB
	emb memory.Embedder

	syncMu sync.Mutex   // one Sync at a time
	mu     sync.RWMutex // writers: Add/Delete; readers: queries
	vdb    *chromem.DB
	docs   map[string]docMeta // every indexed memory by id
	seq    int64              // change feed position applied
	stats  IndexStats
}

// IndexStats counts what Load found.
type IndexStats struct {
	Indexed int            // memories in the index
	Foreign map[string]int // active memories whose vectors another embedder made, by embedder id
	Missing int            // active memories stored without a vector
}

// docMeta is what the index keeps of a memory to filter vector candidates
// without a database round trip.
type docMeta struct {
	space    string
	ns       string
	cat      memory.Category
	tags     []string
	occurred int64
	expires  int64 // 0: never
}

// NewIndex returns an empty index for vectors made by emb.
func NewIndex(db *DB, emb memory.Embedder) *Index {
	return &Index{db: db, emb: emb, vdb: chromem.NewDB(), docs: map[string]docMeta{}}
}

// Embedder returns the embedder whose vectors the index holds.
func (x *Index) Embedder() memory.Embedder { return x.emb }

func personalSpace(agent string) string { return "p/" + agent }
func sharedSpace(agent string) string   { return "s/" + agent }

// noEmbed is every collection's embedding function: documents and queries
// always arrive with their vectors, so chromem must never embed (its default
// would call OpenAI).
func noEmbed(context.Context, string) ([]float32, error) {
	return nil, errors.New("index: vectors are computed before they reach chromem")
}

// Load rebuilds the index from every active memory whose vector the index's
// embedder made. Memories with vectors from another embedder are counted, not
// indexed: cosines between different embedders' vectors mean nothing, so they
// are found by BM25 alone until `memory-mcp reindex`.
func (x *Index) Load(ctx context.Context) (IndexStats, error) {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.vdb, x.docs = chromem.NewDB(), map[string]docMeta{}
	x.stats = IndexStats{Foreign: map[string]int{}}
	err := x.db.View(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&x.seq); err != nil {
			return fmt.Errorf("read change feed: %w", err)
		}
		rows, err := tx.QueryContext(ctx, indexColumns+` WHERE forgotten_at IS NULL`)
		if err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanIndexRow(rows)
			if err != nil {
				return err
			}
			if err := x.apply(ctx, r, true); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	return x.stats, err
}

// Sync applies the memory changes committed since the last Load or Sync, by
// any process. Searches call it first, so a memory committed before a search
// starts is always found by it.
func (x *Index) Sync(ctx context.Context) error {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	for {
		changes, err := x.db.ChangesSince(ctx, x.seq, 1000)
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			return nil
		}
		var ids []string
		for _, c := range changes {
			if c.Kind == ChangeMemory {
				ids = append(ids, c.Ref)
			}
		}
		if err := x.refresh(ctx, ids); err != nil {
			return err
		}
		x.seq = changes[len(changes)-1].Seq
	}
}

// refresh re-reads memories ids from SQLite and brings the index in line.
func (x *Index) refresh(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var rows []indexRow
	err := x.db.View(ctx, func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(ids, 500) {
			r, err := tx.QueryContext(ctx, indexColumns+` WHERE id IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...)
			if err != nil {
				return fmt.Errorf("refresh vectors: %w", err)
			}
			for r.Next() {
				row, err := scanIndexRow(r)
				if err != nil {
					r.Close()
					return err
				}
				rows = append(rows, row)
			}
			if err := r.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range rows {
		if err := x.apply(ctx, r, false); err != nil {
			return err
		}
	}
	return nil
}

// indexRow is a memory as the index reads it.
type indexRow struct {
	id, agent, ns, cat, tags string
	shared                   bool
	occurred                 int64
	expires                  sql.NullInt64
	forgotten                bool
	vec                      []byte
	embedder                 sql.NullString
}

const indexColumns = `SELECT id, agent_id, shared, namespace, category, tags, occurred_at, expires_at,
	forgotten_at IS NOT NULL, embedding, embedder FROM memories`

func scanIndexRow(rows *sql.Rows) (indexRow, error) {
	var r indexRow
	err := rows.Scan(&r.id, &r.agent, &r.shared, &r.ns, &r.cat, &r.tags, &r.occurred, &r.expires, &r.forgotten, &r.vec, &r.embedder)
	return r, err
}

func (r indexRow) space() string {
	if r.shared {
		return sharedSpace(r.agent)
	}
	return personalSpace(r.agent)
}

// apply adds, replaces or removes one memory; mu must be held for writing.
// counting records why a memory was left out (during Load).
func (x *Index) apply(ctx context.Context, r indexRow, counting bool) error {
	var vec []float32
	ok := !r.forgotten && r.embedder.Valid && r.embedder.String == x.emb.ID
	if ok {
		var err error
		if vec, err = decodeVector(r.vec); err != nil {
			return fmt.Errorf("memory %s: %w", r.id, err)
		}
		ok = len(vec) == x.emb.Dim && !isZero(vec)
	}
	if counting && !r.forgotten {
		switch {
		case !r.embedder.Valid:
			x.stats.Missing++
		case r.embedder.String != x.emb.ID:
			x.stats.Foreign[r.embedder.String]++
		}
	}
	if !ok {
		return x.remove(ctx, r.id)
	}
	col, err := x.vdb.GetOrCreateCollection(r.space(), nil, noEmbed)
	if err != nil {
		return err
	}
	doc := chromem.Document{ID: r.id, Embedding: normalize(vec), Metadata: map[string]string{"ns": r.ns, "cat": r.cat}}
	if err := col.AddDocument(ctx, doc); err != nil {
		return fmt.Errorf("index memory %s: %w", r.id, err)
	}
	if _, had := x.docs[r.id]; !had && counting {
		x.stats.Indexed++
	}
	x.docs[r.id] = docMeta{space: r.space(), ns: r.ns, cat: memory.Category(r.cat), tags: decodeTags(r.tags),
		occurred: r.occurred, expires: r.expires.Int64}
	return nil
}

// remove drops memory id from the index if it is there.
func (x *Index) remove(ctx context.Context, id string) error {
	m, ok := x.docs[id]
	if !ok {
		return nil
	}
	delete(x.docs, id)
	col := x.vdb.GetCollection(m.space, noEmbed)
	if col == nil {
		return nil
	}
	// By ids only: a non-nil empty where filter would delete every document.
	return col.Delete(ctx, nil, nil, id)
}

// Len returns how many memories the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.docs)
}

// vectorHit is one memory found by cosine similarity.
type vectorHit struct {
	id     string
	cosine float64
}

// vectorQuery asks for the n nearest memories in some spaces that pass keep.
type vectorQuery struct {
	vec    []float32
	spaces []string
	where  map[string]string // exact-match metadata chromem filters on (ns, cat); nil for none
	keep   func(docMeta) bool
	n      int
}

// query returns the n best hits across q's spaces, best first. Filters chromem
// cannot express are applied afterwards; when they reject too many, the search
// widens (×4) until it has n or has seen the whole collection.
func (x *Index) query(ctx context.Context, q vectorQuery) ([]vectorHit, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []vectorHit
	for _, space := range q.spaces {
		col := x.vdb.GetCollection(space, noEmbed)
		if col == nil {
			continue
		}
		hits, err := x.queryCollection(ctx, col, q)
		if err != nil {
			return nil, err
		}
		out = append(out, hits...)
	}
	slices.SortFunc(out, func(a, b vectorHit) int {
		if d := cmp.Compare(b.cosine, a.cosine); d != 0 {
			return d
		}
		return strings.Compare(a.id, b.id)
	})
	return out[:min(len(out), q.n)], nil
}

func (x *Index) queryCollection(ctx context.Context, col *chromem.Collection, q vectorQuery) ([]vectorHit, error) {
	count := col.Count()
	for k := min(q.n, count); k > 0; k = min(4*k, count) {
		res, err := col.QueryEmbedding(ctx, q.vec, k, q.where, nil)
		if err != nil {
			return nil, fmt.Errorf("vector query: %w", err)
		}
		hits := make([]vectorHit, 0, len(res))
		for _, r := range res {
			if m, ok := x.docs[r.ID]; ok && q.keep(m) {
				hits = append(hits, vectorHit{id: r.ID, cosine: float64(r.Similarity)})
			}
		}
		// len(res) < k: chromem's where filter has already narrowed the
		// collection to fewer documents than asked for, so none are left.
		if len(hits) >= q.n || k == count || len(res) < k {
			return hits, nil
		}
	}
	return nil, nil
}
