package main

import (
	"net/http"
	"strings"
	"testing"
)

// The agents page lists every agent that has kept memories, with its
// active own and shared ones, and the shared space's total, each leading
// to the memories page; a forgotten memory leaves the counts. It is a
// human's page.
func TestReviewPageAgents(t *testing.T) {
	rv := startReview(t)
	if status, body := rv.get("olivia-token", "/ui/agents"); status != http.StatusOK || !strings.Contains(body, "No agent has kept a memory yet.") {
		t.Fatalf("no agents yet: %d\n%s", status, body)
	}
	kept := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The staging database is Postgres 15."}))
	gone := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "Sam is on call in the first week of March."}))
	rv.ok(sam, "publish_memory", map[string]any{"id": kept})
	rv.ok(sam, "forget", map[string]any{"id": gone, "reason": "the rota changed"})
	ann := sam
	ann.AgentID = "ann.ops"
	rv.ok(ann, "remember", map[string]any{"content": "Ann deploys from the ops runner."})

	status, body := rv.get("olivia-token", "/ui/agents")
	if status != http.StatusOK {
		t.Fatalf("agents: %d\n%s", status, body)
	}
	for _, w := range []string{
		`<a href="/ui/memories?shared=1">the shared space</a></td><td>—</td><td>1</td>`,
		`<a href="/ui/memories?agent=ann.ops">ann.ops</a></td><td>1</td><td>0</td>`,
		`<a href="/ui/memories?agent=sam">sam</a></td><td>1</td><td>1</td>`,
		`<a href="/ui/agents" aria-current="page">Agents</a>`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("no %q in\n%s", w, body)
		}
	}
	if strings.Index(body, ">ann.ops<") > strings.Index(body, ">sam<") {
		t.Errorf("agents not in order of id:\n%s", body)
	}
	// Each link leads to that agent's memories.
	if status, body := rv.get("olivia-token", "/ui/memories?agent=ann.ops"); status != http.StatusOK || !strings.Contains(body, "Ann deploys from the ops runner.") {
		t.Errorf("ann's memories: %d\n%s", status, body)
	}
	if status, _ := rv.get("sam-token", "/ui/agents"); status != http.StatusForbidden {
		t.Errorf("an agent reading the agents page: %d", status)
	}
	// An agent id typed with markup is refused, and shown escaped.
	if status, body := rv.get("olivia-token", "/ui/memories?agent=%3Cb%3Ex%3C%2Fb%3E"); status != http.StatusBadRequest ||
		strings.Contains(body, "<b>x") || !strings.Contains(body, "&lt;b&gt;x") {
		t.Errorf("an agent id with markup: %d\n%s", status, body)
	}
}
