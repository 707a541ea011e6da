package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// The scrub after an erase or gc on PostgreSQL. A deleted or updated row's
// old version stays in its table's pages (and its TOAST table's, for a long
// value) until vacuum reclaims the space, and even then its bytes stay in
// the page's free space until a later row overwrites them; its index
// entries (btree keys, the GIN entries of its terms) likewise. VACUUM FULL
// writes each table afresh into new files, with its TOAST table and every
// index rebuilt from the live rows, and the old files are truncated to
// nothing when it commits. Column statistics never hold stored text: the
// migration 0035 keeps ANALYZE off every text column.

// scrubPostgres rewrites every table of the store with VACUUM FULL, one
// table at a time (each its own transaction, as VACUUM must run outside
// one). It reports false when a table stayed locked by another session
// beyond the busy timeout: the scrub stays owed, as SQLite's does when a
// reader keeps its log from being emptied.
func (db *DB) scrubPostgres(ctx context.Context) (bool, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return false, db.postgresError(fmt.Errorf("scrub: %w", err))
	}
	defer conn.Close()
	tables, err := scanStrings(conn.QueryContext(ctx, `SELECT quote_ident(relname) FROM pg_class
		WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname`))
	if err != nil {
		return false, db.postgresError(fmt.Errorf("scrub: list tables: %w", err))
	}
	// A session reading a table holds a lock VACUUM FULL waits for; wait
	// no longer than a write waits on SQLite. The session goes back to the
	// pool as it came.
	if _, err := conn.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, false)`, strconv.FormatInt(busyTimeout.Milliseconds(), 10)); err != nil {
		return false, db.postgresError(fmt.Errorf("scrub: %w", err))
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `RESET lock_timeout`)
	for _, t := range tables {
		if _, err := conn.ExecContext(ctx, `VACUUM (FULL) `+t); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
				return false, nil
			}
			return false, db.postgresError(fmt.Errorf("scrub: vacuum full %s: %w", t, err))
		}
	}
	return true, nil
}
