package store

import (
	"context"
	"fmt"
)

// ImportColumns renders what an exact import checks each column of each
// exported table against: "TYPE" with " not null" and " may be left out".
func ImportColumns(ctx context.Context, db *DB) (map[string]string, error) {
	tables, err := db.importColumns(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for table, cols := range tables {
		for name, c := range cols {
			s := c.typ
			if c.notNull {
				s += " not null"
			}
			if c.defaults {
				s += " may be left out"
			}
			out[fmt.Sprintf("%s.%s", table, name)] = s
		}
	}
	return out, nil
}
