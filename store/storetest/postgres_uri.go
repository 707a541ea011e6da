package storetest

import (
	"net"
	"net/url"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresURI is PostgresURL written as a postgres:// URL, the form the
// server's --database takes: a new, empty database dropped when t ends.
func PostgresURI(t testing.TB) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/" + cfg.Database}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	if cfg.TLSConfig == nil {
		u.RawQuery = "sslmode=disable"
	}
	return u.String()
}
