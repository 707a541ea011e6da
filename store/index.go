package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	memory "github.com/memory-mcp/memory-mcp"
)

// Index is the in-memory vector index over the stored memories, one flat
// slab of unit vectors per space (an agent's personal memories, an agent's
// shared ones), scanned in full for each query. SQLite stays the source of
// truth; the index is rebuilt from the stored vectors at start and kept
// current by tailing the change feed, which carries this process's writes
// and every other process's alike.
//
// The design (docs/DESIGN.md) first chose chromem-go for this; measured on this workload it did not
// earn its place. Its query fans every document through a channel and a
// mutex-guarded heap: the top 100 of 100,000 100-d vectors took 61 ms p50
// against 9.5 ms for a plain scan of the same vectors (10,000: 3.9 ms
// against 0.9 ms), and it filters only on exact metadata matches, which the
// search's filters (ranges, any-of, all-of tags) mostly are not. Its other
// pitfalls (nResults above Count() fails, Delete with an empty filter deletes
// everything, Delete races with Add) go with it. BenchmarkMemoryScale prints
// both figures on every run.
type Index struct {
	db  *DB
	emb memory.Embedder
	// Log receives warnings about stored vectors the index cannot use.
	Log *slog.Logger
	// Follow, if set, returns the embedder in force now over the index's
	// base embedder. Sync calls it when the change feed says a fine-tuned
	// adapter over that base was deployed or rolled back (the deployment
	// swapped every stored vector), and from then on the index holds, and
	// the memory service embeds with, the embedder it returns.
	Follow func(ctx context.Context) (memory.Embedder, error)

	syncMu sync.Mutex   // one Sync at a time
	mu     sync.RWMutex // writers: apply; readers: queries
	spaces map[string]*space
	where  map[string]string // memory id -> its space
	seq    int64             // change feed position applied
	stats  IndexStats

	deployed atomic.Int64 // the newest deployment or rollback seen (Deployed)

	scratch []float32 // decoding buffer, used under mu
}

// IndexStats counts what Load found.
type IndexStats struct {
	Indexed int            // memories in the index
	Foreign map[string]int // active memories whose vectors another embedder made, by embedder id
	Missing int            // active memories stored without a usable vector
}

// docMeta is what the index keeps of a memory to filter vector candidates
// without a database round trip.
type docMeta struct {
	ns       string
	cat      memory.Category
	tags     []string
	occurred int64
	expires  int64 // 0: never
}

// NewIndex returns an empty index for vectors made by emb.
func NewIndex(db *DB, emb memory.Embedder) *Index {
	return &Index{db: db, emb: emb, Log: slog.Default(), spaces: map[string]*space{}, where: map[string]string{}}
}

// Embedder returns the embedder whose vectors the index holds.
func (x *Index) Embedder() memory.Embedder {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.emb
}

func personalSpace(agent string) string { return "p/" + agent }
func sharedSpace(agent string) string   { return "s/" + agent }

// Load rebuilds the index from every active memory whose vector the index's
// embedder made. Memories with vectors from another embedder are counted, not
// indexed: cosines between different embedders' vectors mean nothing, so they
// are found by BM25 alone until `memory-mcp reindex`.
func (x *Index) Load(ctx context.Context) (IndexStats, error) { return x.load(ctx, nil) }

// LoadVectors rebuilds the index as Load does, but with the vectors vec
// gives (by memory id; nil leaves a memory out) in place of the stored
// ones: an index of vectors no memory carries yet, to measure an embedder
// (a fine-tuned adapter) before it is deployed. Vectors must be the
// index's embedder's.
func (x *Index) LoadVectors(ctx context.Context, vec func(id string) []float32) (IndexStats, error) {
	return x.load(ctx, vec)
}

// load is Load, with the vectors vec gives when it is not nil.
func (x *Index) load(ctx context.Context, vec func(id string) []float32) (IndexStats, error) {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	err := x.reload(ctx, vec)
	return x.stats, err
}

// reload is load with both locks held.
func (x *Index) reload(ctx context.Context, vec func(id string) []float32) error {
	x.spaces, x.where = map[string]*space{}, map[string]string{}
	x.stats = IndexStats{Foreign: map[string]int{}}
	return x.db.View(ctx, func(tx *Tx) error {
		if err := tx.queryRowOnce(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&x.seq); err != nil {
			return fmt.Errorf("read change feed: %w", err)
		}
		var deployed int64
		if err := tx.queryRowOnce(ctx, `SELECT coalesce(max(seq), 0) FROM embedder_deployments`).Scan(&deployed); err != nil {
			return fmt.Errorf("read deployments: %w", err)
		}
		x.deployed.Store(deployed)
		rows, err := tx.queryOnce(ctx, indexColumns+` WHERE `+activeSQL)
		if err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanIndexRow(rows)
			if err != nil {
				return err
			}
			if vec != nil {
				v := vec(r.id)
				if v == nil {
					continue
				}
				r.vec, r.embedder = encodeVector(v), sql.NullString{String: x.emb.ID, Valid: true}
			}
			x.apply(r, true)
		}
		return rows.Err()
	})
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
		erased, switched := false, false
		for _, c := range changes {
			switch c.Kind {
			case memory.ChangeMemory:
				ids = append(ids, c.Ref)
			case memory.ChangeErase:
				erased = true
			case memory.ChangeEmbedder:
				switched = switched || x.ownBase(c.Ref)
			}
		}
		if switched && x.Follow != nil {
			// The reload reads every vector and the feed's position anew,
			// so it stands for the changes of this batch and any after.
			if err := x.follow(ctx); err != nil {
				return err
			}
			continue
		}
		if err := x.refresh(ctx, ids); err != nil {
			return err
		}
		if erased {
			if err := x.prune(ctx); err != nil {
				return err
			}
		}
		x.seq = changes[len(changes)-1].Seq
	}
}

// Deployed is the newest deployment or rollback the index has followed
// (the deployment log's sequence).
func (x *Index) Deployed() int64 { return x.deployed.Load() }

// FollowDeployments brings the index up to date (Sync) when an adapter was
// deployed or rolled back since it last looked: a vector about to be made
// is then made with the embedder in force.
func (x *Index) FollowDeployments(ctx context.Context) error {
	var newest int64
	if err := x.db.reads.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM embedder_deployments`).Scan(&newest); err != nil {
		return fmt.Errorf("read deployments: %w", err)
	}
	if newest == x.deployed.Load() {
		return nil
	}
	if err := x.Sync(ctx); err != nil {
		return err
	}
	x.deployed.Store(newest)
	return nil
}

// Applied is the change feed position the index has applied: how far
// behind the feed's newest row it is shows how much a search's Sync has to
// catch up on (another process's writes, or this one's since the last
// search).
func (x *Index) Applied() int64 {
	x.syncMu.Lock()
	defer x.syncMu.Unlock()
	return x.seq
}

// ownBase reports whether an embedder ID is over the same base embedder as
// the index's.
func (x *Index) ownBase(id string) bool {
	mine, _ := memory.SplitEmbedderID(x.emb.ID)
	theirs, _ := memory.SplitEmbedderID(id)
	return mine == theirs
}

// follow switches to the embedder in force and reloads every vector;
// syncMu must be held. An embedder Follow cannot make (a checkpoint that
// fails its checks) leaves the old one, whose stored vectors are gone: the
// memories are then found by keyword until the adapter is fixed or rolled
// back, and the log says so.
func (x *Index) follow(ctx context.Context) error {
	emb, err := x.Follow(ctx)
	x.mu.Lock()
	defer x.mu.Unlock()
	from := x.emb.ID
	if err != nil {
		x.Log.Error("the embedder in force cannot be loaded: memories are searched by keyword only until it can (see `memory-mcp finetune --rollback`)",
			"embedder", from, "err", err)
	} else {
		x.emb = emb
	}
	if err := x.reload(ctx, nil); err != nil {
		return err
	}
	x.Log.Info("embedder switched by a deployment", "from", from, "to", x.emb.ID, "memories", x.stats.Indexed)
	for id, n := range x.stats.Foreign {
		x.Log.Warn("memories embedded by another embedder are searched by keyword only until `memory-mcp reindex --missing`",
			"count", n, "stored_embedder", id, "embedder", x.emb.ID)
	}
	return nil
}

// refresh re-reads memories ids from SQLite and brings the index in line.
func (x *Index) refresh(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var rows []indexRow
	err := x.db.View(ctx, func(tx *Tx) error {
		for chunk := range slices.Chunk(ids, 500) {
			r, err := tx.queryOnce(ctx, indexColumns+` WHERE id IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...)
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
	found := make(map[string]bool, len(rows))
	for _, r := range rows {
		x.apply(r, false)
		found[r.id] = true
	}
	for _, id := range ids {
		if !found[id] { // erased since the change was recorded
			x.remove(id)
		}
	}
	return nil
}

// prune drops the memories that no longer exist: an erase deletes them,
// and the change feed's rows that named them with them, so the index
// looks for what it holds instead.
func (x *Index) prune(ctx context.Context) error {
	x.mu.RLock()
	held := make([]string, 0, len(x.where))
	for id := range x.where {
		held = append(held, id)
	}
	x.mu.RUnlock()
	var gone []string
	err := x.db.View(ctx, func(tx *Tx) error {
		for chunk := range slices.Chunk(held, 5000) {
			missing, err := scanStrings(tx.queryOnce(ctx, `SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM memories)`, jsonList(chunk)))
			if err != nil {
				return fmt.Errorf("prune vectors: %w", err)
			}
			gone = append(gone, missing...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range gone {
		x.remove(id)
	}
	return nil
}

// indexRow is a memory as the index reads it.
type indexRow struct {
	id, agent, ns, cat, tags string
	shared                   bool
	occurred                 int64
	expires                  sql.NullInt64
	gone                     bool // forgotten or archived: not in the index
	vec                      []byte
	embedder                 sql.NullString
}

const indexColumns = `SELECT id, agent_id, shared, namespace, category, tags, occurred_at, expires_at,
	NOT (` + activeSQL + `), embedding, embedder FROM memories`

func scanIndexRow(rows *sql.Rows) (indexRow, error) {
	var r indexRow
	err := rows.Scan(&r.id, &r.agent, &r.shared, &r.ns, &r.cat, &r.tags, &r.occurred, &r.expires, &r.gone, &r.vec, &r.embedder)
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
func (x *Index) apply(r indexRow, counting bool) {
	var vec []float32
	ok := !r.gone && r.embedder.Valid && r.embedder.String == x.emb.ID
	broken := false
	if ok {
		vec, broken = x.decode(r)
		ok = !broken && !isZero(vec)
	}
	if counting && !r.gone {
		switch {
		case !r.embedder.Valid || broken:
			x.stats.Missing++
		case r.embedder.String != x.emb.ID:
			x.stats.Foreign[r.embedder.String]++
		}
	}
	if !ok {
		x.remove(r.id)
		return
	}
	sp := x.spaces[r.space()]
	if sp == nil {
		sp = &space{dim: x.emb.Dim, personal: !r.shared, slot: map[string]int{}}
		x.spaces[r.space()] = sp
	}
	if _, had := x.where[r.id]; !had && counting {
		x.stats.Indexed++
	}
	x.scratch = vec
	sp.put(r.id, normalize(vec), docMeta{ns: r.ns, cat: memory.Category(r.cat), tags: decodeTags(r.tags),
		occurred: r.occurred, expires: r.expires.Int64})
	x.where[r.id] = r.space()
}

// decode reads r's vector into the scratch buffer (put copies from it:
// loading a large store must not leave a garbage vector per memory behind).
// A vector that cannot be read (a damaged or hand-edited row) is reported
// broken and logged: one such row must neither keep the server from
// starting nor stop Sync for good. Its memory is found by keyword until
// `memory-mcp reindex --missing` writes it a new vector.
func (x *Index) decode(r indexRow) ([]float32, bool) {
	vec, err := decodeVectorDim(x.scratch[:0], r.vec, x.emb.Dim)
	if err != nil {
		x.Log.Warn("unreadable memory vector: the memory is searched by keyword only until `memory-mcp reindex --missing`",
			"memory", r.id, "err", err)
		return nil, true
	}
	return vec, false
}

// remove drops memory id from the index if it is there.
func (x *Index) remove(id string) {
	name, ok := x.where[id]
	if !ok {
		return
	}
	delete(x.where, id)
	x.spaces[name].drop(id)
}

// Len returns how many memories the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.where)
}

// vectorHit is one memory found by cosine similarity.
type vectorHit struct {
	id       string
	cosine   float64
	occurred int64
	personal bool
}

// vectorQuery asks for the n nearest memories in some spaces that pass keep.
type vectorQuery struct {
	vec    []float32 // unit length
	spaces []string
	keep   func(docMeta) bool
	n      int
}

// query returns the n best hits across q's spaces, best first; ties go to
// the smaller id so results are stable.
func (x *Index) query(q vectorQuery) []vectorHit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []vectorHit
	for _, name := range q.spaces {
		if sp := x.spaces[name]; sp != nil {
			out = append(out, sp.nearest(q.vec, q.n, q.keep)...)
		}
	}
	slices.SortFunc(out, func(a, b vectorHit) int {
		if d := cmp.Compare(b.cosine, a.cosine); d != 0 {
			return d
		}
		return strings.Compare(a.id, b.id)
	})
	return out[:min(len(out), q.n)]
}
