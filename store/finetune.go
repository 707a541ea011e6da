package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// The storage of fine-tuning (finetune/): the texts a run learns from, the
// record of adapters and of which is in force over each base embedder, the
// runs' reports, and the deployment that swaps every stored vector at once.

// TuningText is a memory or an org fact as fine-tuning reads it.
type TuningText struct {
	ID        string
	Fact      bool
	Agent     string // a memory's agent
	Namespace string
	Content   string
	At        time.Time // when a memory's event occurred; a fact's last change
}

// TuningSelection says which texts a run learns from.
type TuningSelection struct {
	Facts    bool // the org facts in force
	Memories bool // active personal memories (a shared copy repeats its original)
	// Agent and Namespace narrow the memories ("" for all).
	Agent, Namespace string
}

// TuningTexts reads the texts a run learns from: facts in order of id,
// then memories in the order they were stored.
func (db *DB) TuningTexts(ctx context.Context, sel TuningSelection) ([]TuningText, error) {
	var out []TuningText
	if sel.Facts {
		err := db.scanAll(ctx, `SELECT fact_id, content, updated_at FROM snapshot WHERE retracted_at IS NULL ORDER BY fact_id`, nil,
			func(r *rawRow) error {
				t := TuningText{Fact: true}
				var at int64
				if err := r.Scan(&t.ID, &t.Content, &at); err != nil {
					return err
				}
				t.At = fromNanos(at)
				out = append(out, t)
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("read facts to learn from: %w", err)
		}
	}
	if !sel.Memories {
		return out, nil
	}
	q, args := `SELECT id, agent_id, namespace, content, occurred_at FROM memories WHERE `+activeSQL+` AND shared = 0`, []any{}
	if sel.Agent != "" {
		q, args = q+` AND agent_id = ?`, append(args, sel.Agent)
	}
	if sel.Namespace != "" {
		q, args = q+` AND namespace = ?`, append(args, sel.Namespace)
	}
	err := db.scanAll(ctx, q+` ORDER BY pk`, args, func(r *rawRow) error {
		var t TuningText
		var at int64
		if err := r.Scan(&t.ID, &t.Agent, &t.Namespace, &t.Content, &at); err != nil {
			return err
		}
		t.At = fromNanos(at)
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read memories to learn from: %w", err)
	}
	return out, nil
}

// AdapterRecord is a deployed adapter: its checkpoint file and the file's
// SHA-256 (hex).
type AdapterRecord struct {
	Base      string
	Version   int
	File      string
	SHA256    string
	CreatedAt time.Time
}

// AdapterStack returns base's adapters as its deploys and rollbacks left
// them, oldest first: the last is in force (an empty stack: the base
// embedder alone), the one before it what a rollback returns to.
func (db *DB) AdapterStack(ctx context.Context, base string) ([]AdapterRecord, error) {
	var out []AdapterRecord
	err := db.View(ctx, func(tx *Tx) error {
		var err error
		out, err = tx.adapterStack(ctx, base)
		return err
	})
	return out, err
}

func (tx *Tx) adapterStack(ctx context.Context, base string) ([]AdapterRecord, error) {
	rows, err := tx.queryOnce(ctx, `SELECT d.action, d.version, coalesce(a.file, ''), coalesce(a.sha256, ''), coalesce(a.created_at, 0)
		FROM embedder_deployments d LEFT JOIN embedder_adapters a ON a.base_embedder = d.base_embedder AND a.version = d.version
		WHERE d.base_embedder = ? ORDER BY d.seq`, base)
	if err != nil {
		return nil, fmt.Errorf("read deployments: %w", err)
	}
	defer rows.Close()
	var stack []AdapterRecord
	for rows.Next() {
		var action string
		var created int64
		r := AdapterRecord{Base: base}
		if err := rows.Scan(&action, &r.Version, &r.File, &r.SHA256, &created); err != nil {
			return nil, err
		}
		r.CreatedAt = fromNanos(created)
		switch action {
		case "deploy":
			stack = append(stack, r)
		case "rollback":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack, rows.Err()
}

// InForce returns the version of base's adapter in force (0: none) and its
// record.
func (db *DB) InForce(ctx context.Context, base string) (AdapterRecord, error) {
	stack, err := db.AdapterStack(ctx, base)
	if err != nil || len(stack) == 0 {
		return AdapterRecord{Base: base}, err
	}
	return stack[len(stack)-1], nil
}

// NextAdapterVersion is the version a new adapter over base gets: one past
// every version ever deployed over it, so that a version names one adapter
// for good.
func (db *DB) NextAdapterVersion(ctx context.Context, base string) (int, error) {
	var v int
	err := db.sql.QueryRowContext(ctx, db.rebind(`SELECT coalesce(max(version), 0) + 1 FROM embedder_adapters WHERE base_embedder = ?`), base).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("next adapter version: %w", err)
	}
	return v, nil
}

// TuningRun is what one fine-tuning run did.
type TuningRun struct {
	Seq      int64
	Base     string
	Outcome  string
	Version  int // the adapter the run made (0: none)
	Started  time.Time
	Finished time.Time
	By       string
	Memories int    // active memories when it ran
	Report   string // JSON
}

// RecordTuningRun stores the record of a run that deployed nothing: the
// run's one write, which claims a gated call's idempotency key (a repeat
// returns this run's report, not a second run's).
// Fence, when held, is the run's lease, checked in the same transaction.
func (db *DB) RecordTuningRun(ctx context.Context, fence Lease, r TuningRun) error {
	return db.Update(ctx, func(tx *Tx) error {
		if err := tx.fence(ctx, fence); err != nil {
			return err
		}
		return tx.recordTuningRun(ctx, r)
	})
}

func (tx *Tx) recordTuningRun(ctx context.Context, r TuningRun) error {
	_, err := tx.execOnce(ctx, `INSERT INTO finetune_runs (base_embedder, outcome, version, started_at, finished_at, by_agent_id, memories, report)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.Base, r.Outcome, sql.NullInt64{Int64: int64(r.Version), Valid: r.Version > 0},
		nanos(r.Started), nanos(r.Finished), r.By, r.Memories, r.Report)
	if err != nil {
		return fmt.Errorf("record fine-tuning run: %w", err)
	}
	return nil
}

// LastTuningRun returns the newest run's record over base ("": over any
// base), and false when there was none.
func (db *DB) LastTuningRun(ctx context.Context, base string) (TuningRun, bool, error) {
	var r TuningRun
	var version sql.NullInt64
	var started, finished int64
	err := db.sql.QueryRowContext(ctx, db.rebind(`SELECT seq, base_embedder, outcome, version, started_at, finished_at, by_agent_id, memories, report
		FROM finetune_runs WHERE ? = '' OR base_embedder = ? ORDER BY seq DESC LIMIT 1`), base, base).
		Scan(&r.Seq, &r.Base, &r.Outcome, &version, &started, &finished, &r.By, &r.Memories, &r.Report)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read last fine-tuning run: %w", err)
	}
	r.Version, r.Started, r.Finished = int(version.Int64), fromNanos(started), fromNanos(finished)
	return r, true, nil
}

// ActiveMemories counts the memories in search, every agent's.
func (db *DB) ActiveMemories(ctx context.Context) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE `+activeSQL).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	return n, nil
}

// ClearStagedVectors drops the vectors a run staged and did not deploy (a
// run that was stopped, or refused by the gate). Fence, when held, is the
// clearing run's lease: a run taken over must not clear its successor's.
func (db *DB) ClearStagedVectors(ctx context.Context, fence Lease) error {
	return db.Update(WithoutCall(ctx), func(tx *Tx) error {
		if err := tx.fence(ctx, fence); err != nil {
			return err
		}
		if _, err := tx.execOnce(ctx, `DELETE FROM memory_vectors_next`); err != nil {
			return fmt.Errorf("clear staged vectors: %w", err)
		}
		return nil
	})
}

// EmbedderDeployment puts an adapter in force over its base embedder, or
// takes the one in force back.
type EmbedderDeployment struct {
	Base string
	// Version is the adapter in force afterwards (0: none, the base alone).
	Version int
	// Rollback pops the adapter in force, leaving the one below it
	// (Version must be that one); otherwise Version is pushed.
	Rollback bool
	// From is the version the caller found in force: if another deployment
	// has landed since, this one fails with ECONFLICT.
	From int
	// File and SHA256 are a new adapter's checkpoint, recorded when Version
	// was never deployed before.
	File, SHA256 string
	// By is who deploys.
	By string
	// Run is the run's record, stored in the same transaction.
	Run TuningRun
	// Fence, when held, is the deploying run's lease: a run that stalled
	// past it and was taken over deploys nothing.
	Fence Lease
}

// DeployEmbedder lands a deployment in one transaction: the adapter's
// record, the staged vectors of the embedder now in force swapped into the
// memories (those staged by another embedder are dropped), the deployment,
// the run's record, and a ChangeEmbedder so that every process switches
// embedder. It returns how many vectors it swapped. Memories stored since
// the vectors were staged keep the vectors they have; the caller re-embeds
// them (Reindex with StaleOnly) once this has landed.
func (db *DB) DeployEmbedder(ctx context.Context, d EmbedderDeployment) (int, error) {
	id := memory.AdaptedEmbedderID(d.Base, d.Version)
	var swapped int
	// The deployment is the run's write, which claims a gated call's
	// idempotency key: staging before it claims nothing.
	err := db.Update(ctx, func(tx *Tx) error {
		if err := tx.fence(ctx, d.Fence); err != nil {
			return err
		}
		stack, err := tx.adapterStack(ctx, d.Base)
		if err != nil {
			return err
		}
		if err := d.check(stack); err != nil {
			return err
		}
		if d.Version > 0 && !d.Rollback {
			if _, err := tx.execOnce(ctx, `INSERT INTO embedder_adapters (base_embedder, version, file, sha256, created_at)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, d.Base, d.Version, d.File, d.SHA256, nanos(tx.Now())); err != nil {
				return fmt.Errorf("record adapter: %w", err)
			}
		}
		if swapped, err = tx.swapStaged(ctx, id); err != nil {
			return err
		}
		action := map[bool]string{false: "deploy", true: "rollback"}[d.Rollback]
		if _, err := tx.execOnce(ctx, `INSERT INTO embedder_deployments (base_embedder, action, version, at, by_agent_id)
			VALUES (?, ?, ?, ?, ?)`, d.Base, action, d.Version, nanos(tx.Now()), d.By); err != nil {
			return fmt.Errorf("record deployment: %w", err)
		}
		if err := tx.recordTuningRun(ctx, d.Run); err != nil {
			return err
		}
		return tx.RecordChange(ctx, memory.ChangeEmbedder, id, tx.Now())
	})
	return swapped, err
}

// check refuses a deployment that does not follow from the stack in force.
func (d EmbedderDeployment) check(stack []AdapterRecord) error {
	in := 0
	if len(stack) > 0 {
		in = stack[len(stack)-1].Version
	}
	if in != d.From {
		return memory.Errorf(memory.ECONFLICT, "adapter version %d is in force over %s now, not %d: another run deployed or rolled back meanwhile; run again",
			in, d.Base, d.From)
	}
	if !d.Rollback {
		return nil
	}
	if len(stack) == 0 {
		return memory.Errorf(memory.ECONFLICT, "no adapter is in force over %s: there is nothing to roll back", d.Base)
	}
	below := 0
	if len(stack) > 1 {
		below = stack[len(stack)-2].Version
	}
	if d.Version != below {
		return memory.Errorf(memory.ECONFLICT, "a rollback over %s returns to version %d, not %d", d.Base, below, d.Version)
	}
	return nil
}

// swapStaged moves the staged vectors embedder id made into their
// memories and empties the staging table.
func (tx *Tx) swapStaged(ctx context.Context, id string) (int, error) {
	res, err := tx.execOnce(ctx, `UPDATE memories SET embedding = n.embedding, embedder = n.embedder
		FROM memory_vectors_next AS n WHERE memories.pk = n.pk AND n.embedder = ?`, id)
	if err != nil {
		return 0, fmt.Errorf("swap in staged vectors: %w", err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.execOnce(ctx, `DELETE FROM memory_vectors_next`); err != nil {
		return 0, fmt.Errorf("clear staged vectors: %w", err)
	}
	return int(n), nil
}

// VectorCounts counts the memories not forgotten by the embedder that
// made their vector ("" for none), and the vectors staged for a
// deployment that has not landed.
func (db *DB) VectorCounts(ctx context.Context) (byEmbedder map[string]int, staged int, err error) {
	byEmbedder = map[string]int{}
	err = db.View(ctx, func(tx *Tx) error {
		rows, err := tx.queryOnce(ctx, `SELECT coalesce(embedder, ''), count(*) FROM memories WHERE forgotten_at IS NULL GROUP BY 1`)
		if err != nil {
			return fmt.Errorf("count vectors: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				return err
			}
			byEmbedder[id] = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.queryRowOnce(ctx, `SELECT count(*) FROM memory_vectors_next`).Scan(&staged)
	})
	return byEmbedder, staged, err
}

// AdapterWordKey is the key fine-tuning hashes words with (wordvec.WordHash),
// derived from the provenance key: every process on the data directory has
// it, and no one without it can confirm a guessed word against an adapter's
// table. Nil when the database was given no provenance key.
func (db *DB) AdapterWordKey() []byte {
	if db.provenanceKey == nil {
		return nil
	}
	m := hmac.New(sha256.New, db.provenanceKey)
	m.Write([]byte("memory-mcp adapter word key v1"))
	return m.Sum(nil)
}
