package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server speaks the stateless 2026-07-28 revision (server/discover,
// per-request _meta, subscriptions/listen) beside the session revisions
// 2025-11-25 and 2025-06-18. Each test below runs a whole exchange in each.

var revisions = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

// TestEveryRevision connects a client asking for each revision, and checks
// that it gets that revision, that a tool call answers, and that a resource
// subscription (subscriptions/listen in 2026-07-28, resources/subscribe
// before it) delivers the update another server on the same data directory
// causes.
func TestEveryRevision(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			t.Parallel() // as processes, so that their waits for the change feed overlap
			dir := t.TempDir()
			updated := make(chan string, 16)
			s := start(t, options{dataDir: dir, protocol: rev, client: &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					updated <- req.Params.URI
				},
			}})
			if got := s.cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("negotiated %s, asked for %s", got, rev)
			}
			if info := s.cs.InitializeResult().ServerInfo; info == nil || info.Name != "memory-mcp" {
				t.Fatalf("server info %+v", info)
			}
			var r factResult
			s.ok("publish_fact", map[string]any{"fact_id": "rev-" + rev, "content": "Spoken in " + rev + ".", "category": "other"}, &r)
			if r.Fact.Version != 1 {
				t.Fatalf("publish = %+v", r.Fact)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "memory://facts/snapshot"}); err != nil {
				t.Fatal(err)
			}
			other := start(t, options{dataDir: dir, args: []string{"--agent-id", "other"}})
			other.ok("publish_fact", map[string]any{"fact_id": "from-other", "content": "Written elsewhere.", "category": "other"}, nil)
			for {
				select {
				case uri := <-updated:
					if uri != "memory://facts/snapshot" {
						continue
					}
					text, err := s.read(uri)
					if err != nil || !strings.Contains(text, "Written elsewhere.") {
						t.Fatalf("after the update: %q, %v", text, err)
					}
					checkMethods(t, rev, s.spec)
					return
				case <-ctx.Done():
					t.Fatal("no notifications/resources/updated")
				}
			}
		})
	}
}

// checkMethods checks that the client took the revision's own path: the
// stateless core discovers and listens, the session revisions initialize and
// subscribe.
func checkMethods(t *testing.T, rev string, spec *surface) {
	spec.mu.Lock()
	sent := slices.Clone(spec.methods)
	spec.mu.Unlock()
	want, not := []string{"initialize", "resources/subscribe"}, []string{"server/discover", "subscriptions/listen"}
	if rev == "2026-07-28" {
		want, not = not, want
	}
	for _, m := range want {
		if !slices.Contains(sent, m) {
			t.Errorf("%s: the client never sent %s: %v", rev, m, sent)
		}
	}
	for _, m := range not {
		if slices.Contains(sent, m) {
			t.Errorf("%s: the client sent %s: %v", rev, m, sent)
		}
	}
}

// TestStatelessCore speaks 2026-07-28 on the wire, with no initialize at
// all: server/discover, then requests that each carry the protocol version,
// client info and capabilities in _meta, as a stateless client sends them.
// The tool result is held to the tool's declared output schema, as the
// checking wire holds every SDK client's.
func TestStatelessCore(t *testing.T) {
	out, in, _, _, _ := serveIn(t, options{})
	c := &raw{rawSession: newRawSession(t, out, in)}
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      struct {
			Resources struct {
				Subscribe bool `json:"subscribe"`
			} `json:"resources"`
			Tools map[string]any `json:"tools"`
		} `json:"capabilities"`
		Instructions string         `json:"instructions"`
		Meta         map[string]any `json:"_meta"`
	}
	c.request("server/discover", map[string]any{"_meta": meta}, &disc)
	for _, rev := range revisions {
		if !slices.Contains(disc.SupportedVersions, rev) {
			t.Errorf("discover does not offer %s: %v", rev, disc.SupportedVersions)
		}
	}
	if !disc.Capabilities.Resources.Subscribe || disc.Capabilities.Tools == nil || disc.Instructions == "" {
		t.Errorf("discover = %+v", disc)
	}
	if info, _ := disc.Meta["io.modelcontextprotocol/serverInfo"].(map[string]any); info["name"] != "memory-mcp" {
		t.Errorf("discover names no server: %v", disc.Meta)
	}

	spec := newSurface()
	var list json.RawMessage
	c.request("tools/list", map[string]any{"_meta": meta}, &list)
	if err := spec.learnTools(list); err != nil {
		t.Fatal(err)
	}
	var call json.RawMessage
	params := map[string]any{"_meta": meta, "name": "publish_fact",
		"arguments": map[string]any{"fact_id": "stateless", "content": "No handshake needed.", "category": "other"}}
	c.request("tools/call", params, &call)
	b, _ := json.Marshal(params)
	if err := spec.checkToolResult(&jsonrpc.Request{Method: "tools/call", Params: b}, call); err != nil {
		t.Fatalf("tools/call without initialize: %v", err)
	}
	if !strings.Contains(string(call), `"fact_id":"stateless"`) || strings.Contains(string(call), `"isError":true`) {
		t.Fatalf("tools/call without initialize = %s", call)
	}
	var read struct {
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	c.request("resources/read", map[string]any{"_meta": meta, "uri": "memory://facts/stateless/history"}, &read)
	if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "No handshake needed.") {
		t.Fatalf("resources/read = %+v", read)
	}
}

// raw sends numbered requests through a rawSession.
type raw struct {
	*rawSession
	id int
}

// request sends method with params and decodes the result into out; a
// JSON-RPC error fails the test.
func (c *raw) request(method string, params any, out any) {
	c.t.Helper()
	c.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	c.send(string(b))
	r := c.reply(c.id)
	if r.Error != nil {
		c.t.Fatalf("%s: %d %s", method, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		c.t.Fatalf("%s: %v: %s", method, err, r.Result)
	}
}
