package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// rewriteBatch is how many rows a migration's Go step reads, and writes
// at most, per statement (a variable for tests of pages' edges). On
// PostgreSQL a statement per row was a round trip per row: at 20,000
// memories, the server on the same host, 4,000 rows/s re-keyed and 3,200
// refilled, against 11,300 and 12,200 a page a statement
// (BenchmarkMigrationSteps); a server across a network widens the gap.
// 500 rows hold the step's memory to a page's texts, and its statements
// far under either engine's limit on placeholders (4 a row, 2,000 a
// statement).
var rewriteBatch = 500

// rowRewrite is a migration step's rewrite of some columns of one table,
// whose rows are read and written a page at a time in key order: a page is
// read whole, and its cursor closed, before it is written (on PostgreSQL a
// transaction is one connection, busy while a cursor is open), and the
// next page starts after the last key read, so that the step holds one
// page at a time however large the store. Its statements are written with
// SQLite's placeholders.
type rowRewrite[K rewriteKey] struct {
	// read selects the rows after a key (its first argument), in key
	// order, the key first, at most its second argument of them.
	read string
	// table's rows are named by key; columns are the ones written, each
	// with its SQL type ("words_key text").
	table, key string
	columns    []string
	// rewrite scans a row read and returns its key and the values of its
	// columns (in columns' order) to write: none when it is already as the
	// step would write it.
	rewrite func(*sql.Rows) (K, []any, error)
}

// rewriteKey is the type of a rewritten table's key: a row number or an id.
type rewriteKey interface{ int64 | string }

// run rewrites the rows after key after in tx, its statements adapted to
// tx's engine by bind.
func (rw rowRewrite[K]) run(ctx context.Context, tx *sql.Tx, bind func(string) string, after K) error {
	read, width := bind(rw.read), 1+len(rw.columns)
	args := make([]any, 0, rewriteBatch*width)
	for {
		n, last, err := rw.page(ctx, tx, read, after, &args)
		if err != nil {
			return err
		}
		if len(args) > 0 {
			if _, err := tx.ExecContext(ctx, bind(rw.write(len(args)/width)), args...); err != nil {
				return err
			}
		}
		if n < rewriteBatch {
			return nil
		}
		after = last
	}
}

// page reads the page after after into *args (the key and values of each
// row to write) and returns how many rows it read and the last one's key.
func (rw rowRewrite[K]) page(ctx context.Context, tx *sql.Tx, read string, after K, args *[]any) (int, K, error) {
	*args = (*args)[:0]
	rows, err := tx.QueryContext(ctx, read, after, rewriteBatch)
	if err != nil {
		return 0, after, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		key, vals, err := rw.rewrite(rows)
		if err != nil {
			return n, after, err
		}
		if vals != nil {
			*args = append(append(*args, key), vals...)
		}
		after = key
		n++
	}
	return n, after, rows.Err()
}

// write is the UPDATE of n rows from a VALUES list of their keys and
// values. The VALUES' key is compared cast, so that SQLite's planner
// looks each row up by the table's key: compared as it is, SQLite scans
// the whole table for each page, finding its rows in an index it makes of
// the list.
func (rw rowRewrite[K]) write(n int) string {
	keyType := "text"
	if _, ok := any(*new(K)).(int64); ok {
		keyType = "bigint"
	}
	cells := []string{"CAST(? AS " + keyType + ")"}
	set := make([]string, len(rw.columns))
	for i, c := range rw.columns {
		name, typ, _ := strings.Cut(c, " ")
		cells = append(cells, "CAST(? AS "+typ+")")
		set[i] = name + " = v.column" + strconv.Itoa(i+2)
	}
	return `UPDATE ` + rw.table + ` SET ` + strings.Join(set, ", ") + ` FROM (VALUES ` + valuesRows("("+strings.Join(cells, ", ")+")", n) +
		`) AS v WHERE ` + rw.table + `.` + rw.key + ` = CAST(v.column1 AS ` + keyType + `)`
}
