package main

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestWriteGatesEndToEnd: a retry with the caller's idempotency key, sent to
// a new server after the first one stopped, returns the first result and
// stores nothing; the same key from another agent is that agent's own; the
// rate limit refuses what is over it, saying when to retry; a bad key is a
// clear error.
func TestWriteGatesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	type result struct {
		ID          string `json:"id"`
		Outcome     string `json:"outcome"`
		DuplicateOf string `json:"duplicate_of"`
	}
	args := map[string]any{"content": "The on-call rota changes every Monday at 09:00.", "idempotency_key": "rota-1"}
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--rate-limits", "remember=3/m"}})
	var first result
	ann.ok("remember", args, &first)
	if first.Outcome != "stored" || first.ID == "" {
		t.Fatalf("first call: %+v", first)
	}
	ann.stop()

	// The client lost the answer and retries on a new server.
	ann = startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--rate-limits", "remember=3/m"}})
	var again result
	ann.ok("remember", args, &again)
	if again != first {
		t.Fatalf("retry returned %+v, want the first result %+v", again, first)
	}
	ann.fail("remember", map[string]any{"content": "Something else.", "idempotency_key": "rota-1"}, "ECONFLICT", "other arguments")
	ann.fail("remember", map[string]any{"content": "x", "idempotency_key": 7}, "EINVALID", `"idempotency_key" must be a string`)
	ann.fail("remember", map[string]any{"content": "x", "idempotency_key": strings.Repeat("k", 201)}, "EINVALID", "idempotency_key must be 1 to 200 bytes")
	ann.fail("remember", map[string]any{"content": "x", "idempotency_key": ""}, "EINVALID", "idempotency_key must be 1 to 200 bytes")
	ann.fail("remember", map[string]any{"content": "x", "idempotency": "k"}, "EINVALID", "this tool takes: category, confidence, content, expires_at, namespace, not_a_repeat_of, occurred_at, source, supersedes, tags, idempotency_key")

	// Without a key, the same statement is a duplicate: nothing stored.
	var dup result
	ann.ok("remember", map[string]any{"content": "the on-call rota changes every monday at 09:00"}, &dup)
	if dup.Outcome != "duplicate" || dup.DuplicateOf != first.ID {
		t.Fatalf("a repeat without a key: %+v", dup)
	}
	// The rate limit, which the servers on one store share (its counters
	// are rows of the database, as every node's are): of the calls to both
	// servers, the first write and the duplicate were admitted (the replay,
	// the conflict and the bad arguments were answered before it); one more
	// fits.
	var r result
	ann.ok("remember", map[string]any{"content": "The staging cluster has three nodes."}, &r)
	ann.fail("remember", map[string]any{"content": "The staging cluster is in eu-west-1."}, "ERATELIMIT", "at most 3 times per minute: retry in")
	var stats struct {
		Total struct {
			Active int `json:"active"`
		} `json:"total"`
	}
	ann.ok("memory_stats", map[string]any{}, &stats)
	if stats.Total.Active != 2 {
		t.Fatalf("ann has %d active memories, want 2", stats.Total.Active)
	}

	// The write log's figures, as the resource and the stats command show
	// them to ann: of her calls on both servers, 2 stored, 1 duplicate, 1
	// replayed and 2 refused (the conflict, the rate limit); the calls
	// whose arguments or key could not be read never reached the gates and
	// are not counted.
	body, err := ann.read("memory://metrics")
	if err != nil {
		t.Fatal(err)
	}
	var m memory.WriteMetrics
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("memory://metrics: %v\n%s", err, body)
	}
	want := map[memory.WriteOutcome]int{"stored": 2, "duplicate": 1, "replayed": 1, "rejected": 2}
	if !maps.Equal(m.Outcomes, want) || m.Calls != 6 || m.DHR != 1.0/6 || m.Gates["dedup"].Count != 3 || m.Scope != "agent:ann" {
		t.Fatalf("metrics %s, want ann's outcomes %v of 6 calls", body, want)
	}
	out, err := commandOn(t, dir, "stats", "--data-dir", dir, "--window", "1h").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "outcomes: stored 2, duplicate 1, merged 0, replayed 1, rejected 2") ||
		!strings.Contains(string(out), "refused by rate_limit with ERATELIMIT: 1") {
		t.Fatalf("memory-mcp stats: %v\n%s", err, out)
	}

	// Bob's key of the same name is his.
	bob := start(t, options{dataDir: dir, args: []string{"--agent-id", "bob"}})
	var his result
	bob.ok("remember", args, &his)
	if his.ID == first.ID || his.Outcome != "stored" {
		t.Fatalf("bob's call with ann's key: %+v", his)
	}
}

// TestGateSettings passes the write gates' settings the way a user does,
// on the command line, and watches each take effect: the write budget,
// whether humans pass the limits, and how long an idempotency key lasts.
func TestGateSettings(t *testing.T) {
	dir := t.TempDir()
	remember := func(content string) map[string]any { return map[string]any{"content": content} }
	ann := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "ann", "--embedder", "none", "--write-budget", "2"}})
	ann.ok("remember", remember("The first of two writes."), nil)
	ann.ok("remember", remember("The second of two writes."), nil)
	ann.fail("remember", remember("A third write."), "ERATELIMIT", "budget")
	ann.stop()

	// Humans pass the limits unless the setting says otherwise.
	limits := []string{"--human", "--agent-id", "olive", "--embedder", "none", "--rate-limits", "remember=1/h"}
	olive := startIn(t, options{dataDir: dir, args: limits})
	olive.ok("remember", remember("A human's first write."), nil)
	olive.ok("remember", remember("A human's second write."), nil)
	olive.stop()
	olive = startIn(t, options{dataDir: dir, args: append(limits, "--rate-limits-exempt-humans=false")})
	olive.ok("remember", remember("A human's third write."), nil)
	olive.fail("remember", remember("A human's fourth write."), "ERATELIMIT", "at most 1 time")
	olive.stop()

	// A key is kept for idempotency-ttl: within it the same key with other
	// arguments is a conflict; after it, a new write.
	bob := startIn(t, options{dataDir: dir, args: []string{"--agent-id", "bob", "--embedder", "none", "--idempotency-ttl", "1s"}})
	bob.ok("remember", map[string]any{"content": "Keyed once.", "idempotency_key": "k-1"}, nil)
	bob.fail("remember", map[string]any{"content": "Keyed twice.", "idempotency_key": "k-1"}, "ECONFLICT", "other arguments")
	time.Sleep(1500 * time.Millisecond)
	var again struct {
		Outcome string `json:"outcome"`
	}
	bob.ok("remember", map[string]any{"content": "Keyed twice.", "idempotency_key": "k-1"}, &again)
	if again.Outcome != "stored" {
		t.Fatalf("the key reused after its ttl: %+v, want a new write stored", again)
	}
}
