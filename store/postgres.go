package store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	neturl "net/url"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"

	memory "github.com/memory-mcp/memory-mcp"
)

// The PostgreSQL engine. The store is one store with two dialects: every
// service, rule and transaction is the same Go code on either engine, and
// only the statements differ, where they must. A statement is written once,
// in SQLite's dialect, and rebound here (? and ?N become $N; booleans, which
// both schemas keep as 0 or 1, are sent as integers); the few that cannot be
// shared (full-text search, the raw bulk reads) branch on DB.postgres. This
// file and the PostgreSQL migrations are all of the engine's own code; only
// it imports the driver (layout_test.go holds that).

//go:embed migrations/postgres/*.sql
var postgresMigrationFS embed.FS

// postgresMigrations are the PostgreSQL schema's steps, applied in name order
// and tracked by name, as the SQLite engine's are. They are not the SQLite
// migrations translated one by one: 0001 is the SQLite schema after all of
// them, and each later one changes both engines' schemas alike.
var postgresMigrations, _ = fs.Sub(postgresMigrationFS, "migrations/postgres")

// connectTimeout bounds how long opening a connection may take when the URL
// sets none: a server that is down or unreachable fails a call within it
// instead of hanging.
var connectTimeout = 5 * time.Second

// serializationRetries is how many times a write transaction PostgreSQL
// aborted (a serialization failure or a deadlock: the work of concurrent
// writers could not be ordered) is run again before the caller is told to
// retry. From the serializeAfter-th run on, it first waits in the write
// queue, so that writers contending for one row (many agents appending to
// one block, publishing one fact) are not starved by newcomers forever.
const (
	serializationRetries = 30
	serializeAfter       = 3
)

// retryWait is how long a write waits before its try-th rerun: a random
// share of a window that doubles from 2 ms up to 100 ms, so that writers
// that clashed do not clash again in step.
func retryWait(try int) time.Duration {
	window := min(100*time.Millisecond, 2*time.Millisecond<<min(try, 10))
	return time.Duration(rand.Int64N(int64(window)))
}

// writeQueue makes a write transaction wait for every other writer that
// numbers a change: a lock on change_counter's table, which every such
// write updates (released at commit or rollback, so it is safe behind a
// pooler in transaction mode, unlike a session's lock). It must be the
// transaction's first statement, and a LOCK, not a function: a
// serializable transaction's snapshot is taken by its first statement that
// needs one, which LOCK does not, so the snapshot is taken after the wait
// and sees the writes it waited for. An advisory lock taken by a SELECT
// took the snapshot before waiting, and the queued write then failed on
// change_counter's row all the same (measured: 32 clients through one
// node, 8% of remembers EBUSY after 30 runs, p99 13 s). Only writers that
// already failed to commit several times queue; the others run side by
// side as PostgreSQL orders them.
func (tx *Tx) writeQueue(ctx context.Context) error {
	_, err := tx.sql.ExecContext(ctx, `LOCK TABLE change_counter IN EXCLUSIVE MODE`)
	return err
}

// migrationsKey is the advisory lock key that orders the creation of
// schema_migrations: "memm" in ASCII.
const migrationsKey = "1835363693"

// OpenPostgres opens the PostgreSQL database at url (postgres://… or
// key=value form) and brings its schema up to date: the engine --database
// selects.
func OpenPostgres(ctx context.Context, url string) (*DB, error) {
	return openPostgresWith(ctx, url, postgresMigrations)
}

func openPostgresWith(ctx context.Context, url string, migrations fs.FS) (*DB, error) {
	if MisencodedURL(url) {
		return nil, memory.Errorf(memory.EINVALID, "the database URL has an @ that is not the one ending its user and password, so a part of the password "+
			"would be read as its host or database: percent-encode @ in the password as %%40 (and / as %%2F, : as %%3A, %% as %%25)")
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil && strings.Contains(err.Error(), ": failed to configure TLS (") {
		// sslrootcert, sslcert or sslkey names a file that cannot be read or used
		why := redactURLError(err)
		if why == "sslmode is invalid" {
			why = "sslmode is none of disable, allow, prefer, require, verify-ca and verify-full"
		}
		why = tlsFileError(url, why)
		return nil, memory.Errorf(memory.EINVALID, "the database URL's TLS settings cannot be used: %s", why)
	}
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "the database URL is not a PostgreSQL URL: %v", redactURLError(err))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	// Plan every statement for the table as it is when it runs. The store
	// prepares its statements once per connection, and PostgreSQL keeps
	// a generic plan made at the first executions, when an agent's
	// memories were a page, until autovacuum's ANALYZE happens to run:
	// until then (a minute on an idle server, longer on a busy one)
	// remember's dedup lookup scanned every memory of the agent (11 ms at
	// 2,500 and growing). A URL that sets plan_cache_mode keeps its own.
	if _, ok := cfg.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	name := postgresName(cfg)
	sdb := stdlib.OpenDB(*cfg)
	db := &DB{sql: sdb, reads: sdb, path: name, postgres: true, pg: &postgresEngine{cfg: cfg}}
	// The migrations run on connections of their own, closed after: one
	// that prepared a statement before a migration changed its columns
	// (0042's collations) would fail it there ("cached plan must not change
	// result type").
	mig := stdlib.OpenDB(*cfg)
	err = (&DB{sql: mig, reads: mig, path: name, postgres: true, pg: db.pg}).migratePostgres(ctx, migrations)
	mig.Close()
	if err != nil {
		sdb.Close()
		return nil, db.busyError(err)
	}
	return db, nil
}

// postgresName names a PostgreSQL database in messages and logs: its host,
// port and name, never its password.
func postgresName(cfg *pgx.ConnConfig) string {
	return "postgres://" + net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// MisencodedURL reports whether a postgres:// URL holds an @ that the
// driver, which ends the user and password at the first @ before a /
// (as libpq does), would read as part of the host or database: a raw @
// or / in the password. Its host or database name would then quote the
// rest of the password in every message.
func MisencodedURL(url string) bool {
	rest, ok := strings.CutPrefix(url, "postgresql://")
	if !ok {
		if rest, ok = strings.CutPrefix(url, "postgres://"); !ok {
			return false // key=value: no @ is special
		}
	}
	rest, _, _ = strings.Cut(rest, "?")
	at, slash := strings.IndexByte(rest, '@'), strings.IndexByte(rest, '/')
	return strings.Count(rest, "@") > 1 || at >= 0 && slash >= 0 && slash < at
}

// redactURLError drops what a parse error quotes of the URL (it may hold a
// password) and keeps the reason.
func redactURLError(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		s, _, _ := strings.Cut(pe.Unwrap().Error(), `: "`) // invalid percent-encoded token: "…"
		return s
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return "it does not parse"
}

// tlsFileError says which of the URL's TLS files the driver could read but
// not use, naming the parameter and the file, where the driver's words
// ("unable to add CA to cert pool") name neither.
func tlsFileError(url, why string) string {
	switch {
	case why == "unable to add CA to cert pool":
		return fmt.Sprintf("sslrootcert %s holds no certificate in PEM form (-----BEGIN CERTIFICATE-----): give the file of the CA "+
			"that signed the server's certificate, converted to PEM if it is DER (openssl x509 -inform der)", urlParam(url, "sslrootcert"))
	case why == "failed to decode sslkey":
		return fmt.Sprintf("sslkey %s holds no private key in PEM form (-----BEGIN PRIVATE KEY-----): give the key of the client certificate sslcert %s",
			urlParam(url, "sslkey"), urlParam(url, "sslcert"))
	case strings.HasPrefix(why, "unable to load cert"):
		return fmt.Sprintf("sslcert %s and sslkey %s are not a certificate and its key (%s)", urlParam(url, "sslcert"), urlParam(url, "sslkey"), why)
	}
	return why
}

// urlParam returns the value of key in a PostgreSQL URL or keyword=value
// string (unquoted), or else in its libpq environment variable, as the
// driver reads it; "" when it is not set.
func urlParam(dsn, key string) string {
	if u, err := neturl.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if v := u.Query().Get(key); v != "" {
			return v
		}
	} else {
		for _, kv := range strings.Fields(dsn) {
			if v, ok := strings.CutPrefix(kv, key+"="); ok {
				return strings.Trim(v, "'")
			}
		}
	}
	return os.Getenv("PG" + strings.ToUpper(key))
}

// migratePostgres applies every PostgreSQL migration not yet applied, each in
// its own transaction with its record in schema_migrations; concurrent
// starters wait on that table's lock, so each migration runs once. A
// database that has a migration this build does not know is refused,
// naming it.
func (db *DB) migratePostgres(ctx context.Context, fsys fs.FS) error {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	// Two processes starting at once on a new database would both create
	// the table (IF NOT EXISTS does not hold between concurrent creators:
	// one fails on a catalog key), so the creation is serialized by a
	// transaction-level advisory lock (safe behind a pooler).
	err = db.inPostgresTx(ctx, func(t *sql.Tx) error {
		if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock(`+migrationsKey+`)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		return db.claimSchema(ctx, t)
	})
	if err != nil {
		return err
	}
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		err = db.inPostgresTx(ctx, func(t *sql.Tx) error {
			if _, err := t.ExecContext(ctx, `LOCK TABLE schema_migrations IN EXCLUSIVE MODE`); err != nil {
				return err
			}
			applied, err := scanStrings(t.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY name`))
			if err != nil {
				return fmt.Errorf("read applied migrations: %w", err)
			}
			if err := newerSchema(db.path, names, applied); err != nil {
				return err
			}
			if slices.Contains(applied, name) {
				return nil
			}
			if _, err := t.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration postgres/%s: %w", name, err)
			}
			if step := postgresMigrationSteps[name]; step != nil {
				if err := step(ctx, t); err != nil {
					return fmt.Errorf("migration postgres/%s: %w", name, err)
				}
			}
			_, err = t.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)`, name, time.Now().UnixNano())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// claimSchema makes schema_migrations in the schema the store's tables go
// in (the first of the search_path that exists: public, unless the URL
// sets options=-csearch_path=...), unless it is there. It refuses, having
// made nothing, a schema that is not memory-mcp's: one that holds tables
// but no schema_migrations (or an empty one, left by a build that did not
// look first), or a schema_migrations another tool made. memory-mcp's
// tables would clash with another program's there (a "memories" table of
// its own), and a half-made schema would be left behind.
func (db *DB) claimSchema(ctx context.Context, t *sql.Tx) error {
	var schema sql.NullString
	if err := t.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	if !schema.Valid {
		var path string
		if err := t.QueryRowContext(ctx, `SHOW search_path`).Scan(&path); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		return fmt.Errorf("cannot use the database %s: no schema of its search_path (%s) exists to make memory-mcp's tables in; create it (CREATE SCHEMA name) or correct the URL's options=-csearch_path=name",
			db.path, path)
	}
	tables, err := scanStrings(t.QueryContext(ctx, `SELECT relname FROM pg_class
		WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY relname`))
	if err != nil {
		return fmt.Errorf("list the tables of schema %s: %w", schema.String, err)
	}
	others := slices.DeleteFunc(slices.Clone(tables), func(n string) bool { return n == "schema_migrations" })
	if len(others) < len(tables) {
		// pg_attribute, not information_schema, which hides the columns
		// of a table the user may not read
		cols, err := scanStrings(t.QueryContext(ctx, `SELECT attname::text FROM pg_attribute WHERE attnum > 0 AND NOT attisdropped
			AND attrelid = (SELECT oid FROM pg_class WHERE relname = 'schema_migrations' AND relnamespace = current_schema()::regnamespace)
			ORDER BY attname`))
		if err != nil {
			return fmt.Errorf("read schema_migrations' columns: %w", err)
		}
		if !slices.Equal(cols, []string{"applied_at", "name"}) {
			return notOurs(db.path, schema.String, fmt.Sprintf("its schema_migrations is another program's (columns %s)", strings.Join(cols, ", ")))
		}
		var applied bool
		if err := t.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations)`).Scan(&applied); err != nil {
			return db.denied(schema.String, err, "read schema_migrations")
		}
		if applied || len(others) == 0 {
			return nil
		}
		return notOurs(db.path, schema.String, "it holds tables memory-mcp did not make ("+tableList(others)+") beside an empty schema_migrations")
	}
	if len(others) > 0 {
		return notOurs(db.path, schema.String, "it holds tables memory-mcp did not make ("+tableList(others)+") and no schema_migrations")
	}
	if _, err := t.ExecContext(ctx, `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)`); err != nil {
		return db.denied(schema.String, err, "create schema_migrations")
	}
	return nil
}

// denied is err, met doing what in schema, as the refusal of a user that
// lacks a privilege on it, or wrapped as it is when it is not that.
func (db *DB) denied(schema string, err error, what string) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return fmt.Errorf("%s: %w", what, err)
	}
	if strings.Contains(pe.Message, "for schema") {
		return fmt.Errorf("cannot use the database %s: its user %q may not create tables in schema %s (%s); grant it (GRANT CREATE ON SCHEMA %s TO the user), or make the user the database's owner",
			db.path, db.pg.cfg.User, schema, pe.Message, ident(schema))
	}
	return fmt.Errorf("cannot use the database %s: its user %q may not use memory-mcp's tables in schema %s (%s); connect as the user that made them, or grant this one their use",
		db.path, db.pg.cfg.User, schema, pe.Message)
}

// ident is name as an SQL statement in a message names it: quoted only
// when it must be.
func ident(name string) string {
	for i, c := range name {
		if !(c == '_' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return pgx.Identifier{name}.Sanitize()
		}
	}
	return name
}

// notOurs is the refusal of a schema that is not memory-mcp's, saying why.
func notOurs(db, schema, why string) error {
	return fmt.Errorf("%s is not a memory-mcp database: schema %s is not empty, and %s; nothing was changed. "+
		"Give memory-mcp an empty database of its own (CREATE DATABASE memory_mcp), or a schema of its own in this one "+
		"(CREATE SCHEMA memory_mcp, then add options=-csearch_path%%3Dmemory_mcp to the URL)", db, schema, why)
}

// tableList names tables in a message: the first ten, and how many more.
func tableList(names []string) string {
	if len(names) <= 10 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
}

// inPostgresTx runs fn in a transaction of its own and commits it.
func (db *DB) inPostgresTx(ctx context.Context, fn func(*sql.Tx) error) error {
	t, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(t); err != nil {
		return err
	}
	return t.Commit()
}

// newerSchema refuses a database written by a newer build: one with applied
// migrations that are not among known.
func newerSchema(db string, known, applied []string) error {
	var unknown []string
	for _, name := range applied {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s was written by a newer memory-mcp (it has migration %s, which this build does not know); upgrade memory-mcp",
			db, unknown[0])
	}
	return fmt.Errorf("%s was written by a newer memory-mcp (it has migrations %s, which this build does not know); upgrade memory-mcp",
		db, strings.Join(unknown, ", "))
}

// rebound caches each statement's PostgreSQL form.
var rebound sync.Map // SQLite-dialect text -> PostgreSQL text

// rebind returns q, a statement of a fixed text, in PostgreSQL's dialect
// when db is on PostgreSQL: its
// parameters ? and ?N numbered $N, outside quoted text, and SQLite's CROSS
// JOIN ... ON (an inner join whose order the planner must keep) a plain
// JOIN, which PostgreSQL's planner orders itself.
func (db *DB) rebind(q string) string {
	if !db.postgres {
		return q
	}
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	r := db.dialect(q)
	rebound.Store(q, r)
	return r
}

// dialect is rebind without its cache, for statements built in many shapes.
func (db *DB) dialect(q string) string {
	if !db.postgres {
		return q
	}
	return rebindParams(strings.ReplaceAll(q, "CROSS JOIN", "JOIN"))
}

func rebindParams(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	next := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			b.WriteByte(c)
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				n, _ := strconv.Atoi(q[i+1 : j])
				next = max(next, n)
				b.WriteString("$" + q[i+1:j])
				i = j - 1
			} else {
				next++
				b.WriteString("$" + strconv.Itoa(next))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// args returns a statement's arguments as db's engine takes them: on
// PostgreSQL a bool becomes 0 or 1, as both schemas store flags, and a
// named string or integer type its underlying value.
func (db *DB) args(args []any) []any {
	if !db.postgres {
		return args
	}
	out := args
	for i, a := range args {
		var v any
		switch a := a.(type) {
		case nil, string, int64, int, float64, []byte, sql.NullString, sql.NullInt64, sql.NullFloat64:
			continue
		case bool:
			v = int64(0)
			if a {
				v = int64(1)
			}
		default:
			switch r := reflect.ValueOf(a); r.Kind() {
			case reflect.String:
				v = r.String()
			case reflect.Bool:
				v = int64(0)
				if r.Bool() {
					v = int64(1)
				}
			default:
				continue
			}
		}
		if &out[0] == &args[0] {
			out = slices.Clone(args)
		}
		out[i] = v
	}
	return out
}

// postgresError turns what PostgreSQL's driver returned into the store's
// errors: a database that cannot be reached, or aborted the transaction
// for concurrent writers after its retries, becomes EBUSY naming the
// database, which tells the caller to retry; anything else is returned as
// it is.
func (db *DB) postgresError(err error) error {
	if err == nil {
		return nil
	}
	var me *memory.Error
	if errors.As(err, &me) {
		return err
	}
	if refused := db.refused(err); refused != nil {
		return refused
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case retryable(err):
			return memory.Errorf(memory.EBUSY, "the database %s could not order this write among concurrent ones (%s); retry the call", db.path, pe.Code)
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"), pe.Code == "53300":
			// connection exceptions, an administrator's shutdown, too many connections
			return memory.Errorf(memory.EBUSY, "the database %s is unavailable (%s); retry the call in a few seconds", db.path, pe.Message)
		}
		return err
	}
	if lostConnection(err) {
		return memory.Errorf(memory.EBUSY, "the connection to the database %s broke during the call (the server restarted or the network failed), "+
			"so a write may or may not have committed: repeat the call with the same idempotency_key, which returns the first call's result if it did", db.path)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, sql.ErrConnDone) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		if silentServer(err) && db.pg != nil {
			return memory.Errorf(memory.EBUSY, "the database %s is unreachable: the server %s accepted the connection but did not answer within %s; "+
				"if PostgreSQL listens there it is stalled, so retry the call in a few seconds; if another program listens on that port "+
				"(an HTTP server waits silently for a request), correct the host or port in the URL", db.path, db.pg.host(), db.pg.cfg.ConnectTimeout)
		}
		why := "" // connection refused, no such host, i/o timeout: a typo'd host or port shows here
		if errors.As(err, &ne) {
			why = " (" + ne.Error() + ")"
		}
		return memory.Errorf(memory.EBUSY, "the database %s is unreachable%s; retry the call in a few seconds", db.path, why)
	}
	// The server went away mid-call without a word (it crashed, or was
	// stopped at once): the connection ended in the middle of a message.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, driver.ErrBadConn) {
		return memory.Errorf(memory.EBUSY, "the connection to the database %s was lost mid-call (did it restart?); retry the call in a few seconds", db.path)
	}
	return err
}

// refused returns what a connection the server or its certificate refused
// for a reason of set-up means, or nil when err is no such refusal: an
// unknown database or role, a wrong password, a server that offers no TLS
// when the URL demands it, a certificate that does not verify. Retrying
// cannot help, so it is not EBUSY but a plain error (at start the command
// exits with it; in a call, the log has it) saying what is wrong, on which
// host, and what to change. It never quotes the URL, which may hold a
// password.
func (db *DB) refused(err error) error {
	if db.pg == nil {
		return nil
	}
	cfg, host := db.pg.cfg, db.pg.host()
	cannot := "cannot open the database " + db.path + ": "
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "3D000":
			return fmt.Errorf("%sdatabase %q does not exist on %s; create it (CREATE DATABASE %s) or correct the database's name in the URL",
				cannot, cfg.Database, host, ident(cfg.Database))
		case pe.Code == "28P01":
			return fmt.Errorf("%sauthentication failed for user %q on %s (the server says: %s); correct the password in the URL, or the server's pg_hba.conf",
				cannot, cfg.User, host, pe.Message)
		case pe.Code == "28000" && strings.HasPrefix(pe.Message, "role ") && strings.HasSuffix(pe.Message, " does not exist"):
			return fmt.Errorf("%srole %q does not exist on %s; create it (CREATE ROLE %s LOGIN) or correct the user in the URL",
				cannot, cfg.User, host, ident(cfg.User))
		case strings.HasPrefix(pe.Code, "28"), pe.Code == "42501" && pe.Severity == "FATAL":
			// no pg_hba.conf entry, a role that may not log in, no CONNECT
			msg := pe.Message
			if pe.Detail != "" {
				msg += " (" + strings.TrimSuffix(pe.Detail, ".") + ")"
			}
			return fmt.Errorf("%sthe server %s refused the connection: %s; connect as a user the server admits to this database, or change its pg_hba.conf or grants", cannot, host, msg)
		case (pe.Code == "42704" || pe.Code == "22023") && pe.Severity == "FATAL":
			// a URL parameter the driver does not know goes to the server as a setting
			return fmt.Errorf("%sthe server %s refused a setting of the URL: %s; correct or remove that URL parameter (the driver's own include sslmode, sslrootcert, "+
				"connect_timeout and options)", cannot, host, pe.Message)
		case pe.Code == "25006":
			return fmt.Errorf("the database %s is read-only for its user %q (%s), and memory-mcp writes to it: connect to the primary, not a standby, "+
				"or turn default_transaction_read_only off for the user (ALTER ROLE %s RESET default_transaction_read_only) or the database", db.path, cfg.User, pe.Message, ident(cfg.User))
		}
		return nil
	}
	if notPostgres(err) || strings.Contains(err.Error(), "server refused TLS connection") && !answersSSLRequest(cfg) {
		return fmt.Errorf("%sthe server %s does not speak PostgreSQL's protocol (it answered the connection with something else): another program "+
			"listens on that port; correct the host or port in the URL", cannot, host)
	}
	if strings.Contains(err.Error(), "server refused TLS connection") {
		return fmt.Errorf("%sthe server %s refused TLS, which the URL's sslmode (require, verify-ca or verify-full) demands: enable ssl on the server "+
			"(ssl = on in postgresql.conf, with ssl_cert_file and ssl_key_file), or connect with sslmode=prefer (TLS when the server offers it) or sslmode=disable", cannot, host)
	}
	var why string
	var unknown x509.UnknownAuthorityError
	var name x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		why = "it is signed by an unknown authority: no CA in the URL's sslrootcert (or, without sslrootcert, the system's CAs) signed it"
	case errors.As(err, &name):
		why = fmt.Sprintf("it is not for the host %q the URL names (%v)", cfg.Host, name.Error())
	case errors.As(err, &invalid):
		why = invalid.Error()
	case errors.As(err, &verify):
		why = verify.Err.Error()
	default:
		return nil
	}
	return fmt.Errorf("%sthe TLS certificate of the server %s failed verification: %s; give the CA that signed the server's certificate in sslrootcert, "+
		"connect by a name the certificate holds, or fix the server's certificate (sslmode=require encrypts without verifying)", cannot, host, why)
}

// notPostgres reports whether err is a connection the server answered in
// another protocol than PostgreSQL's: its bytes do not frame as the
// messages a server sends at start (a length past the driver's bound, an
// unknown type, a message the start never has), as an HTTP, SSH or SMTP
// server's greeting or error does not. A connection that only ended, or
// timed out, may be a PostgreSQL going down, and is no such proof.
func notPostgres(err error) bool {
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	var notTLS tls.RecordHeaderError // it said S, yes to TLS, as SSH- begins
	if errors.As(err, &tooLong) || errors.As(err, &notTLS) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"unknown message type", "received unexpected message", "body must have length of", "body is invalid"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// answersSSLRequest reports whether the server at cfg's host and port
// answers PostgreSQL's request for TLS as PostgreSQL does, with S or N.
// The driver reports any other answer as the server refusing TLS, which
// would send the operator to enable ssl on a port where another program
// listens. A server that cannot be asked again counts as PostgreSQL, so
// that only an answer of another protocol changes the message.
func answersSSLRequest(cfg *pgx.ConnConfig) bool {
	if strings.HasPrefix(cfg.Host, "/") {
		return true // a Unix socket is PostgreSQL's own
	}
	timeout := cfg.ConnectTimeout
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), timeout)
	if err != nil {
		return true
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	answer := make([]byte, 1)
	if _, err := conn.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}); err != nil { // length 8, code 80877103
		return true
	}
	if _, err := io.ReadFull(conn, answer); err != nil {
		return true
	}
	return answer[0] == 'S' || answer[0] == 'N'
}

// silentServer reports whether err is a connection the server accepted and
// then never answered before the connect timeout: a stalled PostgreSQL, or
// another program that waits for its own protocol's first words.
func silentServer(err error) bool {
	msg := err.Error()
	return pgconn.Timeout(err) && (strings.Contains(msg, "failed to receive message: timeout") || strings.Contains(msg, "tls error: timeout"))
}

// lostConnection reports whether err is a connection that ended under a
// statement: the server went away without a word (a crash, an immediate
// shutdown), so the driver read end of file, or the pool handed out a
// connection it then found dead.
func lostConnection(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, driver.ErrBadConn) ||
		strings.HasSuffix(err.Error(), "conn closed")
}

// retryable reports whether err is PostgreSQL aborting a transaction that
// may succeed run again: a serialization failure or a deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// postgresEngine is what a DB on PostgreSQL keeps beside its pool.
type postgresEngine struct {
	cfg *pgx.ConnConfig // to open the change listener's own connection
}

// host is the server's host and port as messages name it.
func (pg *postgresEngine) host() string {
	return net.JoinHostPort(pg.cfg.Host, strconv.Itoa(int(pg.cfg.Port)))
}

// changesChannel is the channel every commit that wrote a change notifies
// (the changes_notify trigger).
const changesChannel = "memory_mcp_changes"

// Wake returns a channel that receives soon after any process commits a
// change, until ctx ends: on PostgreSQL a connection of its own LISTENs on
// the changes channel. It also receives once each time that connection is
// (re)established, since a change committed while it was down notified
// no one; a reader woken reads the changes table, which holds every change
// whatever notifications were lost. On SQLite, which has no notifications,
// it returns nil (a nil channel never receives), and readers poll the
// table. The listener needs a session of its own: behind a pooler in
// transaction mode, connect it to the server directly, or rely on polling.
func (db *DB) Wake(ctx context.Context) <-chan struct{} {
	if db.pg == nil {
		return nil
	}
	ch := make(chan struct{}, 1)
	go func() {
		for {
			err := db.listen(ctx, ch)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second): // the server is away: try again
				_ = err
			}
		}
	}()
	return ch
}

// listen holds one listening connection until it fails or ctx ends.
func (db *DB) listen(ctx context.Context, ch chan<- struct{}) error {
	conn, err := pgx.ConnectConfig(ctx, db.pg.cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return err
	}
	for {
		select { // a wake-up, never a wait: one pending is enough
		case ch <- struct{}{}:
		default:
		}
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
	}
}

// uniqueViolation reports whether err is PostgreSQL refusing a duplicate key.
func uniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
