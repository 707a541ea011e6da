package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The statistics page draws the trends of the window chosen from real
// writes, each chart an SVG with its numbers in a table beside it.
func TestReviewPageTrends(t *testing.T) {
	rv := startReview(t)
	rv.ok(sam, "remember", map[string]any{"content": "The flight to Oslo is on Tuesday."})
	rv.ok(sam, "remember", map[string]any{"content": "The flight to Oslo is on Wednesday."}) // a conflict, left open
	rv.ok(sam, "remember", map[string]any{"content": "the flight to Oslo is on Wednesday"})  // a duplicate
	rv.ok(sam, "remember", map[string]any{"content": "Sam prefers tea."})

	status, body := rv.get("olivia-token", "/ui/stats?span=day")
	if status != http.StatusOK {
		t.Fatalf("stats: %d\n%s", status, body)
	}
	for _, w := range []string{"Writes by outcome", "Duplicates and merges", "p95 latency per gate", "Conflicts opened and settled",
		"Archive growth after consolidation", "Active memories per agent", `aria-current="page">day</a>`, `fill="url(#writes-p0)"`,
		"<title>stored, "} {
		if !strings.Contains(body, w) {
			t.Errorf("no %q on the statistics page", w)
		}
	}
	if n := strings.Count(body, "<svg viewBox"); n != 6 {
		t.Errorf("%d charts, want 6", n)
	}
	// The tables hold the figures drawn: the last step of writes by
	// outcome has sam's three stored and one duplicate; sam has three
	// active memories; one conflict was opened.
	rows := func(body, chart string) []string {
		i := strings.Index(body, `id="chart-`+chart+`"`)
		j := strings.Index(body[i:], "</figure>")
		return regexp.MustCompile(`<tr><th scope="row">[^<]*</th>(.*?)</tr>`).FindAllString(body[i:i+j], -1)
	}
	last := func(chart string) string { r := rows(body, chart); return r[len(r)-1] }
	if r := rows(body, "writes"); len(r) != 24 || !strings.Contains(last("writes"), "<td>3</td><td>0</td><td>1</td>") {
		t.Errorf("writes by outcome: %d rows, last %q", len(r), last("writes"))
	}
	if !strings.Contains(last("active"), "<td>3</td>") || !strings.Contains(body, "<th scope=\"col\">sam</th>") {
		t.Errorf("active memories: last %q", last("active"))
	}
	if !strings.Contains(last("conflicts"), "<td>1</td><td>0</td>") {
		t.Errorf("conflicts: last %q", last("conflicts"))
	}
	if status, body := rv.get("olivia-token", "/ui/stats?span=year"); status != http.StatusBadRequest || !strings.Contains(body, "year") {
		t.Errorf("an unknown span: %d\n%s", status, body)
	}
	if status, body := rv.get("olivia-token", "/ui/stats"); status != http.StatusOK || !strings.Contains(body, `aria-current="page">week</a>`) ||
		len(rows(body, "writes")) != 28 {
		t.Errorf("the default span: %d", status)
	}
}
