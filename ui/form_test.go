package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// A form's token is good for the human it was rendered for, on its day and
// the next, under the key that signed it; nothing else passes.
func TestFormTokens(t *testing.T) {
	now := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	h := New(Services{}, Options{Key: []byte("key one"), Now: clock}).(*handler)
	other := New(Services{}, Options{Key: []byte("key two"), Now: clock}).(*handler)
	alice := memory.Identity{AgentID: "alice", Human: true}
	tok := h.token(alice, h.day())
	for _, c := range []struct {
		name  string
		h     *handler
		id    memory.Identity
		tok   string
		later time.Duration
		valid bool
	}{
		{"as rendered", h, alice, tok, 0, true},
		{"the next day", h, alice, tok, 24 * time.Hour, true},
		{"two days on", h, alice, tok, 48 * time.Hour, false},
		{"another human", h, memory.Identity{AgentID: "bob", Human: true}, tok, 0, false},
		{"an agent of the same name", h, memory.Identity{AgentID: "alice"}, tok, 0, false},
		{"another key", other, alice, tok, 0, false},
		{"tomorrow's", h, alice, h.token(alice, h.day()+1), 0, false},
		{"altered", h, alice, tok[:len(tok)-1] + "A", 0, false},
		{"no day", h, alice, tok[len("20513"):], 0, false},
		{"empty", h, alice, "", 0, false},
	} {
		now = time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC).Add(c.later)
		if got := c.h.validToken(c.id, c.tok); got != c.valid {
			t.Errorf("%s: valid = %v, want %v", c.name, got, c.valid)
		}
	}
}

// The message an action leaves shows once, and only as this handler signed
// it for this human.
func TestFlash(t *testing.T) {
	h := New(Services{}, Options{}).(*handler)
	alice, bob := memory.Identity{AgentID: "alice", Human: true}, memory.Identity{AgentID: "bob", Human: true}
	w := httptest.NewRecorder()
	h.setFlash(w, httptest.NewRequest(http.MethodPost, "/ui/pending/1/drop", nil), alice, "Pending item 1 dropped.")
	cookie := w.Result().Cookies()[0]
	take := func(c *http.Cookie, id memory.Identity) string {
		r := httptest.NewRequest(http.MethodGet, "/ui/pending", nil)
		r.AddCookie(c)
		return h.takeFlash(httptest.NewRecorder(), r, id)
	}
	if got := take(cookie, alice); got != "Pending item 1 dropped." {
		t.Fatalf("flash = %q", got)
	}
	if got := take(cookie, bob); got != "" {
		t.Fatalf("another human read %q", got)
	}
	forged := *cookie
	forged.Value = "UGVuZGluZyBpdGVtIDIgZHJvcHBlZC4." + cookie.Value[len(cookie.Value)-43:]
	if got := take(&forged, alice); got != "" {
		t.Fatalf("a forged message showed: %q", got)
	}
}

// A long message is cut, on a character's boundary, so that its cookie
// stays under the 4 KB a browser keeps.
func TestFlashIsBounded(t *testing.T) {
	h := New(Services{}, Options{}).(*handler)
	alice := memory.Identity{AgentID: "alice", Human: true}
	long := "Approval apr-1 failed: " + strings.Repeat("日本語の文章。", 500)
	w := httptest.NewRecorder()
	h.setFlash(w, httptest.NewRequest(http.MethodPost, "/ui/approvals/apr-1/decide", nil), alice, long)
	c := w.Result().Cookies()[0]
	if n := len(c.String()); n > 2000 {
		t.Fatalf("the flash cookie is %d bytes", n)
	}
	r := httptest.NewRequest(http.MethodGet, "/ui/approvals", nil)
	r.AddCookie(c)
	got := h.takeFlash(httptest.NewRecorder(), r, alice)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) ||
		len(got) > maxFlash || len(got) < maxFlash-8 {
		t.Fatalf("flash = %q (%d bytes)", got, len(got))
	}
}

// The message an action leaves can quote stored text (a held write's
// error on approval): it reaches the page escaped.
func TestFlashIsText(t *testing.T) {
	const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	h := New(Services{}, Options{})
	alice := memory.Identity{AgentID: "alice", Human: true}
	w := httptest.NewRecorder()
	h.(*handler).setFlash(w, httptest.NewRequest(http.MethodPost, "/ui/pending/1/drop", nil), alice, "failed: "+hostile)
	r := httptest.NewRequest(http.MethodGet, "/ui/", nil).WithContext(memory.WithIdentity(context.Background(), alice))
	r.AddCookie(w.Result().Cookies()[0])
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, `class="flash"`) || !strings.Contains(body, "&lt;script&gt;alert(") ||
		strings.Contains(body, "<script") || strings.Contains(body, "<img") {
		t.Fatalf("%d, the message is not shown escaped:\n%s", w.Code, body)
	}
}

// Characters that change how text reads without being seen are shown as
// markers; what a reader sees (line breaks and tabs included) is kept.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, line\nbreaks\tand tabs": "plain text, line\nbreaks\tand tabs",
		"approve \u202egnp.exe":              "approve ⟨U+202E⟩gnp.exe",
		"a\u200bb\u200dc\ufeff":              "a⟨U+200B⟩b⟨U+200D⟩c⟨U+FEFF⟩",
		"\u2066isolate\u2069 \u00ad":         "⟨U+2066⟩isolate⟨U+2069⟩ ⟨U+00AD⟩",
		"bell\x07 del\x7f sep\u2028":         "bell⟨U+0007⟩ del⟨U+007F⟩ sep⟨U+2028⟩",
		"tag \U000E0041 filler \u3164":       "tag ⟨U+E0041⟩ filler ⟨U+3164⟩",
		"ünïcödé → “quoted” — 日本":            "ünïcödé → “quoted” — 日本",
	} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// The pages' own text holds no invisible character, so marking a whole
// rendered page changes only the stored text on it.
func TestTemplatesHoldNoInvisibleCharacters(t *testing.T) {
	entries, err := files.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := files.ReadFile("templates/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); visible(s) != s {
			t.Errorf("%s holds an invisible character", e.Name())
		}
	}
}

func TestParseWhen(t *testing.T) {
	for in, want := range map[string]time.Time{
		"":                               time.Time{},
		"2026-03-01":                     time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		"2026-03-01T09:30":               time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC),
		"2026-03-01 09:30:15":            time.Date(2026, 3, 1, 9, 30, 15, 0, time.UTC),
		"2026-03-01T09:30:15.5+02:00":    time.Date(2026, 3, 1, 7, 30, 15, 5e8, time.UTC),
		"2026-03-01T09:30:15.000000001Z": time.Date(2026, 3, 1, 9, 30, 15, 1, time.UTC),
	} {
		got, err := parseWhen("as_of", in)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseWhen(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "2026-13-01", "09:30", "1740787200"} {
		if _, err := parseWhen("as_of", in); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("parseWhen(%q): %v, want EINVALID", in, err)
		}
	}
}
