package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/auth"
	"github.com/memory-mcp/memory-mcp/ui"
)

// The review page in a real browser: Debian's headless Chromium, with
// JavaScript switched off (the page must not need it), loads every page as
// the curator and performs the curator's actions through the page's own
// forms; each result is then read back from the store. A screenshot of
// every page goes to $UI_SCREENSHOTS/TestReviewPageInABrowser (make
// screenshots: bin/screenshots), or else to the test's artifact directory.

// browserNames are the names Chromium goes by on PATH.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// chromium finds the browser. Its absence fails the test: the project's
// own files install it (make chromium), and CI runs that first.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range browserNames {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatalf("the review page's browser test needs Chromium on PATH (one of %s): run make chromium, which installs Debian's package",
		strings.Join(browserNames, ", "))
	return ""
}

// browser is a headless Chromium tab, signed in through the sign-in page.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
	n     int
}

// newBrowser starts Chromium (exec, its path) and signs in to base's
// review page with token, as a person does: pasted into the sign-in form.
func newBrowser(t *testing.T, exec, base, token string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exec), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to sandbox as root
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	// The first call starts the browser, which lives as long as ctx: it
	// gets no timeout of its own.
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	b := &browser{t: t, ctx: ctx, base: base, shots: screenshotDir(t)}
	t.Logf("screenshots of the review page in %s", b.shots)
	b.open("/ui/signin", "Sign in", "signin")
	b.do("sign in", chromedp.SendKeys(chromedp.CSS(`input[name="credential"]`), token), chromedp.Click(chromedp.CSS("main form button")),
		chromedp.WaitVisible(chromedp.CSS("header .who")))
	return b
}

// screenshotDir is $UI_SCREENSHOTS/<test> when that is set (make
// screenshots sets it), or else the test's artifact directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("UI_SCREENSHOTS")
	if dir == "" {
		return t.ArtifactDir()
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// do runs steps, each page's worth bounded in time so that a page that
// never shows what is waited for fails the test rather than hanging it.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text of the first element sel matches.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// open loads path, checks its heading, and takes its screenshot.
func (b *browser) open(path, heading, shot string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if h := b.text("main h1"); h != heading {
		b.t.Fatalf("%s: heading %q, want %q", path, h, heading)
	}
	b.shot(shot)
}

// shot writes a full-page PNG of what the tab shows.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	b.n++
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// act fills fields (selector, text) and clicks button, then waits for the
// page the action redirects to and returns the message it shows. The page
// it starts on must show no message yet (a page freshly opened).
func (b *browser) act(button string, fields ...string) string {
	b.t.Helper()
	var steps []chromedp.Action[chromedp.Void]
	for i := 0; i+1 < len(fields); i += 2 {
		steps = append(steps, chromedp.SendKeys(chromedp.CSS(fields[i]), fields[i+1]))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS(button)), chromedp.WaitVisible(chromedp.CSS("p.flash")))
	b.do("click "+button, steps...)
	return b.text("p.flash")
}

func TestReviewPageInABrowser(t *testing.T) {
	started := time.Now()
	chrome := chromium(t)
	rv := startReview(t)
	ctx := memory.WithIdentity(context.Background(), olivia)

	// What agents did over MCP: a fact in two versions, a core policy held
	// for approval, two ambiguous notes in the pending queue, two memories
	// that contradict each other.
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "deploy-window", "content": "Deploys happen on Fridays.", "category": "convention"})
	between := time.Now().UTC()
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "deploy-window", "content": "Deploys happen on Tuesdays.", "category": "convention"})
	apr := rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-secrets", "content": "Never log secrets.", "category": "core_policy"})
	for _, n := range []string{"issue: flaky test in the auth module", "issue: flaky test in the billing module", "decision: use SQLite",
		"issue: slow build on the CI runner", "issue: slow build on the laptop", "The flaky test is fixed.", "The slow build is fixed."} {
		rv.ok(sam, "write_note", map[string]any{"text": n, "promote": true})
	}
	queue, err := rv.app.promotion.ListPending(ctx, memory.PendingQuery{})
	if err != nil || len(queue.Pending) != 2 {
		t.Fatalf("pending queue = %+v, %v", queue, err)
	}
	bound, dropped := queue.Pending[0], queue.Pending[1]
	friday := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The release train leaves on Friday."}))
	tuesday := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The release train leaves on Tuesday."}))
	tea := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "Sam drinks green tea at ten.", "category": "social"}))
	// Two more core policies held, to be approved together.
	more := []string{rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-a", "content": "Rotate keys yearly.", "category": "core_policy"}),
		rv.held(sam, "publish_fact", map[string]any{"fact_id": "policy-b", "content": "Review every deploy.", "category": "core_policy"})}
	// A remember dedup answers "duplicate" that says something else.
	rv.ok(sam, "remember", map[string]any{"content": "Ann reviews the pull request."})
	rv.ok(sam, "remember", map[string]any{"content": "Ann reviews pull requests."})
	reps, err := rv.app.memories.Repeats(ctx, memory.RepeatQuery{})
	if err != nil || len(reps) != 1 {
		t.Fatalf("repeats = %+v, %v", reps, err)
	}
	conflicts, err := rv.app.memories.Conflicts(ctx, memory.ConflictQuery{})
	if err != nil || len(conflicts) != 1 {
		t.Fatalf("conflicts = %+v, %v", conflicts, err)
	}
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "standup-a", "content": "The standup is at 9:30.", "category": "convention"})
	rv.ok(sam, "publish_fact", map[string]any{"fact_id": "standup-b", "content": "The standup is at 10:00.", "category": "convention"})
	factConflicts, err := rv.app.facts.Conflicts(ctx, memory.ConflictQuery{})
	if err != nil || len(factConflicts) != 1 {
		t.Fatalf("conflicts between facts = %+v, %v", factConflicts, err)
	}
	if _, err := rv.app.blocks.Edit(ctx, memory.BlockEdit{Label: "project", Op: memory.BlockAppend, Text: "Ship the review page."}); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, chrome, rv.srv.URL, "olivia-token")
	b.open("/ui/", "Review", "overview")
	if s := b.text("ul.cards"); !strings.Contains(s, "2 pending write(s)") || !strings.Contains(s, "2 open conflict(s)") {
		t.Fatalf("overview: %q", s)
	}

	b.open("/ui/facts?category=convention", "Facts", "facts")
	b.open("/ui/facts/deploy-window", "Fact deploy-window", "fact")
	b.do("as of", chromedp.SendKeys(chromedp.CSS(`input[name="as_of"]`), between.Format(time.RFC3339Nano)),
		chromedp.Click(chromedp.CSS("form.inline button")), chromedp.WaitVisible(chromedp.CSS("div.asof")))
	if s := b.text("div.asof"); !strings.Contains(s, "version 1") || !strings.Contains(s, "Fridays") {
		t.Fatalf("deploy-window as of %s: %q", between, s)
	}
	b.shot("fact-as-of")

	b.open("/ui/state", "Shared state", "state")
	b.open("/ui/ledger", "Ledger", "ledger")

	// The queue filtered by the form: sam's notes are both items, and
	// nobody else's is none.
	b.open("/ui/pending", "Pending queue", "pending-filter")
	b.do("filter the queue", chromedp.SendKeys(chromedp.CSS(`input[name="agent"]`), "sam"), chromedp.Click(chromedp.CSS(`form.inline button`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="agent"][value="sam"]`)))
	if s := b.text("p.note"); !strings.Contains(s, "2 item(s) open match the filters") {
		t.Fatalf("sam's pending items: %q", s)
	}
	b.shot("pending-filtered")
	b.open("/ui/pending?agent=ann", "Pending queue", "pending-filtered-none")
	if s := b.text("p.note"); !strings.Contains(s, "0 item(s) open match the filters") {
		t.Fatalf("ann's pending items: %q", s)
	}

	// Bind one pending item to the auth module's issue, drop the other.
	b.open("/ui/pending", "Pending queue", "pending")
	auth := slices.IndexFunc(bound.Candidates, func(c memory.Candidate) bool { return strings.Contains(c.TargetID, "auth") })
	if auth < 0 {
		t.Fatalf("no candidate for the auth module's issue: %+v", bound.Candidates)
	}
	target := bound.Candidates[auth].TargetID
	msg := b.act(fmt.Sprintf(`#p%d form[action$="/bind"] input[value=%q] + button`, bound.ID, target))
	if !strings.Contains(msg, fmt.Sprintf("Pending item %d bound to %s", bound.ID, target)) {
		t.Fatalf("after binding: %q", msg)
	}
	b.shot("pending-bound")
	b.open("/ui/pending", "Pending queue", "pending-left")
	msg = b.act(fmt.Sprintf(`#p%d form[action$="/drop"] button`, dropped.ID),
		fmt.Sprintf(`#p%d textarea[name="drop_reason"]`, dropped.ID), "says the same as the bound one")
	if !strings.Contains(msg, fmt.Sprintf("Pending item %d dropped", dropped.ID)) {
		t.Fatalf("after dropping: %q", msg)
	}
	b.shot("pending-dropped")
	all, err := rv.app.promotion.ListPending(ctx, memory.PendingQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all.Pending {
		switch r := p.Resolution; {
		case p.ID == bound.ID && (p.Status != memory.PendingCommitted || r == nil || r.By != "olivia" || r.TargetID != target):
			t.Errorf("bound item in the store: %+v %+v", p, r)
		case p.ID == dropped.ID && (p.Status != memory.PendingDropped || r == nil || r.Reason != "says the same as the bound one"):
			t.Errorf("dropped item in the store: %+v %+v", p, r)
		}
	}
	rows, err := rv.app.promotion.State(ctx, memory.StateQuery{Bucket: memory.BucketIssues, Status: memory.StatusResolved})
	if err != nil || len(rows) != 1 || rows[0].ID != target {
		t.Errorf("resolved issues after the bind = %+v, %v", rows, err)
	}

	// Approve the held core policy: it is applied as the agent wrote it.
	b.open("/ui/approvals", "Approvals", "approvals")
	msg = b.act(fmt.Sprintf(`#%s button[value="approve"]`, apr), fmt.Sprintf(`#%s textarea[name="reason"]`, apr), "agreed at the security review")
	if !strings.Contains(msg, "Approval "+apr+" approved") || !strings.Contains(msg, "wrote policy-secrets") {
		t.Fatalf("after approving: %q", msg)
	}
	b.shot("approvals-after")
	f, err := rv.app.facts.Get(ctx, "policy-secrets")
	if err != nil || f.Author.AgentID != "sam" || f.Category != memory.FactCorePolicy || f.Content != "Never log secrets." {
		t.Fatalf("the approved policy in the store = %+v, %v", f, err)
	}
	decided, err := rv.app.gates.ListApprovals(ctx, memory.ApprovalFilter{Status: memory.ApprovalApproved})
	if err != nil || !slices.ContainsFunc(decided, func(a memory.Approval) bool {
		return a.ID == apr && a.DecidedBy == "human:olivia" && a.Reason == "agreed at the security review"
	}) {
		t.Fatalf("approved requests = %+v, %v", decided, err)
	}

	// Keep the newer of the two contradicting memories.
	c := conflicts[0]
	b.open("/ui/conflicts", "Conflicts", "conflicts")
	msg = b.act(fmt.Sprintf(`#%s button[value="newer"]`, c.ID), fmt.Sprintf(`#%s textarea[name="reason"]`, c.ID), "the train moved")
	if !strings.Contains(msg, "Conflict "+c.ID+" decided") {
		t.Fatalf("after deciding: %q", msg)
	}
	b.shot("conflicts-after")
	after, err := rv.app.memories.Conflicts(ctx, memory.ConflictQuery{Resolutions: memory.ConflictResolutions})
	if err != nil || len(after) != 1 || after[0].Resolution != memory.ConflictNewerWins || after[0].ResolvedBy == "" {
		t.Fatalf("the conflict in the store = %+v, %v", after, err)
	}
	// Between two facts, keeping the newer retracts the older.
	fc := factConflicts[0]
	b.open("/ui/conflicts?subject=facts", "Conflicts", "fact-conflicts")
	msg = b.act(fmt.Sprintf(`#%s button[value="newer"]`, fc.ID), fmt.Sprintf(`#%s textarea[name="reason"]`, fc.ID), "moved at the retro")
	if !strings.Contains(msg, "Conflict "+fc.ID+" decided: "+fc.NewerID+" holds, "+fc.OlderID+" is retracted") {
		t.Fatalf("after deciding between facts: %q", msg)
	}
	if older, err := rv.app.facts.Get(ctx, fc.OlderID); err != nil || older.RetractedAt == nil {
		t.Fatalf("the fact not kept = %+v, %v; want it retracted", older, err)
	}

	// Store the false repeat as sam's own memory.
	rep := reps[0]
	b.open("/ui/repeats", "Repeats", "repeats")
	if s := b.text("#" + rep.ID); !strings.Contains(s, "Ann reviews the pull request.") || !strings.Contains(s, "Ann reviews pull requests.") {
		t.Fatalf("repeat %s: %q, want both texts", rep.ID, s)
	}
	msg = b.act(fmt.Sprintf(`#%s form[action$="/store"] button`, rep.ID))
	if !strings.Contains(msg, "Repeat "+rep.ID+" is stored as sam's own memory") {
		t.Fatalf("after storing the repeat: %q", msg)
	}
	b.shot("repeats-after")
	if stored, err := rv.app.memories.Repeats(ctx, memory.RepeatQuery{IDs: []string{rep.ID}}); err != nil || len(stored) != 1 || stored[0].StoredAs == "" {
		t.Fatalf("the repeat in the store = %+v, %v", stored, err)
	}

	// Every agent with memories, each leading to its memories.
	b.open("/ui/agents", "Agents", "agents")
	if s := b.text("main table"); !strings.Contains(s, "the shared space") || !strings.Contains(s, "sam") {
		t.Fatalf("the agents: %q", s)
	}
	b.do("open sam's memories", chromedp.Click(chromedp.CSS(`main table a[href$="agent=sam"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#filters`)))
	if h := b.text("main h1"); h != "Memories of sam" {
		t.Fatalf("the agents page's link led to %q", h)
	}

	// A shared copy, retracted from its page.
	vpn := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The VPN gateway is vpn2.example.com."}))
	var shared string
	for _, id := range memID.FindAllString(rv.ok(sam, "publish_memory", map[string]any{"id": vpn}), -1) {
		if id != vpn {
			shared = id
		}
	}
	b.open("/ui/memories/"+shared, "Memory "+shared, "memory-shared")
	if msg := b.act(`form[action$="/retract"] button`); !strings.Contains(msg, "is retracted") {
		t.Fatalf("after retracting: %q", msg)
	}
	b.shot("memory-retracted")
	if got, err := rv.app.memories.Story(ctx, shared); err != nil || got.Entry.ForgottenAt == nil || !strings.Contains(got.Entry.ForgetReason, "olivia") {
		t.Fatalf("the retracted copy in the store = %+v, %v", got.Entry, err)
	}

	// sam's memories: listed, searched, and one memory's story, acted on.
	b.open("/ui/memories?agent=sam", "Memories of sam", "memories")
	b.do("search", chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), "release train"),
		chromedp.Click(chromedp.CSS(`#filters button`)), chromedp.WaitVisible(chromedp.CSS("h2.search")))
	if s := b.text("main"); !strings.Contains(s, "Search: 1 found") || !strings.Contains(s, tuesday) || strings.Contains(s, tea) {
		t.Fatalf("search for the release train: %q", s)
	}
	b.shot("memories-search")
	b.open("/ui/memories/"+tuesday, "Memory "+tuesday, "memory")
	if s := b.text("main"); !strings.Contains(s, "Replaced 1") || !strings.Contains(s, friday) || !strings.Contains(s, "newer_wins") ||
		!strings.Contains(s, "remember") {
		t.Fatalf("the newer memory's story: %q", s)
	}
	b.open("/ui/memories/"+friday, "Memory "+friday, "memory-superseded")
	if msg := b.act(`form[action$="/restore"] button`); !strings.Contains(msg, "is restored") {
		t.Fatalf("after restoring: %q", msg)
	}
	b.shot("memory-restored")
	b.open("/ui/memories/"+friday, "Memory "+friday, "memory-active")
	if msg := b.act(`form[action$="/forget"] button`, `form[action$="/forget"] textarea`, "the train moved"); !strings.Contains(msg, "is forgotten") {
		t.Fatalf("after forgetting: %q", msg)
	}
	b.shot("memory-forgotten")
	if got, err := rv.app.memories.Story(ctx, friday); err != nil || got.Entry.ForgetReason != "the train moved" {
		t.Fatalf("the forgotten memory in the store = %+v, %v", got.Entry, err)
	}
	b.open("/ui/memories/"+tea, "Memory "+tea, "memory-tea")
	b.do("erase", chromedp.Click(chromedp.CSS(`a[href$="/erase"]`)), chromedp.WaitVisible(chromedp.CSS(`input[name="confirm"]`)))
	b.shot("erase-confirm")
	if msg := b.act(`button.danger`, `input[name="confirm"]`, tea, `textarea[name="reason"]`, "asked by sam"); !strings.Contains(msg, "is erased") {
		t.Fatalf("after erasing: %q", msg)
	}
	b.shot("memories-after-erase")
	if _, err := rv.app.memories.Story(ctx, tea); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("the erased memory: %v", err)
	}

	// The two other held policies, approved together; their rule is then
	// advised review only, and marked so.
	b.open("/ui/approvals", "Approvals", "approvals-bulk")
	var tick []chromedp.Action[chromedp.Void]
	for _, id := range more {
		tick = append(tick, chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[value=%q]`, id))))
	}
	b.do("tick", tick...)
	if msg := b.act(`#bulk button[value="approve"]`, `#bulk textarea[name="reason"]`, "both agreed"); !strings.Contains(msg, "2 request(s) approved") {
		t.Fatalf("after the bulk approval: %q", msg)
	}
	b.shot("approvals-bulk-after")
	if s := b.text("#rules + p + table"); !strings.Contains(s, "advice: review only") {
		t.Fatalf("the rules' advice: %q", s)
	}
	b.open("/ui/approvals", "Approvals", "rules")
	if msg := b.act(`tr.advised button`, `tr.advised input[name="reason"]`, "three approved as held"); !strings.Contains(msg, "is review only") {
		t.Fatalf("after marking the rule: %q", msg)
	}
	if text := rv.ok(sam, "publish_fact", map[string]any{"fact_id": "policy-c", "content": "Pair on releases.", "category": "core_policy"}); !strings.Contains(text, "queued for a human's review") {
		t.Fatalf("a write by the review-only rule: %s", text)
	}

	// The trends, drawn from what happened above.
	b.open("/ui/stats?span=day", "Statistics", "stats-trends")
	if s := b.text("#chart-writes table"); !strings.Contains(s, "stored") || !strings.Contains(s, "duplicate") {
		t.Fatalf("writes by outcome: %q", s)
	}
	if s := b.text("#chart-active table"); !strings.Contains(s, "sam") {
		t.Fatalf("active memories: %q", s)
	}
	b.open("/ui/stats?agent=sam", "Statistics", "stats")
	if s := b.text("main"); !strings.Contains(s, "Memories of sam") || !strings.Contains(s, "decide_approval") {
		t.Fatalf("statistics: %q", s)
	}
	b.open("/ui/blocks", "Blocks", "blocks")
	b.open("/ui/blocks/project", "Block project", "block")
	b.open("/ui/facts/no-such-fact", "Not Found", "not-found")
	b.do("sign out", chromedp.Click(chromedp.CSS("header .signout button")), chromedp.WaitVisible(chromedp.CSS(`input[name="credential"]`)))
	t.Logf("the browser test took %s", time.Since(started).Round(time.Millisecond))
}

// TestServeReviewSessionInABrowser: Chromium signs in to a real serve with
// a human's token; what the browser keeps is a session id, not the token;
// the sign-out button ends the session, so the page asks to sign in again;
// signed in again, revoking the token ends that session at the next page.
func TestServeReviewSessionInABrowser(t *testing.T) {
	chrome := chromium(t)
	h := serveHTTPIn(t, "")
	token := h.token("--agent-id", "olivia", "--seniority", "lead", "--human", "--label", "olivia-browser")
	base := strings.TrimSuffix(h.url, "/mcp")
	b := newBrowser(t, chrome, base, token)
	cookies, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	var session string
	for _, c := range cookies.Cookies {
		if strings.Contains(c.Value, strings.TrimPrefix(token, auth.TokenPrefix)) {
			t.Fatalf("the browser keeps the token in cookie %s", c.Name)
		}
		if c.Name == ui.SessionCookie {
			session = c.Value
			if !c.HTTPOnly || c.Session || c.Path != "/ui/" {
				t.Errorf("the session cookie: %+v", c)
			}
		}
	}
	if !strings.HasPrefix(session, auth.SessionPrefix) {
		t.Fatalf("cookies %+v: no session", cookies.Cookies)
	}
	b.do("sign out", chromedp.Click(chromedp.CSS("form.signout button")), chromedp.WaitVisible(chromedp.CSS(`input[name="credential"]`)))
	b.open("/ui/", "Sign in", "signed-out") // the page sends the browser to sign in
	// A copy of the cookie taken before signing out is worth nothing.
	if resp, _ := newSigninBrowser(t, h).send(http.MethodGet, "/ui/", nil, "Cookie", ui.SessionCookie+"="+session, "Accept", "*/*"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the signed-out session's cookie: %d", resp.StatusCode)
	}

	b.do("sign in again", chromedp.SendKeys(chromedp.CSS(`input[name="credential"]`), token), chromedp.Click(chromedp.CSS("main form button")),
		chromedp.WaitVisible(chromedp.CSS("header .who")))
	var list struct{ Tokens []struct{ ID, Label string } }
	json.Unmarshal([]byte(h.cli("token", "list", "--json")), &list)
	for _, tok := range list.Tokens {
		if tok.Label == "olivia-browser" {
			h.cli("token", "revoke", tok.ID)
		}
	}
	b.open("/ui/facts", "Sign in", "revoked")
}
