package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// exportPostgres writes what Export writes between the header and the
// trailer from PostgreSQL, in one read transaction (one snapshot): the same
// kinds, columns, filters and JSON as SQLite's, read through the driver
// instead of SQLite's C-level API.
func (db *DB) exportPostgres(ctx context.Context, f ExportFilter, out *bufio.Writer, counts ExportCounts) error {
	return db.View(ctx, func(tx *Tx) error {
		sets := map[string]map[string]bool{}
		for _, k := range portableKinds {
			n, err := exportKindPostgres(ctx, tx, k, f, sets, out)
			if err != nil {
				return fmt.Errorf("export %s: %w", k.table, err)
			}
			if n > 0 {
				counts[k.kind] = n
			}
		}
		return out.Flush()
	})
}

// The filter's parameters typed for PostgreSQL, which cannot tell the type
// of a parameter tested for NULL or not used at all: each is cast where a
// kind's condition uses it (typedFilter), and exportFilterTypes, always
// true, uses all four.
var typedFilter = strings.NewReplacer("?1", "CAST(?1 AS text)", "?2", "CAST(?2 AS text)", "?3", "CAST(?3 AS bigint)", "?4", "CAST(?4 AS bigint)")

const exportFilterTypes = ` AND (CAST(?1 AS text) IS NULL OR true) AND (CAST(?2 AS text) IS NULL OR true)` +
	` AND (CAST(?3 AS bigint) IS NULL OR true) AND (CAST(?4 AS bigint) IS NULL OR true)`

// exportKindPostgres is exportKind on PostgreSQL.
func exportKindPostgres(ctx context.Context, tx *Tx, k portableKind, f ExportFilter, sets map[string]map[string]bool, out *bufio.Writer) (int, error) {
	cols, err := portableColumnsPostgres(ctx, tx, k)
	if err != nil {
		return 0, err
	}
	where := k.where
	if where == "" || (f.AgentID == "" && f.Namespace == "" && f.Since == nil && f.Until == nil) {
		where = "true"
	}
	args := make([]any, 4)
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
	keeps, within := columnSets(cols, k.keeps, sets), columnSets(cols, k.within, sets)
	rows, err := tx.queryOnce(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+k.table+` WHERE (`+typedFilter.Replace(where)+`)`+exportFilterTypes+` ORDER BY `+k.order, args...)
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
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var line []byte
	n := 0
rows:
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, set := range within {
			if set != nil && !set[textOf(vals[i])] {
				continue rows
			}
		}
		for i, set := range keeps {
			if set != nil {
				set[textOf(vals[i])] = true
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

// textOf is a value as SQLite's column text gives it: what the sets of
// exported keys hold.
func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// appendJSONValue is appendJSONColumn for a value the driver scanned.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return b, fmt.Errorf("%v is not a number JSON can hold", v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return append(b, s...), nil
	case string:
		s, _ := json.Marshal(v)
		return append(b, s...), nil
	}
	return b, fmt.Errorf("a %T, which the export format does not carry", v)
}

// portableColumnsPostgres is portableColumns on PostgreSQL: the columns of
// k's table in the table's order, but those it skips and the full-text
// terms (tsvector), which only this engine keeps and which are made again
// from the text.
func portableColumnsPostgres(ctx context.Context, tx *Tx, k portableKind) ([]string, error) {
	rows, err := tx.queryOnce(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? AND data_type <> 'tsvector' ORDER BY ordinal_position`, k.table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		if !slices.Contains(k.skip, name.String) {
			cols = append(cols, name.String)
		}
	}
	return cols, rows.Err()
}
