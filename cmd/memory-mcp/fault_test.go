package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// faultPlan sizes a fault run.
type faultPlan struct {
	nodes, clients int
	run            time.Duration // how long the clients write
	killEvery      time.Duration // a node is killed (SIGKILL) and started again this often
	pgRestartAt    time.Duration // PostgreSQL is restarted once, this far into the run
}

// TestNodesSurviveFaults is the multi-node fault test, shortened for make
// test: 32 clients write through HAProxy to three nodes on one PostgreSQL
// for 24 s while a node is killed every 6 s and started again, and
// PostgreSQL is restarted once. Every acknowledged write is then stored
// exactly once, verify passes, and every node reads the same memory.
// BenchmarkNodesSurviveFaults runs it in full (2 minutes, a kill every 15 s).
func TestNodesSurviveFaults(t *testing.T) {
	runFault(t, faultPlan{nodes: 3, clients: 32, run: 24 * time.Second, killEvery: 6 * time.Second, pgRestartAt: 11 * time.Second})
}

func BenchmarkNodesSurviveFaults(b *testing.B) {
	runFault(b, faultPlan{nodes: 3, clients: 32, run: 2 * time.Minute, killEvery: 15 * time.Second, pgRestartAt: 52 * time.Second})
}

// faultClient is one agent writing through the balancer. Each write has an
// idempotency key, and is sent again with it until it is answered, through
// whichever node the balancer picks: a retry that lands on another node
// must replay the first call's result, never write again.
type faultClient struct {
	n     int
	agent string
	token string
	url   string
	http  *http.Client

	memories  map[string]string // content -> id, acknowledged
	facts     map[string]int    // content -> version, acknowledged
	notes     map[int64]string  // id -> text, acknowledged
	committed []string          // writes whose result a killed node never recorded: stored, unanswered
	lastFact  int               // the highest fact version acknowledged
	retries   map[string]int    // why calls were sent again
	failures  []string          // calls that failed for good, and reads that broke a promise
	reads     int
}

// faultOp is the i-th call of client c.
func (c *faultClient) op(i int) (tool string, args map[string]any) {
	switch i % 4 {
	case 0:
		return "remember", map[string]any{"content": fmt.Sprintf("Fault client %d memory %d: the service zq%dx%d answers on port %d.", c.n, i, c.n, i, 8000+i),
			"idempotency_key": fmt.Sprintf("m-%d-%d", c.n, i)}
	case 1:
		return "publish_fact", map[string]any{"fact_id": fmt.Sprintf("fault-%d", c.n), "content": fmt.Sprintf("client %d publish %d", c.n, i),
			"category": "other", "idempotency_key": fmt.Sprintf("f-%d-%d", c.n, i)}
	case 2:
		return "write_note", map[string]any{"text": fmt.Sprintf("progress: client %d step %d", c.n, i), "idempotency_key": fmt.Sprintf("n-%d-%d", c.n, i)}
	}
	if c.lastFact == 0 {
		return "", nil // nothing of its own to read yet
	}
	return "query_facts", map[string]any{"id": fmt.Sprintf("fault-%d", c.n)}
}

// run calls until ctx ends; the call under way when it ends is finished.
func (c *faultClient) run(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		tool, args := c.op(i)
		if tool == "" {
			continue
		}
		res, err := c.call(tool, args)
		if err != nil {
			c.failures = append(c.failures, fmt.Sprintf("%s %v: %v", tool, args, err))
			continue
		}
		if res == nil {
			c.committed = append(c.committed, contentOf(tool, args))
			continue
		}
		switch tool {
		case "remember":
			c.memories[args["content"].(string)] = res.Structured["id"].(string)
		case "publish_fact":
			v := int(res.Structured["fact"].(map[string]any)["version"].(float64))
			c.facts[args["content"].(string)] = v
			c.lastFact = max(c.lastFact, v)
		case "write_note":
			c.notes[int64(res.Structured["note"].(map[string]any)["note_id"].(float64))] = args["text"].(string)
		case "query_facts":
			// Read your writes on whichever node answers: every node
			// reads the one database.
			c.reads++
			var got struct {
				Facts []struct{ Version int } `json:"facts"`
			}
			b, _ := json.Marshal(res.Structured)
			json.Unmarshal(b, &got)
			if len(got.Facts) != 1 || got.Facts[0].Version < c.lastFact {
				c.failures = append(c.failures, fmt.Sprintf("read fault-%d after version %d was acknowledged: %s", c.n, c.lastFact, b))
			}
		}
	}
}

func contentOf(tool string, args map[string]any) string {
	if tool == "write_note" {
		return tool + ": " + args["text"].(string)
	}
	return tool + ": " + args["content"].(string)
}

// call sends one call until it is answered. It returns the answer; nil and
// no error when the write committed on a node killed before it recorded the
// result (the key says so, and the write is checked afterwards); an error
// when the call was refused for good or found no node for a minute.
func (c *faultClient) call(tool string, args map[string]any) (*callOutcome, error) {
	first := time.Now()
	wait := 20 * time.Millisecond
	for {
		why, ans, err := c.once(tool, args)
		if why == "" {
			return ans, err
		}
		if strings.HasPrefix(why, "still running") && time.Since(first) > 8*time.Second {
			// The node that took the call committed its write and was
			// killed before it recorded the result; the key answers so for
			// two minutes. The write is in the store: do not wait that out.
			return nil, nil
		}
		c.retries[why]++
		if time.Since(first) > time.Minute {
			return nil, fmt.Errorf("no answer for a minute; last: %s", why)
		}
		time.Sleep(wait)
		wait = min(2*wait, time.Second)
	}
}

// once sends the call once. why is not empty when it should be sent again.
func (c *faultClient) once(tool string, args map[string]any) (why string, ans *callOutcome, err error) {
	out, err := callHTTP(context.Background(), c.http, c.url, c.token, tool, args)
	switch {
	case err != nil && strings.HasPrefix(err.Error(), "HTTP 5"):
		return err.Error()[:8], nil, nil // the balancer found no node ready, or one died mid-answer
	case err != nil && strings.HasPrefix(err.Error(), "HTTP "), err != nil && strings.HasPrefix(err.Error(), "JSON-RPC"):
		return "", nil, err
	case err != nil:
		return "no answer", nil, nil // the node died under the request: the connection was cut
	case !out.IsError:
		return "", out, nil
	case strings.Contains(out.Text, "is still running (its write committed"):
		return "still running", nil, nil
	case strings.HasPrefix(out.Text, memory.EBUSY+":"):
		return "EBUSY", nil, nil // the database is restarting
	}
	return "", nil, fmt.Errorf("%s", out.Text)
}

// runFault runs the plan and checks what it promises.
func runFault(t testing.TB, p faultPlan) {
	c := newCluster(t, p.nodes, "--rate-limits", "off")
	tokens := c.tokens("fault", p.clients)
	clients := make([]*faultClient, p.clients)
	transport := &http.Transport{MaxIdleConnsPerHost: p.clients}
	for i := range clients {
		clients[i] = &faultClient{n: i, agent: fmt.Sprintf("fault-%d", i), token: tokens[i], url: c.lbURL,
			http:     &http.Client{Transport: transport, Timeout: 60 * time.Second},
			memories: map[string]string{}, facts: map[string]int{}, notes: map[int64]string{}, retries: map[string]int{}}
	}

	ctx, cancel := context.WithTimeout(context.Background(), p.run)
	defer cancel()
	var load sync.WaitGroup
	for _, cl := range clients {
		load.Go(func() { cl.run(ctx) })
	}
	// The faults: a node killed and started again every killEvery, in
	// turn; PostgreSQL restarted once.
	kills, pgRestarts := 0, 0
	var faultErrs []string
	var faults sync.WaitGroup
	faults.Go(func() {
		start := time.Now()
		tick := time.NewTicker(p.killEvery)
		defer tick.Stop()
		var pgAt <-chan time.Time
		if p.pgRestartAt > 0 {
			pgAt = time.After(p.pgRestartAt)
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-pgAt:
				if err := c.pg.restart(); err != nil {
					faultErrs = append(faultErrs, err.Error())
				}
				pgRestarts++
				t.Logf("%5.1fs PostgreSQL restarted", time.Since(start).Seconds())
			case <-tick.C:
				nd := c.nodes[kills%len(c.nodes)]
				nd.kill()
				kills++
				t0 := time.Now()
				if err := nd.startRetrying(); err != nil {
					faultErrs = append(faultErrs, fmt.Sprintf("%v\n%s", err, nd.tail()))
					return
				}
				t.Logf("%5.1fs %s killed and ready again in %s", time.Since(start).Seconds(), nd.name, time.Since(t0).Round(time.Millisecond))
			}
		}
	})
	load.Wait()
	faults.Wait()
	t.Cleanup(func() {
		if t.Failed() {
			for _, nd := range c.nodes {
				t.Logf("%s's errors:\n%s", nd.name, nd.errors(40))
			}
		}
	})
	if len(faultErrs) > 0 {
		t.Fatalf("the faults did not run: %v", faultErrs)
	}
	for _, nd := range c.nodes {
		if !ready(nd.addr) {
			t.Fatalf("%s is not ready after the run\n%s", nd.name, nd.tail())
		}
	}

	// What the clients saw.
	var acked, committed, reads int
	retries := map[string]int{}
	for _, cl := range clients {
		for _, f := range cl.failures {
			t.Errorf("client %d: %s", cl.n, f)
		}
		acked += len(cl.memories) + len(cl.facts) + len(cl.notes)
		committed += len(cl.committed)
		reads += cl.reads
		for why, n := range cl.retries {
			retries[why] += n
		}
	}
	if acked == 0 || kills == 0 || (p.pgRestartAt > 0 && pgRestarts == 0) {
		t.Fatalf("the run proved nothing: %d writes acknowledged, %d kills, %d PostgreSQL restarts", acked, kills, pgRestarts)
	}

	// What the database holds: every acknowledged write once, and nothing
	// the clients did not send.
	found, dups := checkFaultStore(t, c, clients)

	verified := "passed"
	if _, err := c.cli("verify"); err != nil {
		t.Errorf("verify: %v", err)
		verified = "FAILED"
	}
	converged := checkNodesAgree(t, c, clients)
	if b, ok := t.(*testing.B); ok {
		b.ReportMetric(float64(acked), "acked")
		b.ReportMetric(float64(dups), "duplicates")
		b.ReportMetric(float64(kills), "kills")
	}
	t.Logf("%d clients, %s, %d nodes: %d writes acknowledged (%d memories, %d fact versions, %d notes in all), %d committed unanswered, "+
		"%d found, %d duplicates; %d reads of the client's own fact; %d kills, %d PostgreSQL restarts; retries %v; verify %s; %d nodes give the same answers to %d reads",
		p.clients, p.run, p.nodes, acked, sum(clients, func(c *faultClient) int { return len(c.memories) }),
		sum(clients, func(c *faultClient) int { return len(c.facts) }), sum(clients, func(c *faultClient) int { return len(c.notes) }),
		committed, found, dups, reads, kills, pgRestarts, retries, verified, p.nodes, converged)
}

func sum(clients []*faultClient, f func(*faultClient) int) int {
	n := 0
	for _, c := range clients {
		n += f(c)
	}
	return n
}

// checkFaultStore reads the database and checks each client's writes: each
// acknowledged one stored once as acknowledged, each committed-unanswered
// one stored once, nothing else. It returns how many acknowledged writes
// it found and how many duplicates.
func checkFaultStore(t testing.TB, c *cluster, clients []*faultClient) (found, dups int) {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenPostgres(ctx, c.pg.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mem := store.NewMemoryService(db, nil)
	facts := store.NewFactService(db)
	notes := map[string]int{} // agent + text -> how many
	maxNote := int64(0)
	for _, cl := range clients {
		for id := range cl.notes {
			maxNote = max(maxNote, id)
		}
	}
	// Notes have no listing by agent across runs: read every id up to well
	// past the last acknowledged one.
	for id, misses := int64(1), 0; id <= maxNote || misses < 200; id++ {
		err := db.View(ctx, func(tx *store.Tx) error {
			n, ok, err := tx.GetNote(ctx, id)
			if ok {
				notes[n.Agent+"\x00"+n.Text]++
				misses = 0
			} else {
				misses++
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, cl := range clients {
		unanswered := map[string]bool{}
		for _, w := range cl.committed {
			unanswered[w] = true
		}
		// Memories.
		who := memory.WithIdentity(ctx, memory.Identity{AgentID: cl.agent, Seniority: memory.SeniorityMid})
		stored := map[string][]string{} // content -> ids
		for off := 0; ; off += 500 {
			page, err := mem.List(who, memory.ListQuery{Offset: off, Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Memories {
				stored[e.Content] = append(stored[e.Content], e.ID)
			}
			if off+len(page.Memories) >= page.Total || len(page.Memories) == 0 {
				break
			}
		}
		for content, id := range cl.memories {
			switch ids := stored[content]; {
			case len(ids) == 1 && ids[0] == id:
				found++
			case len(ids) == 0:
				t.Errorf("%s: acknowledged memory %s (%q) is not stored", cl.agent, id, content)
			default:
				found++
				dups += len(ids) - 1
				t.Errorf("%s: acknowledged memory %s (%q) is stored as %v", cl.agent, id, content, ids)
			}
		}
		for content, ids := range stored {
			_, ok := cl.memories[content]
			if !ok && !unanswered["remember: "+content] {
				t.Errorf("%s: %v (%q) was stored, but no call that wrote it was acknowledged", cl.agent, ids, content)
			}
			if !ok && len(ids) > 1 {
				dups += len(ids) - 1
				t.Errorf("%s: %q is stored as %v", cl.agent, content, ids)
			}
		}
		// The client's fact: versions 1..n, each publish once.
		ops, err := facts.History(ctx, "fault-"+strings.TrimPrefix(cl.agent, "fault-"))
		if err != nil && len(cl.facts) > 0 {
			t.Fatal(err)
		}
		logged := map[string][]int{} // content -> versions
		for v, op := range ops {
			if op.Version != v+1 || op.Content == nil {
				t.Errorf("%s: fact operation %d is version %d", cl.agent, v, op.Version)
				continue
			}
			logged[*op.Content] = append(logged[*op.Content], op.Version)
		}
		for content, v := range cl.facts {
			switch vs := logged[content]; {
			case len(vs) == 1 && vs[0] == v:
				found++
			case len(vs) == 0:
				t.Errorf("%s: acknowledged publish v%d (%q) is not in the log", cl.agent, v, content)
			default:
				found++
				dups += len(vs) - 1
				t.Errorf("%s: acknowledged publish v%d (%q) is logged as %v", cl.agent, v, content, vs)
			}
		}
		for content, vs := range logged {
			_, ok := cl.facts[content]
			if !ok && !unanswered["publish_fact: "+content] {
				t.Errorf("%s: %q was published as %v, but no call that wrote it was acknowledged", cl.agent, content, vs)
			}
			if !ok && len(vs) > 1 {
				dups += len(vs) - 1
				t.Errorf("%s: %q was published as %v", cl.agent, content, vs)
			}
		}
		// Notes.
		texts := map[string]bool{}
		for id, text := range cl.notes {
			texts[text] = true
			switch n := notes[cl.agent+"\x00"+text]; {
			case n == 1:
				found++
			case n == 0:
				t.Errorf("%s: acknowledged note %d (%q) is not stored", cl.agent, id, text)
			default:
				found++
				dups += n - 1
				t.Errorf("%s: acknowledged note %d (%q) is stored %d times", cl.agent, id, text, n)
			}
		}
		for w := range unanswered {
			if text, ok := strings.CutPrefix(w, "write_note: "); ok {
				texts[text] = true
				if n := notes[cl.agent+"\x00"+text]; n != 1 {
					t.Errorf("%s: the unanswered note %q is stored %d times", cl.agent, text, n)
				}
			}
		}
		for key, n := range notes {
			agent, text, _ := strings.Cut(key, "\x00")
			if agent == cl.agent && !texts[text] {
				t.Errorf("%s: note %q (%d) was stored, but no call that wrote it was acknowledged", cl.agent, text, n)
			}
		}
	}
	return found, dups
}

// checkNodesAgree asks every node directly (not through the balancer) for
// each client's memories and fact, and searches: for the word of each of a
// sample of the client's acknowledged memories (exactly that memory must be
// found) and for what all its memories say (the same ranking on every
// node: each node's vector index holds the same memories). It checks that
// they answer alike and returns how many reads were compared.
func checkNodesAgree(t testing.TB, c *cluster, clients []*faultClient) int {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	compared := 0
	type read struct {
		tool string
		args map[string]any
		pick func(map[string]any) any
		want string // when set, the answer every node must give
	}
	resultIDs := func(m map[string]any) any { return ids(m["results"]) }
	for _, cl := range clients {
		reads := []read{
			{"list_memories", map[string]any{"limit": 500}, func(m map[string]any) any { return ids(m["memories"]) }, ""},
			{"query_facts", map[string]any{"id": fmt.Sprintf("fault-%d", cl.n)}, func(m map[string]any) any { return m }, ""},
			{"search_memory", map[string]any{"query": "which service answers on which port", "limit": 20}, resultIDs, ""},
		}
		sampled := 0
		for content, id := range cl.memories {
			if sampled == 5 {
				break
			}
			sampled++
			var word string // zq<client>x<call>: in this memory alone
			for _, f := range strings.Fields(content) {
				if strings.HasPrefix(f, "zq") {
					word = f
				}
			}
			b, _ := json.Marshal([]string{id})
			reads = append(reads, read{"search_memory", map[string]any{"query": word, "scope": "personal"}, resultIDs, string(b)})
		}
		for _, q := range reads {
			var first string
			for i, nd := range c.nodes {
				out, err := callHTTP(context.Background(), client, nd.url(), cl.token, q.tool, q.args)
				if err != nil {
					t.Errorf("%s %s on %s: %v", cl.agent, q.tool, nd.name, err)
					continue
				}
				b, _ := json.Marshal(q.pick(out.Structured))
				if out.IsError {
					b = []byte(out.Text) // a refusal must be the same on every node too
				}
				if q.want != "" && string(b) != q.want {
					t.Errorf("%s %s %v on %s: %s, want %s", cl.agent, q.tool, q.args, nd.name, b, q.want)
				}
				if i == 0 {
					first = string(b)
				} else if string(b) != first {
					t.Errorf("%s %s: %s answers %s, %s answered %s", cl.agent, q.tool, nd.name, b, c.nodes[0].name, first)
				}
			}
			compared++
		}
	}
	return compared
}

// ids are the ids of a list of entries, in order.
func ids(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["id"]))
		}
	}
	return out
}
