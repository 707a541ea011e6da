package auth

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGuard(t *testing.T) {
	local := NewGuard(nil, nil)
	local.AllowListener("127.0.0.1:8080")
	local.AllowListener("0.0.0.0:8080") // every interface: no name to add
	team := NewGuard([]string{"memory.example.com", "Memory.Internal:8443"}, []string{"https://tools.example.com"})
	for _, tt := range []struct {
		name    string
		g       *Guard
		host    string
		origins []string
		tls     bool
		want    bool
	}{
		{"localhost", local, "localhost:8080", nil, false, true},
		{"loopback v4", local, "127.0.0.1:8080", nil, false, true},
		{"loopback v6", local, "[::1]:8080", nil, false, true},
		{"a rebinding page's host", local, "evil.example.com:8080", nil, false, false},
		{"a rebinding page's host and origin", local, "evil.example.com:8080", []string{"http://evil.example.com:8080"}, false, false},
		{"the unspecified address is no name", local, "0.0.0.0:8080", nil, false, false},
		{"same origin", local, "localhost:8080", []string{"http://localhost:8080"}, false, true},
		{"same host, other port", local, "localhost:8080", []string{"http://localhost:9999"}, false, false},
		{"same host, other scheme", local, "localhost:8080", []string{"https://localhost:8080"}, false, false},
		{"a page elsewhere", local, "localhost:8080", []string{"https://evil.example.com"}, false, false},
		{"the null origin", local, "localhost:8080", []string{"null"}, false, false},
		{"two origins", local, "localhost:8080", []string{"http://localhost:8080", "http://localhost:8080"}, false, false},
		{"a configured host", team, "memory.example.com", nil, true, true},
		{"a configured host, case and port", team, "MEMORY.internal:9", nil, true, true},
		{"loopback is not configured", team, "localhost", nil, false, false},
		{"an allowed origin", team, "memory.example.com", []string{"https://tools.example.com"}, true, true},
		{"an allowed origin, case", team, "memory.example.com", []string{"HTTPS://TOOLS.example.com"}, true, true},
		{"same origin over TLS", team, "memory.example.com", []string{"https://memory.example.com"}, true, true},
		{"a lookalike origin", team, "memory.example.com", []string{"https://tools.example.com.evil.net"}, true, false},
		{"an origin with a path", team, "memory.example.com", []string{"https://memory.example.com/x"}, true, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = tt.host
		for _, o := range tt.origins {
			r.Header.Add("Origin", o)
		}
		if tt.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if why := tt.g.Check(r); (why == "") != tt.want {
			t.Errorf("%s: Check = %q, want served %v", tt.name, why, tt.want)
		}
	}
}

func TestGuardAnswers403(t *testing.T) {
	g := NewGuard(nil, nil)
	served := false
	h := g.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Host = "evil.example.com"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden || served {
		t.Fatalf("status %d, served %v", w.Code, served)
	}
}
