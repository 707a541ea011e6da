package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memory-mcp/memory-mcp/resources"
)

// The team server's end-to-end tests run `memory-mcp serve` in this process
// (run, as main calls it) on a free loopback port, and talk to it with the
// go-sdk client over streamable HTTP through the same checking wire as the
// stdio tests, each client with a bearer token made by `memory-mcp token add`.

// httpServe is one running `memory-mcp serve`.
type httpServe struct {
	t      testing.TB
	url    string // .../mcp
	dir    string
	stderr *lockedWriter
	stop   func() error // stops the server as SIGTERM would, and returns what run returned
	env    []string     // KEY=value pairs the commands get besides cleanEnv's (a node's database)
}

// serveIn runs `memory-mcp serve` in this process on dir (a fresh one when
// empty) with extra flags, and waits until it listens.
func serveHTTPIn(t testing.TB, dir string, args ...string) *httpServe {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	env := envOf(cleanEnv(t, dir))
	errw := &lockedWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0"}, args...), env, nil, io.Discard, errw)
	}()
	var once sync.Once
	var runErr error
	h := &httpServe{t: t, dir: dir, stderr: errw, stop: func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(60 * time.Second):
				runErr = context.DeadlineExceeded
				t.Errorf("the server did not stop\nstderr:\n%s", errw.String())
			}
		})
		return runErr
	}}
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("serve: %v\nstderr:\n%s", err, errw.String())
		}
	})
	url := regexp.MustCompile(`url=(http\S+/mcp)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := url.FindStringSubmatch(errw.String()); m != nil {
			h.url = m[1]
			return h
		}
		select {
		case err := <-done:
			done <- err // for stop, which the cleanup runs
			t.Fatalf("serve stopped before listening: %v\nstderr:\n%s", err, errw.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not listen\nstderr:\n%s", errw.String())
	return nil
}

// envOf turns KEY=value pairs into a getenv.
func envOf(kvs []string) func(string) string {
	env := map[string]string{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// cli runs a memory-mcp command in this process on the server's data
// directory and returns its stdout; a failure fails the test.
func (h *httpServe) cli(args ...string) string {
	h.t.Helper()
	out, err := h.tryCLI(args...)
	if err != nil {
		h.t.Fatalf("memory-mcp %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (h *httpServe) tryCLI(args ...string) (string, error) {
	var out, errb bytes.Buffer
	args = append(slices.Clone(args), "--data-dir", h.dir)
	err := run(context.Background(), args, envOf(append(cleanEnv(h.t, h.dir), h.env...)), nil, &out, &errb)
	if err != nil {
		return out.String(), err
	}
	return out.String(), nil
}

// token makes a bearer token for an identity given as identity flags
// (--agent-id ann --seniority mid ...) and returns it.
func (h *httpServe) token(identity ...string) string {
	h.t.Helper()
	return strings.TrimSpace(h.cli(append([]string{"token", "add"}, identity...)...))
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect connects a go-sdk client with token through the checking wire.
func (h *httpServe) connect(t testing.TB, token string, o options) *proc {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	return connectClient(t, o, tr, h.stderr.w, h.stderr, nil)
}

// listener connects a go-sdk client with token that reports each
// notifications/resources/updated on the channel it returns. It talks to
// the server without the checking wire: the SDK opens the standalone GET
// stream of revisions before 2026-07-28 through a hook of its transport
// that a wrapped transport cannot pass on (an unexported method), and
// notifications of those revisions arrive on that stream.
func (h *httpServe) listener(t testing.TB, token, rev string) (*mcp.ClientSession, chan string) {
	t.Helper()
	heard := make(chan string, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { heard <- req.Params.URI },
	})
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, h.stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != rev {
		t.Fatalf("negotiated %s, asked for %s", got, rev)
	}
	return cs, heard
}

// subscribe subscribes cs to uri.
func subscribe(t testing.TB, cs *mcp.ClientSession, uri string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
}

// hear waits for uri on heard and returns what was heard before it.
func hear(t testing.TB, who string, heard chan string, uri string) []string {
	t.Helper()
	var got []string
	deadline := time.After(20 * time.Second)
	for {
		select {
		case u := <-heard:
			if u == uri {
				return got
			}
			got = append(got, u)
		case <-deadline:
			t.Fatalf("%s never heard of %s; heard %v", who, uri, got)
		}
	}
}

// as connects a client as the identity the flags name, with a new token.
func (h *httpServe) as(t testing.TB, identity ...string) *proc {
	t.Helper()
	return h.connect(t, h.token(identity...), options{})
}

// TestServeEveryRevision: over HTTP, a client asking for each revision gets
// it, acts as its token's identity, and hears of a change another client of
// the same server makes to a resource it subscribed to.
func TestServeEveryRevision(t *testing.T) {
	h := serveHTTPIn(t, "")
	publisher := h.as(t, "--agent-id", "olivia", "--seniority", "lead", "--human")
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			token := h.token("--agent-id", "builder-"+rev, "--seniority", "mid")
			s := h.connect(t, token, options{protocol: rev})
			if got := s.cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("negotiated %s, asked for %s", got, rev)
			}
			var r factResult
			s.ok("publish_fact", map[string]any{"fact_id": "rev-" + rev, "content": "Spoken in " + rev + ".", "category": "other"}, &r)
			if r.Fact.Version != 1 || r.Fact.Author.AgentID != "builder-"+rev || r.Fact.Author.Human {
				t.Fatalf("publish = %+v: the author is not the token's identity", r.Fact)
			}
			cs, heard := h.listener(t, token, rev)
			subscribe(t, cs, resources.FactsSnapshot)
			// Words of its own each revision: the same words under a new id
			// are a duplicate, which changes nothing and notifies no one.
			written := "Written by another client in " + rev + "."
			publisher.ok("publish_fact", map[string]any{"fact_id": "from-olivia-" + rev, "content": written, "category": "other"}, nil)
			hear(t, "builder", heard, resources.FactsSnapshot)
			text, err := s.read(resources.FactsSnapshot)
			if err != nil || !strings.Contains(text, written) {
				t.Fatalf("after the update: %q, %v", text, err)
			}
		})
	}
}

// TestServeIdentityIsTheToken: what a caller may do follows its token, and
// no argument changes it: a junior agent may not publish a core policy (the
// tool's own EFORBIDDEN), a human may; each sees its own memories only.
func TestServeIdentityIsTheToken(t *testing.T) {
	h := serveHTTPIn(t, "")
	junior := h.as(t, "--agent-id", "jo", "--seniority", "junior")
	human := h.as(t, "--agent-id", "olivia", "--human") // a human's token needs no seniority
	junior.fail("publish_fact", map[string]any{"fact_id": "p1", "content": "Deploys need review.", "category": "core_policy"}, "EFORBIDDEN", `agent "jo" (junior)`)
	var r factResult
	human.ok("publish_fact", map[string]any{"fact_id": "p1", "content": "Deploys need review.", "category": "core_policy"}, &r)
	if !r.Fact.Author.Human || r.Fact.Author.AgentID != "olivia" {
		t.Fatalf("author %+v", r.Fact.Author)
	}
	junior.ok("remember", map[string]any{"content": "Jo prefers tabs over spaces."}, nil)
	var found searchResult
	human.ok("search_memory", map[string]any{"query": "tabs spaces"}, &found)
	if len(found.Results) != 0 {
		t.Fatalf("olivia found jo's personal memory: %+v", found)
	}
	junior.ok("search_memory", map[string]any{"query": "tabs spaces"}, &found)
	if len(found.Results) != 1 || found.Results[0].Content != "Jo prefers tabs over spaces." {
		t.Fatalf("jo's search = %+v", found)
	}
}

// TestServeNotifiesEachCallerOnlyOfWhatItMayKnow: two agents subscribed to
// the blocks; one edits its personal block. The owner hears of it, in every
// revision. In 2025-11-25, where a session's notifications share one
// stream in the feed's order, a fact changed after it marks the point by
// which the other agent would have heard, and it must not have. (In
// 2026-07-28 each subscription is a stream of its own, so there is no
// marker; the registry's unit test covers the rule for both.)
func TestServeNotifiesEachCallerOnlyOfWhatItMayKnow(t *testing.T) {
	h := serveHTTPIn(t, "")
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			annToken := h.token("--agent-id", "ann-"+rev, "--seniority", "senior")
			ann := h.connect(t, annToken, options{protocol: rev})
			annCS, annHeard := h.listener(t, annToken, rev)
			bobCS, bobHeard := h.listener(t, h.token("--agent-id", "bob-"+rev, "--seniority", "senior"), rev)
			// Each agent's default blocks were made at its first request: a
			// first fact, heard by both, puts those changes behind them.
			subscribe(t, annCS, resources.FactsSnapshot)
			subscribe(t, bobCS, resources.FactsSnapshot)
			ann.ok("publish_fact", map[string]any{"fact_id": "start-" + rev, "content": "The subscriptions start in " + rev + ".", "category": "other"}, nil)
			hear(t, "ann", annHeard, resources.FactsSnapshot)
			hear(t, "bob", bobHeard, resources.FactsSnapshot)
			subscribe(t, annCS, resources.BlocksList)
			subscribe(t, bobCS, resources.BlocksList)
			ann.ok("memory", map[string]any{"command": "insert", "path": "/memories/persona", "insert_line": 0, "insert_text": "Ann is terse."}, nil)
			hear(t, "ann", annHeard, resources.BlocksList)
			if rev == "2026-07-28" {
				return
			}
			ann.ok("publish_fact", map[string]any{"fact_id": "marker-" + rev, "content": "A change everyone may know of in " + rev + ".", "category": "other"}, nil)
			if got := hear(t, "bob", bobHeard, resources.FactsSnapshot); slices.Contains(got, resources.BlocksList) {
				t.Errorf("bob heard of ann's personal block: %v", got)
			}
		})
	}
}

// TestEveryCallOverHTTP is TestEveryCallForEveryIdentity over HTTP: each
// identity's flags become a token of one server per data directory, so
// every tool, prompt, resource and template answers over HTTP as it does on
// stdio, for every identity, held to the declared schemas.
func TestEveryCallOverHTTP(t *testing.T) {
	servers := map[string]*httpServe{}
	everyCallForEveryIdentity(t, func(t testing.TB, o options) *proc {
		// Server flags are the server's; the rest names the token's identity.
		var flags []string
		identity := slices.DeleteFunc(slices.Clone(o.args), func(a string) bool {
			if a == "--block-tools" {
				flags = append(flags, a)
				return true
			}
			return false
		})
		h := servers[o.dataDir]
		if h == nil {
			h = serveHTTPIn(t, o.dataDir, flags...)
			servers[o.dataDir] = h
		}
		if !slices.Contains(identity, "--seniority") {
			identity = append(identity, "--seniority", "mid")
		}
		return h.connect(t, h.token(identity...), o)
	})
}

// TestServeListsWhatTheTokenMayUse: one server, two tokens. The human's
// tools/list has the tools for humans and the arguments that name another
// agent; the agent's has neither, and its call of an unlisted tool is
// refused with EFORBIDDEN, not "tool not found".
func TestServeListsWhatTheTokenMayUse(t *testing.T) {
	h := serveHTTPIn(t, "")
	human := h.as(t, "--agent-id", "olivia", "--seniority", "mid", "--human")
	agent := h.as(t, "--agent-id", "jo", "--seniority", "principal")
	offered := func(p *proc) map[string][]string {
		res, err := p.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, tool := range res.Tools {
			b, _ := json.Marshal(tool.InputSchema)
			var sch struct{ Properties map[string]any }
			json.Unmarshal(b, &sch)
			out[tool.Name] = keys(sch.Properties)
		}
		return out
	}
	mine, theirs := offered(human), offered(agent)
	for _, tool := range []string{"erase", "decide_approval", "resolve_pending", "finetune", "finetune_report"} {
		if mine[tool] == nil || theirs[tool] != nil {
			t.Errorf("%s: listed for the human %v, for the agent %v; want the human's only", tool, mine[tool] != nil, theirs[tool] != nil)
		}
	}
	for _, tool := range []string{"list_memories", "consolidate_memory", "restore_memory", "list_conflicts"} {
		if !slices.Contains(mine[tool], "agent_id") || theirs[tool] == nil || slices.Contains(theirs[tool], "agent_id") {
			t.Errorf("%s: the human's arguments %v, the agent's %v; want agent_id for the human only", tool, mine[tool], theirs[tool])
		}
	}
	agent.fail("erase", map[string]any{"contains": "x", "reason": "r"}, "EFORBIDDEN", "human operators only")
	agent.fail("memory_stats", map[string]any{"agent_id": "olivia"}, "EFORBIDDEN", "only a human")
	agent.ok("remember", map[string]any{"content": "Jo keeps the release notes."}, nil)
	human.ok("memory_stats", map[string]any{"agent_id": "jo"}, nil)
}
