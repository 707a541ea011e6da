package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// Export and exact import on PostgreSQL: the same records, in the same
// order, with the same bytes as SQLite's (portable.go), read and written
// through the driver. The two engines' tables have the same columns in the
// same order, but for the terms PostgreSQL keeps beside a row's text,
// which an export leaves out as SQLite's leaves its FTS5 tables.

// exportPostgres runs fn in one REPEATABLE READ, read-only transaction: an
// export is one snapshot, whatever commits meanwhile.
func (db *DB) exportPostgres(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.reads.BeginTx(ctx, db.readTx())
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// postgresFilterTypes types the filter's parameters where a condition
// only asks whether one is NULL: PostgreSQL must know each parameter's type.
var postgresFilterTypes = strings.NewReplacer(
	"?1 IS NULL", "CAST(?1 AS text) IS NULL", "?2 IS NULL", "CAST(?2 AS text) IS NULL",
	"?3 IS NULL", "CAST(?3 AS bigint) IS NULL", "?4 IS NULL", "CAST(?4 AS bigint) IS NULL")

// exportKindPostgres is exportKind on PostgreSQL.
func (db *DB) exportKindPostgres(ctx context.Context, tx *sql.Tx, k portableKind, f ExportFilter, sets map[string]map[string]bool, out *bufio.Writer) (int, error) {
	cols, err := postgresPortableColumns(ctx, tx, k)
	if err != nil {
		return 0, err
	}
	where, args := k.where, filterArgs(f)
	if where == "" {
		where, args = "true", nil
	}
	keeps, within := columnSets(cols, k.keeps, sets), columnSets(cols, k.within, sets)
	if f.whole() {
		where, args, keeps, within = k.inStore("true"), nil, nil, nil
	}
	rows, err := tx.QueryContext(ctx, db.dialect(`SELECT `+strings.Join(cols, ", ")+` FROM `+k.table+
		` WHERE `+postgresFilterTypes.Replace(where)+` ORDER BY `+k.order), args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	prefix := []byte(`{"kind":"` + k.kind + `","row":{`)
	names := make([][]byte, len(cols))
	for i, col := range cols {
		names[i], _ = json.Marshal(col)
		names[i] = append(names[i], ':')
	}
	vals := make([]any, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var line []byte
	n := 0
rows:
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		for i, set := range within {
			if set != nil && !set[valueText(vals[i])] {
				continue rows
			}
		}
		for i, set := range keeps {
			if set != nil {
				set[valueText(vals[i])] = true
			}
		}
		line = append(line[:0], prefix...)
		for i := range cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, names[i]...)
			if line, err = appendJSONValue(line, vals[i]); err != nil {
				return n, fmt.Errorf("column %s: %w", cols[i], err)
			}
		}
		line = append(line, "}}\n"...)
		if _, err := out.Write(line); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// filterArgs are f's parameters ?1..?4 (see the conditions in portable.go).
func filterArgs(f ExportFilter) []any {
	args := []any{nil, nil, nil, nil}
	if f.AgentID != "" {
		args[0] = f.AgentID
	}
	if f.Namespace != "" {
		args[1] = f.Namespace
	}
	if f.Since != nil {
		args[2] = nanos(*f.Since)
	}
	if f.Until != nil {
		args[3] = nanos(*f.Until)
	}
	return args
}

// valueText is a value as SQLite's column text gives it, for the sets of
// ids a filtered export keeps.
func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(v)
}

// postgresPortableColumns are the columns of k's table an export carries,
// in the table's order (SQLite's order too; terms are PostgreSQL's own).
func postgresPortableColumns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, k portableKind) ([]string, error) {
	cols, err := scanStrings(q.QueryContext(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name <> 'terms' ORDER BY ordinal_position`, k.table))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cols, func(c string) bool { return slices.Contains(k.skip, c) }), nil
}

// importPostgres is Import's transaction on PostgreSQL: every record
// inserted as it was, each identity column's sequence moved past the keys
// imported (so the next row written gets a new one), the search terms of
// memories and published facts written, the import recorded and every row
// stamped, all in one transaction that commits only once
// the whole file was read and its trailer matched.
//
// The transaction is REPEATABLE READ, not serializable as the store's other
// writes are, and holds every table an export fills against other writers
// instead (EXCLUSIVE: readers go on): a serializable transaction keeps a
// predicate lock for what each of its statements reads, foreign key checks
// included, and, running for minutes, keeps those of every serializable
// transaction of the cluster that committed meanwhile, until PostgreSQL's
// shared lock table is full (an import of 20,000 memories failed with "out
// of shared memory" beside a running server). Nothing else can write while
// the tables are held, so there is nothing for it to be serialized against.
func (db *DB) importPostgres(ctx context.Context, r io.Reader, src ImportSource, rep *ImportReport) error {
	t, err := db.sql.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer t.Rollback()
	tables := make([]string, 0, len(portableKinds)+1)
	for _, k := range portableKinds {
		tables = append(tables, k.table)
	}
	if _, err := t.ExecContext(ctx, `LOCK TABLE `+strings.Join(append(tables, "imports"), ", ")+` IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// Empty again, now that no one else can write: a write between Import's
	// check and the lock would be counted by its trigger and again by
	// deferSpaces' count.
	var held bool
	if err := t.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM memories)`).Scan(&held); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if held {
		return memory.Errorf(memory.ECONFLICT, "the store at %s already holds memory: an exact import goes only into an empty store", db.path)
	}
	tx := &Tx{sql: t, db: db}
	counted, err := deferSpaces(ctx, t)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	ins := &pgInserter{tx: tx, cols: map[string][]string{}}
	sum, err := readImport(r, src, rep, func(kind string, row json.RawMessage) error { return ins.insert(ctx, kind, row) })
	if err == nil {
		err = ins.flush(ctx)
	}
	if err != nil {
		return err
	}
	if err := counted(); err != nil {
		return fmt.Errorf("import: count the search spaces: %w", err)
	}
	if err := tx.advanceIdentities(ctx); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// The planner's statistics of the tables filled, which knew them
	// empty: the stamping after, and a reindex, read in key order, and
	// planned for an empty table read all of it for every batch.
	if _, err := t.ExecContext(ctx, `ANALYZE `+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// The terms of rows that came without them (the inserts wrote those of
	// every memory and published fact), as the migration that brought
	// terms wrote those of the rows stored before it.
	if err := fillTerms(ctx, t); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if err := fillRepeatTerms(ctx, t); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	counts, _ := json.Marshal(rep.Kinds)
	if _, err := tx.execOnce(ctx, `INSERT INTO imports (imported_at, imported_by, file, sha256, format, kinds, first_memory_pk, last_memory_pk, last_memory_created_at)
		SELECT ?, ?, ?, ?, ?, ?, min(pk), max(pk), max(created_at) FROM memories`,
		nanos(db.Now.Now()), src.By, src.File, sum, ExportFormat, string(counts)); err != nil {
		return fmt.Errorf("record the import: %w", err)
	}
	err = db.stampAll(func(s stampSpec, after []int64) (int, error) { return tx.stampBatchPostgres(ctx, s, after) })
	if err != nil || src.DryRun {
		return err // the deferred Rollback undoes a dry run
	}
	return t.Commit()
}

// deferSpaces lifts, in t, the triggers that count each memory inserted
// into its search space's statistics (memory_spaces) and its state's kept
// count (memory_counts), and returns the function that counts every memory
// inserted since in one statement each, as the triggers would have, and
// puts the triggers back. Each trigger updates one row for every memory,
// and in one transaction each update walked the versions the earlier ones
// left: 20,000 memories took 7 s of it, growing with the square of their
// number (a million never finished). Lifting a trigger takes a lock that
// lets readers go on; where the importing role may not (it does not own
// the table), the triggers stay and the import is only slower.
func deferSpaces(ctx context.Context, t *sql.Tx) (func() error, error) {
	if _, err := t.ExecContext(ctx, `SAVEPOINT defer_spaces`); err != nil {
		return nil, err
	}
	if _, err := t.ExecContext(ctx, `ALTER TABLE memories DISABLE TRIGGER memories_spaces_insert, DISABLE TRIGGER memories_counts_insert`); err != nil {
		slog.Warn("import: the counting triggers stay on, and a large import is slow (the importing role does not own the memories table?)", "err", err)
		_, err = t.ExecContext(ctx, `ROLLBACK TO SAVEPOINT defer_spaces`)
		return func() error { return nil }, err
	}
	if _, err := t.ExecContext(ctx, `RELEASE SAVEPOINT defer_spaces`); err != nil {
		return nil, err
	}
	return func() error {
		if _, err := t.ExecContext(ctx, `INSERT INTO memory_spaces AS s (agent_id, shared, rows, tokens, gen)
			SELECT agent_id, shared, count(*), sum(length), count(*) FROM memories
			WHERE forgotten_at IS NULL AND archived_at IS NULL GROUP BY agent_id, shared
			ON CONFLICT (agent_id, shared) DO UPDATE SET rows = s.rows + excluded.rows, tokens = s.tokens + excluded.tokens, gen = s.gen + excluded.gen`); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO memory_counts AS c (agent_id, shared, category, namespace, state, n)
			SELECT agent_id, shared, category, namespace, memory_mcp_kept_state(forgotten_at, archived_at, archive_reason), count(*)
			FROM memories GROUP BY 1, 2, 3, 4, 5
			ON CONFLICT (agent_id, shared, category, namespace, state) DO UPDATE SET n = c.n + excluded.n`); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `ALTER TABLE memories ENABLE TRIGGER memories_spaces_insert, ENABLE TRIGGER memories_counts_insert`)
		return err
	}, nil
}

// importBatch is how many rows one INSERT of an import writes at most (and
// never more than 60,000 parameters: PostgreSQL takes 65,535). A statement
// per row was a round trip per row, most of an import's time.
const importBatch = 500

// pgInserter inserts an import's records in multi-row INSERTs: consecutive
// records of one kind with the same columns go into one statement, in the
// file's order (a row is checked against the keys it names at the end of
// its statement, so a row may name one later in the same statement, never
// one in a later statement that the file had before it).
type pgInserter struct {
	tx    *Tx
	cols  map[string][]string // each kind's table's columns, as known
	kind  string              // of the rows held
	table string
	names []string // the held rows' columns, terms last when terms is set
	terms bool     // the held rows carry their search terms
	args  []any
	rows  int
}

// insert checks one record of kind against its table's columns and holds
// it for the next statement, which it first sends when the record does not
// fit in it.
func (ins *pgInserter) insert(ctx context.Context, kind string, raw json.RawMessage) error {
	var row map[string]json.RawMessage
	if err := json.Unmarshal(raw, &row); err != nil {
		return err
	}
	k, ok := kindNamed(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q", kind)
	}
	known, ok := ins.cols[kind]
	if !ok {
		var err error
		if known, err = postgresPortableColumns(ctx, ins.tx.sql, k); err != nil {
			return err
		}
		ins.cols[kind] = known
	}
	names := make([]string, 0, len(row)+1)
	args := make([]any, 0, len(row)+1)
	vals := map[string]any{}
	for _, col := range known {
		v, ok := row[col]
		if !ok {
			continue
		}
		val, err := jsonValue(v)
		if err != nil {
			return fmt.Errorf("column %s: %v", col, err)
		}
		names, args = append(names, col), append(args, val)
		vals[col] = val
	}
	if len(names) != len(row) {
		for col := range row {
			if !slices.Contains(known, col) {
				return fmt.Errorf("unknown column %q", col)
			}
		}
	}
	// The row's search terms, as fillTerms would write them after.
	terms, ok := importTerms(k.table, vals)
	if ok {
		names, args = append(names, "terms"), append(args, terms)
	}
	if ins.rows > 0 && (kind != ins.kind || ok != ins.terms || !slices.Equal(names, ins.names) ||
		ins.rows >= min(importBatch, 60000/len(names))) {
		if err := ins.flush(ctx); err != nil {
			return err
		}
	}
	if ins.rows == 0 {
		ins.kind, ins.table, ins.names, ins.terms = kind, k.table, names, ok
	}
	ins.args = append(ins.args, args...)
	ins.rows++
	return nil
}

// importTerms are the search terms of a row of table, when it is one that
// has them: every memory, and a fact's PUBLISH operation.
func importTerms(table string, vals map[string]any) (string, bool) {
	text := func(col string) (string, bool) { s, ok := vals[col].(string); return s, ok }
	content, okc := text("content")
	tags, okt := text("tags")
	if !okc || !okt {
		return "", false
	}
	switch table {
	case "memories":
		if filters, ok := text("filters"); ok {
			return postgresTerms(filters, content, tags), true
		}
	case "operation_log":
		if op, _ := text("operation_type"); op == "PUBLISH" {
			return postgresTerms("", content, tags), true
		}
	}
	return "", false
}

// flush inserts the rows held in one statement.
func (ins *pgInserter) flush(ctx context.Context) error {
	if ins.rows == 0 {
		return nil
	}
	cells := make([]string, len(ins.names))
	for i := range cells {
		cells[i] = "?"
	}
	if ins.terms {
		cells[len(cells)-1] = "CAST(? AS tsvector)"
	}
	row := "(" + strings.Join(cells, ", ") + ")"
	q := `INSERT INTO ` + ins.table + ` (` + strings.Join(ins.names, ", ") + `) VALUES ` + valuesRows(row, ins.rows)
	_, err := ins.tx.execOnce(ctx, q, ins.args...)
	if err != nil {
		err = fmt.Errorf("insert %d %s records: %w", ins.rows, ins.kind, err)
	}
	ins.args, ins.rows = ins.args[:0], 0
	return err
}

// advanceIdentities moves each identity column's sequence past the
// largest key its table holds: rows inserted with their keys, as an import
// inserts them, do not move it, and the next row written would take a key
// in use.
func (tx *Tx) advanceIdentities(ctx context.Context) error {
	rows, err := tx.sql.QueryContext(ctx, `SELECT quote_ident(table_name), quote_ident(column_name) FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES'`)
	if err != nil {
		return err
	}
	type ident struct{ table, col string }
	var ids []ident
	for rows.Next() {
		var i ident
		if err := rows.Scan(&i.table, &i.col); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range ids {
		if _, err := tx.sql.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), max(`+i.col+`)) FROM `+i.table+` HAVING max(`+i.col+`) IS NOT NULL`,
			i.table, i.col); err != nil {
			return fmt.Errorf("advance %s.%s: %w", i.table, i.col, err)
		}
	}
	return nil
}
