package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var memID = regexp.MustCompile(`mem-[0-9a-f]{12}`)

// A curator finds an agent's memories by search and by state, reads one
// memory's whole story (its repeats, conflicts and write log lines), and
// forgets, restores and erases it through the write gates.
func TestReviewPageMemories(t *testing.T) {
	rv := startReview(t)
	older := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The flight to Oslo is on Tuesday.", "namespace": "travel"}))
	newer := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The flight to Oslo is on Wednesday.", "namespace": "travel"}))
	rv.ok(sam, "remember", map[string]any{"content": "the flight to Oslo is on Wednesday", "namespace": "travel"}) // a repeat
	other := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "Sam prefers tea to coffee.", "category": "social"}))
	if older == "" || newer == "" || other == "" {
		t.Fatalf("ids %q %q %q", older, newer, other)
	}

	for _, c := range []struct {
		name, path string
		want       []string
		not        []string
	}{
		{"the index", "/ui/memories", []string{"Name an agent", "the shared space"}, []string{newer}},
		{"sam's active memories", "/ui/memories?agent=sam", []string{newer, older, other, "active: 1–3 of 3", `aria-current="page">3</a>`},
			nil},
		{"a search ranks", "/ui/memories?agent=sam&q=tea+coffee", []string{other, "Search: 1 found"}, []string{newer}},
		{"a category", "/ui/memories?agent=sam&category=social", []string{other, "of 1"}, []string{newer}},
		{"a namespace", "/ui/memories?agent=sam&namespace=travel", []string{newer, "of 2"}, []string{other}},
		{"none forgotten", "/ui/memories?agent=sam&state=forgotten", []string{"None."}, []string{newer}},
		{"the shared space", "/ui/memories?shared=1", []string{"Shared memories", "None."}, []string{newer}},
	} {
		status, body := rv.get("olivia-token", c.path)
		if status != http.StatusOK {
			t.Errorf("%s: %d\n%s", c.name, status, body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, body)
			}
		}
		for _, w := range c.not {
			if strings.Contains(body, w) {
				t.Errorf("%s: %q shown in\n%s", c.name, w, body)
			}
		}
	}
	for _, c := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"an unknown agent", "/ui/memories?agent=nobody", 404, "nobody"},
		{"an unknown state", "/ui/memories?agent=sam&state=lost", 400, "lost"},
		{"an unknown category", "/ui/memories?agent=sam&category=gossip", 400, "gossip"},
		{"a bad offset", "/ui/memories?agent=sam&offset=-1", 400, "offset"},
		{"an unknown memory", "/ui/memories/mem-000000000000", 404, "mem-000000000000"},
		{"a malformed id", "/ui/memories/a%20b", 400, "id"},
	} {
		if status, body := rv.get("olivia-token", c.path); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
	}
	if status, _ := rv.get("sam-token", "/ui/memories?agent=sam"); status != http.StatusForbidden {
		t.Errorf("an agent reading the memories page: %d", status)
	}

	// The newer memory's story: what dedup folded into it, the conflict
	// with the older, the write log's lines naming it.
	status, body := rv.get("olivia-token", "/ui/memories/"+newer)
	for _, w := range []string{"The flight to Oslo is on Wednesday.", "Repeats folded into it: 1", "the flight to Oslo is on Wednesday",
		"Conflicts: 1", older, "Keep the newer", "agent:sam</td><td>remember</td><td>stored", "agent:sam</td><td>remember</td><td>duplicate",
		"Stamp</dt><dd><span class=\"stamp-", "Forget", "Erase for good"} {
		if status != http.StatusOK || !strings.Contains(body, w) {
			t.Fatalf("memory page: %d, no %q in\n%s", status, w, body)
		}
	}
	conflict := regexp.MustCompile(`/ui/conflicts/(cf_[0-9a-f]+)/resolve`).FindStringSubmatch(body)
	if conflict == nil {
		t.Fatalf("no conflict form on the memory page:\n%s", body)
	}
	tok := rv.csrf("olivia-token", "/ui/memories/"+newer)

	// Deciding the conflict from the memory's page comes back to it.
	status, body, h := rv.post("olivia-token", conflict[0], url.Values{"csrf": {tok}, "keep": {"newer"}, "back": {"/memories/" + newer}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories/"+newer {
		t.Fatalf("resolve from the memory page: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories/"+older); !strings.Contains(body, "superseded") || !strings.Contains(body, "Replaced by") ||
		!strings.Contains(body, ">Restore</button>") || strings.Contains(body, ">Forget</button>") {
		t.Fatalf("the superseded memory's page:\n%s", body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories/"+newer); !strings.Contains(body, "Replaced 1") || !strings.Contains(body, "newer_wins") {
		t.Fatalf("the newer memory's page after the decision:\n%s", body)
	}
	// Restore, then forget: each a gated write as its tool, recorded.
	status, body, h = rv.post("olivia-token", "/ui/memories/"+older+"/restore", url.Values{"csrf": {tok}, "key": {"ui-restore-1"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories/"+older {
		t.Fatalf("restore: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories/"+older); !strings.Contains(body, "is restored") || !strings.Contains(body, "<h2>active") ||
		!strings.Contains(body, "human:olivia</td><td>restore_memory</td><td>stored") {
		t.Fatalf("after restoring:\n%s", body)
	}
	status, body, _ = rv.post("olivia-token", "/ui/memories/"+older+"/restore", url.Values{"csrf": {tok}, "key": {"ui-restore-2"}})
	if status != http.StatusConflict || !strings.Contains(body, "not archived") || !strings.Contains(body, "Your form, as you sent it") {
		t.Fatalf("restoring an active memory: %d\n%s", status, body)
	}
	status, body, h = rv.post("olivia-token", "/ui/memories/"+older+"/forget", url.Values{"csrf": {tok}, "key": {"ui-forget-1"}, "reason": {"the trip moved"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories/"+older {
		t.Fatalf("forget: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories/"+older); !strings.Contains(body, "is forgotten") || !strings.Contains(body, "the trip moved") ||
		!strings.Contains(body, "human:olivia</td><td>forget</td><td>stored") {
		t.Fatalf("after forgetting:\n%s", body)
	}
	if found := rv.ok(sam, "search_memory", map[string]any{"query": "flight Oslo Tuesday"}); strings.Contains(found, older) {
		t.Fatalf("sam still finds the forgotten memory:\n%s", found)
	}
	if _, body := rv.get("olivia-token", "/ui/memories?agent=sam&state=forgotten"); !strings.Contains(body, older) {
		t.Fatalf("the forgotten list:\n%s", body)
	}
	if status, body, _ := rv.post("olivia-token", "/ui/memories/"+older+"/forget", url.Values{"reason": {"x"}}); status != http.StatusForbidden {
		t.Fatalf("forget without a token: %d\n%s", status, body)
	}

	// Erase asks first, with what would go, and wants the id typed again.
	status, body = rv.get("olivia-token", "/ui/memories/"+other+"/erase")
	if status != http.StatusOK || !strings.Contains(body, "cannot be undone") || !strings.Contains(body, "<td>memories</td><td>1</td>") {
		t.Fatalf("erase confirmation: %d\n%s", status, body)
	}
	erase := "/ui/memories/" + other + "/erase"
	status, body, _ = rv.post("olivia-token", erase, url.Values{"csrf": {tok}, "reason": {"asked to"}, "confirm": {"yes"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "type the memory&#39;s id") {
		t.Fatalf("erase unconfirmed: %d\n%s", status, body)
	}
	if status, _ := rv.get("olivia-token", "/ui/memories/"+other); status != http.StatusOK {
		t.Fatalf("an unconfirmed erase removed the memory: %d", status)
	}
	status, body, h = rv.post("olivia-token", erase, url.Values{"csrf": {tok}, "reason": {"asked to"}, "confirm": {other}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories?agent=sam" {
		t.Fatalf("erase: %d %q\n%s", status, h.Get("Location"), body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories?agent=sam&state=active"); !strings.Contains(body, "is erased") || strings.Contains(body, "/ui/memories/"+other) {
		t.Fatalf("after erasing:\n%s", body)
	}
	if status, _ := rv.get("olivia-token", "/ui/memories/"+other); status != http.StatusNotFound {
		t.Fatalf("the erased memory's page: %d", status)
	}
}
