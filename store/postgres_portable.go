package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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
func (db *DB) importPostgres(ctx context.Context, r io.Reader, src ImportSource, rep *ImportReport) error {
	t, err := db.sql.BeginTx(ctx, db.writeTx())
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer t.Rollback()
	tx := &Tx{sql: t, db: db}
	cols := map[string][]string{}
	sum, err := readImport(r, src, rep, func(kind string, row json.RawMessage) error { return tx.insertRecord(ctx, kind, row, cols) })
	if err != nil {
		return err
	}
	if err := tx.advanceIdentities(ctx); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// The rows' terms, which an export does not carry, as the migration
	// that brought terms wrote those of the rows stored before it.
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

// insertRecord inserts one record of kind, its columns checked against the
// table's (cols caches them per kind).
func (tx *Tx) insertRecord(ctx context.Context, kind string, raw json.RawMessage, cols map[string][]string) error {
	var row map[string]json.RawMessage
	if err := json.Unmarshal(raw, &row); err != nil {
		return err
	}
	k, ok := kindNamed(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q", kind)
	}
	known, ok := cols[kind]
	if !ok {
		var err error
		if known, err = postgresPortableColumns(ctx, tx.sql, k); err != nil {
			return err
		}
		cols[kind] = known
	}
	names := make([]string, 0, len(row))
	args := make([]any, 0, len(row))
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
	}
	if len(names) != len(row) {
		for col := range row {
			if !slices.Contains(known, col) {
				return fmt.Errorf("unknown column %q", col)
			}
		}
	}
	_, err := tx.exec(ctx, `INSERT INTO `+k.table+` (`+strings.Join(names, ", ")+`) VALUES (`+placeholders(len(names))+`)`, args...)
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
