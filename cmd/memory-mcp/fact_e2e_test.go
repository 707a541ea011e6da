package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memory "github.com/memory-mcp/memory-mcp"
)

type factResult struct {
	Fact    memory.Fact            `json:"fact"`
	History []memory.FactOperation `json:"history"`
}

type factsResult struct {
	Facts []memory.Fact `json:"facts"`
}

func TestFactsEndToEnd(t *testing.T) {
	// The fact rules as a senior agent meets them with every write applied:
	// approval_e2e_test.go holds its core policies and retractions.
	s := startIn(t, options{args: []string{"--agent-id", "sam", "--seniority", "senior", "--approval", "off"}})

	var r factResult
	s.ok("publish_fact", map[string]any{"fact_id": "policy-jwt-auth", "content": "Services authenticate with JWT.",
		"category": "core_policy", "tags": []string{"auth"}}, &r)
	if r.Fact.ID != "policy-jwt-auth" || r.Fact.Version != 1 || r.Fact.Author.AgentID != "sam" {
		t.Fatalf("publish = %+v", r.Fact)
	}
	s.ok("publish_fact", map[string]any{"fact_id": "policy-jwt-auth", "content": "Services authenticate with short-lived JWT.",
		"category": "core_policy", "expected_version": 1}, &r)
	if r.Fact.Version != 2 {
		t.Fatalf("republish version %d", r.Fact.Version)
	}
	v2At := time.Now().UTC()
	time.Sleep(10 * time.Millisecond)

	s.fail("publish_fact", map[string]any{"fact_id": "policy-jwt-auth", "content": "x", "category": "core_policy", "expected_version": 1},
		"ECONFLICT", "policy-jwt-auth is at version 2, you sent expected_version 1")

	s.ok("retract_fact", map[string]any{"fact_id": "policy-jwt-auth", "reason": "replaced by mTLS"}, &r)
	if r.Fact.RetractedAt == nil || r.Fact.Version != 3 {
		t.Fatalf("retract = %+v", r.Fact)
	}
	s.ok("get_fact", map[string]any{"fact_id": "policy-jwt-auth", "include_history": true}, &r)
	if len(r.History) != 3 || r.History[2].Type != "RETRACT" || r.History[2].Reason != "replaced by mTLS" {
		t.Fatalf("history = %+v", r.History)
	}

	// Time travel: at v2At the policy was in force with its second wording.
	var q factsResult
	s.ok("query_facts", map[string]any{"query": "authenticate", "as_of": v2At.Format(time.RFC3339Nano)}, &q)
	if len(q.Facts) != 1 || q.Facts[0].Version != 2 || !strings.Contains(q.Facts[0].Content, "short-lived") {
		t.Fatalf("as_of query = %+v", q.Facts)
	}
	s.ok("query_facts", map[string]any{"query": "authenticate"}, &q)
	if len(q.Facts) != 0 {
		t.Fatalf("retracted fact still found: %+v", q.Facts)
	}

	// Republishing reactivates it.
	s.ok("publish_fact", map[string]any{"fact_id": "policy-jwt-auth", "content": "Services authenticate with mTLS.", "category": "core_policy"}, &r)
	if r.Fact.Version != 4 || r.Fact.RetractedAt != nil {
		t.Fatalf("reactivated = %+v", r.Fact)
	}

	var page memory.FactPage
	s.ok("publish_fact", map[string]any{"fact_id": "policy-b", "content": "Reviews need two approvals.", "category": "core_policy"}, nil)
	s.ok("list_facts", map[string]any{"category": "core_policy", "offset": 1, "limit": 1}, &page)
	if page.Total != 2 || len(page.Facts) != 1 || page.Facts[0].ID != "policy-b" { // policy-jwt-auth, policy-b
		t.Fatalf("list_facts page = %+v", page)
	}
	s.fail("list_facts", map[string]any{"category": "core_policy", "offset": -1}, "EINVALID", "offset -1 is negative")

	// Resources.
	s.ok("publish_fact", map[string]any{"fact_id": "policy-old-auth", "content": "Services authenticate with API keys.",
		"category": "core_policy", "tags": []string{"superseded_by:policy-jwt-auth"}}, nil)
	md, err := s.read("memory://policies/core")
	if err != nil || !strings.Contains(md, "**policy-jwt-auth** (v4): Services authenticate with mTLS.") {
		t.Fatalf("core policies = %q, %v", md, err)
	}
	// A superseded policy is listed apart, never as a policy to follow.
	active, superseded, _ := strings.Cut(md, "## Superseded, pending review (do not follow)")
	if strings.Contains(active, "API keys") || !strings.Contains(superseded, "policy-old-auth: replaced by policy-jwt-auth") {
		t.Fatalf("superseded policy not set apart:\n%s", md)
	}
	snap, err := s.read("memory://facts/snapshot/" + v2At.Format(time.RFC3339Nano))
	if err != nil || !strings.Contains(snap, "short-lived") {
		t.Fatalf("snapshot at v2 = %q, %v", snap, err)
	}
	encoded, err := s.read("memory://facts/snapshot/" + strings.ReplaceAll(v2At.Format(time.RFC3339Nano), ":", "%3A"))
	if err != nil || encoded != snap {
		t.Fatalf("percent-encoded as_of = %q, %v", encoded, err)
	}
	hist, err := s.read("memory://facts/policy-jwt-auth/history")
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ History []memory.FactOperation }
	if err := json.Unmarshal([]byte(hist), &h); err != nil || len(h.History) != 4 {
		t.Fatalf("history resource = %q, %v", hist, err)
	}
	if _, err := s.read("memory://facts/snapshot/yesterday"); err == nil || !strings.Contains(err.Error(), "not an RFC 3339 time") {
		t.Fatalf("malformed as_of resource: %v", err)
	}
	if _, err := s.read("memory://facts/nope/history"); err == nil || !strings.Contains(err.Error(), "ENOTFOUND") {
		t.Fatalf("unknown fact history: %v", err)
	}
	// Ids may contain ':'; their history resource reads without encoding.
	s.ok("publish_fact", map[string]any{"fact_id": "team:naming", "content": "Packages are named by noun.", "category": "convention"}, nil)
	if h, err := s.read("memory://facts/team:naming/history"); err != nil || !strings.Contains(h, "named by noun") {
		t.Fatalf("history of an id with ':' = %q, %v", h, err)
	}
	// The reserved id keeps memory://facts/snapshot/history unambiguous.
	s.fail("publish_fact", map[string]any{"fact_id": "snapshot", "content": "x", "category": "other"}, "EINVALID", "reserved")
	for range 4 {
		if _, err := s.read("memory://facts/snapshot/history"); err == nil {
			t.Fatal("memory://facts/snapshot/history read as something")
		}
	}
	ctx := context.Background()
	prompt, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "org_policies"})
	if err != nil || !strings.Contains(prompt.Messages[0].Content.(*mcp.TextContent).Text, "policy-jwt-auth") {
		t.Fatalf("org_policies prompt = %+v, %v", prompt, err)
	}
	_, err = s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "org_policies", Arguments: map[string]string{"category": "adr"}})
	if err == nil || !strings.Contains(err.Error(), `EINVALID: unknown argument "category": prompt org_policies takes no arguments`) {
		t.Fatalf("org_policies with an argument it does not take: %v", err)
	}
}

func TestFactsBadInput(t *testing.T) {
	s := startIn(t, options{args: []string{"--agent-id", "june", "--seniority", "junior", "--max-content-bytes", "64"}})
	tests := []struct {
		name, tool string
		args       map[string]any
		code, want string
	}{
		{"empty content", "publish_fact", map[string]any{"content": " ", "category": "adr"}, "EINVALID", "content is empty"},
		{"oversize", "publish_fact", map[string]any{"content": strings.Repeat("a", 65), "category": "adr"}, "EINVALID", "65 bytes; the limit is 64 bytes"},
		{"unknown category", "publish_fact", map[string]any{"content": "x", "category": "gossip"}, "EINVALID", `unknown category "gossip"`},
		{"forbidden", "publish_fact", map[string]any{"content": "x", "category": "core_policy"}, "EFORBIDDEN", "seniority senior or above; you are agent \"june\" (junior)"},
		{"wrong type", "publish_fact", map[string]any{"content": "x", "category": "adr", "expected_version": "two"}, "EINVALID", `argument "expected_version" must be an integer, not string`},
		{"unknown argument", "publish_fact", map[string]any{"content": "x", "category": "adr", "agent_id": "root"}, "EINVALID", `unknown argument "agent_id"`},
		{"unknown fact", "get_fact", map[string]any{"fact_id": "missing"}, "ENOTFOUND", `no fact with id "missing"`},
		{"retract unknown", "retract_fact", map[string]any{"fact_id": "missing"}, "ENOTFOUND", "missing"},
		{"malformed as_of", "query_facts", map[string]any{"as_of": "last tuesday"}, "EINVALID", "not an RFC 3339 time"},
		{"as_of out of range", "query_facts", map[string]any{"as_of": "1600-04-12T00:00:00Z"}, "EINVALID", "between 1678 and 2262"},
		{"as_of year one", "query_facts", map[string]any{"as_of": "0001-01-01T00:00:00Z"}, "EINVALID", "out of range"},
		{"padded category", "publish_fact", map[string]any{"content": "x", "category": " core_policy"}, "EINVALID", `unknown category " core_policy"`},
		{"limit", "query_facts", map[string]any{"limit": 1000}, "EINVALID", "limit 1000 is out of range"},
		{"bad category filter", "query_facts", map[string]any{"categories": []string{"nope"}}, "EINVALID", "unknown category"},
		{"missing id", "retract_fact", map[string]any{}, "EINVALID", "fact_id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.in(t).fail(tt.tool, tt.args, tt.code, tt.want)
		})
	}
	// The forbidden write left nothing behind.
	var q factsResult
	s.ok("query_facts", nil, &q)
	if len(q.Facts) != 0 {
		t.Fatalf("a rejected write was stored: %+v", q.Facts)
	}
}

func TestToolListHasSchemas(t *testing.T) {
	s := startIn(t, options{})
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range res.Tools {
		seen[tool.Name] = true
		if len(tool.Description) < 40 {
			t.Errorf("%s: description too thin for a model: %q", tool.Name, tool.Description)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct{ Properties map[string]any }
		json.Unmarshal(b, &schema)
		if len(schema.Properties) > 0 && !strings.Contains(string(b), `"description"`) { // a tool may take no arguments
			t.Errorf("%s: input schema has no argument descriptions: %s", tool.Name, b)
		}
	}
	for _, name := range []string{"publish_fact", "retract_fact", "query_facts"} {
		if !seen[name] {
			t.Errorf("tool %s not listed", name)
		}
	}
}

// TestResourceUpdatesAcrossProcesses subscribes to the core policies in one
// process and publishes a policy through another: the subscriber is told.
func TestResourceUpdatesAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	updated := make(chan string, 16)
	watcher := startIn(t, options{dataDir: dir, client: &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	}})
	if err := watcher.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "memory://policies/core"}); err != nil {
		t.Fatal(err)
	}
	// A client that did not subscribe hears nothing.
	unasked := make(chan string, 16)
	start(t, options{dataDir: dir, client: &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			unasked <- req.Params.URI
		},
	}})
	writer := start(t, options{dataDir: dir, args: []string{"--human"}})
	writer.ok("publish_fact", map[string]any{"fact_id": "p1", "content": "Never log secrets.", "category": "core_policy"}, nil)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case uri := <-updated:
			if uri == "memory://policies/core" {
				md, err := watcher.read(uri)
				if err != nil || !strings.Contains(md, "Never log secrets.") {
					t.Fatalf("after the update the resource reads %q, %v", md, err)
				}
				// The watcher's notification came from the same poll as any the
				// unsubscribed client would get; give stragglers a moment.
				time.Sleep(time.Second)
				if len(unasked) > 0 {
					t.Fatalf("an unsubscribed client was notified of %s", <-unasked)
				}
				return
			}
		case <-deadline:
			t.Fatal("no resources/updated notification for memory://policies/core")
		}
	}
}

// TestWriteSurvivesStdinClosing pipes a publish into the server and closes
// stdin at once, as a one-shot script does: the write must still be committed
// and answered, not cancelled half way.
func TestWriteSurvivesStdinClosing(t *testing.T) {
	dir := t.TempDir()
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"publish_fact","arguments":{"fact_id":"piped","content":"Written by a pipe.","category":"other"}}}
`
	cmd := exec.Command(binary(t), "stdio", "--data-dir", dir)
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(cleanEnv(t, dir), "XDG_CONFIG_HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	if !strings.Contains(string(out), `"id":2`) || strings.Contains(string(out), "internal error") {
		t.Fatalf("answer to the piped publish: %s", out)
	}
	s := startIn(t, options{dataDir: dir})
	var r factResult
	s.ok("get_fact", map[string]any{"fact_id": "piped"}, &r)
	if r.Fact.Content != "Written by a pipe." {
		t.Fatalf("piped write = %+v", r.Fact)
	}
}
