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
func issue(id, text string, closed time.Duration, aliases ...string) memory.StateRow {
	r := memory.StateRow{Bucket: memory.BucketIssues, ID: id, Text: text, Status: memory.StatusOpen, NotedAt: t0.Add(-time.Hour),
		Reference: &memory.ReferenceMemory{Aliases: aliases}}
	if closed != 0 {
		at := t0.Add(-closed)
		r.Status, r.ClosedAt = memory.StatusResolved, &at
	}
	return r
}

// blocker is an issue reported as a blocker (see issue).
func blocker(id, text string, closed time.Duration) memory.StateRow {
	r := issue(id, text, closed, "blocker")
	r.Kind = memory.KindBlocker
	return r
}

func resolve(ref string, aliases ...string) memory.WriteRequest {
	return memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketIssues, Operation: memory.OpResolve, ReferenceText: ref,
		CandidateAliases: aliases, Confidence: 0.9}
}

func named(id string) memory.WriteRequest { r := resolve(""); r.TargetID = id; return r }

func upsert(id, text string) memory.WriteRequest {
	return memory.WriteRequest{Bucket: memory.BucketIssues, Operation: memory.OpUpsert, TargetID: id, Payload: memory.Payload{Text: text}}
}

func TestResolver(t *testing.T) {
	pandas := blocker("pandas_import_blocker", "pandas import fails in the loader", 0)
	disk := blocker("ci_disk", "CI runner disk is full", 0)
	laterBlocker := blocker("redis_blocker", "redis is down", 0)
	laterBlocker.NotedAt = t0.Add(time.Minute)
	auth := issue("flaky_auth_test", "flaky test in the auth module", 0)
	billing := issue("flaky_billing_test", "flaky test in the billing module", 0)
	later := issue("redis_timeout", "redis calls time out in the worker", 0)
	later.NotedAt = t0.Add(time.Minute)
	phrased := issue("ci_runner_disk", "disk full", 0)
	phrased.Reference.Phrases = []string{"the runner thing on the build box"}
	noNet := memory.StateRow{Bucket: memory.BucketConstraints, ID: "no_network_ci", Text: "no network access in CI", Status: memory.StatusActive, NotedAt: t0.Add(-time.Hour)}
	netOK := memory.StateRow{Bucket: memory.BucketConstraints, ID: "network_ci", Text: "network access in CI for the mirror", Status: memory.StatusActive, NotedAt: t0.Add(-time.Hour)}
	lift := func(ref string) memory.WriteRequest {
		return memory.WriteRequest{Bucket: memory.BucketConstraints, Operation: memory.OpInvalidate, ReferenceText: ref}
	}
	tests := []struct {
		name   string
		req    memory.WriteRequest
		note   string // the note's text; empty: the reference text
		rows   []memory.StateRow
		action promotion.Action
		target string
		reason string
	}{
		// Ids the note names.
		{"explicit id", named("flaky_auth_test"), "fixed: flaky_auth_test", []memory.StateRow{auth, billing}, promotion.Bind, "flaky_auth_test", "explicit target id"},
		{"explicit id closed", named("flaky_auth_test"), "fixed: flaky_auth_test", []memory.StateRow{issue("flaky_auth_test", "x", time.Minute)}, promotion.Duplicate, "flaky_auth_test", "already resolved"},
		{"explicit id unknown", named("nope_x"), "fixed: nope_x", []memory.StateRow{auth}, promotion.Defer, "nope_x", "no open issue nope_x (yet)"},
		{"explicit id the note does not name", named("flaky_auth_test"), "The earlier blocker is fixed.", []memory.StateRow{auth}, promotion.Defer, "", "the note does not name flaky_auth_test"},
		{"explicit id negated", named("flaky_auth_test"), "fixed: flaky_auth_test is not fixed", []memory.StateRow{auth}, promotion.Defer, "", "negated or contrasted clause"},
		{"explicit id and another row", named("flaky_auth_test"), "fixed: flaky_auth_test and flaky_billing_test", []memory.StateRow{auth, billing}, promotion.Defer, "", "names 2 rows (flaky_auth_test, flaky_billing_test)"},
		{"explicit id of a row noted after the note", named("redis_timeout"), "fixed: redis_timeout", []memory.StateRow{later}, promotion.Defer, "redis_timeout", "recorded from a note written after this one"},
		{"sole id as the reference", resolve("the flaky_billing_test issue"), "The flaky_billing_test issue is fixed", []memory.StateRow{auth, billing}, promotion.Bind, "flaky_billing_test", "the note names flaky_billing_test"},
		{"id inside a longer phrase", resolve("the flake flaky_billing_test caused"), "", []memory.StateRow{auth, billing}, promotion.Defer, "", "names flaky_billing_test inside a longer phrase"},
		{"contrasted id is left out", resolve("the flaky auth test"), "fixed: the flaky auth test, but flaky_billing_test is still open", []memory.StateRow{auth, billing}, promotion.Bind, "flaky_auth_test", "only flaky_auth_test"},
		{"contrasted id is not a candidate", resolve("the flaky test"), "fixed: the flaky test, but flaky_billing_test is still open", []memory.StateRow{auth, billing}, promotion.Bind, "flaky_auth_test", "only flaky_auth_test"},
		{"unknown id is just words", resolve("some_helper in the auth module"), "", []memory.StateRow{auth, billing}, promotion.Defer, "", "lacks the note's word(s) helper"},

		// Words.
		{"empty reference", resolve("it"), "", []memory.StateRow{auth}, promotion.Reject, "", "does not say which open issue"},
		{"only generic words", resolve("the other blocker"), "", []memory.StateRow{pandas, auth}, promotion.Defer, "", `calls it only "blocker"`},
		{"two distinctive words", resolve("the flaky auth test"), "", []memory.StateRow{auth, billing}, promotion.Bind, "flaky_auth_test", "only flaky_auth_test (1.00)"},
		{"tie", resolve("the flaky test"), "", []memory.StateRow{auth, billing}, promotion.Defer, "", "ambiguous: flaky_auth_test (1.00) and flaky_billing_test (1.00)"},
		{"single row, one shared word", resolve("the loader"), "", []memory.StateRow{pandas}, promotion.Defer, "", "shares fewer than 2 distinctive words"},
		{"single row, a word it lacks", resolve("the checkout page on safari"), "", []memory.StateRow{issue("login_safari", "login page crashes on safari", 0)}, promotion.Defer, "", "lacks the note's word(s) checkout"},
		{"single row, generic plus a word it lacks", resolve("the deploy blocker"), "", []memory.StateRow{pandas}, promotion.Defer, "", "no open issue shares a word"},
		{"single row, covered by one word", resolve("the timeouts"), "", []memory.StateRow{issue("timeouts", "timeouts", 0)}, promotion.Bind, "timeouts", "only timeouts"},
		{"no shared word", resolve("the kafka lag"), "", []memory.StateRow{pandas, auth}, promotion.Defer, "", "no open issue shares a word"},
		{"reference memory", resolve("the runner thing on the build box"), "", []memory.StateRow{phrased, pandas}, promotion.Bind, "ci_runner_disk", "only ci_runner_disk"},
		{"inflections meet", resolve("the crashing logins"), "", []memory.StateRow{issue("login_crash", "login crashes", 0)}, promotion.Bind, "login_crash", "only login_crash"},
		{"row noted after the note", resolve("the redis timeout"), "", []memory.StateRow{later}, promotion.Defer, "", "1 row(s) recorded after the note was written were not considered"},
		{"later row does not compete", resolve("the flaky auth test"), "", []memory.StateRow{later, auth}, promotion.Bind, "flaky_auth_test", "only flaky_auth_test"},
		{"recently closed competes", resolve("the flaky test"), "", []memory.StateRow{auth, issue("flaky_billing_test", billing.Text, time.Hour)}, promotion.Defer, "", "ambiguous"},
		{"closed after the note competes", resolve("the flaky test"), "", []memory.StateRow{auth, issue("flaky_billing_test", billing.Text, -time.Hour)}, promotion.Defer, "", "ambiguous"},
		{"closed long ago does not", resolve("the flaky test"), "", []memory.StateRow{auth, issue("flaky_billing_test", billing.Text, 48*time.Hour)}, promotion.Bind, "flaky_auth_test", "only flaky_auth_test"},
		{"closed winner is a duplicate", resolve("the flaky billing test"), "", []memory.StateRow{auth, issue("flaky_billing_test", billing.Text, time.Hour)}, promotion.Duplicate, "flaky_billing_test", "already closed"},
		{"all candidates closed", resolve("the flaky test"), "", []memory.StateRow{issue("flaky_auth_test", auth.Text, time.Hour), issue("flaky_billing_test", billing.Text, time.Hour)},
			promotion.Duplicate, "", "every row it may mean is already closed"},
		{"aliases are not read", resolve("that loader thing", "pandas import blocker"), "", []memory.StateRow{pandas, auth}, promotion.Defer, "", "shares fewer than 2"},
		{"negated reference needs a negated row", lift("network access in CI"), "", []memory.StateRow{noNet, netOK}, promotion.Defer, "", "ambiguous"},
		{"negated reference", lift("no network access in CI"), "", []memory.StateRow{noNet, netOK}, promotion.Bind, "no_network_ci", "only no_network_ci"},

		// Kind references: a pointer back and a kind noun, nothing else.
		{"the earlier blocker among issues", resolve("The earlier blocker"), "", []memory.StateRow{auth, pandas, billing}, promotion.Bind, "pandas_import_blocker", "the only blocker recorded before the note"},
		{"that earlier blocker", resolve("that earlier blocker"), "I fixed that earlier blocker.", []memory.StateRow{pandas, auth}, promotion.Bind, "pandas_import_blocker", "by kind alone"},
		{"our blocker", resolve("our blocker"), "", []memory.StateRow{pandas, auth}, promotion.Bind, "pandas_import_blocker", "by kind alone"},
		{"two blockers", resolve("the earlier blocker"), "", []memory.StateRow{pandas, auth, disk}, promotion.Defer, "", "could be any of 2 blockers (pandas_import_blocker, ci_disk)"},
		{"no blocker", resolve("the earlier blocker"), "", []memory.StateRow{auth}, promotion.Defer, "", "none was recorded before the note (yet)"},
		{"a blocker's alias alone is not its kind", resolve("the earlier blocker"), "", []memory.StateRow{issue("x_y", "x fails", 0, "blocker")}, promotion.Defer, "", "none was recorded"},
		{"blocker noted after the note", resolve("the earlier blocker"), "", []memory.StateRow{laterBlocker, auth}, promotion.Defer, "", "1 row(s) recorded after the note was written were not considered"},
		{"later blocker does not compete", resolve("the earlier blocker"), "", []memory.StateRow{laterBlocker, pandas}, promotion.Bind, "pandas_import_blocker", "the only blocker"},
		{"blocker closed since competes", resolve("the earlier blocker"), "", []memory.StateRow{pandas, blocker("ci_disk", disk.Text, -time.Hour)}, promotion.Defer, "", "could be any of 2 blockers"},
		{"blocker closed long ago does not", resolve("the earlier blocker"), "", []memory.StateRow{pandas, blocker("ci_disk", disk.Text, 48*time.Hour)}, promotion.Bind, "pandas_import_blocker", "the only blocker"},
		{"only blocker closed", resolve("the earlier blocker"), "", []memory.StateRow{auth, blocker("ci_disk", disk.Text, time.Hour)}, promotion.Duplicate, "ci_disk", "already closed"},
		{"contrasted blocker is left out", resolve("the earlier blocker"), "fixed: the earlier blocker, but pandas_import_blocker is still open", []memory.StateRow{pandas, disk}, promotion.Bind, "ci_disk", "the only blocker"},
		{"the deploy blocker", resolve("the deploy blocker"), "", []memory.StateRow{pandas}, promotion.Defer, "", "no open issue shares a word"},
		{"my blocker may be another's", resolve("my blocker"), "", []memory.StateRow{pandas}, promotion.Defer, "", `calls it only "blocker"`},
		{"a kind reference the grammar does not read", resolve("the earlier blocker"), "The deploy blocker, unlike the earlier blocker, is fixed.", []memory.StateRow{pandas}, promotion.Defer, "", `calls it only "blocker"`},
		{"a kind reference in a note the grammar ignores", resolve("the earlier blocker"), "Honestly the earlier blocker got sorted out", []memory.StateRow{pandas}, promotion.Defer, "", `calls it only "blocker"`},
		{"plural blockers", resolve("the blockers"), "", []memory.StateRow{pandas}, promotion.Defer, "", `calls it only "blockers"`},
		{"no pointer", resolve("earlier blocker"), "", []memory.StateRow{pandas}, promotion.Defer, "", `calls it only "blocker"`},
		{"the bug, one issue", resolve("The bug"), "", []memory.StateRow{auth}, promotion.Defer, "", `calls it only "bug"`},
		{"the earlier bug, one issue", resolve("the earlier bug"), "", []memory.StateRow{auth}, promotion.Bind, "flaky_auth_test", "the only issue recorded"},
		{"that issue, one blocker", resolve("that issue"), "", []memory.StateRow{pandas}, promotion.Bind, "pandas_import_blocker", "the only issue recorded"},
		{"the same problem, two issues", resolve("the same problem"), "", []memory.StateRow{auth, pandas}, promotion.Defer, "", "could be any of 2 issues"},
		{"the earlier decision", memory.WriteRequest{Bucket: memory.BucketDecisions, Operation: memory.OpInvalidate, ReferenceText: "the earlier decision"}, "",
			[]memory.StateRow{{Bucket: memory.BucketDecisions, ID: "use_go", Text: "use Go", Status: memory.StatusActive, NotedAt: t0.Add(-time.Hour)}}, promotion.Defer, "", `calls it only "decision"`},

		// Upserts and appends.
		{"upsert named id, new", upsert("x_y", "t"), "issue: x_y: t", []memory.StateRow{auth}, promotion.Create, "x_y", "creates it"},
		{"upsert named id, live", upsert("flaky_auth_test", "t"), "issue: flaky_auth_test: t", []memory.StateRow{auth}, promotion.Bind, "flaky_auth_test", "updates it"},
		{"upsert named id, noted after", upsert("redis_timeout", "t"), "issue: redis_timeout: t", []memory.StateRow{later}, promotion.Defer, "redis_timeout", "written after this one"},
		{"upsert id the note does not name", upsert("flaky_auth_test", "t"), "The loader looks fine.", []memory.StateRow{auth}, promotion.Defer, "", "which the note does not name"},
		{"upsert same text", upsert("", "Flaky test in the auth module!"), "", []memory.StateRow{auth}, promotion.Duplicate, "flaky_auth_test", "already says this"},
		{"upsert same words", upsert("", "the auth module test is flaky"), "", []memory.StateRow{auth}, promotion.Duplicate, "flaky_auth_test", "in other words"},
		{"upsert says less", upsert("", "a flaky auth test"), "", []memory.StateRow{auth, billing}, promotion.Defer, "", "it may restate open issue flaky_auth_test"},
		{"upsert new", upsert("", "pandas import fails on windows"), "", []memory.StateRow{pandas}, promotion.Create, "pandas_import_fails_on_windows", "derived"},
		{"upsert colliding id is derived", upsert("", "flaky test in the auth module on windows"), "", []memory.StateRow{auth}, promotion.Create, "flaky_test_in_auth_module_on", "derived"},
		{"upsert negated", upsert("", "no flaky test in the auth module"), "", []memory.StateRow{auth}, promotion.Defer, "", "may contradict issues flaky_auth_test"},
		{"plan", memory.WriteRequest{Bucket: memory.BucketPlan, Operation: memory.OpUpsert}, "", nil, promotion.Create, "main", "one row"},
		{"decision", memory.WriteRequest{Bucket: memory.BucketDecisions, Operation: memory.OpAppend, Payload: memory.Payload{Text: "Use Go."}}, "", nil, promotion.Create, "use_go", "derived"},
		{"result", memory.WriteRequest{Bucket: memory.BucketResults, Operation: memory.OpAppend}, "", nil, promotion.Pass, "", "no resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.rows {
				if tt.rows[i].Bucket == "" {
					tt.rows[i].Bucket = tt.req.Bucket
				}
			}
			res := promotion.DefaultResolver.Resolve(promotion.Target{Request: tt.req, Context: memory.StateContext{Rows: tt.rows}, NoteAt: t0, Note: tt.note})
			if res.Action != tt.action || res.TargetID != tt.target || !strings.Contains(res.Reason, tt.reason) {
				t.Fatalf("got %s %q: %s\n\tcandidates %+v", res.Action, res.TargetID, res.Reason, res.Candidates)
			}
		})
	}
}
