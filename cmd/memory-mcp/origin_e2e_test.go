package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/memory-mcp/memory-mcp/auth/authtest"
)

// TestServeCORS: a page on an allowed origin can call /mcp from a browser:
// its preflight is answered before authentication (a preflight carries no
// credential), and every answer to it, a refusal included, carries the
// headers that let the page read it. A preflight from any other origin is
// refused, and the review page, which is same-origin, never answers one.
func TestServeCORS(t *testing.T) {
	const page = "https://tools.example.com"
	h := serveHTTPIn(t, "", "--allowed-origins", page)
	base := strings.TrimSuffix(h.url, "/mcp")
	preflight := func(url, origin string) (int, http.Header) {
		t.Helper()
		status, hdr, _ := h.send(t, http.MethodOptions, url, "", "Origin", origin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name")
		return status, hdr
	}

	status, hdr := preflight(h.url, page)
	if status != http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != page || hdr.Get("Access-Control-Max-Age") == "" {
		t.Fatalf("a preflight from %s: %d %v", page, status, hdr)
	}
	for name, want := range map[string][]string{
		"Access-Control-Allow-Methods":  {"GET", "POST", "DELETE"},
		"Access-Control-Allow-Headers":  {"Authorization", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID"},
		"Access-Control-Expose-Headers": {"Mcp-Session-Id", "WWW-Authenticate"},
		"Vary":                          {"Origin"},
	} {
		for _, w := range want {
			if !strings.Contains(hdr.Get(name), w) {
				t.Errorf("the preflight's %s is %q, without %s", name, hdr.Get(name), w)
			}
		}
	}

	tok := h.token("--agent-id", "ann", "--seniority", "mid")
	call, proto := statelessCall("remember", map[string]any{"content": "Called from a page on an allowed origin."})
	for _, tt := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"a call", append([]string{"Origin", page, "Authorization", "Bearer " + tok}, proto...), 200},
		{"a call without a credential", append([]string{"Origin", page}, proto...), 401},
	} {
		status, hdr, body := h.post(t, call, tt.headers...)
		if status != tt.status || hdr.Get("Access-Control-Allow-Origin") != page || !strings.Contains(hdr.Get("Vary"), "Origin") ||
			!strings.Contains(hdr.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("%s from %s: %d %v %.200s; want %d readable by the page", tt.name, page, status, hdr, body, tt.status)
		}
	}

	if status, hdr := preflight(h.url, "https://evil.example.com"); status != http.StatusForbidden || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight from another origin: %d %v, want 403 without CORS headers", status, hdr)
	}
	if status, hdr := preflight(base+"/ui/", page); status == http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight for the review page: %d %v, want no CORS", status, hdr)
	}
	human := h.token("--agent-id", "olivia", "--seniority", "mid", "--human")
	if status, hdr, _ := h.send(t, http.MethodGet, base+"/ui/", "", "Origin", page, "Authorization", "Bearer "+human); status != 200 ||
		hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the review page asked from %s: %d %v, want it served without CORS headers", page, status, hdr)
	}
}

// TestServeCORSResourceMetadata: a browser client on an allowed origin can
// read the protected-resource metadata it is pointed to, which it asks for
// with MCP's headers (a preflight) before it has a token.
func TestServeCORSResourceMetadata(t *testing.T) {
	const page = "https://tools.example.com"
	iss := authtest.NewIssuer(t)
	h := serveHTTPIn(t, "", "--auth", "oauth", "--oauth-issuer", iss.URL, "--oauth-audience", "https://memory.example.com/mcp",
		"--allowed-origins", page)
	meta := strings.TrimSuffix(h.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	status, hdr, _ := h.send(t, http.MethodOptions, meta, "", "Origin", page, "Access-Control-Request-Method", "GET",
		"Access-Control-Request-Headers", "mcp-protocol-version")
	if status != http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != page {
		t.Fatalf("a preflight for the metadata: %d %v", status, hdr)
	}
	status, hdr, body := h.send(t, http.MethodGet, meta, "", "Origin", page, "MCP-Protocol-Version", "2025-11-25")
	if acao := hdr.Get("Access-Control-Allow-Origin"); status != 200 || (acao != page && acao != "*") || !strings.Contains(body, iss.URL) {
		t.Fatalf("the metadata from %s: %d %v %s", page, status, hdr, body)
	}
	token := iss.Token(t, jwt.MapClaims{"iss": iss.URL, "aud": "https://memory.example.com/mcp", "sub": "ann", "exp": time.Now().Add(time.Hour).Unix()})
	call, proto := statelessCall("remember", map[string]any{"content": "Signed in from a page."})
	if status, hdr, body := h.post(t, call, append([]string{"Origin", page, "Authorization", "Bearer " + token}, proto...)...); status != 200 ||
		hdr.Get("Access-Control-Allow-Origin") != page {
		t.Fatalf("a call from %s with an OAuth token: %d %v %.200s", page, status, hdr, body)
	}
}
