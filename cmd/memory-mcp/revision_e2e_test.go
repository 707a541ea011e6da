package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

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
			dir := t.TempDir()
			updated := make(chan string, 16)
			s := startIn(t, options{dataDir: dir, protocol: rev, client: &mcp.ClientOptions{
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
			other := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "other"}})
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
func TestStatelessCore(t *testing.T) {
	c := rawClient(t)
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

	var call struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Fact struct {
				ID      string `json:"fact_id"`
				Version int    `json:"version"`
			} `json:"fact"`
		} `json:"structuredContent"`
	}
	c.request("tools/call", map[string]any{"_meta": meta, "name": "publish_fact",
		"arguments": map[string]any{"fact_id": "stateless", "content": "No handshake needed.", "category": "other"}}, &call)
	if call.IsError || call.StructuredContent.Fact.ID != "stateless" || call.StructuredContent.Fact.Version != 1 {
		t.Fatalf("tools/call without initialize = %+v", call)
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

// raw is a client that writes JSON-RPC lines to an in-process server and
// reads its answers, skipping notifications.
type raw struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Scanner
	id  int
}

func rawClient(t *testing.T) *raw {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	dir := t.TempDir()
	go func() {
		done <- run(context.Background(), []string{"stdio", "--data-dir", dir}, mapEnv(nil), serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	t.Cleanup(func() {
		clientOut.Close()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	sc := bufio.NewScanner(clientIn)
	sc.Buffer(nil, 1<<24)
	return &raw{t: t, in: clientOut, out: sc}
}

// request sends method with params and decodes the result into out; a
// JSON-RPC error fails the test.
func (c *raw) request(method string, params any, out any) {
	c.t.Helper()
	c.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for c.out.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(c.out.Bytes(), &msg); err != nil {
			c.t.Fatalf("%s: not JSON: %s", method, c.out.Bytes())
		}
		if msg.ID == nil || *msg.ID != c.id {
			continue // a notification
		}
		if msg.Error != nil {
			c.t.Fatalf("%s: %s", method, msg.Error)
		}
		if err := json.Unmarshal(msg.Result, out); err != nil {
			c.t.Fatalf("%s: %v: %s", method, err, msg.Result)
		}
		return
	}
	c.t.Fatalf("%s: no answer (%v)", method, c.out.Err())
}
