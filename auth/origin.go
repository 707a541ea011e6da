package auth

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Guard keeps web pages from driving the server. A page on another site can
// make the browser send requests to a server on the user's machine or
// network; DNS rebinding even makes the browser think that server is the
// page's own site. Two checks stop both, before any credential is looked at:
//
//   - Host must be one the server is known by (a rebinding page's requests
//     carry the page's own host name);
//   - Origin, which browsers send with every cross-site and every POST
//     request and which a page cannot forge, must be an allowed origin or
//     the server's own (its own pages, such as /ui, call it same-origin).
//
// Clients that are not browsers send no Origin and pass the second check.
type Guard struct {
	mu      sync.RWMutex
	hosts   map[string]bool // host names, lower case, without port
	derived bool            // hosts are the defaults, not configured
	origins map[string]bool // scheme://host[:port], lower case
}

// NewGuard returns a guard serving hosts (host names, with or without a
// port: the port is not checked) and allowing origins. No hosts means the
// loopback names: localhost, 127.0.0.1 and ::1 (AllowListener adds the
// address the server listens on).
func NewGuard(hosts, origins []string) *Guard {
	g := &Guard{hosts: map[string]bool{}, origins: map[string]bool{}}
	if len(hosts) == 0 {
		g.derived = true
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	for _, h := range hosts {
		g.hosts[hostname(h)] = true
	}
	for _, o := range origins {
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	return g
}

// Derived reports whether the hosts are the defaults.
func (g *Guard) Derived() bool { return g.derived }

// AllowListener adds the host of the listening address addr, unless it is
// every interface (0.0.0.0, ::), whose names the server cannot know:
// configure them then.
func (g *Guard) AllowListener(addr string) {
	host := hostname(addr)
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hosts[host] = true
}

// Check says why r may not be served ("" when it may).
func (g *Guard) Check(r *http.Request) string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	host := hostname(r.Host)
	if !g.hosts[host] {
		return "Host " + quoteShort(r.Host) + " is not a name this server is known by (allowed-hosts)"
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return ""
	}
	if len(origins) > 1 {
		return "more than one Origin header"
	}
	origin := strings.ToLower(origins[0])
	if g.origins[origin] || sameOrigin(origin, r) {
		return ""
	}
	return "Origin " + quoteShort(origins[0]) + " may not call this server (allowed-origins)"
}

// Wrap serves next the requests Check passes, and answers the others 403.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := g.Check(r); why != "" {
			http.Error(w, "Forbidden: "+why, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// WrapCORS is Wrap for a route that pages on the allowed origins may call
// from a browser (CORS). Their preflight (OPTIONS with
// Access-Control-Request-Method), which never carries a credential, is
// answered here, before authentication; every other answer to them, a
// refusal included, says the page may read it. Wrap has refused the
// requests, preflights included, of every other origin. The server's own
// origin needs none of this, and pages on no other origin need reach the
// review page, which is why it is never wrapped so.
func (g *Guard) WrapCORS(next http.Handler) http.Handler {
	return g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if !g.allowed(origin) {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
		if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", corsRequestHeaders)
		h.Set("Access-Control-Max-Age", "7200") // two hours, the most Chromium keeps a preflight
		w.WriteHeader(http.StatusNoContent)
	}))
}

// corsRequestHeaders are the headers a page may send: its credential, the
// body's type, and MCP's own (revision 2026-07-28 requires Mcp-Method and
// Mcp-Name on every POST).
const corsRequestHeaders = "Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID"

// allowed reports whether origin is one of the configured allowed origins.
func (g *Guard) allowed(origin string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.origins[strings.ToLower(origin)]
}

// sameOrigin reports whether origin is the server's own as r reached it.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
}

// hostname is h without its port and brackets, in lower case.
func hostname(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// quoteShort quotes a header value for a message, cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s) + `"`
}
