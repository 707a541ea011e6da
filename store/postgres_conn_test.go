package store_test

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// TestPostgresLostConnectionIsRetryable: a connection that ends under a
// transaction (the server crashed or restarted: the driver reads end of
// file) fails the call with EBUSY, saying that the write may have committed
// and how to repeat it safely, not with an internal error. The server is
// reached through a relay the test cuts between two statements.
func TestPostgresLostConnectionIsRetryable(t *testing.T) {
	dsn := storetest.PostgresURL(t) // host=... port=... dbname=...
	var host, port string
	for _, kv := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(kv, "host="); ok {
			host = v
		}
		if v, ok := strings.CutPrefix(kv, "port="); ok {
			port = v
		}
	}
	r := newRelay(t, net.JoinHostPort(host, port))
	rhost, rport, _ := net.SplitHostPort(r.addr)
	db, err := store.OpenPostgres(t.Context(), strings.Replace(dsn, "host="+host+" port="+port, "host="+rhost+" port="+rport, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(t.Context(), func(tx *store.Tx) error {
		if _, err := tx.SQL().Exec(`SELECT 1`); err != nil {
			t.Fatalf("before the cut: %v", err)
		}
		r.cut()
		_, err := tx.SQL().Exec(`SELECT 2`)
		return err
	})
	if memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "idempotency_key") || !strings.Contains(err.Error(), r.addr+"/") {
		t.Fatalf("a connection lost under a write = %v, want EBUSY naming the database and saying how to repeat the call", err)
	}
}

// relay passes TCP connections on to a server until it is cut.
type relay struct {
	addr  string
	mu    sync.Mutex
	conns []net.Conn
}

func newRelay(t *testing.T, to string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &relay{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, s)
			r.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	t.Cleanup(r.cut)
	return r
}

// cut closes every connection passed on so far.
func (r *relay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}
