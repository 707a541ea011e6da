package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A curator retracts a shared copy from its page, as its publisher's
// retract_memory would, through the write gates: the copy leaves every
// agent's search, the retraction is recorded as the curator's, and neither
// page offers it again. Retracting twice is a conflict; without the form's
// token it is refused.
func TestReviewPageRetractsSharedCopies(t *testing.T) {
	rv := startReview(t)
	orig := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The VPN gateway moved to vpn2.example.com."}))
	published := memID.FindAllString(rv.ok(sam, "publish_memory", map[string]any{"id": orig}), -1)
	var copyID string
	for _, id := range published {
		if id != orig {
			copyID = id
		}
	}
	if orig == "" || copyID == "" || orig == copyID {
		t.Fatalf("ids %q %q", orig, copyID)
	}
	for page, button := range map[string]string{copyID: "Retract from the shared space", orig: "Retract its shared copy"} {
		if status, body := rv.get("olivia-token", "/ui/memories/"+page); status != http.StatusOK ||
			!strings.Contains(body, `action="/ui/memories/`+page+`/retract"`) || !strings.Contains(body, button) {
			t.Fatalf("%s offers no retraction: %d\n%s", page, status, body)
		}
	}
	retract := "/ui/memories/" + copyID + "/retract"
	if status, body, _ := rv.post("olivia-token", retract, url.Values{}); status != http.StatusForbidden {
		t.Fatalf("a retraction without the form's token: %d\n%s", status, body)
	}
	if status, _, _ := rv.post("sam-token", retract, url.Values{"csrf": {rv.csrf("olivia-token", "/ui/memories/"+copyID)}}); status != http.StatusForbidden {
		t.Fatalf("an agent posting a curator's form: %d", status)
	}
	tok := rv.csrf("olivia-token", "/ui/memories/"+copyID)
	status, body, h := rv.post("olivia-token", retract, url.Values{"csrf": {tok}, "key": {"ui-retract-1"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/memories/"+copyID {
		t.Fatalf("retract: %d %q\n%s", status, h.Get("Location"), body)
	}
	_, body = rv.get("olivia-token", "/ui/memories/"+copyID)
	for _, w := range []string{"is retracted", "human:olivia</td><td>retract_memory</td><td>stored", "retracted from the shared space by human"} {
		if !strings.Contains(body, w) {
			t.Errorf("the retracted copy's page has no %q:\n%s", w, body)
		}
	}
	if strings.Contains(body, "/retract\"") {
		t.Errorf("a retracted copy offers its retraction again:\n%s", body)
	}
	if _, body := rv.get("olivia-token", "/ui/memories/"+orig); strings.Contains(body, "/retract\"") {
		t.Errorf("the original offers a retraction with no copy left:\n%s", body)
	}
	if found := rv.ok(sam, "search_memory", map[string]any{"query": "VPN gateway", "scope": "shared"}); strings.Contains(found, copyID) {
		t.Errorf("the retracted copy is still found:\n%s", found)
	}
	status, body, _ = rv.post("olivia-token", retract, url.Values{"csrf": {tok}, "key": {"ui-retract-2"}})
	if status != http.StatusConflict || !strings.Contains(body, "already forgotten") {
		t.Errorf("retracting twice: %d\n%s", status, body)
	}
	// The personal memory itself stays active: a retraction is the copy's.
	if _, body := rv.get("olivia-token", "/ui/memories/"+orig); !strings.Contains(body, "<h2>active") {
		t.Errorf("the original after the retraction:\n%s", body)
	}
}
