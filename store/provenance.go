package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
)

// Provenance integrity (seed 003, 12.4.5): every memory, fact operation,
// promotion ledger event, block version and repeat (the words of a write
// answered duplicate) is stamped, in the INSERT that
// writes it, with HMAC-SHA256 over a canonical encoding of the columns that
// never change after the write, keyed by the data directory's provenance key.
// A row changed behind the store's back (a direct edit of the file, a bug that
// bypassed the triggers) no longer matches its stamp, and Verify says which.
//
// Columns that legitimately change after the write are not covered: a
// memory's confidence (a repeat raises it), seen counts, forget, archive,
// restore and supersede columns, its vector and dedup keys; a ledger event's
// applied state. Covering them would mean re-stamping on every such change,
// and a store that routinely rewrites stamps can be made to launder an edit;
// here a stamp is written once, with its row, and a trigger refuses to change
// it (only an unstamped row can be stamped, by TrustUnstamped). Those columns
// have their own record: who and when in their sibling columns and the
// write log.

// ProvenanceKeySize is the length of a provenance key in bytes.
const ProvenanceKeySize = 32

// stampSpec is what one table's stamp covers.
type stampSpec struct {
	table string
	// tag names the table and the encoding's version; it is the first
	// value encoded. Changing columns (or their order) needs a new version.
	tag string
	// ref is the SQL expression that names a row in a report (never its
	// content); keys are the columns an update finds a row by.
	ref  string
	keys []string
	// columns are the covered columns, in encoding order.
	columns []string
}

// The tags of the stamped tables' encodings (a repeat's, repeatStampTag, is with it in repeat.go).
const (
	memoryStampTag       = "memory/v1"
	factOpStampTag       = "fact-op/v1"
	eventStampTag        = "event/v1"
	blockVersionStampTag = "block-version/v1"
	importStampTag       = "import/v1"
)

// stampSpecs are the stamped tables, in report order.
var stampSpecs = []stampSpec{
	{table: "memories", tag: memoryStampTag, ref: "id", keys: []string{"pk"}, columns: memoryStampColumns},
	{table: "operation_log", tag: factOpStampTag, ref: "fact_id || ' v' || version", keys: []string{"id"}, columns: []string{
		"operation_id", "fact_id", "operation_type", "content", "category", "tags", "timestamp", "version", "reason",
		"author_agent_id", "author_seniority", "author_autonomy", "author_is_human"}},
	{table: "events_memory", tag: eventStampTag, ref: "event_id", keys: []string{"seq"}, columns: []string{
		"seq", "event_id", "bucket", "operation", "target_id", "payload_json", "raw_input", "source_ref",
		"agent_id", "autonomy", "run_id", "created_at"}},
	{table: "block_versions", tag: blockVersionStampTag, ref: "'block ' || block_id || ' v' || version", keys: []string{"block_id", "version"}, columns: []string{
		"block_id", "version", "op", "value", "description", "char_limit", "deleted", "restored_from", "at",
		"author_agent_id", "author_seniority", "author_autonomy", "author_is_human"}},
	{table: "memory_repeats", tag: repeatStampTag, ref: "id", keys: []string{"pk"}, columns: repeatStampColumns},
	{table: "imports", tag: importStampTag, ref: "'import ' || id", keys: []string{"id"}, columns: []string{
		"id", "imported_at", "imported_by", "file", "sha256", "format", "kinds", "first_memory_pk", "last_memory_pk",
		"last_memory_created_at"}},
}

// memoryStampColumns are a memory's covered columns: everything the
// memories_immutable trigger protects but the derived filters and length,
// and the columns written only with the row (source, expiry, author, the
// publication of a shared copy).
var memoryStampColumns = []string{
	"id", "agent_id", "namespace", "category", "content", "tags", "source", "shared",
	"published_from", "published_at", "published_autonomy", "created_at", "occurred_at", "expires_at",
	"author_seniority", "author_autonomy", "author_is_human"}

// The canonical encoding: the tag, then each value as one type byte and its
// bytes: NULL nothing; INTEGER 8 bytes big-endian; REAL its IEEE 754 bits
// the same way; TEXT and BLOB a uvarint length and the bytes as stored.
// Booleans are the integers SQLite stores; times are integer nanoseconds and
// tags the JSON text, as stored. Every value carries its length or has a
// fixed one, so no two rows encode alike.
const (
	canonNull byte = iota
	canonInt
	canonReal
	canonText
	canonBlob
)

func appendCanonInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, canonInt), uint64(v))
}

func appendCanonBytes(b []byte, kind byte, v []byte) []byte {
	return append(binary.AppendUvarint(append(b, kind), uint64(len(v))), v...)
}

func appendCanonText(b []byte, v string) []byte {
	return append(binary.AppendUvarint(append(b, canonText), uint64(len(v))), v...)
}

// appendCanonValue encodes a value as the store binds it in an INSERT.
func appendCanonValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, canonNull), nil
	case string:
		return appendCanonText(b, v), nil
	case int:
		return appendCanonInt(b, int64(v)), nil
	case int64:
		return appendCanonInt(b, v), nil
	case bool:
		if v {
			return appendCanonInt(b, 1), nil
		}
		return appendCanonInt(b, 0), nil
	case float64:
		return binary.BigEndian.AppendUint64(append(b, canonReal), math.Float64bits(v)), nil
	case []byte:
		if v == nil {
			return append(b, canonNull), nil
		}
		return appendCanonBytes(b, canonBlob, v), nil
	case sql.NullString:
		if !v.Valid {
			return append(b, canonNull), nil
		}
		return appendCanonText(b, v.String), nil
	case sql.NullInt64:
		if !v.Valid {
			return append(b, canonNull), nil
		}
		return appendCanonInt(b, v.Int64), nil
	}
	switch r := reflect.ValueOf(v); r.Kind() { // named types such as memory.Category
	case reflect.String:
		return appendCanonText(b, r.String()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendCanonInt(b, r.Int()), nil
	}
	return b, fmt.Errorf("provenance: cannot encode %T", v)
}

// appendCanonColumn encodes column i of st's current row as stored.
func appendCanonColumn(b []byte, st *sqlite3.Stmt, i int) []byte {
	switch st.ColumnType(i) {
	case sqlite3.INTEGER:
		return appendCanonInt(b, st.ColumnInt64(i))
	case sqlite3.FLOAT:
		return binary.BigEndian.AppendUint64(append(b, canonReal), math.Float64bits(st.ColumnFloat(i)))
	case sqlite3.TEXT:
		return appendCanonBytes(b, canonText, st.ColumnRawText(i))
	case sqlite3.BLOB:
		return appendCanonBytes(b, canonBlob, st.ColumnRawBlob(i))
	}
	return append(b, canonNull)
}

// provenanceCheck is what a key's fingerprint is the HMAC of.
const provenanceCheck = "memory-mcp provenance key check v1"

// UseProvenanceKey makes db stamp every row it writes with key from now on.
// The first key a database is given is recorded (as a fingerprint, never
// the key); another key is refused, since rows stamped with it would not
// verify under the key every other process uses. Without a key a DB
// stamps nothing.
func (db *DB) UseProvenanceKey(ctx context.Context, key []byte) error {
	if len(key) != ProvenanceKeySize {
		return fmt.Errorf("a provenance key is %d bytes, not %d", ProvenanceKeySize, len(key))
	}
	fp := hmac.New(sha256.New, key)
	fp.Write([]byte(provenanceCheck))
	want := fp.Sum(nil)
	var have []byte
	err := db.Update(WithoutCall(ctx), func(tx *Tx) error {
		res, err := tx.execOnce(ctx, `INSERT INTO provenance_key (one, fingerprint, created_at) VALUES (1, ?, ?) ON CONFLICT DO NOTHING`,
			want, nanos(tx.Now()))
		if err != nil {
			return fmt.Errorf("record provenance key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			// The first key: a database with no unstamped row is complete
			// from now on.
			if err := markComplete(ctx, tx, key); err != nil {
				return err
			}
		}
		return tx.queryRowOnce(ctx, `SELECT fingerprint FROM provenance_key`).Scan(&have)
	})
	if err != nil {
		return err
	}
	if !hmac.Equal(have, want) {
		return ErrProvenanceKey
	}
	db.provenanceKey = bytes.Clone(key)
	return nil
}

// provenanceComplete is what the proof that every row was stamped is the
// HMAC of.
const provenanceComplete = "memory-mcp provenance every row stamped v1"

func completeProof(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(provenanceComplete))
	return m.Sum(nil)
}

// markComplete writes the proof that every row is stamped, if none of the
// stamped tables holds an unstamped row.
func markComplete(ctx context.Context, tx *Tx, key []byte) error {
	for _, s := range stampSpecs {
		var some bool
		if err := tx.queryRowOnce(ctx, `SELECT EXISTS (SELECT 1 FROM `+s.table+` WHERE stamp IS NULL)`).Scan(&some); err != nil {
			return fmt.Errorf("look for unstamped rows: %w", err)
		}
		if some {
			return nil
		}
	}
	if _, err := tx.execOnce(ctx, `UPDATE provenance_key SET complete = ? WHERE one = 1`, completeProof(key)); err != nil {
		return fmt.Errorf("record that every row is stamped: %w", err)
	}
	return nil
}

// complete reports whether the database holds the key's proof that every
// row was stamped once.
func (db *DB) complete(ctx context.Context) (bool, error) {
	var proof []byte
	err := db.sql.QueryRowContext(ctx, `SELECT complete FROM provenance_key`).Scan(&proof)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read provenance key: %w", err)
	}
	return proof != nil && hmac.Equal(proof, completeProof(db.provenanceKey)), nil
}

// KeyedHash returns, in hex, HMAC-SHA256 under the provenance key of
// parts, each written with its length, after purpose, which keeps the
// hashes of one use of the key apart from every other's. What a store
// keeps of a text as this hash (an erase's arguments) cannot be checked
// against guessed texts without the key, which never leaves db. Without a
// key it is SHA-256 of the same bytes.
func (db *DB) KeyedHash(purpose string, parts ...[]byte) string {
	var h hash.Hash
	if db.provenanceKey != nil {
		h = hmac.New(sha256.New, db.provenanceKey)
	} else {
		h = sha256.New()
	}
	b := appendCanonText(nil, purpose)
	for _, p := range parts {
		b = appendCanonBytes(b, canonBlob, p)
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// ErrProvenanceKey is UseProvenanceKey's answer to a key that is not the
// one the database's rows are stamped with.
var ErrProvenanceKey = errors.New("this provenance key is not the one this database's rows are stamped with")

// HasProvenanceKey reports whether some process already stamped rows of the
// database with a key (whose fingerprint it recorded).
func (db *DB) HasProvenanceKey(ctx context.Context) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM provenance_key`).Scan(&n)
	if err != nil {
		return false, db.busyError(fmt.Errorf("read provenance key: %w", err))
	}
	return n > 0, nil
}

// stamp returns the stamp of a row of the table tagged tag whose covered
// columns hold values (as bound to its INSERT), or nil (NULL) when db has
// no key.
func (db *DB) stamp(tag string, values ...any) (any, error) {
	if db.provenanceKey == nil {
		return nil, nil
	}
	b := appendCanonText(make([]byte, 0, 512), tag)
	var err error
	for _, v := range values {
		if b, err = appendCanonValue(b, v); err != nil {
			return nil, err
		}
	}
	m := hmac.New(sha256.New, db.provenanceKey)
	m.Write(b)
	return m.Sum(nil), nil
}

// ProvenanceTable is what Verify found in one table.
type ProvenanceTable struct {
	Table      string `json:"table"`
	Checked    int    `json:"checked"`
	Valid      int    `json:"valid"`
	Unstamped  int    `json:"unstamped"`
	Mismatched int    `json:"mismatched"`
}

// ProvenanceRow names a row (never its content) by table and id.
type ProvenanceRow struct {
	Table string `json:"table"`
	ID    string `json:"id"`
}

// ProvenanceReport is Verify's answer. Complete says every row was
// stamped once (see markComplete): then a row without a stamp is counted
// mismatched, not unstamped.
type ProvenanceReport struct {
	Tables     []ProvenanceTable `json:"tables"`
	Mismatched []ProvenanceRow   `json:"mismatched"`
	Complete   bool              `json:"complete"`
}

// Verify checks every row of the stamped tables against its stamp under
// db's key: valid, unstamped (written before stamps, until every row was
// stamped once) or mismatched (its covered columns or its stamp changed
// after the write, it was stamped with another key, or it has no stamp
// although every row was stamped once). Each table is read by one statement,
// one consistent snapshot, straight through the SQLite API (see scanAll).
func (db *DB) Verify(ctx context.Context) (ProvenanceReport, error) {
	if db.provenanceKey == nil {
		return ProvenanceReport{}, errors.New("verify: the store has no provenance key")
	}
	rep := ProvenanceReport{Tables: []ProvenanceTable{}, Mismatched: []ProvenanceRow{}}
	complete, err := db.complete(ctx)
	if err != nil {
		return rep, err
	}
	rep.Complete = complete
	m := hmac.New(sha256.New, db.provenanceKey)
	buf := make([]byte, 0, 4096)
	sum := make([]byte, 0, sha256.Size)
	for _, s := range stampSpecs {
		t := ProvenanceTable{Table: s.table}
		q := `SELECT ` + s.ref + `, stamp, ` + strings.Join(s.columns, ", ") + ` FROM ` + s.table
		err := db.scanStamped(ctx, q, s.tag, &buf, func(ref string, stamp []byte, unstamped bool) {
			t.Checked++
			if unstamped && !complete {
				t.Unstamped++
				return
			}
			sum = macSum(m, buf, sum)
			if hmac.Equal(sum, stamp) {
				t.Valid++
				return
			}
			t.Mismatched++
			rep.Mismatched = append(rep.Mismatched, ProvenanceRow{Table: s.table, ID: ref})
		})
		if err != nil {
			return rep, fmt.Errorf("verify %s: %w", s.table, err)
		}
		rep.Tables = append(rep.Tables, t)
	}
	return rep, nil
}

// scanStamped reads the rows q selects (a reference, the stamp, then the
// covered columns), in one statement, one consistent snapshot: for each it
// leaves in *buf the canonical encoding of tag and the covered columns as
// stored, and calls fn with the row's reference and stamp (unstamped when
// the stamp is NULL). SQLite's rows are read straight through its API (see
// scanAll); PostgreSQL's through the driver, whose values (bigint as
// int64, text as string, bytea as []byte, NULL as nil) encode as the
// values an INSERT binds do.
func (db *DB) scanStamped(ctx context.Context, q, tag string, buf *[]byte, fn func(ref string, stamp []byte, unstamped bool)) error {
	if !db.postgres {
		return db.scanAll(ctx, q, nil, func(row *rawRow) error {
			*buf = canonRow((*buf)[:0], tag, row.st, 2)
			fn(row.st.ColumnText(0), row.st.ColumnRawBlob(1), row.st.ColumnType(1) == sqlite3.NULL)
			return nil
		})
	}
	return db.scanAll(ctx, q, nil, func(row *rawRow) error {
		vals, err := row.values()
		if err != nil {
			return err
		}
		if *buf, err = canonValues((*buf)[:0], tag, vals[2:]); err != nil {
			return err
		}
		stamp, _ := vals[1].([]byte)
		fn(fmt.Sprint(vals[0]), stamp, vals[1] == nil)
		return nil
	})
}

// values reads every column of a PostgreSQL row as the driver gives it.
func (r *rawRow) values() ([]any, error) {
	cols, err := r.rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, r.rows.Scan(ptrs...)
}

// canonValues encodes tag and vals, a row's columns as the PostgreSQL
// driver read them.
func canonValues(b []byte, tag string, vals []any) ([]byte, error) {
	b = appendCanonText(b, tag)
	var err error
	for _, v := range vals {
		if b, err = appendCanonValue(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// canonRow encodes tag and the columns of st's row from column first on.
func canonRow(b []byte, tag string, st *sqlite3.Stmt, first int) []byte {
	b = appendCanonText(b, tag)
	for i := first; i < st.ColumnCount(); i++ {
		b = appendCanonColumn(b, st, i)
	}
	return b
}

func macSum(m hash.Hash, b, into []byte) []byte {
	m.Reset()
	m.Write(b)
	return m.Sum(into[:0])
}

// trustBatch is how many rows TrustUnstamped stamps per transaction, so
// that other writers wait for one batch at most, never for the whole file.
const trustBatch = 1000

// TrustUnstamped stamps every unstamped row of the stamped tables with its
// content as it is now, and returns how many it stamped per table. It is an
// operator's decision that the rows' current content is trusted: a row
// altered before it was stamped verifies from then on. Rows are stamped in
// batches, each its own transaction; a stamp is never overwritten.
func (db *DB) TrustUnstamped(ctx context.Context) (map[string]int, error) {
	if db.provenanceKey == nil {
		return nil, errors.New("stamp: the store has no provenance key")
	}
	if complete, err := db.complete(ctx); err != nil || complete {
		if err == nil {
			err = ErrStampedOnce
		}
		return nil, err
	}
	out := map[string]int{}
	for _, s := range stampSpecs {
		// Each batch starts after the last row the one before it read, so
		// that no batch scans the rows already stamped again.
		after := make([]int64, len(s.keys))
		for i := range after {
			after[i] = math.MinInt64
		}
		for {
			n, err := db.trustBatch(ctx, s, after)
			if err != nil {
				return out, db.busyError(fmt.Errorf("stamp %s: %w", s.table, err))
			}
			out[s.table] += n
			if n < trustBatch {
				break
			}
		}
	}
	err := db.Update(WithoutCall(ctx), func(tx *Tx) error { return markComplete(ctx, tx, db.provenanceKey) })
	return out, err
}

// ErrStampedOnce is TrustUnstamped's answer once every row was stamped: a
// row without a stamp now was written or changed behind the store's back,
// and stamping it would hide that.
var ErrStampedOnce = errors.New("every row was stamped once already: a row without a stamp now was written or changed behind the store's back, which verify reports; it is not stamped")

// trustBatch stamps up to trustBatch unstamped rows of s's table in one
// immediate transaction on a connection of its own, read and written
// through the SQLite API so that the stamps are over the columns exactly as
// stored.
func (db *DB) trustBatch(ctx context.Context, s stampSpec, after []int64) (int, error) {
	if db.postgres {
		return db.trustBatchPostgres(ctx, s, after)
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("get connection: %w", err)
	}
	defer conn.Close()
	var n int
	err = conn.Raw(func(dc any) error {
		c := dc.(driver.Conn).Raw()
		old := c.SetInterrupt(ctx)
		defer c.SetInterrupt(old)
		if err := c.Exec(`BEGIN IMMEDIATE`); err != nil {
			return err
		}
		var err error
		if n, err = db.stampRows(c, s, after); err != nil {
			c.Exec(`ROLLBACK`)
			return err
		}
		return c.Exec(`COMMIT`)
	})
	return n, err
}

// stampRows stamps up to trustBatch unstamped rows of s's table whose keys
// come after after, in key order, on c, in c's transaction; after moves to
// the last row read.
func (db *DB) stampRows(c *sqlite3.Conn, s stampSpec, after []int64) (int, error) {
	keys := strings.Join(s.keys, ", ")
	sel, _, err := c.Prepare(`SELECT ` + keys + `, ` + strings.Join(s.columns, ", ") + ` FROM ` + s.table +
		` WHERE stamp IS NULL AND (` + keys + `) > (` + placeholders(len(s.keys)) + `) ORDER BY ` + keys + ` LIMIT ` + fmt.Sprint(trustBatch))
	if err != nil {
		return 0, err
	}
	defer sel.Close()
	for i, k := range after {
		sel.BindInt64(i+1, k)
	}
	type stamped struct {
		keys  []int64
		stamp []byte
	}
	var rows []stamped
	m := hmac.New(sha256.New, db.provenanceKey)
	var buf []byte
	for sel.Step() {
		r := stamped{}
		for i := range s.keys {
			r.keys = append(r.keys, sel.ColumnInt64(i))
		}
		buf = canonRow(buf[:0], s.tag, sel, len(s.keys))
		r.stamp = macSum(m, buf, nil)
		rows = append(rows, r)
		copy(after, r.keys)
	}
	if err := sel.Err(); err != nil {
		return 0, err
	}
	where := strings.Join(s.keys, " = ? AND ") + " = ?"
	upd, _, err := c.Prepare(`UPDATE ` + s.table + ` SET stamp = ? WHERE ` + where + ` AND stamp IS NULL`)
	if err != nil {
		return 0, err
	}
	defer upd.Close()
	for _, r := range rows {
		upd.BindBlob(1, r.stamp)
		for i, k := range r.keys {
			upd.BindInt64(i+2, k)
		}
		if err := upd.Exec(); err != nil {
			return 0, err
		}
		upd.Reset()
	}
	return len(rows), nil
}

// trustBatchPostgres is trustBatch on PostgreSQL: the batch is read and
// stamped in one write transaction through the driver, whose values encode
// as the columns are stored (see scanStamped).
func (db *DB) trustBatchPostgres(ctx context.Context, s stampSpec, after []int64) (int, error) {
	start := slices.Clone(after)
	var n int
	err := db.Update(WithoutCall(ctx), func(tx *Tx) error {
		copy(after, start) // a run again starts where this batch did
		var err error
		n, err = tx.stampBatchPostgres(ctx, s, after)
		return err
	})
	return n, err
}

// stampBatchPostgres stamps up to trustBatch unstamped rows of s's table
// whose keys come after after, in key order, in tx; after moves to the
// last row read.
func (tx *Tx) stampBatchPostgres(ctx context.Context, s stampSpec, after []int64) (int, error) {
	db := tx.db
	keys := strings.Join(s.keys, ", ")
	var n int
	err := func() error {
		rows, err := tx.queryOnce(ctx, `SELECT `+keys+`, `+strings.Join(s.columns, ", ")+` FROM `+s.table+
			` WHERE stamp IS NULL AND (`+keys+`) > (`+placeholders(len(s.keys))+`) ORDER BY `+keys+` LIMIT `+fmt.Sprint(trustBatch),
			anySlice(after)...)
		if err != nil {
			return err
		}
		type stamped struct {
			keys  []any
			stamp []byte
		}
		var todo []stamped
		m := hmac.New(sha256.New, db.provenanceKey)
		var buf []byte
		row := &rawRow{rows: rows}
		for rows.Next() {
			vals, err := row.values()
			if err != nil {
				rows.Close()
				return err
			}
			if buf, err = canonValues(buf[:0], s.tag, vals[len(s.keys):]); err != nil {
				rows.Close()
				return err
			}
			r := stamped{keys: vals[:len(s.keys)], stamp: macSum(m, buf, nil)}
			for i, k := range r.keys {
				after[i], _ = k.(int64)
			}
			todo = append(todo, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		n = len(todo)
		if n == 0 {
			return nil
		}
		// One statement for the batch: a statement per row was a round
		// trip per row, most of an import's stamping.
		cells, names, where := []string{"CAST(? AS bytea)"}, []string{"stamp"}, []string{"t.stamp IS NULL"}
		for i, k := range s.keys {
			cells, names = append(cells, "CAST(? AS bigint)"), append(names, fmt.Sprintf("k%d", i))
			where = append(where, fmt.Sprintf("t.%s = v.k%d", k, i))
		}
		tuple := "(" + strings.Join(cells, ", ") + ")"
		args := make([]any, 0, n*len(cells))
		for _, r := range todo {
			args = append(append(args, r.stamp), r.keys...)
		}
		_, err = tx.execOnce(ctx, `UPDATE `+s.table+` AS t SET stamp = v.stamp FROM (VALUES `+valuesRows(tuple, n)+
			`) AS v (`+strings.Join(names, ", ")+`) WHERE `+strings.Join(where, " AND "), args...)
		return err
	}()
	return n, err
}

// copyStamp returns the stamp of the shared copy sid of memory src, published
// at (nanoseconds) by an agent of autonomy publisher: the original's covered
// columns with the copy's own identity and publication.
func (tx *Tx) copyStamp(ctx context.Context, src, sid string, at int64, publisher sql.NullString) (any, error) {
	if tx.db.provenanceKey == nil {
		return nil, nil
	}
	var agent, ns, cat, content, tags string
	var source, seniority, autonomy sql.NullString
	var occurred int64
	var expires sql.NullInt64
	var human bool
	err := tx.queryRowOnce(ctx, `SELECT agent_id, namespace, category, content, tags, source, occurred_at, expires_at,
		author_seniority, author_autonomy, author_is_human FROM memories WHERE id = ?`, src).
		Scan(&agent, &ns, &cat, &content, &tags, &source, &occurred, &expires, &seniority, &autonomy, &human)
	if err != nil {
		return nil, fmt.Errorf("read %s to stamp its copy: %w", src, err)
	}
	return tx.db.stamp(memoryStampTag, sid, agent, ns, cat, content, tags, source, true,
		src, at, publisher, at, occurred, expires, seniority, autonomy, human)
}

// nextEventSeq is the seq SQLite's AUTOINCREMENT would give the next ledger
// event: one past the highest ever used, so that a seq an erase freed is
// never given again.
func (tx *Tx) nextEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	q := `SELECT max(
		coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events_memory'), 0),
		coalesce((SELECT max(seq) FROM events_memory), 0)) + 1`
	if tx.db.postgres {
		// The identity's sequence keeps the highest number ever taken, as
		// sqlite_sequence does; it is moved to the one taken here. A
		// sequence does not roll back: a write that fails leaves a gap.
		q = `SELECT setval(pg_get_serial_sequence('events_memory', 'seq'), greatest(
			(SELECT last_value FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = 'events_memory_seq_seq'),
			(SELECT max(seq) FROM events_memory), 0) + 1)`
	}
	err := tx.sql.QueryRowContext(ctx, q).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("next event seq: %w", err)
	}
	return seq, nil
}
