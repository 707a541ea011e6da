package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// sessions are the HTTP sessions of protocol revisions 2025-11-25 and
// older, each owned by the caller who opened it. A session id is only a
// handle, not a credential: every request still authenticates, and a
// request naming a session another caller opened is answered as if the
// session did not exist (404, which tells a client to start a new one). So
// no caller can subscribe on another's notification stream, end another's
// session, or read what the session's notifications say. The 2026-07-28
// revision has no sessions and never reaches this.
type sessions struct {
	mu     sync.Mutex
	owners map[string]string // session id -> owner's agent id
}

func newSessions() *sessions { return &sessions{owners: map[string]string{}} }

// ResolveSessionIdManager returns the sessions as the caller of r sees them;
// a nil r (mcp-go's idle sweeper) sees every session.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	v := sessionView{s: s, all: r == nil}
	if r != nil {
		who, _ := memory.IdentityFrom(r.Context())
		v.owner = who.AgentID
	}
	return v
}

// sessionView is the session manager of one request.
type sessionView struct {
	s     *sessions
	owner string
	all   bool
}

var errNoSession = errors.New("no such session")

// Generate opens a session owned by the caller. Its id is 128 random bits,
// unguessable, though ownership is what protects it.
func (v sessionView) Generate() string {
	var b [16]byte
	rand.Read(b[:])
	id := "mm-" + base64.RawURLEncoding.EncodeToString(b[:])
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	v.s.owners[id] = v.owner
	return id
}

func (v sessionView) Validate(id string) (bool, error) {
	if !v.mine(id) {
		return false, errNoSession
	}
	return false, nil
}

func (v sessionView) Terminate(id string) (bool, error) {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	owner, ok := v.s.owners[id]
	if !ok || (!v.all && owner != v.owner) {
		return false, errNoSession
	}
	delete(v.s.owners, id)
	return false, nil
}

func (v sessionView) mine(id string) bool {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	owner, ok := v.s.owners[id]
	return ok && (v.all || owner == v.owner)
}
