package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// A curator filters the approvals by agent, rule, tool and age and decides
// the ticked ones at once with one reason: each decision is its own gated
// decide_approval with its own record, and sending the form again decides
// none twice.
func TestReviewPageBulkDecisions(t *testing.T) {
	rv := startReview(t)
	var held []string
	for _, id := range []string{"policy-a", "policy-b", "policy-c"} {
		held = append(held, rv.held(sam, "publish_fact", map[string]any{"fact_id": id, "content": "Rule " + id + " applies.", "category": "core_policy"}))
	}
	mine := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The office closes at six."}))
	rv.ok(sam, "publish_memory", map[string]any{"id": mine})
	ana := rv.held(sam, "retract_memory", map[string]any{"id": mine})

	for _, c := range []struct {
		name, query string
		want, not   []string
	}{
		{"by tool", "tool=publish_fact", held, []string{ana}},
		{"by rule", "rule=retract_memory", []string{ana}, held},
		{"by agent", "agent=sam", append([]string{ana}, held...), nil},
		{"by another agent", "agent=olivia", nil, append([]string{ana}, held...)},
		{"older than a day", "age=1d", nil, held},
	} {
		status, body := rv.get("olivia-token", "/ui/approvals?"+c.query)
		if status != http.StatusOK {
			t.Fatalf("%s: %d\n%s", c.name, status, body)
		}
		for _, w := range c.want {
			if !strings.Contains(body, `value="`+w+`" form="bulk"`) {
				t.Errorf("%s: %s not offered to tick", c.name, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(body, w+":") {
				t.Errorf("%s: %s listed", c.name, w)
			}
		}
	}
	if status, body := rv.get("olivia-token", "/ui/approvals?age=soon"); status != http.StatusBadRequest || !strings.Contains(body, "age") {
		t.Fatalf("a bad age: %d\n%s", status, body)
	}

	tok := rv.csrf("olivia-token", "/ui/approvals?tool=publish_fact")
	form := url.Values{"csrf": {tok}, "key": {"ui-bulk-1"}, "decision": {"approve"}, "reason": {"reviewed together"},
		"id": {held[0], held[1]}, "filters": {"status=pending&tool=publish_fact"}}
	for _, c := range []struct {
		name   string
		change func(url.Values)
		status int
		want   string
	}{
		{"no reason", func(v url.Values) { v.Set("reason", "") }, 400, "one reason"},
		{"none ticked", func(v url.Values) { v.Del("id") }, 400, "none was ticked"},
		{"no decision", func(v url.Values) { v.Set("decision", "maybe") }, 400, "maybe"},
		{"a malformed id", func(v url.Values) { v.Add("id", "a b") }, 400, "id"},
	} {
		v := url.Values{}
		for k, vs := range form {
			v[k] = append([]string(nil), vs...)
		}
		c.change(v)
		if status, body, _ := rv.post("olivia-token", "/ui/approvals/decide", v); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
	}
	status, body, h := rv.post("olivia-token", "/ui/approvals/decide", form)
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/approvals?status=pending&tool=publish_fact" {
		t.Fatalf("bulk approve: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/approvals?tool=publish_fact"); !strings.Contains(body, "2 request(s) approved, each recorded on its own") ||
		strings.Contains(body, held[0]+":") || !strings.Contains(body, held[2]+":") {
		t.Fatalf("after the bulk approval:\n%s", body)
	}
	// Sent again (a reload), the form decides nothing twice.
	if status, _, _ := rv.post("olivia-token", "/ui/approvals/decide", form); status != http.StatusSeeOther {
		t.Fatalf("sent again: %d", status)
	}
	ctx := memory.WithIdentity(context.Background(), olivia)
	as, err := rv.app.gates.ListApprovals(ctx, memory.ApprovalFilter{Status: memory.ApprovalApproved})
	if err != nil || len(as) != 2 {
		t.Fatalf("approved = %+v, %v", as, err)
	}
	for _, a := range as {
		if a.Reason != "reviewed together" || a.DecidedBy != "human:olivia" || a.Ref == "" {
			t.Errorf("approval %+v: want each decided with the reason and applied", a)
		}
	}
	m, err := rv.app.gates.WriteMetrics(ctx, time.Hour)
	if err != nil || m.Tools["decide_approval"] != 4 || m.Outcomes[memory.WriteOutcomeReplayed] != 2 {
		t.Fatalf("write log = %+v %+v, %v: want two decide_approval calls, each sent again and replayed", m.Tools, m.Outcomes, err)
	}
	// One that cannot be decided leaves the others decided, and says why.
	form.Set("key", "ui-bulk-2")
	form["id"] = []string{held[2], held[0]}
	if status, _, _ := rv.post("olivia-token", "/ui/approvals/decide", form); status != http.StatusSeeOther {
		t.Fatalf("a mixed bulk: %d", status)
	}
	if _, body := rv.get("olivia-token", "/ui/approvals"); !strings.Contains(body, "1 request(s) approved") || !strings.Contains(body, "1 not: "+held[0]) {
		t.Fatalf("after a mixed bulk:\n%s", body)
	}
}

// Pending items are filtered by agent and age and dropped in bulk with one
// reason, each its own resolve_pending with its own record.
func TestReviewPageBulkDrop(t *testing.T) {
	rv := startReview(t)
	rv.ok(sam, "write_note", map[string]any{"text": "issue: flaky test in the auth module", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "issue: flaky test in the billing module", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "The flaky test is fixed.", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "issue: slow build in the api service", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "issue: slow build in the web service", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "The slow build is fixed.", "promote": true})
	ctx := memory.WithIdentity(context.Background(), olivia)
	l, err := rv.app.promotion.ListPending(ctx, memory.PendingQuery{})
	if err != nil || len(l.Pending) < 2 {
		t.Fatalf("pending = %+v, %v: want two items", l, err)
	}
	if _, body := rv.get("olivia-token", "/ui/pending?agent=olivia"); strings.Contains(body, `form="bulk"`) {
		t.Fatalf("another agent's filter lists sam's items:\n%s", body)
	}
	if _, body := rv.get("olivia-token", "/ui/pending?agent=sam&age=1h"); strings.Contains(body, `form="bulk"`) {
		t.Fatalf("items younger than the age listed:\n%s", body)
	}
	if status, body := rv.get("olivia-token", "/ui/pending?agent=sam"); status != http.StatusOK || strings.Count(body, `form="bulk"`) != len(l.Pending) {
		t.Fatalf("sam's items: %d\n%s", status, body)
	}
	tok := rv.csrf("olivia-token", "/ui/pending")
	var ids []string
	for _, p := range l.Pending {
		ids = append(ids, strconvI(p.ID))
	}
	if status, body, _ := rv.post("olivia-token", "/ui/pending/drop", url.Values{"csrf": {tok}, "id": ids}); status != http.StatusBadRequest ||
		!strings.Contains(body, "one reason") {
		t.Fatalf("no reason: %d\n%s", status, body)
	}
	status, body, _ := rv.post("olivia-token", "/ui/pending/drop", url.Values{"csrf": {tok}, "key": {"ui-drop-1"}, "id": ids, "drop_reason": {"both stale"}})
	if status != http.StatusSeeOther {
		t.Fatalf("bulk drop: %d\n%s", status, body)
	}
	l, err = rv.app.promotion.ListPending(ctx, memory.PendingQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Pending {
		if p.Resolution == nil || p.Resolution.Action != "drop" || p.Resolution.Reason != "both stale" {
			t.Errorf("item %d: %+v, want dropped with the reason", p.ID, p.Resolution)
		}
	}
	m, err := rv.app.gates.WriteMetrics(ctx, time.Hour)
	if err != nil || m.Tools["resolve_pending"] != len(ids) {
		t.Fatalf("write log = %+v, %v: want a resolve_pending per item", m.Tools, err)
	}
}

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }

// A rule whose held writes were all approved as held is advised review
// only; marked so from the page, its next write applies and waits for
// review, and held again, its writes are held again.
func TestReviewPageRuleReviewOnly(t *testing.T) {
	rv := startReview(t)
	const rule = "publish_fact:core_policy"
	var ids []string
	for _, id := range []string{"policy-a", "policy-b", "policy-c"} {
		ids = append(ids, rv.held(sam, "publish_fact", map[string]any{"fact_id": id, "content": "Rule " + id + " applies.", "category": "core_policy"}))
	}
	tok := rv.csrf("olivia-token", "/ui/approvals")
	if status, body, _ := rv.post("olivia-token", "/ui/approvals/decide", url.Values{"csrf": {tok}, "decision": {"approve"},
		"reason": {"fine"}, "id": ids}); status != http.StatusSeeOther {
		t.Fatalf("approve: %d\n%s", status, body)
	}
	status, body := rv.get("olivia-token", "/ui/approvals")
	if status != http.StatusOK || !strings.Contains(body, "<td>"+rule+"<br><strong>advice: review only</strong></td><td>high</td><td>3</td><td>3</td><td>0</td>") {
		t.Fatalf("the rules' advice: %d\n%s", status, body)
	}
	mark := "/ui/approvals/rule/" + rule + "/review"
	for _, c := range []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"no reason", mark, url.Values{"review_only": {"on"}}, 400, "reason"},
		{"a low rule", "/ui/approvals/rule/remember/review", url.Values{"review_only": {"on"}, "reason": {"x"}}, 400, "low risk"},
		{"an unknown rule", "/ui/approvals/rule/nothing/review", url.Values{"review_only": {"on"}, "reason": {"x"}}, 404, "nothing"},
		{"unmarking an unmarked rule", mark, url.Values{"review_only": {"off"}, "reason": {"x"}}, 409, "not marked"},
	} {
		c.form.Set("csrf", tok)
		if status, body, _ := rv.post("olivia-token", c.path, c.form); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
	}
	if status, body, _ := rv.post("olivia-token", mark, url.Values{"csrf": {tok}, "review_only": {"on"}, "reason": {"all approved as held"}}); status != http.StatusSeeOther {
		t.Fatalf("mark: %d\n%s", status, body)
	}
	if _, body := rv.get("olivia-token", "/ui/approvals"); !strings.Contains(body, "is review only") || !strings.Contains(body, "yes, by human:olivia") {
		t.Fatalf("after marking:\n%s", body)
	}
	text := rv.ok(sam, "publish_fact", map[string]any{"fact_id": "policy-d", "content": "Rule d applies.", "category": "core_policy"})
	if !strings.Contains(text, "queued for a human's review") {
		t.Fatalf("a write by a review-only rule: %s", text)
	}
	if status, body, _ := rv.post("olivia-token", mark, url.Values{"csrf": {tok}, "review_only": {"off"}, "reason": {"one slipped"}}); status != http.StatusSeeOther {
		t.Fatalf("unmark: %d\n%s", status, body)
	}
	rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-e", "content": "Rule e applies.", "category": "core_policy"})
	m, err := rv.app.gates.WriteMetrics(memory.WithIdentity(context.Background(), olivia), time.Hour)
	if err != nil || m.Tools["review_only"] != 2+4 {
		t.Fatalf("write log = %+v, %v: want the two marks and the four refused ones logged as review_only", m.Tools, err)
	}
}
