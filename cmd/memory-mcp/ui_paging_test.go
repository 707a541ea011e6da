package main

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

var olderLink = regexp.MustCompile(`href="(/ui/memories\?[^"]*before=[^"]*)" rel="next"`)

// A curator walks an agent's memories page by page through the older
// links, which key each page by the last one's memory: every memory is
// shown exactly once, newest first, and the last page offers no older one.
// A key that is not one is refused, and an offset past the end shows none.
func TestReviewPageMemoryPaging(t *testing.T) {
	rv := startReview(t)
	ctx := memory.WithIdentity(context.Background(), sam)
	var want []string
	for i := range 120 {
		r, err := rv.app.memories.Remember(ctx, memory.EntryWrite{Content: fmt.Sprintf("Build %d of service s%d ran on runner r%d at hour h%d.", i, i*7, i*13, i*17)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != memory.WriteOutcomeStored {
			t.Fatalf("memory %d: %s", i, r.Outcome)
		}
		want = append(want, r.Entry.ID)
	}
	var seen []string
	path, pages := "/ui/memories?agent=sam", 0
	for path != "" {
		status, body := rv.get("olivia-token", path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, status, body)
		}
		// The counts' links keep the agent and name one state each.
		if !strings.Contains(body, `href="/ui/memories?agent=sam&amp;state=forgotten"`) {
			t.Errorf("no link to sam's forgotten memories on page %d:\n%s", pages+1, body)
		}
		if pages++; pages > 3 {
			t.Fatalf("a fourth page for 120 memories: %s", path)
		}
		if pages > 1 && (!strings.Contains(body, "older than") || !strings.Contains(body, "(120 in all)") || !strings.Contains(body, ">newest</a>")) {
			t.Errorf("page %d does not say where it is:\n%s", pages, body)
		}
		for _, id := range memID.FindAllString(body, -1) {
			if len(seen) == 0 || seen[len(seen)-1] != id {
				seen = append(seen, id)
			}
		}
		path = ""
		if m := olderLink.FindStringSubmatch(body); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	if pages != 3 || len(seen) != 120 {
		t.Fatalf("%d pages, %d memories shown; want 3 and 120", pages, len(seen))
	}
	rev := slices.Clone(want)
	slices.Reverse(rev) // remembered one after another: the newest is the last
	sorted := slices.Clone(seen)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != 120 {
		t.Fatalf("a memory shown twice: %v", seen)
	}
	for _, id := range want {
		if !slices.Contains(seen, id) {
			t.Fatalf("memory %s never shown", id)
		}
	}
	if seen[0] != rev[0] || seen[119] != rev[119] {
		t.Errorf("not newest first: first %s last %s, want %s and %s", seen[0], seen[119], rev[0], rev[119])
	}

	for _, c := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"a key without an id", "/ui/memories?agent=sam&before=2026-01-01T00:00:00Z", 400, "older link"},
		{"a key with a bad time", "/ui/memories?agent=sam&before=yesterday+mem-000000000000", 400, "older link"},
		{"a key with markup", "/ui/memories?agent=sam&before=%3Cb%3E+%3Cb%3E", 400, "&lt;b&gt;"},
		{"a key of no memory pages all the same", "/ui/memories?agent=sam&before=2200-01-01T00:00:00Z+mem-000000000000", 200, "older than"},
		{"an offset past the end", "/ui/memories?agent=sam&offset=9000000000000000000", 200, "None."},
		{"an offset beyond a whole number", "/ui/memories?agent=sam&offset=99999999999999999999", 400, "offset"},
	} {
		if status, body := rv.get("olivia-token", c.path); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
	}
}
