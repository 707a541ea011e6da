package promotion_test

import (
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/promotion"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// issue is an issue row noted at t0 - 1h; closed, when non-zero, says how
// long before t0 it was closed (negative: after).
func issue(id, text string, closed time.Duration, aliases ...string) memory.SharedRow {
	r := memory.SharedRow{Bucket: memory.Issues, ID: id, Text: text, Status: memory.StatusOpen, NotedAt: t0.Add(-time.Hour),
		Reference: &memory.ReferenceMemory{Aliases: aliases}}
	if closed != 0 {
		at := t0.Add(-closed)
		r.Status, r.ClosedAt = memory.StatusResolved, &at
	}
	return r
}

func resolve(ref string, aliases ...string) memory.WriteRequest {
	return memory.WriteRequest{Decision: memory.Accept, Bucket: memory.Issues, Operation: memory.Resolve, ReferenceText: ref,
		CandidateAliases: aliases, Confidence: 0.9}
}

func TestResolver(t *testing.T) {
	pandas := issue("pandas_import_blocker", "pandas import fails in the loader", 0, "blocker")
	auth := issue("flaky_auth_test", "flaky test in the auth module", 0)
	billing := issue("flaky_billing_test", "flaky test in the billing module", 0)
	later := issue("redis_blocker", "redis out of memory", 0, "blocker")
	later.NotedAt = t0.Add(time.Minute)
	phrased := issue("ci_runner_disk", "disk full", 0)
	phrased.Reference.Phrases = []string{"the runner thing"}
	tests := []struct {
		name   string
		req    memory.WriteRequest
		rows   []memory.SharedRow
		action promotion.Action
		target string
		reason string
	}{
		{"explicit id", func() memory.WriteRequest { r := resolve(""); r.TargetID = "flaky_auth_test"; return r }(),
			[]memory.SharedRow{auth, billing}, promotion.Bind, "flaky_auth_test", "explicit target id"},
		{"explicit id closed", func() memory.WriteRequest { r := resolve(""); r.TargetID = "flaky_auth_test"; return r }(),
			[]memory.SharedRow{issue("flaky_auth_test", "x", time.Minute)}, promotion.Duplicate, "flaky_auth_test", "already resolved"},
		{"explicit id unknown", func() memory.WriteRequest { r := resolve(""); r.TargetID = "nope"; return r }(),
			[]memory.SharedRow{auth}, promotion.Defer, "nope", "no open issue nope (yet)"},
		{"slug in text", resolve("flaky_billing_test after the retry fix"), []memory.SharedRow{auth, billing}, promotion.Bind, "flaky_billing_test", "slug flaky_billing_test"},
		{"unknown slug is just words", resolve("some_helper in the auth module"), []memory.SharedRow{auth, billing}, promotion.Bind, "flaky_auth_test", "best match"},
		{"earlier blocker", resolve("the earlier blocker"), []memory.SharedRow{pandas, auth}, promotion.Bind, "pandas_import_blocker", "best match pandas_import_blocker (1.00)"},
		{"nothing to match", resolve("the earlier one"), []memory.SharedRow{pandas}, promotion.Defer, "", "does not say which open issue"},
		{"tie", resolve("the flaky test"), []memory.SharedRow{auth, billing}, promotion.Defer, "", "ambiguous: flaky_auth_test (1.00) and flaky_billing_test (1.00)"},
		{"distinctive word", resolve("the flaky auth test"), []memory.SharedRow{auth, billing}, promotion.Bind, "flaky_auth_test", "(1.00) is ahead of the next (0.50)"},
		{"weak", resolve("the loader cache eviction race"), []memory.SharedRow{pandas}, promotion.Defer, "", "best match pandas_import_blocker scores 0.25, under 0.50"},
		{"no shared word", resolve("the kafka lag"), []memory.SharedRow{pandas, auth}, promotion.Defer, "", "no open issue shares a word"},
		{"reference memory", resolve("the runner thing"), []memory.SharedRow{phrased, pandas}, promotion.Bind, "ci_runner_disk", "best match ci_runner_disk"},
		{"row noted after the note", resolve("the blocker"), []memory.SharedRow{later}, promotion.Defer, "", "1 row(s) recorded after the note was written were not considered"},
		{"later row does not compete", resolve("the blocker"), []memory.SharedRow{later, pandas}, promotion.Bind, "pandas_import_blocker", "best match"},
		{"recently closed competes", resolve("the flaky test"), []memory.SharedRow{auth, issue("flaky_billing_test", billing.Text, time.Hour)}, promotion.Defer, "", "ambiguous"},
		{"closed after the note competes", resolve("the flaky test"), []memory.SharedRow{auth, issue("flaky_billing_test", billing.Text, -time.Hour)}, promotion.Defer, "", "ambiguous"},
		{"closed long ago does not", resolve("the flaky test"), []memory.SharedRow{auth, issue("flaky_billing_test", billing.Text, 48*time.Hour)}, promotion.Bind, "flaky_auth_test", "best match"},
		{"closed winner is a duplicate", resolve("the flaky billing test"), []memory.SharedRow{auth, issue("flaky_billing_test", billing.Text, time.Hour)}, promotion.Duplicate, "flaky_billing_test", "already closed"},
		{"all candidates closed", resolve("the flaky test"), []memory.SharedRow{issue("flaky_auth_test", auth.Text, time.Hour), issue("flaky_billing_test", billing.Text, time.Hour)},
			promotion.Duplicate, "", "every row it may mean is already closed"},
		{"hint agrees", resolve("that loader thing", "pandas import blocker"), []memory.SharedRow{pandas, auth}, promotion.Bind, "pandas_import_blocker", "best match"},
		{"hint disagrees", resolve("the earlier blocker", "flaky auth test"), []memory.SharedRow{pandas, auth}, promotion.Defer, "", "hints point to flaky_auth_test but the note's own words point to pandas_import_blocker"},

		{"upsert explicit new", memory.WriteRequest{Bucket: memory.Issues, Operation: memory.Upsert, TargetID: "x_y", Payload: memory.Payload{Text: "t"}},
			[]memory.SharedRow{auth}, promotion.Create, "x_y", "creates or reopens"},
		{"upsert derived id exists", memory.WriteRequest{Bucket: memory.Issues, Operation: memory.Upsert, Payload: memory.Payload{Text: "flaky auth test!"}},
			[]memory.SharedRow{auth}, promotion.Bind, "flaky_auth_test", "derived from the text"},
		{"upsert restated", memory.WriteRequest{Bucket: memory.Issues, Operation: memory.Upsert, Payload: memory.Payload{Text: "the pandas import still fails"}},
			[]memory.SharedRow{pandas, auth}, promotion.Bind, "pandas_import_blocker", "best match"},
		{"upsert new", memory.WriteRequest{Bucket: memory.Issues, Operation: memory.Upsert, Payload: memory.Payload{Text: "pandas import fails on windows"}},
			[]memory.SharedRow{pandas}, promotion.Create, "pandas_import_fails_on_windows", "scores 0.75, under 0.90"},
		{"upsert ambiguous", memory.WriteRequest{Bucket: memory.Issues, Operation: memory.Upsert, Payload: memory.Payload{Text: "a flaky test again"}},
			[]memory.SharedRow{auth, billing}, promotion.Defer, "", "ambiguous"},
		{"plan", memory.WriteRequest{Bucket: memory.Plan, Operation: memory.Upsert}, nil, promotion.Create, "main", "one row"},
		{"decision", memory.WriteRequest{Bucket: memory.Decisions, Operation: memory.Append, Payload: memory.Payload{Text: "Use Go."}}, nil, promotion.Create, "use_go", "derived"},
		{"result", memory.WriteRequest{Bucket: memory.Results, Operation: memory.Append}, nil, promotion.Pass, "", "no resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := promotion.DefaultResolver.Resolve(promotion.Target{Request: tt.req, Context: memory.SharedContext{Rows: tt.rows}, NoteAt: t0})
			if res.Action != tt.action || res.TargetID != tt.target || !strings.Contains(res.Reason, tt.reason) {
				t.Fatalf("got %s %q: %s\n\tcandidates %+v", res.Action, res.TargetID, res.Reason, res.Candidates)
			}
		})
	}
}
