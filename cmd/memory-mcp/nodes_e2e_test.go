package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memory-mcp/memory-mcp/resources"
	"github.com/memory-mcp/memory-mcp/store/storetest"
)

// The team server as several nodes: `memory-mcp serve` processes (the
// built binary, each a process of its own with its own data directory) on
// one PostgreSQL database, sharing its provenance key as a deployment does.

// team is a database several nodes share.
type team struct {
	t        *testing.T
	database string
	env      []string              // what every node and command gets: the database and the shared key
	kills    map[*httpServe]func() // each node's SIGKILL
}

func newTeam(t *testing.T) *team {
	key := make([]byte, 32)
	rand.Read(key)
	url := storetest.PostgresDatabaseURL(t)
	return &team{t: t, database: url, kills: map[*httpServe]func(){}, env: []string{"MEMORY_MCP_DATABASE=" + url, "MEMORY_MCP_PROVENANCE_KEY=" + hex.EncodeToString(key)}}
}

// node starts a `memory-mcp serve` process on the team's database and
// waits until it listens; it is stopped (SIGTERM) when the test ends.
func (tm *team) node(args ...string) *httpServe {
	t := tm.t
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(binary(t), append([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--embedder", "none"}, args...)...)
	cmd.Env = append(homeEnv(dir), tm.env...)
	errw := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stderr = errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	var stopErr error
	h := &httpServe{t: t, dir: dir, stderr: errw, env: tm.env, stop: func() error {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case stopErr = <-exited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				stopErr = fmt.Errorf("the node did not stop on SIGTERM")
			}
		})
		return stopErr
	}}
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("node: %v\nstderr:\n%s", err, errw.String())
		}
	})
	tm.kills[h] = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-exited
		})
	}
	listening := regexp.MustCompile(`url=(http\S+/mcp)`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(errw.String()); m != nil {
			h.url = m[1]
			return h
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the node stopped before listening: %v\nstderr:\n%s", err, errw.String())
		default:
		}
	}
	t.Fatalf("the node did not listen\nstderr:\n%s", errw.String())
	return nil
}

// command runs the memory-mcp binary on the team's database, as an
// operator on another machine would, and returns its stdout and stderr.
func (tm *team) command(args ...string) (string, string) {
	tm.t.Helper()
	dir := tm.t.TempDir()
	cmd := exec.Command(binary(tm.t), append(args, "--data-dir", dir, "--database", tm.database)...)
	cmd.Env = append(homeEnv(dir), tm.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tm.t.Fatalf("memory-mcp %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// balancer is a load balancer in front of the nodes, as a client's
// transport: round robin per request, or (sticky) keeping each MCP session
// on the node that opened it, learnt from the answer that named it, as
// haproxy's stick table does.
type balancer struct {
	nodes  []*url.URL
	sticky bool
	next   atomic.Int64
	mu     sync.Mutex
	owner  map[string]*url.URL // session id -> the node that opened it
	token  string
}

func newBalancer(t *testing.T, token string, sticky bool, nodes ...*httpServe) *balancer {
	b := &balancer{sticky: sticky, owner: map[string]*url.URL{}, token: token}
	for _, n := range nodes {
		u, err := url.Parse(n.url)
		if err != nil {
			t.Fatal(err)
		}
		b.nodes = append(b.nodes, u)
	}
	return b
}

func (b *balancer) RoundTrip(r *http.Request) (*http.Response, error) {
	to := b.nodes[int(b.next.Add(1))%len(b.nodes)]
	id := r.Header.Get("Mcp-Session-Id")
	if b.sticky && id != "" {
		b.mu.Lock()
		if o, ok := b.owner[id]; ok {
			to = o
		}
		b.mu.Unlock()
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
	r.Header.Set("Authorization", "Bearer "+b.token)
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && b.sticky {
		if id := res.Header.Get("Mcp-Session-Id"); id != "" {
			b.mu.Lock()
			b.owner[id] = to
			b.mu.Unlock()
		}
	}
	return res, err
}

// client connects a go-sdk client through b, asking for revision rev.
func (b *balancer) client(t *testing.T, rev string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "behind-a-balancer", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: b.nodes[0].String(), MaxRetries: -1, HTTPClient: &http.Client{Transport: b}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect through the balancer: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestNodesServeOneMemory: two nodes on one database behave as one server
// for what is not a single request's: idempotency keys, rate limits,
// revoked tokens, resource subscriptions and sessions.
func TestNodesServeOneMemory(t *testing.T) {
	tm := newTeam(t)
	a := tm.node("--rate-limits", "publish_fact=3/h,*=600/m")
	b := tm.node("--rate-limits", "publish_fact=3/h,*=600/m")
	olivia := a.token("--agent-id", "olivia", "--seniority", "lead", "--human") // humans pass the rate limits
	ann := a.token("--agent-id", "ann", "--seniority", "senior")
	sql, err := storetest.OpenPostgresSQL(tm.database)
	if err != nil {
		t.Fatal(err)
	}
	defer sql.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := sql.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	keyed := map[string]any{"fact_id": "deploy-window", "content": "Deploys happen on Tuesdays.", "category": "convention",
		"idempotency_key": "deploy-window-1"}
	var first string // the keyed call's answer
	t.Run("idempotency", func(t *testing.T) {
		// One keyed call sent to both nodes at once, eight times, as a
		// client's retries through a balancer: one write, one answer.
		nodes := []*proc{a.connect(t, olivia, options{}), b.connect(t, olivia, options{})}
		args := keyed
		answers := make(chan string, 8)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				var out map[string]any
				nodes[i%2].ok("publish_fact", args, &out)
				j, _ := json.Marshal(out)
				answers <- string(j)
			})
		}
		wg.Wait()
		close(answers)
		seen := map[string]int{}
		for s := range answers {
			seen[s]++
		}
		versions := count(`SELECT count(*) FROM operation_log WHERE fact_id = 'deploy-window'`)
		stored := count(`SELECT count(*) FROM write_log WHERE tool = 'publish_fact' AND outcome = 'stored'`)
		if len(seen) != 1 || versions != 1 || stored != 1 {
			t.Fatalf("8 racing calls with one key on two nodes: answers %v, %d versions, %d stored lines; want one of each", seen, versions, stored)
		}
		for s := range seen {
			first = s
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		// publish_fact=3/h for ann, whichever node each call reaches.
		nodes := []*proc{a.connect(t, ann, options{}), b.connect(t, ann, options{})}
		for i := range 3 {
			nodes[i%2].ok("publish_fact", map[string]any{"fact_id": fmt.Sprintf("limit-%d", i), "content": fmt.Sprintf("Limit test fact %d.", i),
				"category": "other"}, nil)
		}
		for _, n := range nodes {
			n.fail("publish_fact", map[string]any{"fact_id": "limit-over", "content": "One too many.", "category": "other"},
				"ERATELIMIT", "may call publish_fact at most 3 times per hour")
		}
	})

	t.Run("revocation", func(t *testing.T) {
		// A token revoked by a command on neither node is refused by the
		// other node at its next request.
		out, said := tm.command("token", "add", "--agent-id", "rita", "--seniority", "mid")
		id := regexp.MustCompile(`token (tok-[0-9a-f]+)`).FindStringSubmatch(said)
		if id == nil {
			t.Fatalf("token add said %q", said)
		}
		rita := b.connect(t, strings.TrimSpace(out), options{protocol: "2026-07-28"})
		rita.ok("get_fact", map[string]any{"fact_id": "deploy-window"}, nil)
		if out, _ := tm.command("token", "revoke", id[1]); !strings.Contains(out, "revoked "+id[1]) {
			t.Fatalf("token revoke said %q", out)
		}
		_, err := rita.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_fact", Arguments: map[string]any{"fact_id": "deploy-window"}})
		if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("the next request on node B with the revoked token: %v, want it refused 401", err)
		}
	})

	t.Run("subscriptions", func(t *testing.T) {
		// A change committed through node A is told to the subscribers on
		// node B, in each revision.
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			cs, heard := b.listener(t, olivia, rev)
			subscribe(t, cs, resources.FactsSnapshot)
			a.connect(t, olivia, options{}).ok("publish_fact", map[string]any{"fact_id": "heard-" + rev,
				"content": "Node B hears of this in " + rev + ".", "category": "other"}, nil)
			hear(t, "a subscriber on node B ("+rev+")", heard, resources.FactsSnapshot)
		}
	})

	t.Run("sessions", func(t *testing.T) {
		// The 2026-07-28 revision has no session: round robin serves it.
		rr := newBalancer(t, olivia, false, a, b)
		cs := rr.client(t, "2026-07-28")
		for i := range 4 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_fact", Arguments: map[string]any{"fact_id": "deploy-window"}})
			if err != nil || res.IsError {
				t.Fatalf("call %d through round robin: %v %v", i, err, res)
			}
		}
		if rr.next.Load() < 5 {
			t.Fatalf("the balancer sent %d requests: the calls did not alternate between the nodes", rr.next.Load())
		}
		// A session of 2025-11-25 lives on the node that opened it: another
		// node answers its id 404 (a client starts a new session), and a
		// balancer keeping sessions on their node serves it.
		sessionOn(t, a, b, olivia)
		sticky := newBalancer(t, olivia, true, a, b)
		cs = sticky.client(t, "2025-11-25")
		for i := range 4 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_fact", Arguments: map[string]any{"fact_id": "deploy-window"}})
			if err != nil || res.IsError {
				t.Fatalf("call %d of a session through a sticky balancer: %v %v", i, err, res)
			}
		}
	})

	t.Run("a node lost", func(t *testing.T) {
		// Node A is killed (SIGKILL); a node started in its place finds
		// ann's bucket as A and B left it, and replays the keyed call.
		tm.kills[a]()
		c := tm.node("--rate-limits", "publish_fact=3/h,*=600/m")
		c.connect(t, ann, options{}).fail("publish_fact", map[string]any{"fact_id": "limit-after", "content": "After the loss.", "category": "other"},
			"ERATELIMIT", "may call publish_fact at most 3 times per hour")
		var out map[string]any
		c.connect(t, olivia, options{}).ok("publish_fact", keyed, &out)
		if j, _ := json.Marshal(out); string(j) != first || first == "" {
			t.Fatalf("the keyed call again on a new node: %s, want the first answer %s", j, first)
		}
	})
}

// sessionOn opens a 2025-11-25 session on node a and checks that a
// request naming it is served by a and answered 404 by b.
func sessionOn(t *testing.T, a, b *httpServe, token string) {
	t.Helper()
	post := func(node *httpServe, session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, node.url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := post(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	id := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize on node A: %s, session %q", res.Status, id)
	}
	post(a, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if res := post(b, id, list); res.StatusCode != http.StatusNotFound {
		t.Fatalf("node B answered a session of node A %s, want 404", res.Status)
	}
	if res := post(a, id, list); res.StatusCode != http.StatusOK {
		t.Fatalf("node A answered its own session %s, want 200", res.Status)
	}
}

// haproxyBackend is the balancer configuration docs/team-server.md gives,
// with the test's addresses: round robin, and each MCP session kept on the
// node that opened it, learnt from the answer that named it.
const haproxyBackend = `defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h

frontend memory
    bind %s
    default_backend memory-nodes

backend memory-nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1
    option redispatch
    stick-table type string len 64 size 1m expire 2h
    stick on req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
%s`

// TestSessionsStickBehindHAProxy: behind Debian's haproxy configured as
// docs/team-server.md says, sessions of the 2025-11-25 revision opened on
// either node are served to the end, and 2026-07-28 is served round robin.
func TestSessionsStickBehindHAProxy(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy is not installed (Debian's haproxy package; make test installs it with the multi-node fault test)")
	}
	tm := newTeam(t)
	nodes := []*httpServe{tm.node(), tm.node()}
	olivia := nodes[0].token("--agent-id", "olivia", "--seniority", "lead", "--human")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lb := ln.Addr().String()
	ln.Close()
	var servers strings.Builder
	for i, n := range nodes {
		u, _ := url.Parse(n.url)
		fmt.Fprintf(&servers, "    server n%d %s check inter 200ms\n", i, u.Host)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, haproxyBackend, lb, servers.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	var errb lockedWriter
	errb.w = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Ready when both nodes pass the health check: a request to each in turn.
	ready := 0
	for deadline := time.Now().Add(30 * time.Second); ready < 2 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := http.Get("http://" + lb + "/readyz")
		if err == nil {
			res.Body.Close()
		}
		if err == nil && res.StatusCode == http.StatusOK {
			ready++
		} else {
			ready = 0
		}
	}
	if ready < 2 {
		t.Fatalf("haproxy did not serve the nodes\n%s", errb.String())
	}
	connect := func(rev string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "behind-haproxy", Version: "1"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + lb + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearer{olivia, http.DefaultTransport}}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
		if err != nil {
			t.Fatalf("connect through haproxy (%s): %v\n%s", rev, err, errb.String())
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, rev := range []string{"2025-11-25", "2025-11-25", "2025-11-25", "2025-11-25", "2026-07-28"} {
		cs := connect(rev)
		for i := range 4 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_facts", Arguments: map[string]any{"category": "convention"}})
			if err != nil {
				t.Fatalf("call %d of a %s client through haproxy: %v", i, rev, err)
			}
			if res.IsError {
				t.Fatalf("call %d of a %s client through haproxy: %s", i, rev, text(res))
			}
		}
	}
	for i, n := range nodes {
		if strings.Count(n.stderr.String(), "rpc_method=initialize") == 0 {
			t.Errorf("node %d opened no session: haproxy did not spread them\n%s", i, n.stderr.String())
		}
	}
}
