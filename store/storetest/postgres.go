package storetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
	server := postgresServer(t)
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

// postgresServer returns the test server's URL; without one it skips t,
// or fails it where the run must cover PostgreSQL (see PostgresURL).
func postgresServer(t testing.TB) string {
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
	return server
}

// A Cluster is a PostgreSQL cluster of a test's own (scripts/postgres.sh),
// which it may shut down and start again; the shared test server must
// never be. It runs where the shared server is given (the same rule as
// PostgresURL), and is removed when the test ends.
type Cluster struct {
	// URL is the cluster's postgres database, as user postgres.
	URL    string
	script string
	t      testing.TB
}

// OwnPostgres starts a cluster for t alone, with the options of
// `scripts/postgres.sh start`: "--tls" (its URL then verifies the
// server's certificate against the cluster's own CA) and "--passwords"
// (every role but postgres must give its password).
func OwnPostgres(t testing.TB, options ...string) *Cluster {
	t.Helper()
	postgresServer(t)
	_, file, _, _ := runtime.Caller(0)
	c := &Cluster{script: filepath.Join(filepath.Dir(file), "..", "..", "scripts", "postgres.sh"), t: t}
	cmd := exec.Command(c.script, append([]string{"start"}, options...)...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, PostgresEnv+"=") })
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start a cluster of the test's own: %v", err)
	}
	c.URL = strings.TrimSpace(string(out))
	t.Cleanup(func() { c.run("stop") })
	return c
}

// Down shuts the cluster down (fast: sessions are ended) and waits until
// it has stopped.
func (c *Cluster) Down() { c.t.Helper(); c.run("down") }

// Crash stops the cluster at once, as a crash would: its sessions end in
// the middle of whatever they were doing, told nothing.
func (c *Cluster) Crash() { c.t.Helper(); c.run("down", "immediate") }

// Up starts the cluster again and waits until it accepts connections.
func (c *Cluster) Up() { c.t.Helper(); c.run("up") }

// UnknownCA writes the certificate of a new CA, which signed no server's
// certificate, to a file of t's and returns its path: an sslrootcert
// that verifies nothing.
func UnknownCA(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a CA no server knows"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "unknown-ca.crt")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Certify reissues the certificate of a cluster started with --tls for
// names (host names or IP addresses), from the cluster's CA, and has the
// server load it.
func (c *Cluster) Certify(names ...string) { c.t.Helper(); c.run("cert", names...) }

func (c *Cluster) run(what string, args ...string) {
	c.t.Helper()
	if out, err := exec.Command(c.script, append([]string{what, c.URL}, args...)...).CombinedOutput(); err != nil {
		c.t.Fatalf("postgres.sh %s: %v\n%s", what, err, out)
	}
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

// HoldPostgresReader is HoldReader on the PostgreSQL database at url: a
// REPEATABLE READ transaction of a connection of its own that has read,
// so that until release its snapshot sees every row deleted after it
// began, and an erase's scrub (which must keep what a snapshot still
// sees) stays owed.
func HoldPostgresReader(ctx context.Context, url string) (release func() error, err error) {
	db, err := OpenPostgresSQL(url)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("hold a reader: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n); err != nil {
		tx.Rollback()
		db.Close()
		return nil, fmt.Errorf("hold a reader: %w", err)
	}
	return func() error {
		err := tx.Rollback()
		db.Close()
		return err
	}, nil
}
