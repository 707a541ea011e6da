package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func stateTable(b memory.Bucket) string { return "shared_" + string(b) }

// stateSelect reads each bucket's table in one shape, so that one scan
// serves every bucket. Columns a bucket lacks are constants.
var stateSelect = map[memory.Bucket]string{
	memory.BucketPlan: `SELECT 'plan' AS bucket, id, text, '' AS state, '' AS task_id, 'active' AS status, '' AS kind, version,
		NULL AS reference_memory_json, NULL AS close_reason, created_at, updated_at, NULL AS closed_at, NULL AS noted_at, event_id FROM shared_plan`,
	memory.BucketConstraints: trackedSelect(memory.BucketConstraints),
	memory.BucketIssues:      trackedSelect(memory.BucketIssues),
	memory.BucketDecisions:   trackedSelect(memory.BucketDecisions),
	memory.BucketResults: `SELECT 'results' AS bucket, id, text, '' AS state, task_id, 'active' AS status, '' AS kind, 0 AS version,
		NULL AS reference_memory_json, NULL AS close_reason, created_at, created_at AS updated_at, NULL AS closed_at, NULL AS noted_at, event_id FROM shared_results`,
	memory.BucketTaskState: `SELECT 'task_state' AS bucket, id, text, state, '' AS task_id, 'active' AS status, '' AS kind, version,
		NULL AS reference_memory_json, NULL AS close_reason, created_at, updated_at, NULL AS closed_at, NULL AS noted_at, event_id FROM shared_task_state`,
	memory.BucketLearnings: `SELECT 'learnings' AS bucket, id, text, '' AS state, '' AS task_id, 'active' AS status, '' AS kind, 0 AS version,
		NULL AS reference_memory_json, NULL AS close_reason, created_at, created_at AS updated_at, NULL AS closed_at, NULL AS noted_at, event_id FROM shared_learnings`,
}

func trackedSelect(b memory.Bucket) string {
	kind := `'' AS kind` // only issues are reported as a kind
	if b == memory.BucketIssues {
		kind = `kind`
	}
	return `SELECT '` + string(b) + `' AS bucket, id, text, '' AS state, '' AS task_id, status, ` + kind + `, 0 AS version,
		reference_memory_json, close_reason, created_at, updated_at, closed_at, noted_at, event_id FROM ` + stateTable(b)
}

func scanStateRows(rows *sql.Rows) ([]memory.StateRow, error) {
	defer rows.Close()
	out := []memory.StateRow{}
	for rows.Next() {
		var r memory.StateRow
		var ref, reason sql.NullString
		var created, updated int64
		var closed, noted sql.NullInt64
		if err := rows.Scan(&r.Bucket, &r.ID, &r.Text, &r.State, &r.TaskID, &r.Status, &r.Kind, &r.Version,
			&ref, &reason, &created, &updated, &closed, &noted, &r.EventID); err != nil {
			return nil, err
		}
		if ref.Valid {
			r.Reference = &memory.ReferenceMemory{}
			if err := json.Unmarshal([]byte(ref.String), r.Reference); err != nil {
				return nil, fmt.Errorf("%s/%s reference memory: %w", r.Bucket, r.ID, err)
			}
		}
		r.CloseReason, r.CreatedAt, r.UpdatedAt, r.ClosedAt = reason.String, fromNanos(created), fromNanos(updated), fromNullNanos(closed)
		if noted.Valid {
			r.NotedAt = fromNanos(noted.Int64)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func queryStateRows(ctx context.Context, tx *Tx, b memory.Bucket, where, order string, args ...any) ([]memory.StateRow, error) {
	q := `SELECT * FROM (` + stateSelect[b] + `) rows_of_bucket`
	if where != "" {
		q += ` WHERE ` + where
	}
	rows, err := tx.queryOnce(ctx, q+` ORDER BY `+order, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stateTable(b), err)
	}
	return scanStateRows(rows)
}

// StateRow returns the row of bucket b with id, in any status.
func (tx *Tx) StateRow(ctx context.Context, b memory.Bucket, id string) (memory.StateRow, bool, error) {
	rows, err := queryStateRows(ctx, tx, b, `id = ?`, `id`, id)
	if err != nil || len(rows) == 0 {
		return memory.StateRow{}, false, err
	}
	return rows[0], true, nil
}

// FindByTextKey returns a row of bucket b whose text has key (see
// memory.TextKey), preferring live rows; for results it must also belong to
// taskID. It is how near-identical writes are recognised.
func (tx *Tx) FindByTextKey(ctx context.Context, b memory.Bucket, key, taskID string) (memory.StateRow, bool, error) {
	where, args := `id IN (SELECT id FROM `+stateTable(b)+` WHERE text_key = ?`, []any{key}
	switch b {
	case memory.BucketResults:
		where, args = where+` AND task_id = ?`, append(args, taskID)
	case memory.BucketPlan, memory.BucketTaskState:
		return memory.StateRow{}, false, nil // keyed by id alone
	}
	order := `(status = '` + b.LiveStatus() + `') DESC, created_at, id`
	rows, err := queryStateRows(ctx, tx, b, where+`)`, order, args...)
	if err != nil || len(rows) == 0 {
		return memory.StateRow{}, false, err
	}
	return rows[0], true, nil
}

// LoadContext returns the resolver's narrow context: open issues, active
// constraints and active decisions (or only the buckets named), plus the
// tracked rows closed after since (none when since is zero), which a note
// written at since may still mean.
func (tx *Tx) LoadContext(ctx context.Context, since time.Time, buckets ...memory.Bucket) (memory.StateContext, error) {
	var c memory.StateContext
	if len(buckets) == 0 {
		buckets = []memory.Bucket{memory.BucketIssues, memory.BucketConstraints, memory.BucketDecisions}
	}
	for _, b := range buckets {
		where, args := `status = ?`, []any{b.LiveStatus()}
		if !since.IsZero() {
			where, args = `(status = ? OR closed_at > ?)`, append(args, nanos(since))
		}
		rows, err := queryStateRows(ctx, tx, b, where, `created_at, id`, args...)
		if err != nil {
			return c, err
		}
		c.Rows = append(c.Rows, rows...)
	}
	return c, nil
}

// State returns the rows q selects: per bucket, newest change first.
func (db *DB) State(ctx context.Context, q memory.StateQuery) ([]memory.StateRow, error) {
	buckets := memory.Buckets
	if q.Bucket != "" {
		buckets = []memory.Bucket{q.Bucket}
	}
	out := []memory.StateRow{}
	err := db.View(ctx, func(tx *Tx) error {
		for _, b := range buckets {
			where, args := "", []any{}
			if q.Status != "" {
				where, args = `status = ?`, append(args, q.Status)
			}
			rows, err := queryStateRows(ctx, tx, b, where, `updated_at DESC, id LIMIT ?`, append(args, q.Limit)...)
			if err != nil {
				return err
			}
			out = append(out, rows...)
		}
		return nil
	})
	return out, err
}

// Summary returns the current belief: the plan, open issues, active
// constraints and decisions, task states, and the size of the pending queue.
func (db *DB) Summary(ctx context.Context) (memory.StateSummary, error) {
	var s memory.StateSummary
	err := db.View(ctx, func(tx *Tx) error {
		plan, ok, err := tx.StateRow(ctx, memory.BucketPlan, memory.PlanID)
		if err != nil {
			return err
		}
		if ok {
			s.Plan = &plan
		}
		lists := []struct {
			b   memory.Bucket
			dst *[]memory.StateRow
		}{{memory.BucketIssues, &s.OpenIssues}, {memory.BucketConstraints, &s.ActiveConstraints}, {memory.BucketDecisions, &s.ActiveDecisions}, {memory.BucketTaskState, &s.Tasks}}
		for _, l := range lists {
			if *l.dst, err = queryStateRows(ctx, tx, l.b, `status = ?`, `created_at, id LIMIT ?`, l.b.LiveStatus(), memory.SummaryRows); err != nil {
				return err
			}
			if err := countOmitted(ctx, tx, l.b, len(*l.dst), &s); err != nil {
				return err
			}
		}
		return tx.queryRowOnce(ctx, `SELECT count(*) FILTER (WHERE stale = 0), count(*) FILTER (WHERE stale = 1)
			FROM pending_memory_events WHERE status = 'open'`).Scan(&s.PendingOpen, &s.PendingStale)
	})
	return s, err
}

// countOmitted records in s how many live rows of b the summary left out
// beyond the shown ones.
func countOmitted(ctx context.Context, tx *Tx, b memory.Bucket, shown int, s *memory.StateSummary) error {
	if shown < memory.SummaryRows {
		return nil
	}
	var n int
	err := tx.queryRowOnce(ctx, `SELECT count(*) FROM (`+stateSelect[b]+`) rows_of_bucket WHERE status = ?`, b.LiveStatus()).Scan(&n)
	if err != nil {
		return fmt.Errorf("count %s: %w", stateTable(b), err)
	}
	if n > shown {
		if s.Omitted == nil {
			s.Omitted = map[memory.Bucket]int{}
		}
		s.Omitted[b] = n - shown
	}
	return nil
}

// DumpState renders every shared table, every column, in key order: two
// dumps are equal exactly when the shared state is. Replay uses it to show
// that rebuilding from the ledger changed nothing.
func (db *DB) DumpState(ctx context.Context) (string, error) {
	var b strings.Builder
	err := db.View(ctx, func(tx *Tx) error {
		for _, bucket := range memory.Buckets {
			if err := dumpTable(ctx, tx, stateTable(bucket), &b); err != nil {
				return err
			}
		}
		return nil
	})
	return b.String(), err
}

func dumpTable(ctx context.Context, tx *Tx, table string, b *strings.Builder) error {
	rows, err := tx.queryOnce(ctx, `SELECT * FROM `+table+` ORDER BY id`)
	if err != nil {
		return fmt.Errorf("dump %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "# %s (%s)\n", table, strings.Join(cols, ", "))
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(b, "%v", v)
		}
		b.WriteByte('\n')
	}
	return rows.Err()
}

// Project is the deterministic projector: it applies one ledger event to the
// shared tables with its bucket's rules, reading nothing but the event and
// the rows it changes, and stamping rows with the event's time. Replaying the
// ledger in order therefore rebuilds the same state. It fails (and the caller
// rolls its savepoint back) when the event does not fit the current state,
// such as a resolve of an issue that is not open.
func Project(ctx context.Context, tx *Tx, ev *memory.Event) error {
	var err error
	switch ev.Bucket {
	case memory.BucketPlan:
		err = projectVersioned(ctx, tx, ev, false, `INSERT INTO shared_plan (id, text, version, created_at, updated_at, event_id)
			VALUES (?1, ?2, 1, ?3, ?3, ?4) ON CONFLICT (id) DO UPDATE SET text = ?2, version = shared_plan.version + 1, updated_at = ?3, event_id = ?4`)
	case memory.BucketTaskState:
		err = projectVersioned(ctx, tx, ev, true, `INSERT INTO shared_task_state (id, text, state, version, created_at, updated_at, event_id)
			VALUES (?1, ?2, ?5, 1, ?3, ?3, ?4) ON CONFLICT (id) DO UPDATE SET text = ?2, state = ?5, version = shared_task_state.version + 1, updated_at = ?3, event_id = ?4`)
	case memory.BucketResults:
		_, err = tx.execOnce(ctx, `INSERT INTO shared_results (id, task_id, text, text_key, created_at, event_id) VALUES (?, ?, ?, ?, ?, ?)`,
			rowID(ev), ev.Payload.TaskID, ev.Payload.Text, memory.TextKey(ev.Payload.Text), nanos(ev.CreatedAt), ev.EventID)
	case memory.BucketLearnings:
		_, err = tx.execOnce(ctx, `INSERT INTO shared_learnings (id, text, text_key, created_at, event_id) VALUES (?, ?, ?, ?, ?)`,
			rowID(ev), ev.Payload.Text, memory.TextKey(ev.Payload.Text), nanos(ev.CreatedAt), ev.EventID)
	case memory.BucketIssues, memory.BucketConstraints, memory.BucketDecisions:
		err = projectTracked(ctx, tx, ev)
	default:
		err = fmt.Errorf("unknown bucket %q", ev.Bucket)
	}
	if err != nil {
		return fmt.Errorf("project %s/%s %s: %w", ev.Bucket, ev.Operation, ev.TargetID, err)
	}
	return tx.RecordChange(ctx, memory.ChangeState, memory.StateChangeRef(ev.Bucket, rowID(ev)), ev.CreatedAt)
}

// rowID is the id of the row an event writes: its target, or for the
// append-only buckets an id made from its ledger position.
func rowID(ev *memory.Event) string {
	switch ev.Bucket {
	case memory.BucketResults:
		return fmt.Sprintf("result_%d", ev.Seq)
	case memory.BucketLearnings:
		return fmt.Sprintf("learning_%d", ev.Seq)
	}
	return ev.TargetID
}

// projectVersioned upserts a row that is replaced as a whole and versioned
// (the plan, a task's state) with the statement q.
// q takes the target, the text, the time and the event id, then, withState,
// the state: every parameter it is given it uses, as PostgreSQL requires.
func projectVersioned(ctx context.Context, tx *Tx, ev *memory.Event, withState bool, q string) error {
	if ev.Operation != memory.OpUpsert || ev.TargetID == "" {
		return fmt.Errorf("%s takes upsert with a target", ev.Bucket)
	}
	args := []any{ev.TargetID, ev.Payload.Text, nanos(ev.CreatedAt), ev.EventID}
	if withState {
		args = append(args, ev.Payload.State)
	}
	_, err := tx.execOnce(ctx, q, args...)
	return err
}

// projectTracked applies upsert, append and the lifecycle operations to an
// issue, constraint or decision, growing its reference memory with the
// phrase and aliases the write was made with.
func projectTracked(ctx context.Context, tx *Tx, ev *memory.Event) error {
	row, exists, err := tx.StateRow(ctx, ev.Bucket, ev.TargetID)
	if err != nil {
		return err
	}
	ref := memory.ReferenceMemory{}
	if exists && row.Reference != nil {
		ref = *row.Reference
	}
	ref.Merge(ev.SourceRef.CandidateAliases, ev.SourceRef.ReferenceText)
	refJSON, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	at, table := nanos(ev.CreatedAt), stateTable(ev.Bucket)
	noted := ev.SourceRef.NoteAt
	if noted.IsZero() {
		noted = ev.CreatedAt
	}
	switch {
	case ev.Operation.Lifecycle() && exists && !row.Live():
		return nil // already closed: closing it again changes nothing, so replaying the ledger cannot fail on it
	case ev.Operation.Lifecycle():
		if !exists {
			return fmt.Errorf("no %s %q to %s", ev.Bucket.Noun(), ev.TargetID, ev.Operation)
		}
		_, err = tx.execOnce(ctx, `UPDATE `+table+` SET status = ?, close_reason = ?, closed_at = ?, updated_at = ?,
			reference_memory_json = ?, event_id = ? WHERE id = ?`,
			ev.Bucket.ClosedStatus(), nullString(ev.Payload.Reason, ev.Payload.Reason != ""), at, at, string(refJSON), ev.EventID, ev.TargetID)
	case exists && ev.Operation == memory.OpAppend:
		return errors.New("a row with this id exists; append creates new rows")
	case exists:
		// A reopened row is recorded anew: notes written while it was closed
		// cannot mean it (noted_at moves to the reopening note).
		if row.Live() {
			noted = row.NotedAt
		}
		_, err = tx.execOnce(ctx, `UPDATE `+table+` SET text = ?, text_key = ?, status = ?, close_reason = NULL, closed_at = NULL,
			updated_at = ?, reference_memory_json = ?, noted_at = ?, event_id = ? WHERE id = ?`,
			ev.Payload.Text, memory.TextKey(ev.Payload.Text), ev.Bucket.LiveStatus(), at, string(refJSON), nanos(noted), ev.EventID, ev.TargetID)
	default:
		_, err = tx.execOnce(ctx, `INSERT INTO `+table+` (id, text, text_key, status, reference_memory_json, created_at, updated_at,
			noted_at, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ev.TargetID, ev.Payload.Text, memory.TextKey(ev.Payload.Text), ev.Bucket.LiveStatus(), string(refJSON), at, at,
			nanos(noted), ev.EventID)
	}
	if err != nil || ev.Bucket != memory.BucketIssues || ev.Operation != memory.OpUpsert {
		return err
	}
	_, err = tx.execOnce(ctx, `UPDATE shared_issues SET kind = ? WHERE id = ?`, reportedKind(ev, row, exists), ev.TargetID)
	return err
}

// reportedKind is the kind an issue upsert leaves its row with. A row is
// of the kind of the report that recorded it, when it was created or
// reopened: a blocker when that write carried memory.KindBlocker among its
// aliases, otherwise a plain issue. An update of a live row keeps its kind,
// just as it keeps noted_at: a note may mean a row by its kind only as it
// was when the note was written. It reads only the event and the row, so
// replay gives every row the same kind.
func reportedKind(ev *memory.Event, row memory.StateRow, exists bool) string {
	if exists && row.Live() {
		return row.Kind
	}
	for _, a := range ev.SourceRef.CandidateAliases {
		if memory.TextKey(a) == memory.KindBlocker {
			return memory.KindBlocker
		}
	}
	return memory.KindIssue
}
