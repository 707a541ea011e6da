package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// A curator sees what dedup answered "duplicate", the words sent beside the
// memory they were taken to repeat, and stores a false repeat as its
// agent's own memory through the write gates.
func TestReviewPageRepeats(t *testing.T) {
	rv := startReview(t)
	rv.ok(sam, "remember", map[string]any{"content": "Ann reviews the pull request.", "namespace": "team"})
	text := rv.ok(sam, "remember", map[string]any{"content": "Ann reviews pull requests.", "namespace": "team"})
	rep := regexp.MustCompile(`rep-[0-9a-f]{12}`).FindString(text)
	if rep == "" || !strings.HasPrefix(text, "nothing stored") {
		t.Fatalf("the near repeat: %q, want a duplicate answer naming its repeat", text)
	}
	if status, body := rv.get("olivia-token", "/ui/"); status != http.StatusOK || !strings.Contains(body, "<strong>1</strong> write(s) answered duplicate") {
		t.Fatalf("overview: %d\n%s", status, body)
	}
	status, body := rv.get("olivia-token", "/ui/repeats")
	if status != http.StatusOK || !strings.Contains(body, rep) || !strings.Contains(body, "Ann reviews the pull request.") ||
		!strings.Contains(body, "Ann reviews pull requests.") || !strings.Contains(body, "Store as its own memory") {
		t.Fatalf("repeats page: %d\n%s", status, body)
	}
	if _, body := rv.get("olivia-token", "/ui/repeats?agent=olivia"); strings.Contains(body, rep) {
		t.Fatalf("another agent's repeats listed:\n%s", body)
	}

	tok := rv.csrf("olivia-token", "/ui/repeats")
	store := "/ui/repeats/" + rep + "/store"
	for _, c := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown repeat", "/ui/repeats/rep-000000000000/store", 404, "rep-000000000000"},
		{"malformed id", "/ui/repeats/a%20b/store", 400, "id"},
	} {
		if status, body, _ := rv.post("olivia-token", c.path, url.Values{"csrf": {tok}}); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
	}
	kept := regexp.MustCompile(`Kept: (mem-[0-9a-f]{12})`).FindStringSubmatch(body)
	if kept == nil {
		t.Fatalf("no kept memory on the repeats page:\n%s", body)
	}
	if _, page := rv.get("olivia-token", "/ui/memories/"+kept[1]); !strings.Contains(page, "/ui/repeats/"+rep+"/store") {
		t.Fatalf("the kept memory's page offers no store of its repeat:\n%s", page)
	}
	// Stored from the kept memory's page, the answer comes back to it.
	status, body, h := rv.post("olivia-token", store, url.Values{"csrf": {tok}, "key": {"ui-repeat-1"}, "back": {"/memories/" + kept[1]}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories/"+kept[1] {
		t.Fatalf("store: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/repeats"); !strings.Contains(body, "is stored as sam&#39;s own memory") || strings.Contains(body, rep+":") {
		t.Fatalf("after storing, the message and the list of repeats left:\n%s", body)
	}
	if _, body := rv.get("olivia-token", "/ui/repeats?all=1"); !strings.Contains(body, "stored as mem-") {
		t.Fatalf("all repeats do not say where the words went:\n%s", body)
	}
	// The memory is sam's, in sam's words, found by sam's search.
	found := rv.ok(sam, "search_memory", map[string]any{"query": "pull requests"})
	if n := strings.Count(found, `label="memory mem-`); n != 2 {
		t.Fatalf("sam's search finds %d memories, want both:\n%s", n, found)
	}
	status, body, _ = rv.post("olivia-token", store, url.Values{"csrf": {tok}, "key": {"ui-repeat-2"}})
	if status != http.StatusConflict || !strings.Contains(body, "already stored") {
		t.Fatalf("storing again: %d\n%s", status, body)
	}
	// The page's action went through the gates as remember.
	m, err := rv.app.gates.WriteMetrics(memory.WithIdentity(context.Background(), olivia), time.Hour)
	if err != nil || m.Tools["remember"] != 4 {
		t.Fatalf("write log = %+v, %v; want sam's two and the page's two stores logged as remember", m.Tools, err)
	}
}
