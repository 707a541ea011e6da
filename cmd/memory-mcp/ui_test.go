package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/auth"
	"github.com/memory-mcp/memory-mcp/ui"
)

// The review page's tests run it over the app as openApp wires it, on a real
// database in a temporary directory, behind a stand-in for serve's
// authentication: a bearer token that names an identity.

var (
	olivia = memory.Identity{AgentID: "olivia", Human: true}
	sam    = memory.Identity{AgentID: "sam", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomySemi}
)

// reviewTokens are the test server's bearer tokens.
var reviewTokens = map[string]memory.Identity{"olivia-token": olivia, "sam-token": sam,
	"hana-token": {AgentID: "hana", Human: true}}

// review is the review page served over one app.
type review struct {
	t      testing.TB
	app    *app
	srv    *httptest.Server
	client *http.Client // keeps cookies, follows no redirect
}

// startReview opens the app on a fresh data directory (contradictions
// left open for review, so that the conflicts page has some) and serves
// its review page.
func startReview(t testing.TB) *review {
	t.Helper()
	return startReviewIn(t, t.TempDir())
}

// startReviewIn is startReview on data directory dir.
func startReviewIn(t testing.TB, dir string) *review {
	t.Helper()
	env := map[string]string{}
	for _, kv := range cleanEnv(t, dir) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg, err := LoadConfig([]string{"--data-dir", dir, "--agent-id", "olivia", "--human", "--contradictions", "flag"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := openApp(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(auth.FromCookie(ui.SessionCookie, asToken(reviewPage(a, nil, signInAs, nil))))
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &review{t: t, app: a, srv: srv, client: client}
}

// asToken stands in for serve's authentication (auth.FromCookie in front
// of it reads the sign-in page's cookie, as serve does): a known bearer
// token puts its identity into the request's context, and any other
// request goes on without one, for the review page to refuse.
func asToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := reviewTokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(memory.WithIdentity(r.Context(), id))
		}
		next.ServeHTTP(w, r)
	})
}

// signInAs stands in for serve's check of a credential pasted into the
// sign-in page: the session it opens is named by the credential itself,
// which asToken takes.
func signInAs(_ context.Context, credential string) (memory.Identity, ui.Session, error) {
	if id, ok := reviewTokens[credential]; ok {
		return id, ui.Session{ID: credential, Expires: time.Now().Add(time.Hour)}, nil
	}
	return memory.Identity{}, ui.Session{}, memory.Errorf(memory.EINVALID, "not a test token")
}

// call makes a tool call as id through the app's MCP server, as a client
// of serve would, and returns its text and whether it is an error result.
func (rv *review) call(id memory.Identity, tool string, args map[string]any) (string, bool) {
	rv.t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		rv.t.Fatal(err)
	}
	b, err := json.Marshal(rv.app.server.HandleMessage(memory.WithIdentity(context.Background(), id), req))
	if err != nil {
		rv.t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(b, &resp); err != nil || resp.Error != nil || len(resp.Result.Content) == 0 {
		rv.t.Fatalf("%s: %s (%v)", tool, b, err)
	}
	return resp.Result.Content[0].Text, resp.Result.IsError
}

// ok makes a tool call that must succeed.
func (rv *review) ok(id memory.Identity, tool string, args map[string]any) string {
	rv.t.Helper()
	text, isErr := rv.call(id, tool, args)
	if isErr {
		rv.t.Fatalf("%s as %s: %s", tool, id.AgentID, text)
	}
	return text
}

// held makes a call that the gates hold, and returns its approval's id.
func (rv *review) held(id memory.Identity, tool string, args map[string]any) string {
	rv.t.Helper()
	text, isErr := rv.call(id, tool, args)
	apr := regexp.MustCompile(`apr-[0-9a-f]+`).FindString(text)
	if !isErr || !strings.HasPrefix(text, "EHELD") || apr == "" {
		rv.t.Fatalf("%s as %s was not held: %s", tool, id.AgentID, text)
	}
	return apr
}

// do sends a request with token's identity ("" for none).
func (rv *review) do(req *http.Request, token string) (int, string, http.Header) {
	rv.t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := rv.client.Do(req)
	if err != nil {
		rv.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		rv.t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

func (rv *review) get(token, path string) (int, string) {
	rv.t.Helper()
	req, err := http.NewRequest(http.MethodGet, rv.srv.URL+path, nil)
	if err != nil {
		rv.t.Fatal(err)
	}
	status, body, _ := rv.do(req, token)
	return status, body
}

// post sends a form as a browser on the page would (same origin).
func (rv *review) post(token, path string, form url.Values, header ...string) (int, string, http.Header) {
	rv.t.Helper()
	req, err := http.NewRequest(http.MethodPost, rv.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		rv.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return rv.do(req, token)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the form token page (which must hold a form) rendered for
// token's identity.
func (rv *review) csrf(token, page string) string {
	rv.t.Helper()
	status, body := rv.get(token, page)
	m := csrfField.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		rv.t.Fatalf("no form token on %s (%d):\n%s", page, status, body)
	}
	return m[1]
}

// The review page is for humans: no identity is 401, an agent's is 403,
// and refusing them changes nothing for anyone else.
func TestReviewPageIsForHumansOnly(t *testing.T) {
	rv := startReview(t)
	req, _ := http.NewRequest(http.MethodGet, rv.srv.URL+"/ui/", nil)
	status, body, h := rv.do(req, "")
	if status != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" || !strings.Contains(body, "No identity") {
		t.Fatalf("no identity: %d %q\n%s", status, h.Get("WWW-Authenticate"), body)
	}
	for _, path := range []string{"/ui/", "/ui/facts", "/ui/approvals", "/ui/style.css", "/ui/nowhere"} {
		if status, body := rv.get("sam-token", path); status != http.StatusForbidden || !strings.Contains(body, `you are agent &#34;sam&#34; (senior)`) {
			t.Errorf("agent on %s: %d\n%s", path, status, body)
		}
	}
	if status, _, _ := rv.post("sam-token", "/ui/pending/1/drop", url.Values{"drop_reason": {"mine"}}); status != http.StatusForbidden {
		t.Errorf("agent posting: %d", status)
	}
	if status, body := rv.get("olivia-token", "/ui/"); status != http.StatusOK || !strings.Contains(body, `human &#34;olivia&#34;`) {
		t.Fatalf("human after the refusals: %d\n%s", status, body)
	}
	rv.ok(sam, "remember", map[string]any{"content": "The staging database is refreshed on Mondays."})
}

// Each bad request gets its own status and says what was wrong; a refused
// form comes back as it was sent; a form sent twice does its write once.
func TestReviewPageStatuses(t *testing.T) {
	rv := startReview(t)
	for _, n := range []string{"issue: flaky test in the auth module", "issue: flaky test in the billing module", "The flaky test is fixed."} {
		rv.ok(sam, "write_note", map[string]any{"text": n, "promote": true})
	}
	pending, err := rv.app.promotion.ListPending(memory.WithIdentity(context.Background(), olivia), memory.PendingQuery{})
	if err != nil || len(pending.Pending) != 1 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	drop := "/ui/pending/" + strconv.FormatInt(pending.Pending[0].ID, 10) + "/drop"
	apr := rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-x", "content": "Rotate keys yearly.", "category": "core_policy"})

	for _, c := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/ui/facts/no-such-fact", 404, "no-such-fact"},
		{"GET", "/ui/facts/a%20b", 400, "may contain only"},
		{"GET", "/ui/blocks/no-such-block", 404, "no-such-block"},
		{"GET", "/ui/nowhere", 404, ""},
		{"GET", "/ui", 301, ""},
		{"DELETE", "/ui/facts", 405, ""},
		{"GET", drop, 405, ""},
		{"PUT", "/ui/approvals/" + apr + "/decide", 405, ""},
		{"GET", "/ui/facts?category=bogus", 400, "unknown category"},
		{"GET", "/ui/facts?as_of=yesterday", 400, "is not a time"},
		{"GET", "/ui/facts?category=adr&offset=-1", 400, "offset"},
		{"GET", "/ui/facts/policy-x?as_of=soon", 404, "policy-x"},
		{"GET", "/ui/state?bucket=bugs", 400, "unknown bucket"},
		{"GET", "/ui/ledger?before=x", 400, "sequence number"},
		{"GET", "/ui/ledger?target=flaky", 400, "needs its bucket"},
		{"GET", "/ui/approvals?status=maybe", 400, "unknown approval status"},
		{"GET", "/ui/conflicts?resolution=maybe", 400, "unknown resolution"},
		{"GET", "/ui/conflicts?agent=nobody", 404, "nobody"},
		{"GET", "/ui/conflicts?subject=rules", 400, "not one of memories, facts"},
		{"GET", "/ui/stats?window=forever", 400, "not an age"},
		{"GET", "/ui/stats?agent=nobody", 404, "nobody"},
	} {
		req, _ := http.NewRequest(c.method, rv.srv.URL+c.path, nil)
		status, body, h := rv.do(req, "olivia-token")
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d, want %d with %q\n%s", c.method, c.path, status, c.status, c.want, body)
		}
		if status == 405 && h.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", c.method, c.path)
		}
	}

	tok := rv.csrf("olivia-token", "/ui/pending")
	form := func(kv ...string) url.Values {
		v := url.Values{"csrf": {tok}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	for _, c := range []struct {
		name, path string
		form       url.Values
		header     []string
		status     int
		want       string
	}{
		{"unknown pending item", "/ui/pending/999/drop", form("drop_reason", "gone"), nil, 404, "no pending item 999"},
		{"malformed id", "/ui/pending/abc/drop", form("drop_reason", "gone"), nil, 400, "not a pending item"},
		{"no reason", drop, form("drop_reason", " "), nil, 400, `name="drop_reason"`},
		{"no row", strings.Replace(drop, "drop", "bind", 1), form(), nil, 400, "give the id of the row"},
		{"bad row", strings.Replace(drop, "drop", "bind", 1), form("target_id", "Not A Slug"), nil, 400, "not a slug"},
		{"unknown approval", "/ui/approvals/apr-0000/decide", form("decision", "approve", "reason", "ok"), nil, 404, "no approval request apr-0000"},
		{"no decision", "/ui/approvals/" + apr + "/decide", form("reason", "ok"), nil, 400, "approve or the reject button"},
		{"unknown conflict", "/ui/conflicts/cf-0000/resolve", form("keep", "both"), nil, 404, "cf-0000"},
		{"unknown conflict of facts", "/ui/conflicts/fcf_0000/resolve", form("keep", "both"), nil, 404, "fcf_0000"},
		{"bad keep", "/ui/conflicts/cf-0000/resolve", form("keep", "all"), nil, 400, "keep"},
		{"no token", drop, url.Values{"drop_reason": {"typed with care"}}, nil, 403, "typed with care"},
		{"no token, from our origin", drop, url.Values{"drop_reason": {"typed with care"}}, []string{"Sec-Fetch-Site", "", "Origin", rv.srv.URL}, 403, "typed with care"},
		{"no token, from no page", drop, url.Values{"drop_reason": {"typed elsewhere"}}, []string{"Sec-Fetch-Site", ""}, 403, "token is missing"},
		{"no token, typed in the address bar", drop, url.Values{"drop_reason": {"typed elsewhere"}}, []string{"Sec-Fetch-Site", "none"}, 403, "token is missing"},
		{"forged token", drop, url.Values{"csrf": {"20000.AAAA"}, "drop_reason": {"x"}}, nil, 403, "token"},
		{"another human's token", drop, form("drop_reason", "x"), []string{"as", "hana-token"}, 403, "made for someone else"},
		{"cross-site", drop, form("drop_reason", "x"), []string{"Sec-Fetch-Site", "cross-site"}, 403, "another site"},
		{"foreign origin", drop, form("drop_reason", "x"), []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}, 403, "another site"},
		{"oversized", drop, form("drop_reason", strings.Repeat("x", 70<<10)), nil, 413, "could not be read"},
	} {
		as := "olivia-token"
		if len(c.header) == 2 && c.header[0] == "as" {
			as, c.header = c.header[1], nil
		}
		status, body, _ := rv.post(as, c.path, c.form, c.header...)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d with %q\n%s", c.name, status, c.status, c.want, body)
		}
		if c.status == 403 && (c.want == "another site" || c.form.Get("drop_reason") == "typed elsewhere") && strings.Contains(body, `class="retry"`) {
			t.Errorf("%s: a form that came from no page of ours was offered back", c.name)
		}
	}
	if p, _ := rv.app.promotion.ListPending(memory.WithIdentity(context.Background(), olivia), memory.PendingQuery{}); len(p.Pending) != 1 {
		t.Fatalf("a refused form changed the queue: %+v", p)
	}

	// The drop, sent twice with one key, drops once; sent again with a new
	// key, it is told the item was dropped already.
	once := form("drop_reason", "a duplicate of the auth issue", "key", "ui-test-1")
	for range 2 {
		status, body, h := rv.post("olivia-token", drop, once)
		if status != http.StatusSeeOther || h.Get("Location") != "/ui/pending" {
			t.Fatalf("drop: %d %q\n%s", status, h.Get("Location"), body)
		}
	}
	if status, body := rv.get("olivia-token", "/ui/pending?all=1"); status != 200 || !strings.Contains(body, "dropped.") ||
		!strings.Contains(body, "drop by olivia") {
		t.Fatalf("after the drop: %d\n%s", status, body)
	}
	if status, body := rv.get("olivia-token", "/ui/pending?all=1"); strings.Contains(body, `class="flash"`) {
		t.Fatalf("the message showed twice: %d\n%s", status, body)
	}
	status, body, _ := rv.post("olivia-token", drop, form("drop_reason", "again", "key", "ui-test-2"))
	if status != http.StatusConflict || !strings.Contains(body, "already dropped by olivia") || !strings.Contains(body, `value="ui-test-2"`) {
		t.Fatalf("dropping again: %d, want the form shown again with its key\n%s", status, body)
	}
	// The first key sent with other words cannot do anything: the form
	// shown again carries a new key.
	status, body, _ = rv.post("olivia-token", drop, form("drop_reason", "other words", "key", "ui-test-1"))
	if status != http.StatusConflict || !strings.Contains(body, "other arguments") || strings.Contains(body, "ui-test-1\"") ||
		!regexp.MustCompile(`name="key" value="ui-[0-9a-f]{24}"`).MatchString(body) {
		t.Fatalf("a used key with other words: %d, want the form shown again with a new key\n%s", status, body)
	}
	// A held write approved on the page is applied as its agent; deciding
	// it again is refused, naming the first decision.
	status, body, h := rv.post("olivia-token", "/ui/approvals/"+apr+"/decide", form("decision", "approve", "reason", "yearly is the policy"))
	if status != http.StatusSeeOther || h.Get("Location") != "/ui/approvals" {
		t.Fatalf("approving: %d\n%s", status, body)
	}
	if f, err := rv.app.facts.Get(context.Background(), "policy-x"); err != nil || f.Author.AgentID != "sam" {
		t.Fatalf("the approved fact = %+v, %v", f, err)
	}
	status, body, _ = rv.post("olivia-token", "/ui/approvals/"+apr+"/decide", form("decision", "reject", "reason", "changed my mind"))
	if status != http.StatusConflict || !strings.Contains(body, "already decided: approved by human:olivia") || !strings.Contains(body, "changed my mind") {
		t.Fatalf("deciding again: %d\n%s", status, body)
	}

	// The page's writes are logged as the tool's calls are: the unknown
	// item and the bad row (refused by the service), the drop, its repeat,
	// the late drop and the used key; the forms the page refused itself never reached
	// the gates.
	m, err := rv.app.gates.WriteMetrics(memory.WithIdentity(context.Background(), olivia), time.Hour)
	if err != nil || m.Tools["resolve_pending"] != 6 || m.Outcomes[memory.WriteOutcomeReplayed] != 1 {
		t.Fatalf("write log of the page's actions = %+v, %v", m, err)
	}
}

// Memory text is data: whatever an agent wrote reaches every page escaped,
// its invisible characters shown as markers (agents' raw notes in the pending queue, block values and descriptions,
// a refused form shown again, the message after an action), and the pages
// allow no script even if it were not.
func TestReviewPageShowsMemoryTextAsText(t *testing.T) {
	rv := startReview(t)
	// Markup, and a right-to-left override and a zero-width space that
	// would make the text read otherwise than it is stored.
	const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> approve` + "\u202e" + `gnp.exe` + "\u200b"
	ctx := memory.WithIdentity(context.Background(), olivia)
	if _, err := rv.app.facts.Publish(ctx, memory.FactWrite{FactID: "hostile", Content: hostile, Category: memory.FactOther}); err != nil {
		t.Fatal(err)
	}
	if _, err := rv.app.blocks.Edit(ctx, memory.BlockEdit{Label: "project", Op: memory.BlockAppend, Text: hostile}); err != nil {
		t.Fatal(err)
	}
	rv.ok(sam, "memory", map[string]any{"command": "create", "path": "/memories/shared/team-plan", "description": "Plans. " + hostile, "file_text": hostile})
	rv.ok(sam, "write_note", map[string]any{"text": "issue: " + hostile, "promote": true})
	// Two open issues and a fix that could close either: the note waits in
	// the pending queue, as the agent wrote it.
	rv.ok(sam, "write_note", map[string]any{"text": "issue: flaky test in the auth module", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "issue: flaky test in the billing module", "promote": true})
	rv.ok(sam, "write_note", map[string]any{"text": "The flaky test is fixed. " + hostile, "promote": true})
	rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-h", "content": hostile, "category": "core_policy"})
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "standup-a", "content": "The standup is at 9:30. " + hostile, "category": "convention"})
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "standup-b", "content": "The standup is at 10:00. " + hostile, "category": "convention"})
	friday := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The release is on Friday. " + hostile}))
	rv.ok(sam, "remember", map[string]any{"content": "The release is on Tuesday. " + hostile})
	rv.ok(sam, "remember", map[string]any{"content": "the release is on Friday. " + hostile}) // a repeat: its words are kept
	// friday's copy in the shared space
	var sharedCopy string
	for _, id := range memID.FindAllString(rv.ok(sam, "publish_memory", map[string]any{"id": friday}), -1) {
		if id != friday {
			sharedCopy = id
		}
	}
	pending, err := rv.app.promotion.ListPending(ctx, memory.PendingQuery{})
	if err != nil || len(pending.Pending) != 1 || !strings.Contains(pending.Pending[0].RawInput, hostile) {
		t.Fatalf("pending = %+v, %v", pending, err)
	}

	escaped := func(what string, status int, body string, h http.Header, want int) {
		t.Helper()
		if status != want || !strings.Contains(body, "&lt;script&gt;alert(") || strings.Contains(body, "<script") ||
			strings.Contains(body, "<img") || !strings.Contains(body, "approve⟨U+202E⟩gnp.exe⟨U+200B⟩") ||
			strings.ContainsAny(body, "\u202e\u200b") {
			t.Errorf("%s: %d, want %d with the hostile text shown escaped:\n%s", what, status, want, body)
		}
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: Content-Security-Policy %q", what, csp)
		}
	}
	for _, path := range []string{"/ui/facts?category=other", "/ui/facts/hostile", "/ui/facts?q=alert", "/ui/state", "/ui/ledger",
		"/ui/pending", "/ui/approvals", "/ui/conflicts?subject=memories", "/ui/conflicts?subject=facts", "/ui/blocks",
		"/ui/blocks/project", "/ui/blocks/team-plan", "/ui/repeats", "/ui/memories?agent=sam", "/ui/memories?agent=sam&q=release",
		"/ui/memories/" + friday, "/ui/memories/" + friday + "/erase", "/ui/memories?shared=1", "/ui/memories/" + sharedCopy,
		"/ui/memories?agent=sam&before=2200-01-01T00:00:00Z+mem-000000000000", "/ui/pending?agent=sam"} {
		req, _ := http.NewRequest(http.MethodGet, rv.srv.URL+path, nil)
		status, body, h := rv.do(req, "olivia-token")
		escaped(path, status, body, h, http.StatusOK)
	}
	// The statistics name agents and tools, never memory text: nothing raw.
	if status, body := rv.get("olivia-token", "/ui/stats?agent=sam"); status != http.StatusOK || strings.Contains(body, "<script") {
		t.Errorf("/ui/stats: %d\n%s", status, body)
	}

	// A refused form comes back with what was typed, escaped: in the
	// message that quotes it and in the form shown again.
	tok := rv.csrf("olivia-token", "/ui/pending")
	item := "/ui/pending/" + strconv.FormatInt(pending.Pending[0].ID, 10)
	status, body, h := rv.post("olivia-token", item+"/bind", url.Values{"csrf": {tok}, "target_id": {hostile}})
	escaped("a refused bind", status, body, h, http.StatusBadRequest)
	status, body, h = rv.post("olivia-token", "/ui/pending/999/drop", url.Values{"csrf": {tok}, "drop_reason": {hostile}})
	escaped("a refused drop", status, body, h, http.StatusNotFound)
	status, body, h = rv.post("olivia-token", item+"/drop", url.Values{"drop_reason": {hostile}})
	escaped("a drop without its token", status, body, h, http.StatusForbidden)
}

// Every answer of the review page carries the whole policy, not only the
// pages that render: an error page, a refused form and a redirect are
// pages too, and the error page shows what was sent.
func TestReviewPageSecurityHeaders(t *testing.T) {
	rv := startReview(t)
	apr := rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-x", "content": "Rotate keys yearly.", "category": "core_policy"})
	tok := rv.csrf("olivia-token", "/ui/approvals")
	want := map[string]string{
		"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
		"Cache-Control":           "no-store",
	}
	decide := "/ui/approvals/" + apr + "/decide"
	for _, c := range []struct {
		name, method, path, token string
		form                      url.Values
		status                    int
	}{
		{"a page", "GET", "/ui/approvals", "olivia-token", nil, http.StatusOK},
		{"the agents page", "GET", "/ui/agents", "olivia-token", nil, http.StatusOK},
		{"the memories page", "GET", "/ui/memories?shared=1", "olivia-token", nil, http.StatusOK},
		{"the sign-in page", "GET", "/ui/signin", "", nil, http.StatusOK},
		{"a bad query", "GET", "/ui/facts?category=bogus", "olivia-token", nil, http.StatusBadRequest},
		{"no identity", "GET", "/ui/", "", nil, http.StatusUnauthorized},
		{"an agent", "GET", "/ui/", "sam-token", nil, http.StatusForbidden},
		{"a form without its token", "POST", decide, "olivia-token", url.Values{"decision": {"reject"}, "reason": {"no"}}, http.StatusForbidden},
		{"a wrong method", "DELETE", "/ui/facts", "olivia-token", nil, http.StatusMethodNotAllowed},
		{"nowhere", "GET", "/ui/nowhere", "olivia-token", nil, http.StatusNotFound},
		{"an action done", "POST", decide, "olivia-token", url.Values{"csrf": {tok}, "decision": {"reject"}, "reason": {"no"}}, http.StatusSeeOther},
	} {
		var status int
		var h http.Header
		if c.form != nil {
			status, _, h = rv.post(c.token, c.path, c.form)
		} else {
			req, _ := http.NewRequest(c.method, rv.srv.URL+c.path, nil)
			status, _, h = rv.do(req, c.token)
		}
		if status != c.status {
			t.Errorf("%s: %d, want %d", c.name, status, c.status)
		}
		for k, v := range want {
			if got := h.Values(k); len(got) != 1 || got[0] != v {
				t.Errorf("%s (%d): %s %q, want %q", c.name, status, k, got, v)
			}
		}
	}
}

// Past a page of held writes, the approvals page shows those that expire
// soonest first and links to the rest, so that none becomes unreachable
// while it can still be approved.
func TestReviewPageApprovalsPages(t *testing.T) {
	rv := startReview(t)
	var ids []string
	for i := range 101 { // one each, as many agents: no agent's rate limit is reached
		agent := memory.Identity{AgentID: "agent-" + strconv.Itoa(i), Seniority: memory.SenioritySenior, Autonomy: memory.AutonomySemi}
		ids = append(ids, rv.held(agent, "publish_fact", map[string]any{"fact_id": "policy-" + strconv.Itoa(i),
			"content": "Policy " + strconv.Itoa(i) + ".", "category": "core_policy"}))
	}
	status, first := rv.get("olivia-token", "/ui/approvals")
	if status != http.StatusOK || !strings.Contains(first, `id="`+ids[0]+`"`) || strings.Contains(first, `id="`+ids[100]+`"`) ||
		strings.Index(first, `id="`+ids[0]+`"`) > strings.Index(first, `id="`+ids[1]+`"`) {
		t.Fatalf("first page: %d, want the first 100 held, the first to expire first\n%.3000s", status, first)
	}
	next := regexp.MustCompile(`href="(/ui/approvals\?status=pending&amp;offset=100)">next`).FindStringSubmatch(first)
	if next == nil {
		t.Fatalf("no link to the next page:\n%s", first)
	}
	status, second := rv.get("olivia-token", strings.ReplaceAll(next[1], "&amp;", "&"))
	if status != http.StatusOK || !strings.Contains(second, `id="`+ids[100]+`"`) || strings.Count(second, `<article`) != 1 ||
		!strings.Contains(second, "offset=0\">← previous") || strings.Contains(second, "next →") {
		t.Fatalf("second page: %d\n%s", status, second)
	}
	if status, body := rv.get("olivia-token", "/ui/approvals?offset=-1"); status != http.StatusBadRequest {
		t.Fatalf("a negative offset: %d\n%.500s", status, body)
	}
}
