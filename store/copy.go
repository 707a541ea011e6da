package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// Moving a SQLite memory onto PostgreSQL is a table copy, not the portable
// export and import: the two schemas hold the same columns with the same
// values (see "Two engines" in docs/DESIGN.md), so every row goes across
// as it is stored, with its ids, its history and its provenance stamp,
// which verifies on PostgreSQL under the same key because both engines
// encode a row alike. The portable format carries one agent's or a
// human's view of the memory and leaves out what a store keeps for its own
// running (tokens, the write log, idempotency keys, erasure records,
// leases, the provenance key's fingerprint); a team moving its server
// needs those too.

// CopiedTable is one table Copy copied and how many rows it holds.
type CopiedTable struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

// notCopied are the PostgreSQL tables that are no copy of a SQLite table:
// the migrations each engine records for itself, and the change feed's
// counter, which Copy sets from the copied feed.
var notCopied = []string{"schema_migrations", "change_counter"}

// copyBatch is how many rows one INSERT carries, at most: PostgreSQL takes
// 65,535 parameters a statement.
const copyBatch = 500

// Copy copies every row of db, a SQLite store, into dst, a PostgreSQL
// store whose tables are empty, in one transaction of dst from one
// snapshot of db: either all of it is there or none. Nothing may write to
// either while it runs (the servers on db are stopped first).
func (db *DB) Copy(ctx context.Context, dst *DB) ([]CopiedTable, error) {
	if db.postgres || !dst.postgres {
		return nil, errors.New("copy: from a SQLite store into a PostgreSQL one")
	}
	var out []CopiedTable
	err := db.View(ctx, func(from *Tx) error {
		return dst.Update(WithoutCall(ctx), func(to *Tx) error {
			tables, err := to.copyOrder(ctx)
			if err != nil {
				return err
			}
			if err := to.refuseRows(ctx, dst, tables); err != nil {
				return err
			}
			// The rows come with what the triggers would derive from them
			// (a space's search statistics), and none of them is a change
			// to refuse or to announce: the tables' own triggers stay off
			// until the copy is in, in this transaction only.
			if err := to.triggers(ctx, tables, "DISABLE"); err != nil {
				return err
			}
			out = out[:0]
			for _, t := range tables {
				n, err := copyTable(ctx, from, to, t)
				if err != nil {
					return fmt.Errorf("copy %s: %w", t, err)
				}
				out = append(out, CopiedTable{Table: t, Rows: n})
			}
			// Each memory and each published fact is searched by its
			// terms, which SQLite keeps in its FTS5 tables and PostgreSQL
			// in the row: written now, as for a row stored before them.
			if err := fillTerms(ctx, to.sql); err != nil {
				return err
			}
			if err := fillRepeatTerms(ctx, to.sql); err != nil {
				return err
			}
			if err := to.triggers(ctx, tables, "ENABLE"); err != nil {
				return err
			}
			return to.afterCopy(ctx)
		})
	})
	return out, err
}

// copyOrder lists the tables to copy, each after the tables its foreign
// keys name.
func (tx *Tx) copyOrder(ctx context.Context) ([]string, error) {
	tables, err := collect(ctx, tx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
		func(rows *sql.Rows, t *string) error { return rows.Scan(t) })
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	tables = slices.DeleteFunc(tables, func(t string) bool { return slices.Contains(notCopied, t) })
	type edge struct{ from, to string }
	edges, err := collect(ctx, tx, `SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
		func(rows *sql.Rows, e *edge) error { return rows.Scan(&e.from, &e.to) })
	if err != nil {
		return nil, fmt.Errorf("list foreign keys: %w", err)
	}
	var order []string
	done := map[string]bool{}
	var visit func(t string)
	visit = func(t string) {
		if done[t] {
			return
		}
		done[t] = true
		for _, e := range edges {
			if e.from == t && e.to != t {
				visit(e.to)
			}
		}
		order = append(order, t)
	}
	for _, t := range tables {
		visit(t)
	}
	return order, nil
}

// refuseRows fails when any table to copy into holds a row: a copy goes
// into a new database only, never over or beside a memory.
func (tx *Tx) refuseRows(ctx context.Context, dst *DB, tables []string) error {
	for _, t := range tables {
		var some bool
		if err := tx.queryRowOnce(ctx, `SELECT EXISTS (SELECT 1 FROM `+t+`)`).Scan(&some); err != nil {
			return fmt.Errorf("look into %s: %w", t, err)
		}
		if some {
			return memory.Errorf(memory.ECONFLICT, "%s is not empty (its table %s holds rows): a copy goes into a new, empty database only; create one (createdb) and name it",
				dst.Path(), t)
		}
	}
	return nil
}

// copyTable copies table t's rows from a SQLite transaction into a
// PostgreSQL one, in the order SQLite keeps them (a row before the rows
// that name it, within a table as across), and returns how many it copied.
func copyTable(ctx context.Context, from, to *Tx, t string) (int64, error) {
	cols, err := to.copiedColumns(ctx, from, t)
	if err != nil {
		return 0, err
	}
	var withoutRowid bool
	if err := from.queryRowOnce(ctx, `SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_schema WHERE type = 'table' AND name = ?`, t).Scan(&withoutRowid); err != nil {
		return 0, fmt.Errorf("read the SQLite table: %w", err)
	}
	q := `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + t
	if !withoutRowid {
		q += ` ORDER BY rowid`
	}
	rows, err := from.queryOnce(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	per := min(copyBatch, 60000/len(cols))
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	insert := func(args []any) error {
		n := len(args) / len(cols)
		_, err := to.exec(ctx, `INSERT INTO `+t+` (`+strings.Join(cols, ", ")+`) VALUES `+valuesRows(row, n), args...)
		return err
	}
	var n int64
	args := make([]any, 0, per*len(cols))
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		args = append(args, vals...)
		n++
		if len(args) == per*len(cols) {
			if err := insert(args); err != nil {
				return n, err
			}
			args = args[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if len(args) > 0 {
		if err := insert(args); err != nil {
			return n, err
		}
	}
	return n, nil
}

// copiedColumns are the columns of table t both engines have (not the
// PostgreSQL rows' search terms), in PostgreSQL's order.
func (tx *Tx) copiedColumns(ctx context.Context, from *Tx, t string) ([]string, error) {
	pg, err := collect(ctx, tx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = '`+t+`' ORDER BY ordinal_position`,
		func(rows *sql.Rows, c *string) error { return rows.Scan(c) })
	if err != nil {
		return nil, err
	}
	lite, err := collect(ctx, from, `SELECT name FROM pragma_table_info('`+t+`')`,
		func(rows *sql.Rows, c *string) error { return rows.Scan(c) })
	if err != nil {
		return nil, err
	}
	if len(lite) == 0 {
		return nil, fmt.Errorf("the SQLite store has no table %s: is it older than this build's PostgreSQL schema?", t)
	}
	return slices.DeleteFunc(pg, func(c string) bool { return !slices.Contains(lite, c) }), nil
}

// triggers enables or disables (how) the triggers the schema defines on
// tables, leaving the foreign keys' checks on.
func (tx *Tx) triggers(ctx context.Context, tables []string, how string) error {
	for _, t := range tables {
		if _, err := tx.execOnce(ctx, `ALTER TABLE `+t+` `+how+` TRIGGER USER`); err != nil {
			return fmt.Errorf("%s the triggers of %s: %w", strings.ToLower(how), t, err)
		}
	}
	return nil
}

// afterCopy brings what PostgreSQL numbers itself up to the copied rows:
// each identity column's next value, and the change feed's counter.
func (tx *Tx) afterCopy(ctx context.Context) error {
	type ident struct{ table, column string }
	ids, err := collect(ctx, tx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES'`,
		func(rows *sql.Rows, c *ident) error { return rows.Scan(&c.table, &c.column) })
	if err != nil {
		return fmt.Errorf("list identity columns: %w", err)
	}
	for _, c := range ids {
		if _, err := tx.execOnce(ctx, `SELECT setval(pg_get_serial_sequence('`+c.table+`', '`+c.column+`'),
			coalesce((SELECT max(`+c.column+`) FROM `+c.table+`), 0) + 1, false)`); err != nil {
			return fmt.Errorf("number %s after the copy: %w", c.table, err)
		}
	}
	if _, err := tx.execOnce(ctx, `UPDATE change_counter SET seq = (SELECT coalesce(max(seq), 0) FROM changes)`); err != nil {
		return fmt.Errorf("set the change counter: %w", err)
	}
	return nil
}

// RowCounts returns how many rows each of tables holds.
func (db *DB) RowCounts(ctx context.Context, tables []string) (map[string]int64, error) {
	out := map[string]int64{}
	err := db.View(ctx, func(tx *Tx) error {
		for _, t := range tables {
			var n int64
			if err := tx.queryRowOnce(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
				return fmt.Errorf("count %s: %w", t, err)
			}
			out[t] = n
		}
		return nil
	})
	return out, err
}
