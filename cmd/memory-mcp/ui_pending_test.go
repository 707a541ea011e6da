package main

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// The pending page's filters reach every item, not only the oldest ones
// read: in a queue of 520, the 10 newest items (ann's, from notes of three
// days ago) are found by agent and by age, and sam's 510 are paged through
// a hundred at a time.
func TestReviewPagePendingFiltersEveryItem(t *testing.T) {
	rv := startReview(t)
	ctx := context.Background()
	db := rv.app.db
	err := db.Update(ctx, func(tx *store.Tx) error {
		for i := range 520 {
			now := db.Now.Now()
			p := memory.PendingItem{Request: memory.WriteRequest{Decision: memory.DecisionAccept, Bucket: memory.BucketIssues, Operation: memory.OpResolve,
				ReferenceText: fmt.Sprintf("the flaky test number %d", i)}, RawInput: fmt.Sprintf("test %d is fixed", i), Agent: "sam", Run: "r",
				Reason: "ambiguous", NoteAt: now, CreatedAt: now, UpdatedAt: now}
			if i >= 510 {
				p.Agent, p.NoteAt = "ann", now.Add(-72*time.Hour)
			}
			if err := tx.InsertPending(ctx, &p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	items := regexp.MustCompile(`<article class="item" id="p(\d+)">`)
	for _, c := range []struct {
		name, path, note string
		items            int
	}{
		{"ann's", "/ui/pending?agent=ann", "10 item(s) open match the filters.", 10},
		{"older than two days", "/ui/pending?age=2d", "10 item(s) open match the filters.", 10},
		{"ann's older than four days", "/ui/pending?agent=ann&age=4d", "0 item(s) open match the filters.", 0},
		{"an agent with none", "/ui/pending?agent=nobody", "0 item(s) open match the filters.", 0},
		{"sam's", "/ui/pending?agent=sam", "510 item(s) open match the filters; 1–100 shown, oldest first.", 100},
		{"everyone's", "/ui/pending", "520 item(s) open; 1–100 shown, oldest first.", 100},
		{"past the end", "/ui/pending?agent=sam&offset=99999999", "510 item(s) open match the filters; none at this offset.", 0},
	} {
		status, body := rv.get("olivia-token", c.path)
		if status != http.StatusOK || !strings.Contains(body, c.note) || len(items.FindAllString(body, -1)) != c.items {
			t.Errorf("%s: %d, %d items, want %d and %q\n%.3000s", c.name, status, len(items.FindAllString(body, -1)), c.items, c.note, body)
		}
	}
	// Paged by the next links, sam's items are all shown once, and no
	// page shows ann's.
	next := regexp.MustCompile(`href="(/ui/pending\?[^"]*)" rel="next"`)
	seen, path := map[string]bool{}, "/ui/pending?agent=sam"
	for pages := 0; path != ""; pages++ {
		if pages == 6 {
			t.Fatalf("a seventh page of 510 items: %s", path)
		}
		_, body := rv.get("olivia-token", path)
		for _, m := range items.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Fatalf("item %s shown twice (%s)", m[1], path)
			}
			seen[m[1]] = true
		}
		if strings.Contains(body, "<dd>ann") {
			t.Fatalf("ann's item on sam's page %s", path)
		}
		path = ""
		if m := next.FindStringSubmatch(body); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	if len(seen) != 510 {
		t.Fatalf("%d of sam's 510 items shown", len(seen))
	}
	for _, c := range []struct{ name, path, want string }{
		{"a malformed agent", "/ui/pending?agent=%3Cb%3E", "&lt;b&gt;"},
		{"a bad age", "/ui/pending?age=soon", "age"},
		{"a negative offset", "/ui/pending?offset=-5", "offset"},
	} {
		if status, body := rv.get("olivia-token", c.path); status != http.StatusBadRequest || !strings.Contains(body, c.want) || strings.Contains(body, "<b>") {
			t.Errorf("%s: %d\n%s", c.name, status, body)
		}
	}
}
