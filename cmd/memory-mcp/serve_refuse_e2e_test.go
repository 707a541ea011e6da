package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// post sends body to the server's /mcp with headers (name, value pairs) and
// returns the status, the response's headers and its body.
func (h *httpServe) post(t testing.TB, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	return h.send(t, http.MethodPost, h.url, body, append([]string{"Content-Type", "application/json"}, headers...)...)
}

// send sends a request of method to url with body and headers (name, value
// pairs; Host sets the request's host) and returns the status, the
// response's headers and its body.
func (h *httpServe) send(t testing.TB, method, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// statelessCall is a 2026-07-28 tools/call: no session, the revision in the
// header and in _meta.
func statelessCall(tool string, args map[string]any) (string, []string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	return string(b), []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestServeRefusesBadRequests: every bad request is refused with the status
// and the words that say why, and the server goes on serving everyone else.
func TestServeRefusesBadRequests(t *testing.T) {
	h := serveHTTPIn(t, "", "--max-request-bytes", "4096")
	tok := h.token("--agent-id", "ann", "--seniority", "mid")
	auth := "Bearer " + tok
	remember, proto := statelessCall("remember", map[string]any{"content": "The build runs on Fridays."})
	ok := func(extra ...string) []string {
		return append(append([]string{"Authorization", auth}, proto...), extra...)
	}
	without := func(extra ...string) []string { return append(extra, proto...) }
	for _, tt := range []struct {
		name    string
		body    string
		headers []string
		status  int
		want    string // in the body
		header  string // in WWW-Authenticate
	}{
		{"no credential", remember, without(), 401, "needs a bearer token", `Bearer realm="memory-mcp"`},
		{"another scheme", remember, without("Authorization", "Basic YW5uOnB3"), 401, "not \"Bearer <token>\"", `error="invalid_request"`},
		{"an unknown token", remember, without("Authorization", "Bearer mmcp_"+strings.Repeat("A", 43)), 401, "not one this server issued", `error="invalid_token"`},
		{"a cut token", remember, without("Authorization", auth[:len(auth)-3]), 401, "malformed", `error="invalid_token"`},
		{"a JWT", remember, without("Authorization", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."), 401, "is a JWT", `error="invalid_token"`},
		{"a foreign Host", remember, ok("Host", "evil.example.com"), 403, `Host "evil.example.com"`, ""},
		{"a foreign Origin", remember, ok("Origin", "http://evil.example.com"), 403, `Origin "http://evil.example.com"`, ""},
		{"an oversize body", strings.Repeat(" ", 5000) + remember, ok(), 413, "larger than 4096 bytes", ""},
		{"a batch", "[" + remember + "," + remember + "]", ok(), 400, "batches are not accepted", ""},
		{"not UTF-8", strings.Replace(remember, "Fridays", "Fri\xffdays", 1), ok(), 400, "not valid UTF-8", ""},
		{"half a surrogate pair", strings.Replace(remember, "Fridays", `Fri\ud800days`, 1), ok(), 400, "half of a UTF-16 surrogate pair", ""},
		{"not JSON", `{"jsonrpc":`, ok(), 400, "not valid json", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := h.post(t, tt.body, tt.headers...)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("status %d, body %q; want %d with %q", status, body, tt.status, tt.want)
			}
			if got := hdr.Get("WWW-Authenticate"); tt.header != "" && !strings.Contains(got, tt.header) {
				t.Fatalf("WWW-Authenticate %q, want %q", got, tt.header)
			}
		})
	}
	// A request from the server's own origin (its pages) is served, and the
	// server still serves after all of the above.
	status, _, body := h.post(t, remember, ok("Origin", strings.TrimSuffix(h.url, "/mcp"))...)
	if status != 200 || strings.Contains(body, `"isError":true`) || !strings.Contains(body, "remembered") {
		t.Fatalf("a good request after the bad ones: %d %s", status, body)
	}
	p := h.connect(t, tok, options{})
	var found searchResult
	p.ok("search_memory", map[string]any{"query": "build Fridays"}, &found)
	if len(found.Results) != 1 {
		t.Fatalf("the one good write: %+v (the refused ones must have stored nothing)", found)
	}
}

// TestServeSessionsBelongToTheirCaller: a session id is no credential: a
// caller naming another caller's session is answered as if it did not
// exist, for a request, a notification stream or its end. A DELETE naming
// no session is refused 400.
func TestServeSessionsBelongToTheirCaller(t *testing.T) {
	h := serveHTTPIn(t, "")
	ann, bob := "Bearer "+h.token("--agent-id", "ann", "--seniority", "mid"), "Bearer "+h.token("--agent-id", "bob", "--seniority", "mid")
	status, hdr, body := h.post(t, initialize, "Authorization", ann)
	sid := hdr.Get(server.HeaderKeySessionID)
	if status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s %v", status, body, hdr)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if status, _, body := h.post(t, list, "Authorization", ann, server.HeaderKeySessionID, sid, "MCP-Protocol-Version", "2025-11-25"); status != 200 || !strings.Contains(body, "remember") {
		t.Fatalf("ann in her session: %d %s", status, body)
	}
	if status, _, _ := h.post(t, list, "Authorization", bob, server.HeaderKeySessionID, sid, "MCP-Protocol-Version", "2025-11-25"); status != 404 {
		t.Fatalf("bob in ann's session: %d, want 404", status)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, h.url, nil)
		req.Header.Set("Authorization", bob)
		req.Header.Set(server.HeaderKeySessionID, sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("bob's %s of ann's session: %d, want 404", method, resp.StatusCode)
		}
	}
	if status, _, _ := h.post(t, list, "Authorization", ann, server.HeaderKeySessionID, sid, "MCP-Protocol-Version", "2025-11-25"); status != 200 {
		t.Fatalf("ann's session after bob's attempts: %d", status)
	}
	// A DELETE ends the session it names, and one naming none is the
	// client's mistake, whichever older revision it speaks.
	for _, rev := range []string{"2025-11-25", ""} {
		if status, _, body := h.send(t, http.MethodDelete, h.url, "", "Authorization", ann, "MCP-Protocol-Version", rev); status != 400 || !strings.Contains(body, "Mcp-Session-Id") {
			t.Fatalf("a DELETE naming no session (revision %q): %d %q, want 400 saying what to send", rev, status, body)
		}
	}
	if status, _, body := h.send(t, http.MethodDelete, h.url, "", "Authorization", ann, server.HeaderKeySessionID, sid, "MCP-Protocol-Version", "2025-11-25"); status != 200 {
		t.Fatalf("ann ends her session: %d %q", status, body)
	}
}

// TestServeRevokedTokenMidSession: a token revoked while its client is
// connected is refused on the client's next request, and the notification
// stream it holds open is ended.
func TestServeRevokedTokenMidSession(t *testing.T) {
	h := serveHTTPIn(t, "", "--auth-recheck", "100ms")
	tok := h.token("--agent-id", "ann", "--seniority", "mid", "--label", "laptop")
	p := h.connect(t, tok, options{protocol: "2025-11-25"})
	p.ok("remember", map[string]any{"content": "Ann's first memory."}, nil)
	// A notification stream of the same token, held open.
	status, hdr, _ := h.post(t, initialize, "Authorization", "Bearer "+tok)
	if status != 200 {
		t.Fatal(status)
	}
	req, _ := http.NewRequest(http.MethodGet, h.url, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set(server.HeaderKeySessionID, hdr.Get(server.HeaderKeySessionID))
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("stream: %v %v", err, stream)
	}
	defer stream.Body.Close()

	var list []struct{ ID string }
	json.Unmarshal([]byte(h.cli("token", "list", "--json")), &struct{ Tokens *[]struct{ ID string } }{&list})
	if len(list) != 1 {
		t.Fatalf("token list: %+v", list)
	}
	if out := h.cli("token", "revoke", list[0].ID); !strings.Contains(out, "revoked "+list[0].ID) {
		t.Fatalf("revoke said %q", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "After the revocation."}})
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a call after the revocation: %v", err)
	}
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream.Body); ended <- err }()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the revoked token's notification stream is still open")
	}
	if _, err := h.tryCLI("token", "revoke", list[0].ID); err == nil || !strings.Contains(err.Error(), "already revoked") {
		t.Fatalf("a second revocation: %v", err)
	}
}

// TestServeCutsOffSlowClients: a client that sends its headers slower than
// read-header-timeout is disconnected, by that setting's time rather than a
// default's, and others are served meanwhile.
func TestServeCutsOffSlowClients(t *testing.T) {
	// The setting is 500ms; the cut must come within 5 s, room enough for a
	// loaded machine and well short of the time limits that would cut the
	// client if the setting were not applied (read-header-timeout's default,
	// and read-timeout's, which stands in when none is set).
	const setting, bound = 500 * time.Millisecond, 5 * time.Second
	for _, s := range serveSettings() {
		if d, err := time.ParseDuration(s.def()); (s.name == "read-header-timeout" || s.name == "read-timeout") && (err != nil || d < 2*bound) {
			t.Fatalf("%s's default (%s) is too close to the bound (%s) to tell it from the setting", s.name, s.def(), bound)
		}
	}
	h := serveHTTPIn(t, "", "--read-header-timeout", setting.String())
	tok := h.token("--agent-id", "ann", "--seniority", "mid")
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	type cut struct {
		err   error
		after time.Duration
	}
	cuts := make(chan cut, 1)
	wrote := time.Now()
	conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "))
	go func() {
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := bufio.NewReader(conn).ReadString('\n')
		cuts <- cut{err, time.Since(wrote)}
	}()
	p := h.connect(t, tok, options{})
	p.ok("remember", map[string]any{"content": "Served while another client dawdles."}, nil)
	c := <-cuts
	var ne net.Error
	if errors.As(c.err, &ne) && ne.Timeout() {
		t.Fatal("the slow client is still connected")
	}
	if c.after > bound {
		t.Fatalf("the slow client was cut off after %s, with read-header-timeout %s: the setting was not applied", c.after, setting)
	}
}

// TestServeAuthNone serves the configured identity without credentials on
// loopback, and refuses to start on any other address.
func TestServeAuthNone(t *testing.T) {
	dir := t.TempDir()
	for _, addr := range []string{"0.0.0.0:0", ":8080", "[::]:0", "192.0.2.1:0"} {
		// Were the address accepted, the server would serve until ctx ends.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := run(ctx, []string{"serve", "--data-dir", dir, "--auth", "none", "--addr", addr}, envOf(cleanEnv(t, dir)), nil, io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("auth none on %s: %v", addr, err)
		}
	}
	h := serveHTTPIn(t, dir, "--auth", "none", "--agent-id", "solo", "--seniority", "lead")
	p := h.connect(t, "", options{})
	var r factResult
	p.ok("publish_fact", map[string]any{"fact_id": "solo", "content": "One person, one machine.", "category": "other"}, &r)
	if r.Fact.Author.AgentID != "solo" {
		t.Fatalf("author %+v", r.Fact.Author)
	}
}

// TestServeReviewPageBehindAuthentication: /ui is served by serve behind the
// same authentication as /mcp: no credential is 401 with a challenge, an
// agent's token 403, a human's token the page; a foreign Host is refused
// before either.
func TestServeReviewPageBehindAuthentication(t *testing.T) {
	h := serveHTTPIn(t, "")
	page := strings.TrimSuffix(h.url, "/mcp") + "/ui/"
	get := func(token, host string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, page, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	human := h.token("--agent-id", "olivia", "--seniority", "mid", "--human")
	agent := h.token("--agent-id", "jo", "--seniority", "senior")
	if status, hdr, _ := get("", ""); status != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") == "" {
		t.Fatalf("no credential: %d %v", status, hdr)
	}
	if status, _, _ := get(agent, ""); status != http.StatusForbidden {
		t.Fatalf("an agent's token: %d", status)
	}
	if status, _, _ := get(human, "evil.example:80"); status == http.StatusOK {
		t.Fatal("a foreign Host was served the page")
	}
	if status, _, body := get(human, ""); status != http.StatusOK || !strings.Contains(body, "<html") {
		t.Fatalf("a human's token: %d %.200s", status, body)
	}
}

// TestServeRefusesMalformedJSONRPC: over HTTP, a message that is no
// JSON-RPC request (no method, an object for an id) is answered 400 with an
// Invalid Request error, and a request without Mcp-Session-Id after the
// session began is answered 400 (the spec's answer), not 404 (an unknown
// session's).
func TestServeRefusesMalformedJSONRPC(t *testing.T) {
	h := serveHTTPIn(t, "")
	auth := []string{"Authorization", "Bearer " + h.token("--agent-id", "ann", "--seniority", "mid")}
	status, hdr, body := h.post(t, initialize, auth...)
	session := hdr.Get(server.HeaderKeySessionID)
	if status != 200 || session == "" {
		t.Fatalf("initialize: %d %q %s", status, session, body)
	}
	inSession := append([]string{server.HeaderKeySessionID, session, "MCP-Protocol-Version", "2025-11-25"}, auth...)
	for _, tt := range []struct{ name, body, want string }{
		{"no method", `{"jsonrpc":"2.0"}`, `"code":-32600`},
		{"no method, an id", `{"jsonrpc":"2.0","id":7}`, `"id":7`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "the id must be a string or a number"},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, `"id":null`},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, "not null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := h.post(t, tt.body, inSession...)
			if status != 400 || !strings.Contains(body, "Invalid Request") || !strings.Contains(body, tt.want) {
				t.Fatalf("%s: %d %s; want 400, Invalid Request with %s", tt.body, status, body, tt.want)
			}
		})
	}
	status, _, body = h.post(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, append([]string{"MCP-Protocol-Version", "2025-11-25"}, auth...)...)
	if status != 400 || !strings.Contains(body, server.HeaderKeySessionID) {
		t.Fatalf("a request without its session id: %d %s; want 400 naming the header", status, body)
	}
	status, _, body = h.post(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, inSession...)
	if status != 200 || !strings.Contains(body, "remember") {
		t.Fatalf("the session goes on: %d %s", status, body)
	}
}
