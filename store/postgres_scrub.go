package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"sync"
	"time"

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
// one). It reports false, and the scrub stays owed as SQLite's does when a
// reader keeps its log from being emptied, when within the busy timeout
// another session still could see what was erased, or kept a table
// locked.
func (db *DB) scrubPostgres(ctx context.Context) (bool, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return false, db.postgresError(fmt.Errorf("scrub: %w", err))
	}
	defer conn.Close()
	if clear, err := db.erasedUnseen(ctx, conn); err != nil || !clear {
		return false, err
	}
	// The store's tables only: a schema it shares with other programs'
	// tables holds none of its text, and their owners' locks are theirs.
	tables, err := scanStrings(conn.QueryContext(ctx, `SELECT quote_ident(relname) FROM pg_class
		WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND relname IN (SELECT value FROM json_each($1))
		ORDER BY relname`, jsonList(postgresTables())))
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

// postgresTables are the tables the PostgreSQL migrations create, and
// schema_migrations: the store's own.
var postgresTables = sync.OnceValue(func() []string {
	tables := []string{"schema_migrations"}
	names, _ := fs.Glob(postgresMigrations, "*.sql")
	for _, name := range names {
		body, _ := fs.ReadFile(postgresMigrations, name)
		for _, m := range createTable.FindAllStringSubmatch(string(body), -1) {
			tables = append(tables, m[1])
		}
	}
	return tables
})

// createTable finds the tables a migration creates.
var createTable = regexp.MustCompile(`(?i)CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)`)

// erasedUnseen waits, up to the busy timeout, until no snapshot can see
// rows the erase owing the scrub deleted: VACUUM FULL copies a deleted row
// still visible to a snapshot into the new file, as it must, and the bytes
// would stay. The erase's transaction id is the scrub_owed row's xmin (the
// newest erase owing it wrote it last). A row it deleted is kept while a
// session of this database holds a snapshot whose xmin is not past it, a
// replication slot does (a standby's hot_standby_feedback), or any
// transaction of the cluster that began before it still runs, in any
// database (prepared ones too): VACUUM's own snapshot starts at the oldest
// of those. It reports false when one still did once the time was up.
func (db *DB) erasedUnseen(ctx context.Context, conn *sql.Conn) (bool, error) {
	var erase sql.NullString
	if err := conn.QueryRowContext(ctx, `SELECT max(xmin::text) FROM scrub_owed`).Scan(&erase); err != nil {
		return false, db.postgresError(fmt.Errorf("scrub: %w", err))
	}
	if !erase.Valid {
		return true, nil
	}
	deadline := time.Now().Add(busyTimeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 250*time.Millisecond) {
		var seen bool
		err := conn.QueryRowContext(ctx, `SELECT age((pg_snapshot_xmin(pg_current_snapshot())::text::bigint % 4294967296)::text::xid) >= age($1::text::xid)
			OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid()
				AND (datname = current_database() OR datname IS NULL) AND age(backend_xmin) >= age($1::text::xid))
			OR EXISTS (SELECT 1 FROM pg_replication_slots WHERE age(xmin) >= age($1::text::xid))`, erase.String).Scan(&seen)
		if err != nil {
			return false, db.postgresError(fmt.Errorf("scrub: %w", err))
		}
		if !seen {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(wait):
		}
	}
}
