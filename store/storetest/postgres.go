package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgresEnv names the environment variable that gives the tests a
// PostgreSQL server: a URL whose user may create databases. `make test`
// starts a throwaway one (scripts/postgres.sh) and sets it; so does
// `export MEMORY_MCP_TEST_POSTGRES=$(make -s postgres)` for a run of one's own.
const PostgresEnv = "MEMORY_MCP_TEST_POSTGRES"

// PostgresURL returns the URL of a new, empty database on the test server,
// dropped when t ends. Without a server it skips t, saying how to get one
// — unless the run must cover PostgreSQL (make test and CI set
// MEMORY_MCP_REQUIRE_POSTGRES, and CI sets CI), when it fails t instead.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return connString(newDatabase(t, ""))
}

// PostgresURLWith is PostgresURL for a database made with options, the
// tail of its CREATE DATABASE (say, a collation of its own).
func PostgresURLWith(t testing.TB, options string) string {
	t.Helper()
	return connString(newDatabase(t, options))
}

// PostgresDatabaseURL is PostgresURL as a postgres:// URL, the form the
// command line's --database takes.
func PostgresDatabaseURL(t testing.TB) string {
	t.Helper()
	cfg := newDatabase(t, "")
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/" + cfg.Database}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	if cfg.TLSConfig == nil {
		u.RawQuery = "sslmode=disable"
	}
	return u.String()
}

// newDatabase makes the database PostgresURL names, with options.
func newDatabase(t testing.TB, options string) *pgx.ConnConfig {
	t.Helper()
	server := os.Getenv(PostgresEnv)
	if server == "" {
		why := "no PostgreSQL to run on: " + PostgresEnv + " is not set (`make test` starts one; for a run of your own, `export " +
			PostgresEnv + "=$(make -s postgres)`)"
		if os.Getenv("MEMORY_MCP_REQUIRE_POSTGRES") != "" || os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	cfg, err := pgx.ParseConfig(server)
	if err != nil {
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	admin := stdlib.OpenDB(*cfg)
	defer admin.Close()
	b := make([]byte, 8)
	rand.Read(b)
	name := "memory_mcp_test_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name+` `+options); err != nil {
		t.Fatalf("create a test database on %s: %v", cfg.Host, err)
	}
	t.Cleanup(func() {
		admin := stdlib.OpenDB(*cfg)
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop the test database %s: %v", name, err)
		}
	})
	db := cfg.Copy()
	db.Database = name
	return db
}

// connString renders cfg as a keyword/value connection string.
func connString(cfg *pgx.ConnConfig) string {
	s := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	if cfg.Password != "" {
		s += " password=" + quote(cfg.Password)
	}
	if cfg.TLSConfig == nil {
		s += " sslmode=disable"
	}
	return s
}

func quote(s string) string {
	out := []byte{'\''}
	for _, c := range []byte(s) {
		if c == '\'' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return string(append(out, '\''))
}

// OpenPostgresSQL opens url with the PostgreSQL driver, for tests that
// inspect or damage a PostgreSQL database's rows as AddMigration does a file's.
func OpenPostgresSQL(url string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	return stdlib.OpenDB(*cfg), nil
}
