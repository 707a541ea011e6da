package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestBearer(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   string
		code   string
	}{
		{nil, "", ""},
		{[]string{"Bearer abc"}, "abc", ""},
		{[]string{"bearer   abc  "}, "abc", ""},
		{[]string{"Basic abc"}, "", "invalid_request"},
		{[]string{"Bearer "}, "", "invalid_request"},
		{[]string{"Bearer"}, "", "invalid_request"},
		{[]string{"Bearer a", "Bearer b"}, "", "invalid_request"},
	} {
		h := http.Header{}
		for _, v := range tt.values {
			h.Add("Authorization", v)
		}
		got, problem := bearer(h)
		code := ""
		if problem != nil {
			code = problem.Code
		}
		if got != tt.want || code != tt.code {
			t.Errorf("bearer(%q) = %q, %q; want %q, %q", tt.values, got, code, tt.want, tt.code)
		}
	}
}

func TestChallenge(t *testing.T) {
	ch := Challenge{Realm: "memory-mcp", ResourceMetadata: "https://m.example.com/.well-known/oauth-protected-resource/mcp", Scopes: []string{"mcp", "read"}}
	got := ch.header(invalidToken(`bad "token"` + "\n"))
	want := `Bearer realm="memory-mcp", resource_metadata="https://m.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp read", ` +
		`error="invalid_token", error_description="bad 'token''"`
	if got != want {
		t.Errorf("header =\n%s\nwant\n%s", got, want)
	}
	if got := (Challenge{Realm: "r"}).header(nil); got != `Bearer realm="r"` {
		t.Errorf("no credential: %s", got)
	}
}

// TestRequire: the identity reaches the handler; a refused credential is
// 401 (403 for a missing scope) and never reaches it; a server failure is 503, not a pass; and a
// credential withdrawn while a request runs ends that request.
func TestRequire(t *testing.T) {
	var revoked atomic.Bool
	authn := func(_ context.Context, c string) (memory.Identity, error) {
		switch {
		case c == "down":
			return memory.Identity{}, errors.New("database is down")
		case c == "narrow":
			return memory.Identity{}, insufficientScope([]string{"memory"})
		case c != "good":
			return memory.Identity{}, invalidToken("unknown")
		case revoked.Load():
			return memory.Identity{}, invalidToken("revoked")
		}
		return memory.Identity{AgentID: "ann", Seniority: memory.SeniorityMid}, nil
	}
	var logged []string
	h := Require(authn, Challenge{Realm: "t", Scopes: []string{"memory"}}, 20*time.Millisecond, func(msg string, _ ...any) { logged = append(logged, msg) },
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			who, _ := memory.IdentityFrom(r.Context())
			if r.URL.Path == "/stream" {
				revoked.Store(true)
				<-r.Context().Done()
				if !errors.Is(context.Cause(r.Context()), ErrCredentialWithdrawn) {
					t.Errorf("stream ended by %v", context.Cause(r.Context()))
				}
				return
			}
			w.Write([]byte(who.AgentID))
		}))
	do := func(path, credential string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, path, nil)
		if credential != "" {
			r.Header.Set("Authorization", "Bearer "+credential)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("/", "good"); w.Code != 200 || w.Body.String() != "ann" {
		t.Fatalf("good: %d %q", w.Code, w.Body)
	}
	if w := do("/", "bad"); w.Code != 401 || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("bad: %d %v", w.Code, w.Header())
	}
	if w := do("/", ""); w.Code != 401 || strings.Contains(w.Header().Get("WWW-Authenticate"), "error=") {
		t.Fatalf("none: %d %v", w.Code, w.Header())
	}
	if w := do("/", "narrow"); w.Code != 403 || !strings.Contains(w.Header().Get("WWW-Authenticate"), `scope="memory", error="insufficient_scope"`) {
		t.Fatalf("a token without the scope: %d %v", w.Code, w.Header())
	}
	if w := do("/", "down"); w.Code != 503 || len(logged) != 1 {
		t.Fatalf("down: %d, logged %v", w.Code, logged)
	}
	done := make(chan struct{})
	go func() { do("/stream", "good"); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a request whose credential was withdrawn still runs")
	}
	if w := do("/", "good"); w.Code != 401 {
		t.Fatalf("after the revocation: %d", w.Code)
	}
}
