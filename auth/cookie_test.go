package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestFromCookie: behind FromCookie, a browser's cookie is a credential
// like the header, checked by the same authenticator on every request; the
// header, when sent, is the only credential looked at; a browser without a
// credential that holds is sent to sign in, any other client refused 401.
func TestFromCookie(t *testing.T) {
	valid := map[string]bool{"good": true, "other": true}
	authn := func(_ context.Context, c string) (memory.Identity, error) {
		if !valid[c] {
			return memory.Identity{}, invalidToken("unknown")
		}
		return memory.Identity{AgentID: c, Human: true}, nil
	}
	h := FromCookie("tok", Require(authn, Challenge{Realm: "t", SignIn: "/ui/signin"}, 0, func(string, ...any) {},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			who, _ := memory.IdentityFrom(r.Context())
			w.Write([]byte(who.AgentID))
		})))
	for _, c := range []struct {
		name, header, cookie, accept string
		status                       int
		body, location               string
	}{
		{"cookie", "", "good", "", 200, "good", ""},
		{"header over cookie", "Bearer other", "good", "", 200, "other", ""},
		{"bad header, good cookie", "Bearer bad", "good", "", 401, "", ""},
		{"bad cookie", "", "bad", "", 401, "", ""},
		{"bad cookie, a browser", "", "bad", "text/html,application/xhtml+xml", 303, "", "/ui/signin"},
		{"nothing, a browser", "", "", "text/html", 303, "", "/ui/signin"},
		{"nothing", "", "", "application/json", 401, "", ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if c.cookie != "" {
			r.AddCookie(&http.Cookie{Name: "tok", Value: c.cookie})
		}
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status || (c.status == 200 && w.Body.String() != c.body) || w.Header().Get("Location") != c.location {
			t.Errorf("%s: %d %q Location %q; want %d %q %q", c.name, w.Code, w.Body, w.Header().Get("Location"), c.status, c.body, c.location)
		}
		if c.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without a challenge", c.name)
		}
	}
	valid["good"] = false // revoked: refused on the next request
	r := httptest.NewRequest(http.MethodGet, "/ui/", nil)
	r.AddCookie(&http.Cookie{Name: "tok", Value: "good"})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Fatalf("a revoked token's cookie: %d", w.Code)
	}
}
