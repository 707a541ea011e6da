package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/memory-mcp/memory-mcp/auth/authtest"
	"github.com/memory-mcp/memory-mcp/ui"
)

// TestServeOAuth: in the OAuth resource-server mode the server publishes
// its protected-resource metadata, names it in every challenge, and serves
// a JWT access token from the configured issuer as the identity its claims
// map to; an expired token, a token for another audience and an unsigned
// one are refused with 401 and the reason, a token without a required scope
// with 403 (insufficient_scope).
func TestServeOAuth(t *testing.T) {
	iss := authtest.NewIssuer(t)
	const audience = "https://memory.example.com/mcp"
	h := serveHTTPIn(t, "", "--auth", "oauth", "--oauth-issuer", iss.URL, "--oauth-audience", audience,
		"--oauth-claims", "agent_id=email_local,human=staff", "--oauth-scopes", "memory")
	status, body := h.get(t, "/.well-known/oauth-protected-resource/mcp")
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if json.Unmarshal([]byte(body), &meta); status != 200 || meta.Resource != audience || len(meta.AuthorizationServers) != 1 ||
		meta.AuthorizationServers[0] != iss.URL || len(meta.ScopesSupported) != 1 {
		t.Fatalf("metadata: %d %s", status, body)
	}
	claims := func(extra jwt.MapClaims) jwt.MapClaims {
		c := jwt.MapClaims{"iss": iss.URL, "aud": audience, "sub": "8c1f", "email_local": "olivia", "staff": true, "seniority": "lead",
			"scope": "memory", "exp": time.Now().Add(time.Hour).Unix()}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	p := h.connect(t, iss.Token(t, claims(nil)), options{})
	var r factResult
	p.ok("publish_fact", map[string]any{"fact_id": "sso", "content": "Sign-in goes through the company issuer.", "category": "core_policy"}, &r)
	if r.Fact.Author.AgentID != "olivia" || !r.Fact.Author.Human {
		t.Fatalf("author %+v: not the token's claims", r.Fact.Author)
	}
	call, proto := statelessCall("remember", map[string]any{"content": "x"})
	for _, tt := range []struct {
		name, token string
		status      int
		want        []string // in the challenge or the body
	}{
		{"no token", "", 401, []string{`resource_metadata="https://memory.example.com/.well-known/oauth-protected-resource/mcp"`}},
		{"expired", iss.Token(t, claims(jwt.MapClaims{"exp": time.Now().Add(-time.Hour).Unix()})), 401, []string{"the token has expired"}},
		{"another audience", iss.Token(t, claims(jwt.MapClaims{"aud": "https://other.example.com"})), 401, []string{"another audience"}},
		{"unsigned", authtest.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", claims(nil)), 401, []string{"algorithm is not accepted"}},
		// RFC 6750 section 3.1: a token that holds but lacks a scope is
		// forbidden, and the challenge names the scope to ask for.
		{"a missing scope", iss.Token(t, claims(jwt.MapClaims{"scope": "openid"})), 403, []string{`error="insufficient_scope"`, `scope="memory"`}},
		{"one of our own tokens", "mmcp_" + strings.Repeat("A", 43), 401, []string{"not a JWT"}},
	} {
		headers := proto
		if tt.token != "" {
			headers = append([]string{"Authorization", "Bearer " + tt.token}, proto...)
		}
		status, hdr, body := h.post(t, call, headers...)
		got := hdr.Get("WWW-Authenticate")
		if status != tt.status || !strings.Contains(got, "resource_metadata=") {
			t.Errorf("%s: %d %q %q, want %d with a challenge", tt.name, status, got, body, tt.status)
		}
		for _, want := range tt.want {
			if !strings.Contains(got+body, want) {
				t.Errorf("%s: %q %q, want it to say %q", tt.name, got, body, want)
			}
		}
	}
}

// TestServeOAuthIssuerAsConfigured: an issuer whose identifier ends in "/"
// (Auth0's do) is kept exactly as configured: its tokens authenticate, and
// the protected-resource metadata names it as its tokens do.
func TestServeOAuthIssuerAsConfigured(t *testing.T) {
	iss := authtest.NewIssuerAt(t, "/", authtest.RFC8414)
	const audience = "https://memory.example.com/mcp"
	h := serveHTTPIn(t, "", "--auth", "oauth", "--oauth-issuer", iss.URL, "--oauth-audience", audience)
	status, body := h.get(t, "/.well-known/oauth-protected-resource/mcp")
	var meta struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if json.Unmarshal([]byte(body), &meta); status != 200 || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != iss.URL {
		t.Fatalf("metadata: %d %s, want the issuer %s", status, body, iss.URL)
	}
	p := h.connect(t, iss.Token(t, jwt.MapClaims{"iss": iss.URL, "aud": audience, "sub": "ann", "exp": time.Now().Add(time.Hour).Unix()}), options{})
	p.ok("remember", map[string]any{"content": "Signed in through an issuer whose name ends in a slash."}, nil)
}

// TestServeOAuthReviewSession: a review-page session opened with an OAuth
// access token ends when the token would have: it never outlives the
// credential it was opened with.
func TestServeOAuthReviewSession(t *testing.T) {
	iss := authtest.NewIssuer(t)
	const audience = "https://memory.example.com/mcp"
	h := serveHTTPIn(t, "", "--auth", "oauth", "--oauth-issuer", iss.URL, "--oauth-audience", audience,
		"--oauth-claims", "agent_id=email_local,human=staff")
	exp := time.Now().Add(3 * time.Second).Truncate(time.Second)
	token := iss.Token(t, jwt.MapClaims{"iss": iss.URL, "aud": audience, "email_local": "olivia", "staff": true, "exp": exp.Unix()})
	b := newSigninBrowser(t, h)
	resp, body := b.signin(token)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].MaxAge > 3 {
		t.Fatalf("signing in with an access token of 3s: %d %v\n%s", resp.StatusCode, resp.Cookies(), body)
	}
	id := resp.Cookies()[0].Value
	page := func() *http.Response {
		resp, _ := b.send(http.MethodGet, "/ui/", nil, "Cookie", ui.SessionCookie+"="+id, "Accept", "*/*")
		return resp
	}
	if resp := page(); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session before the token's expiry: %d", resp.StatusCode)
	}
	time.Sleep(time.Until(exp) + 100*time.Millisecond)
	if resp := page(); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "expired") {
		t.Fatalf("the session after the token's expiry: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}
