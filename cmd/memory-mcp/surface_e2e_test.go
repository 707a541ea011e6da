package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/yosida95/uritemplate/v3"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/tools"
)

// TestEveryCallForEveryIdentity is what a user's client meets: as the human
// operator and as agents of every seniority and every autonomy (each level
// once: a result's fields do not depend on the pair), it calls every
// tool the server lists with valid arguments — each optional argument both
// given and left out, so optional result fields are present and absent —
// gets every prompt and reads every resource and template. The checking wire
// (wire_test.go) holds each answer to what the server declares, as the
// official TypeScript SDK does. Anything listed but not exercised fails the
// test, so a new tool, prompt or template is covered by being added here.
func TestEveryCallForEveryIdentity(t *testing.T) { everyCallForEveryIdentity(t, startIn) }

// everyCallForEveryIdentity runs the sweep with servers that start gives.
func everyCallForEveryIdentity(t *testing.T, start func(testing.TB, options) *proc) {
	type identity struct {
		name string
		args []string
	}
	ids := []identity{{"human", []string{"--agent-id", "olivia", "--human"}}}
	autonomies := []string{"locked", "supervised", "semi", "full"}
	for i, sen := range memory.Seniorities {
		aut := autonomies[i%len(autonomies)]
		ids = append(ids, identity{fmt.Sprintf("%s-%s", sen, aut),
			[]string{"--agent-id", "agent-" + string(sen), "--seniority", string(sen), "--autonomy", aut}})
	}
	seen := map[string]map[string]bool{} // tool -> result paths seen, over every identity
	var outputs map[string]json.RawMessage
	for i, id := range ids {
		t.Run(id.name, func(t *testing.T) {
			dir := t.TempDir()
			human := slices.Contains(id.args, "--human")
			if i <= 1 {
				other := start(t, options{dataDir: dir, args: []string{"--block-tools", "--agent-id", "other-agent"}})
				if human {
					// The human maintains another agent's memories, and
					// decides on its writes: a publication under review,
					// and a retraction of it and of a fact, held.
					var m struct{ ID string }
					other.ok("remember", map[string]any{"content": "The other agent's garden needs water.", "tags": []string{"garden"}}, &m)
					other.ok("publish_memory", map[string]any{"id": m.ID}, &m)
					other.fail("retract_memory", map[string]any{"id": m.ID, "idempotency_key": "withdraw-garden"}, "EHELD", "decide_approval")
					other.ok("publish_fact", map[string]any{"fact_id": "garden-hours", "content": "The garden opens at nine.", "category": "convention"}, nil)
					other.fail("retract_fact", map[string]any{"fact_id": "garden-hours", "reason": "closed"}, "EHELD", "decide_approval")
				} else {
					// Another agent's note waits in the queue: this agent
					// sees that it waits, not what it says.
					other.ok("write_note", map[string]any{"text": "fixed: the mystery bug", "promote": true}, nil) // text: content's old name
				}
				other.stop()
			}
			// With the memory_block_* tools, which a client may still ask for.
			w := newSweep(t, start(t, options{dataDir: dir, args: append([]string{"--block-tools"}, id.args...)}), dir)
			w.human, w.expiring, w.self = human, human, id.args[1]
			w.senior = human || slices.Contains([]string{"senior", "lead", "principal"}, id.args[3])
			w.run()
			w.covered()
			w.p.spec.mu.Lock()
			defer w.p.spec.mu.Unlock()
			for tool, ps := range w.p.spec.seen {
				if seen[tool] == nil {
					seen[tool] = map[string]bool{}
				}
				maps.Copy(seen[tool], ps)
			}
			// Retired tools answer for a release: their results are held
			// to their schemas, every field, as a listed tool's.
			outputs = maps.Clone(w.p.spec.outputs)
			maps.Copy(outputs, w.p.spec.retiredOutputs)
		})
	}
	if !t.Failed() {
		everyFieldSeen(t, outputs, seen)
	}
}

// neverSeen are result fields the sweep does not produce: a projection fails
// only when the projector does (the promotion tests make it fail); the note
// write_note returns has just been written, so it was never promoted; and
// write_note promotes 200 notes at once, so only 201 unpromoted notes would
// leave a remainder (promote_notes's remaining is the same count, and seen).
var neverSeen = map[string]bool{"projection_error": true, "write_note note.outcome": true, "write_note note.processed_at": true,
	"write_note remaining": true,
	// A fine-tuning report says why a model gave no questions only when
	// one is configured, and counts texts cut past 512 tokens only when
	// there are some: the finetune package's tests make both.
	"llm": true, "truncated_documents": true, "truncated_queries": true}

// everyFieldSeen fails for a field of an output schema that no result of
// the sweep carried: a field's description is checked only where a result
// has the field. Fields are the Go fields the schemas describe (see
// schemaFields): Fact.score, which only query_facts fills, counts as seen
// for get_fact too.
func everyFieldSeen(t *testing.T, outputs map[string]json.RawMessage, seen map[string]map[string]bool) {
	fields := map[string]map[string]string{} // tool -> path -> field
	carried := map[string]bool{}
	for tool, raw := range outputs {
		var schema any
		json.Unmarshal(raw, &schema)
		fields[tool] = schemaFields(schema, "", map[string]string{})
		for path := range seen[tool] {
			carried[fields[tool][path]] = true
		}
	}
	reported := map[string]bool{}
	for tool, fs := range fields {
		for path, field := range fs {
			name := path[strings.LastIndexAny(path, ".]")+1:]
			// A memory's provenance names an import only in a store an
			// exact import filled, which the sweep's stores are not:
			// TestExportImportRoundTrip reads it through this checking
			// client, held to the same schemas.
			imported := strings.Contains(path, "provenance.imported")
			if !carried[field] && !imported && !neverSeen[name] && !neverSeen[tool+" "+path] && !underNeverSeen(tool, path) && !reported[field] {
				reported[field] = true
				t.Errorf("no result of the sweep carried %s (%s)", path, tool)
			}
		}
	}
}

// underNeverSeen reports whether path lies inside a field neverSeen names.
func underNeverSeen(tool, path string) bool {
	for p := range neverSeen {
		if strings.HasPrefix(tool+" "+path, p+".") {
			return true
		}
	}
	return false
}

// sweep drives one server through every call and records what it used.
type sweep struct {
	t             *testing.T
	p             *proc
	dir           string    // the data directory
	db            *store.DB // the same file, to hold read-only tools to the change feed
	human, senior bool
	self          string                       // the agent id the server runs as
	expiring      bool                         // also remember a memory that expires during the sweep
	args          map[string][]map[string]bool // tool or prompt -> the argument names of each call it may make
	refused       map[string][]map[string]bool // tool -> the argument names of each call refused with EFORBIDDEN
	keyed         map[string]bool              // tools called with an idempotency_key
	holds         int                          // writes held for approval
}

func newSweep(t *testing.T, p *proc, dir string) *sweep {
	db, err := openTestStore(context.Background(), t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &sweep{t: t, p: p, dir: dir, db: db, args: map[string][]map[string]bool{},
		refused: map[string][]map[string]bool{}, keyed: map[string]bool{}}
}

// lastChange is the change feed's newest row: every write adds one.
func (w *sweep) lastChange() int64 {
	w.t.Helper()
	seq, err := w.db.LastChange(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return seq
}

func (w *sweep) note(name string, args map[string]any) {
	names := map[string]bool{}
	for k := range args {
		names[k] = true
	}
	w.args[name] = append(w.args[name], names)
}

// do calls a tool that must succeed and returns its structured result. The
// first call of each tool that writes carries an idempotency_key and is sent
// twice: the repeat must return the same result and write nothing.
func (w *sweep) do(tool string, args map[string]any) map[string]any {
	w.t.Helper()
	keyed := !w.p.spec.readOnly[tool] && !w.keyed[tool]
	if keyed {
		w.keyed[tool] = true
		args = maps.Clone(args)
		args["idempotency_key"] = "sweep-" + tool + "-" + w.self
	}
	w.note(tool, args)
	before := w.lastChange()
	res := w.p.call(tool, args)
	if res.IsError {
		w.t.Fatalf("%s(%v): %s", tool, args, text(res))
	}
	after := w.lastChange()
	if w.p.spec.readOnly[tool] && after != before {
		w.t.Errorf("%s says it is read-only, but the call wrote %d change(s) to the store", tool, after-before)
	}
	if keyed {
		again := w.p.call(tool, args)
		first, _ := json.Marshal(res.StructuredContent)
		second, _ := json.Marshal(again.StructuredContent)
		switch {
		case again.IsError:
			w.t.Errorf("%s repeated with its idempotency_key: %s", tool, text(again))
		case w.lastChange() != after:
			w.t.Errorf("%s repeated with its idempotency_key wrote %d change(s)", tool, w.lastChange()-after)
		case !bytes.Equal(first, second) || text(again) != text(res):
			w.t.Errorf("%s repeated with its idempotency_key returned\n%s %s\nnot the first result\n%s %s", tool, second, text(again), first, text(res))
		}
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		w.t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out
}

// maybe calls a tool that succeeds when allowed, and otherwise fails with
// EFORBIDDEN; it returns the result when there is one.
func (w *sweep) maybe(allowed bool, tool string, args map[string]any) map[string]any {
	w.t.Helper()
	if allowed {
		return w.do(tool, args)
	}
	if !w.p.spec.readOnly[tool] && !w.keyed[tool] {
		// A refused call records nothing under its key: the repeat is
		// refused again, not answered from a first result.
		w.keyed[tool] = true
		args = maps.Clone(args)
		args["idempotency_key"] = "sweep-" + tool + "-" + w.self
		w.p.fail(tool, args, "EFORBIDDEN", "")
	}
	names := map[string]bool{}
	for k := range args {
		names[k] = true
	}
	w.refused[tool] = append(w.refused[tool], names)
	w.p.fail(tool, args, "EFORBIDDEN", "")
	return nil
}

// held calls a tool with arguments that make an agent's write high-risk:
// the tool's checks pass, and the write is held for a human's approval
// (EHELD, an error result, which no output schema is asked to describe)
// and changes nothing. The first such call of a tool carries an
// idempotency_key and is sent twice: the repeat gets the same answer.
func (w *sweep) held(tool string, args map[string]any) {
	w.t.Helper()
	keyed := !w.keyed[tool]
	if keyed {
		w.keyed[tool] = true
		args = maps.Clone(args)
		args["idempotency_key"] = "sweep-" + tool + "-" + w.self
	}
	w.note(tool, args)
	before := w.lastChange()
	res := w.p.call(tool, args)
	if !res.IsError || !strings.HasPrefix(text(res), "EHELD: ") || !strings.Contains(text(res), "decide_approval") {
		w.t.Fatalf("%s(%v) = %q, want it held for approval", tool, args, text(res))
	}
	if keyed {
		if again := w.p.call(tool, args); text(again) != text(res) {
			w.t.Errorf("%s repeated with its idempotency_key = %q, want the first answer %q", tool, text(again), text(res))
		}
	}
	if after := w.lastChange(); after != before {
		w.t.Errorf("%s was held but wrote %d change(s)", tool, after-before)
	}
	w.holds++
}

// write makes a write that is high-risk for an agent: the human's is
// applied, an agent's held.
func (w *sweep) write(tool string, args map[string]any) {
	w.t.Helper()
	if w.human {
		w.do(tool, args)
		return
	}
	w.held(tool, args)
}

// holdLease takes the maintenance lease through the sweep's own store, as
// another process's run would hold it.
func (w *sweep) holdLease() store.Lease {
	w.t.Helper()
	l, ok := storetest.HoldLease(w.t, w.db, "the sweep", time.Hour)
	if !ok {
		w.t.Fatalf("the maintenance lease is held by %s", l.Holder)
	}
	return l
}

func (w *sweep) releaseLease(l store.Lease) {
	w.t.Helper()
	releaseLease(w.t, w.db, l)
}

func (w *sweep) prompt(name string, args map[string]string) {
	w.t.Helper()
	any := map[string]any{}
	for k, v := range args {
		any[k] = v
	}
	w.note("prompt "+name, any)
	if _, err := w.p.prompt(name, args); err != nil {
		w.t.Fatalf("prompt %s(%v): %v", name, args, err)
	}
}

func (w *sweep) readURI(uri string) {
	w.t.Helper()
	if _, err := w.p.read(uri); err != nil {
		w.t.Fatalf("read %s: %v", uri, err)
	}
}

// get returns the value at a path of keys (and array indexes) in a result.
func get(m any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m = m.(map[string]any)[k]
		case int:
			m = m.([]any)[k]
		}
	}
	return m
}

func (w *sweep) run() {
	w.facts()
	w.memories()
	w.maintenance()
	w.blocks()
	w.memoryFiles()
	w.notes()
	w.approvals()
	w.prompts()
	w.resources()
	w.fineTune()
	w.export()
	w.erasure()
}

// export pages through the caller's own export: a first page of one line,
// the next by its cursor, and the default page.
func (w *sweep) export() {
	first := w.do("export_memory", map[string]any{"limit": 1})
	w.do("export_memory", map[string]any{"cursor": get(first, "next_cursor"), "limit": 1})
	if r := w.do("export_memory", map[string]any{}); get(r, "from") != float64(0) {
		w.t.Errorf("export_memory without a cursor = %v", r)
	}
}

// fineTune asks for the last report before any run and after one, and for
// a dry run, an evaluation and a rollback with nothing to roll back to: a
// human's to ask; an agent is refused whatever it asks.
func (w *sweep) fineTune() {
	if !w.human {
		w.maybe(false, "finetune_report", map[string]any{})
		w.maybe(false, "finetune", map[string]any{})
		w.maybe(false, "finetune", map[string]any{"source": "all", "agent_id": w.self, "namespace": "default", "dry_run": true,
			"eval_only": false, "rollback": false})
		return
	}
	if r := w.do("finetune_report", map[string]any{}); get(r, "found") != false {
		w.t.Errorf("finetune_report before any run = %v", r)
	}
	w.do("finetune", map[string]any{"dry_run": true})
	if r := w.do("finetune_report", map[string]any{}); get(r, "found") != true || get(r, "report", "outcome") == nil {
		w.t.Errorf("finetune_report after a dry run = %v", r)
	}
	w.do("finetune", map[string]any{"source": "memories", "agent_id": w.self, "namespace": "default", "eval_only": true})
	rollback := map[string]any{"rollback": true}
	w.note("finetune", rollback)
	w.p.fail("finetune", rollback, "EINVALID", "nothing to roll back")
	// Enough text to learn from: a run deployed from the command line with
	// its gate open (whether an adapter beats the base on 200 made-up
	// memories is not what this checks), its report, and its rollback here.
	seedMemories(w.t, w.dir, 200)
	if _, err := runFineTune(w.t, w.dir, "--gate-z=-1e6"); err != nil {
		w.t.Fatal(err)
	}
	if r := w.do("finetune_report", map[string]any{}); get(r, "report", "outcome") != memory.FineTuneDeployed {
		w.t.Errorf("finetune_report after a deployment = %v", r)
	}
	if r := w.do("finetune", map[string]any{"rollback": true}); get(r, "report", "outcome") != memory.FineTuneRolledBack {
		w.t.Errorf("finetune rollback = %v", r)
	}
}

// erasure comes last: it removes for good. A human counts, then erases a
// memory by id (with its owner) and every row quoting a fact's words; an
// agent is refused whatever it asks.
func (w *sweep) erasure() {
	m := get(w.do("remember", map[string]any{"content": "The sweep's spare key is under the mat."}), "id").(string)
	if !w.human {
		w.maybe(false, "erase", map[string]any{"ids": []string{m}, "reason": "sweep"})
		w.maybe(false, "erase", map[string]any{"agent_id": w.self, "contains": "spare key", "dry_run": true, "reason": "sweep"})
		return
	}
	dry := w.do("erase", map[string]any{"contains": "spare key", "dry_run": true, "reason": "sweep"})
	if get(dry, "dry_run") != true || get(dry, "counts", "memories") != 1.0 {
		w.t.Errorf("erase dry run = %v", dry)
	}
	rep := w.do("erase", map[string]any{"ids": []string{m}, "agent_id": w.self, "reason": "sweep"})
	if get(rep, "counts", "memories") != 1.0 || get(rep, "scrubbed") != true {
		w.t.Errorf("erase by id = %v", rep)
	}
	if rep := w.do("erase", map[string]any{"contains": "JSON lines", "reason": "sweep"}); get(rep, "counts", "facts") != 1.0 {
		w.t.Errorf("erase of a fact's words = %v", rep)
	}
}

func (w *sweep) facts() {
	f := w.do("publish_fact", map[string]any{"content": "Every service logs in JSON lines.", "category": "convention"})
	derived := get(f, "fact", "fact_id").(string)
	w.do("publish_fact", map[string]any{"fact_id": "adr-store", "content": "We keep memory in one SQLite file.",
		"category": "adr", "tags": []string{"storage", "superseded_by:adr-store-2"}, "expected_version": 0})
	policy := map[string]any{"fact_id": "policy-secrets", "content": "Never log secrets.", "category": "core_policy"}
	if w.senior && !w.human {
		w.held("publish_fact", policy) // allowed, and a core policy: a human approves it
	} else {
		w.maybe(w.senior, "publish_fact", policy) // a junior is refused before anything is held
	}
	if h := get(w.do("query_facts", map[string]any{"id": "adr-store"}), "history").([]any); len(h) != 1 {
		w.t.Errorf("query_facts id adr-store: history %v, want its one publication", h)
	}
	w.do("query_facts", map[string]any{})
	w.do("query_facts", map[string]any{"query": "SQLite memory", "categories": []string{"adr"}, "tags": []string{"storage"},
		"as_of": time.Now().UTC().Format(time.RFC3339Nano), "limit": 5})
	if l := w.do("query_facts", map[string]any{"category": "adr"}); get(l, "total") != 1.0 || get(l, "offset") != 0.0 {
		w.t.Errorf("query_facts category adr = %v, want the one ADR from offset 0", l)
	}
	w.do("query_facts", map[string]any{"category": "convention", "offset": 1, "limit": 10})
	w.p.fail("query_facts", map[string]any{"id": "adr-store", "query": "SQLite"}, "EINVALID", "give it alone")
	w.p.fail("query_facts", map[string]any{"category": "adr", "tags": []string{"storage"}}, "EINVALID", "give categories instead")
	w.p.fail("query_facts", map[string]any{"offset": 1}, "EINVALID", "give category")
	// The tools query_facts replaces answer for a release, listed to no one.
	w.do("get_fact", map[string]any{"fact_id": "adr-store"})
	w.do("get_fact", map[string]any{"fact_id": "adr-store", "include_history": true})
	w.do("list_facts", map[string]any{"category": "convention", "offset": 0, "limit": 10})
	w.write("retract_fact", map[string]any{"fact_id": derived})
	w.do("publish_fact", map[string]any{"fact_id": "adr-old", "content": "We kept memory in JSON files.", "category": "adr"})
	w.write("retract_fact", map[string]any{"fact_id": "adr-old", "reason": "replaced by adr-store", "expected_version": 1})
	w.do("query_facts", map[string]any{"id": "adr-old"}) // retracted_at present
	w.factConflicts()
}

// factConflicts publishes a fact that another contradicts, a repeat of one
// and one as it stands; then it lists and decides the conflict.
func (w *sweep) factConflicts() {
	w.do("publish_fact", map[string]any{"fact_id": "deploy-window", "content": "The deploy window is on Friday.", "category": "convention"})
	clash := w.do("publish_fact", map[string]any{"fact_id": "deploy-window-2", "content": "The deploy window is on Tuesday.", "category": "convention"})
	if get(clash, "conflicts", 0, "older_id") != "deploy-window" || get(clash, "conflicts", 0, "resolution") != "open" {
		w.t.Errorf("publish_fact of a contradicting day = %v, want an open conflict with deploy-window", clash)
	}
	dup := w.do("publish_fact", map[string]any{"content": "the deploy window is on Friday", "category": "convention"})
	if get(dup, "outcome") != "duplicate" || get(dup, "duplicate_of") != "deploy-window" {
		w.t.Errorf("publish_fact of a repeat = %v, want a duplicate of deploy-window", dup)
	}
	same := w.do("publish_fact", map[string]any{"fact_id": "deploy-window", "content": "The deploy window is on Friday.", "category": "convention"})
	if get(same, "outcome") != "unchanged" || get(same, "fact", "version") != 1.0 {
		w.t.Errorf("publish_fact of a fact as it stands = %v, want unchanged at version 1", same)
	}
	w.do("list_conflicts", map[string]any{"subject": "facts", "resolutions": []string{"open"}})
	id := get(clash, "conflicts", 0, "id")
	w.do("resolve_conflict", map[string]any{"id": id, "keep": "both"})
	keep := map[string]any{"id": id, "keep": "newer", "reason": "moved to Tuesdays"}
	if !w.human {
		w.held("resolve_conflict", keep) // it retracts a fact, as retract_fact would: a human approves it
		return
	}
	if won := w.do("resolve_conflict", keep); get(won, "conflict", "older_fact", "retracted_at") == nil {
		w.t.Errorf("resolve_conflict keeping the newer fact = %v, want deploy-window retracted", won)
	}
}

func (w *sweep) memories() {
	m1 := get(w.do("remember", map[string]any{"content": "The staging database is Postgres 16 on db-staging-1."}), "id").(string)
	m2 := get(w.do("remember", map[string]any{"content": "Deployed billing 2.3 to staging on a Friday; it rolled back.",
		"category": "episodic", "namespace": "billing", "tags": []string{"deploy"}, "confidence": 0.8, "source": "user said",
		"occurred_at": "2026-03-06T16:00:00Z", "expires_at": time.Now().Add(240 * time.Hour).UTC().Format(time.RFC3339)}), "id").(string)
	// The same statement again, in other case and punctuation: nothing is
	// stored, and the memory it repeats comes back counted twice.
	dup := w.do("remember", map[string]any{"content": "the staging database is Postgres 16 on db-staging-1"})
	if get(dup, "outcome") != "duplicate" || get(dup, "duplicate_of") != m1 || get(dup, "id") != m1 || get(dup, "memory", "seen_count") != 2.0 {
		w.t.Errorf("remember of a repeat = %v, want duplicate_of %s seen twice", dup, m1)
	}
	// The repeat's words are kept (search_memory with ids [m1], below, lists them)
	// and stored as their own memory when the caller says they differ.
	own := w.do("remember", map[string]any{"content": "the staging database is Postgres 16 on db-staging-1", "not_a_repeat_of": m1})
	if get(own, "outcome") != "stored" || get(own, "id") == m1 || get(dup, "repeat_id") == nil {
		w.t.Errorf("remember with not_a_repeat_of = %v after %v, want a new memory", own, dup)
	}
	w.conflicts()
	w.sharedGates()
	w.do("search_memory", map[string]any{"query": "staging database"})
	w.do("search_memory", map[string]any{"query": "billing deploy rolled back", "scope": "personal", "categories": []string{"episodic"},
		"tags": []string{"deploy"}, "namespaces": []string{"billing"}, "since": "2026-01-01T00:00:00Z", "until": "2027-01-01T00:00:00Z",
		"limit": 5, "min_relevance": 0})
	w.do("search_memory", map[string]any{"query": "nothing like this was ever stored zebra"}) // no results
	shared := get(w.do("publish_memory", map[string]any{"id": m1}), "id").(string)
	w.do("search_memory", map[string]any{"ids": []string{m1, m2, shared}})
	w.p.fail("search_memory", map[string]any{"ids": []string{m1}, "scope": "all"}, "EINVALID", "give them alone")
	w.p.fail("search_memory", map[string]any{}, "EINVALID", "give query")
	w.write("retract_memory", map[string]any{"id": shared})
	w.do("forget", map[string]any{"id": m2}) // its old name, accepted for a release
	w.do("forget", map[string]any{"ids": []string{m1}, "reason": "moved to db-staging-2"})
	w.do("search_memory", map[string]any{"ids": []string{m1, m2, shared}}) // forgotten, retracted
	if w.expiring {
		soon := time.Now().Add(300 * time.Millisecond)
		m3 := get(w.do("remember", map[string]any{"content": "The deploy freeze ends today.", "expires_at": soon.UTC().Format(time.RFC3339Nano)}), "id").(string)
		time.Sleep(time.Until(soon) + 100*time.Millisecond)
		w.do("search_memory", map[string]any{"ids": []string{m3}}) // expired, shown to its author
	}
}

// conflicts remembers what contradicts earlier memories: a newer day
// supersedes the older, a less sure amount leaves both open, an explicit
// supersedes corrects; then it lists and decides the conflicts.
func (w *sweep) conflicts() {
	tue := get(w.do("remember", map[string]any{"content": "The team offsite is on Tuesday."}), "id").(string)
	wed := w.do("remember", map[string]any{"content": "The team offsite is on Wednesday."})
	if get(wed, "conflicts", 0, "older_id") != tue || get(wed, "conflicts", 0, "resolution") != "newer_wins" {
		w.t.Errorf("remember of a contradicting day = %v, want %s superseded", wed, tue)
	}
	w.do("remember", map[string]any{"content": "The offsite budget is 400 euros."})
	open := get(w.do("remember", map[string]any{"content": "The offsite budget is 600 euros.", "confidence": 0.5}), "conflicts", 0, "id").(string)
	w.do("remember", map[string]any{"content": "The offsite moved to the Lisbon office.", "supersedes": get(wed, "id")})
	w.do("search_memory", map[string]any{"ids": []string{tue}}) // superseded_by
	// A repeat with a new tag is merged: a new memory with both tags.
	wifi := get(w.do("remember", map[string]any{"content": "The office wifi is on floor 2.", "tags": []string{"office"}}), "id")
	merged := w.do("remember", map[string]any{"content": "the office wifi is on floor 2", "tags": []string{"office", "wifi"}})
	if get(merged, "outcome") != "merged" || get(merged, "merged_from") != wifi {
		w.t.Errorf("remember of a repeat with a new tag = %v, want merged from %s", merged, wifi)
	}
	w.do("list_conflicts", map[string]any{})
	w.do("list_conflicts", map[string]any{"resolutions": []string{"all"}, "limit": 5, "subject": "memories"})
	w.maybe(w.human, "list_conflicts", map[string]any{"agent_id": "other-agent"})
	w.do("resolve_conflict", map[string]any{"id": open, "keep": "both"})
	w.do("resolve_conflict", map[string]any{"id": open, "keep": "newer", "reason": "the venue raised its price"})
	w.do("list_memories", map[string]any{"states": []string{"superseded"}})
}

// sharedGates publishes what the shared space already says, and what
// contradicts it: the repeat stores nothing and returns the shared copy;
// the contradiction is stored with its conflict open, which only a human
// decides.
func (w *sweep) sharedGates() {
	ci := func(content string) string {
		return get(w.do("remember", map[string]any{"content": content, "namespace": "ci"}), "id").(string)
	}
	first := ci("The build cache lives on the NFS share.")
	shared := get(w.do("publish_memory", map[string]any{"id": first}), "id")
	w.do("forget", map[string]any{"ids": []string{first}}) // its shared copy stays
	dup := w.do("publish_memory", map[string]any{"id": ci("the build cache lives on the NFS share")})
	if get(dup, "outcome") != "duplicate" || get(dup, "duplicate_of") != shared || get(dup, "id") != shared {
		w.t.Errorf("publish_memory of what is shared = %v, want a duplicate of %s", dup, shared)
	}
	// The publish is kept as a repeat of the shared copy, and shared as its
	// own copy when its publisher says it differs.
	reps, _ := get(w.do("search_memory", map[string]any{"ids": []any{shared}}), "repeats").([]any)
	// recall_memory, retired for search_memory with ids, answers as ever.
	if old, _ := get(w.do("recall_memory", map[string]any{"ids": []any{shared}}), "repeats").([]any); len(old) != len(reps) {
		w.t.Errorf("recall_memory of %v lists %d repeats, search_memory with ids %d", shared, len(old), len(reps))
	}
	if len(reps) != 1 || get(reps[0], "tool") != "publish_memory" {
		w.t.Errorf("recall_memory of %v lists repeats %v, want the publish", shared, reps)
	} else if own := w.do("publish_memory", map[string]any{"id": get(reps[0], "from"), "not_a_repeat_of": shared}); get(own, "outcome") != "stored" {
		w.t.Errorf("publish_memory with not_a_repeat_of = %v, want a shared copy of its own", own)
	}
	monday := get(w.do("publish_memory", map[string]any{"id": ci("The release train leaves on Monday.")}), "id")
	clash := w.do("publish_memory", map[string]any{"id": ci("The release train leaves on Thursday.")})
	id, _ := get(clash, "conflicts", 0, "id").(string)
	if get(clash, "outcome") != "stored" || get(clash, "conflicts", 0, "older_id") != monday ||
		get(clash, "conflicts", 0, "resolution") != "open" || !memory.IsSharedConflict(id) {
		w.t.Fatalf("publish_memory of a contradicting day = %v, want an open conflict with %s", clash, monday)
	}
	won := w.maybe(w.human, "resolve_conflict", map[string]any{"id": id, "keep": "newer", "reason": "the train moved"})
	if w.human && (get(won, "conflict", "resolution") != "newer_wins" || get(won, "conflict", "older", "forgotten_at") == nil) {
		w.t.Errorf("a human keeping the newer shared memory = %v, want %s retracted", won, monday)
	}
}

// maintenance consolidates a group of related memories, lists and counts
// them in every state, finds the archived ones and restores one; then it
// records two finished tasks.
func (w *sweep) maintenance() {
	var ids []string
	for _, c := range []string{"The garden bed needs watering every morning.", "Planted tomatoes in the garden bed.",
		"Aphids on the garden tomatoes; sprayed soapy water.", "Harvested the first garden tomatoes."} {
		ids = append(ids, get(w.do("remember", map[string]any{"content": c, "namespace": "home", "category": "episodic",
			"tags": []string{"garden"}, "occurred_at": "2026-05-02T08:00:00Z"}), "id").(string))
	}
	w.do("consolidate_memory", map[string]any{"dry_run": true, "older_than": "0"})
	w.do("consolidate_memory", map[string]any{}) // nothing is a day old yet
	// While another process holds the maintenance lease (the sweep's own
	// store on the same file), a run does nothing and says who holds it.
	held := w.holdLease()
	if skipped, _ := w.do("consolidate_memory", map[string]any{"older_than": "0"})["skipped"].(string); !strings.Contains(skipped, "the sweep") {
		w.t.Errorf("consolidate_memory while the sweep holds the lease: skipped = %q", skipped)
	}
	w.releaseLease(held)
	rep := w.do("consolidate_memory", map[string]any{"namespace": "home", "categories": []string{"episodic"}, "dry_run": false,
		"strategy": "simple", "older_than": "0d"})
	summary := get(rep, "groups", 0, "summary_id").(string)
	source, other := get(rep, "groups", 0, "sources", 0).(string), get(rep, "groups", 0, "sources", 1).(string)
	w.maybe(w.human, "consolidate_memory", map[string]any{"agent_id": "other-agent", "older_than": "0"})
	w.do("search_memory", map[string]any{"query": "garden tomatoes aphids", "include_archived": true})
	w.do("search_memory", map[string]any{"query": "garden tomatoes aphids", "include_archived": false})
	w.do("list_memories", map[string]any{})
	w.do("list_memories", map[string]any{"categories": []string{"episodic"}, "namespaces": []string{"home"}, "tags": []string{"garden"},
		"states": []string{"active", "consolidated", "superseded", "archived", "expired", "forgotten"}, "offset": 0, "limit": 10})
	if c := w.do("list_memories", map[string]any{"counts": true, "limit": 1}); get(c, "counts", "total", "active") == nil {
		w.t.Errorf("list_memories with counts = %v, want the counts per state", c)
	}
	w.maybe(w.human, "list_memories", map[string]any{"agent_id": "other-agent", "states": []string{"active"}, "counts": true})
	w.do("memory_stats", map[string]any{}) // retired: list_memories with counts
	w.maybe(w.human, "memory_stats", map[string]any{"agent_id": "other-agent"})
	w.do("restore_memory", map[string]any{"id": source})
	whose := "other-agent" // an agent may not restore for another
	if w.human {
		whose = w.self // a human may name whose; its own works as any
	}
	w.maybe(w.human, "restore_memory", map[string]any{"id": other, "agent_id": whose})
	w.do("forget", map[string]any{"ids": []string{other}, "reason": "the bed was moved"})
	w.do("search_memory", map[string]any{"ids": append([]string{summary}, ids...)}) // the summary, forgotten with its source; its sources
	w.do("record_distillation", map[string]any{"task_id": "T-7", "outcome": "completed"})
	w.do("record_distillation", map[string]any{"task_id": "T-8", "outcome": "error", "error": "the upload test still fails",
		"summary": "Make uploads retry with backoff.", "namespace": "uploads", "turns": 12, "total_tokens": 48000,
		"tools_used": []string{"bash", "search_memory"}, "total_tool_calls": 20, "memory_tool_calls": map[string]int{"search_memory": 3}})
}

func (w *sweep) blocks() {
	w.do("memory_block_list", map[string]any{})
	w.do("memory_block_read", map[string]any{"label": "persona"})
	w.do("memory_block_create", map[string]any{"label": "goals", "description": "What this agent is working towards."})
	w.do("memory_block_create", map[string]any{"label": "board", "description": "The team's notice board.", "content": "Welcome.",
		"limit": 3000, "shared": true, "writers": []string{"*"}, "readers": []string{"ann"}, "read_only": false})
	w.maybe(w.human, "memory_block_create", map[string]any{"label": "rules", "description": "House rules.", "read_only": true, "shared": true})
	w.do("memory_block_list", map[string]any{"labels_only": true})
	w.do("memory_block_read", map[string]any{"label": "board"})
	w.do("memory_block_append", map[string]any{"label": "board", "text": "Standup at nine."}) // text: content's old name
	v := int(get(w.do("memory_block_append", map[string]any{"label": "goals", "content": "Ship v1."}), "block", "version").(float64))
	v = int(get(w.do("memory_block_append", map[string]any{"label": "goals", "content": "Write the docs.", "expected_version": v}), "block", "version").(float64))
	w.p.fail("memory_block_append", map[string]any{"label": "goals", "content": "x", "text": "y"}, "EINVALID", "give content only")
	w.do("memory_block_replace", map[string]any{"label": "goals", "old_text": "Ship v1.", "new_text": "Ship v1 by May."})
	w.do("memory_block_replace", map[string]any{"label": "goals", "old_text": "docs", "new_text": "user guide", "expected_version": v + 1})
	w.do("memory_block_insert", map[string]any{"label": "goals", "after_line": 0, "text": "Goals:"}) // text: content's old name
	v = int(get(w.do("memory_block_insert", map[string]any{"label": "goals", "after_line": 1, "content": "- first", "expected_version": v + 3}), "block", "version").(float64))
	v = int(get(w.do("memory_block_rethink", map[string]any{"label": "goals", "value": "Ship v1.", "expected_version": v}), "block", "version").(float64)) // value: content's old name
	v = int(get(w.do("memory_block_rethink", map[string]any{"label": "goals", "content": "Ship v1 by May.", "expected_version": v}), "block", "version").(float64))
	w.do("memory_block_history", map[string]any{"label": "goals"})
	w.do("memory_block_history", map[string]any{"label": "goals", "limit": 2})
	w.do("memory_block_restore", map[string]any{"label": "goals", "version": 2})
	w.do("memory_block_restore", map[string]any{"label": "goals", "version": 3, "expected_version": v + 1})
	w.do("memory_block_delete", map[string]any{"label": "goals"})
	w.do("memory_block_delete", map[string]any{"label": "board", "expected_version": 2})
	w.do("memory_block_history", map[string]any{"label": "goals"}) // the deletion is a version
}

// memoryFiles calls every command of the memory tool, with each argument.
func (w *sweep) memoryFiles() {
	const today = "/memories/notes/today.md"
	w.do("memory", map[string]any{"command": "create", "path": today, "file_text": "Standup at nine.\nShip v1.\n"})
	w.do("memory", map[string]any{"command": "create", "path": "/memories/shared/board.md", "file_text": "Welcome.",
		"description": "The team's notice board.", "limit": 3000, "writers": []string{"*"}, "readers": []string{"ann"}, "read_only": false})
	w.maybe(w.human, "memory", map[string]any{"command": "create", "path": "/memories/shared/house.md", "file_text": "Be kind.", "read_only": true})
	w.do("memory", map[string]any{"command": "view", "path": "/memories"})
	w.do("memory", map[string]any{"command": "view", "path": "/memories/notes"})
	hash := get(w.do("memory", map[string]any{"command": "view", "path": today, "view_range": []int{1, -1}}), "sha256").(string)
	w.do("memory", map[string]any{"command": "str_replace", "path": today, "old_str": "Ship v1.", "new_str": "Ship v1 by May.", "expected_hash": hash[:12]})
	w.do("memory", map[string]any{"command": "str_replace", "path": today, "old_str": "nine", "new_str": "ten", "expected_version": 2})
	w.do("memory", map[string]any{"command": "insert", "path": today, "insert_line": 0, "insert_text": "# Today"})
	w.do("memory", map[string]any{"command": "rename", "old_path": today, "new_path": "/memories/notes/monday.md"})
	w.do("memory", map[string]any{"command": "history", "path": today})
	w.do("memory", map[string]any{"command": "history", "path": today, "limit": 2})
	w.do("memory", map[string]any{"command": "restore", "path": today, "version": 2})
	w.do("memory", map[string]any{"command": "delete", "path": "/memories/notes/monday.md", "expected_version": 1})
	w.do("memory", map[string]any{"command": "delete", "path": "/memories/shared/board.md"})
}

func (w *sweep) notes() {
	for _, text := range []string{"issue: upload_retry: uploads retry forever on slow networks",
		"issue: flaky auth test times out on CI", "issue: flaky upload test times out on CI", "issue: disk_full: the CI runner disk is full"} {
		w.do("write_note", map[string]any{"content": text})
	}
	w.do("promote_notes", map[string]any{"limit": 2}) // two remain
	w.do("promote_notes", map[string]any{})
	w.do("write_note", map[string]any{"content": "result: p95 upload time 4.1 s", "kind": "agent", "task_id": "T-7", "promote": true})
	w.do("write_note", map[string]any{"content": "task T-7: blocked\nwaiting on the CDN", "promote": true})
	w.do("write_note", map[string]any{"content": "the upload fix works", "kind": "tool_result", "promote": true}) // ignored
	w.do("write_note", map[string]any{"content": "fixed:", "promote": true})                                      // rejected: names nothing
	w.do("write_note", map[string]any{"content": "fixed: the flaky test", "promote": true})                       // waits: two rows fit
	w.do("write_note", map[string]any{"content": "[issues/resolve upload_retry] backoff capped", "kind": "tool_result", "promote": true})
	w.do("write_note", map[string]any{"content": "fixed: disk_full by pruning old images", "promote": true}) // commits, and retries the flaky test
	w.do("shared_state", map[string]any{})
	w.do("shared_state", map[string]any{"bucket": "issues", "status": "resolved", "limit": 10})
	pending := w.do("list_reviews", map[string]any{})
	w.do("list_reviews", map[string]any{"all": true, "limit": 10})
	w.do("list_pending", map[string]any{"all": true, "limit": 10}) // retired: list_reviews
	find := func(raw string) any {
		for _, it := range get(pending, "pending").([]any) {
			if get(it, "raw_input") == raw {
				return get(it, "pending_id")
			}
		}
		w.t.Fatalf("no pending item for %q in %v", raw, pending)
		return nil
	}
	// Tool output may not close an issue: a curator binds it (and the commit
	// retries the queue), and drops the note that names no one issue.
	w.maybe(w.human, "resolve_pending", map[string]any{"pending_id": find("[issues/resolve upload_retry] backoff capped"), "target_id": "upload_retry"})
	w.maybe(w.human, "resolve_pending", map[string]any{"pending_id": find("fixed: the flaky test"), "drop_reason": "names no one issue"})
	w.do("list_reviews", map[string]any{"all": true}) // resolutions
}

// approvals lists what waits for a human. An agent sees its own requests
// (its held writes and those under review) and may not decide; the human
// approves another agent's held retraction, which is then applied as that
// agent, rejects its held fact retraction, and approves a review.
func (w *sweep) approvals() {
	if !w.human {
		mine := get(w.do("list_reviews", map[string]any{}), "approvals").([]any)
		pending := get(w.do("list_reviews", map[string]any{"status": "pending", "limit": 50}), "approvals").([]any)
		if old := get(w.do("list_approvals", map[string]any{"status": "pending", "limit": 50}), "approvals").([]any); len(old) != len(pending) {
			w.t.Errorf("list_approvals (retired) lists %d pending requests, list_reviews %d", len(old), len(pending))
		}
		holds := 0
		for _, a := range mine {
			if get(a, "caller", "agent_id") != w.self {
				w.t.Errorf("agent %s sees another's request %v", w.self, a)
			}
			if get(a, "kind") == "hold" && get(a, "status") == "pending" {
				holds++
			}
		}
		if holds != w.holds || len(pending) < holds {
			w.t.Errorf("list_reviews shows %d pending holds (%d pending in all), want the %d held writes", holds, len(pending), w.holds)
		}
		w.maybe(false, "decide_approval", map[string]any{"id": get(mine, 0, "id"), "approve": true, "reason": "looks right"})
		return
	}
	pending := get(w.do("list_reviews", map[string]any{"status": "pending", "limit": 10}), "approvals").([]any)
	find := func(kind, tool string) string {
		for _, a := range pending {
			if get(a, "kind") == kind && get(a, "tool") == tool && get(a, "caller", "agent_id") == "other-agent" {
				return get(a, "id").(string)
			}
		}
		w.t.Fatalf("no pending %s of %s in %v", kind, tool, pending)
		return ""
	}
	hold, factHold, review := find("hold", "retract_memory"), find("hold", "retract_fact"), find("review", "publish_memory")
	a := w.do("decide_approval", map[string]any{"id": hold, "approve": true, "reason": "the garden is gone"})
	if get(a, "approval", "status") != "approved" || get(a, "approval", "ref") == nil || get(a, "approval", "error") != nil {
		w.t.Errorf("approving the held retraction = %v, want it applied", a)
	}
	w.p.fail("decide_approval", map[string]any{"id": hold, "approve": false, "reason": "changed my mind"}, "ECONFLICT", "already decided: approved by human:"+w.self)
	a = w.do("decide_approval", map[string]any{"id": factHold, "approve": false, "reason": "the garden still opens"})
	if get(a, "approval", "status") != "rejected" || !strings.HasPrefix(get(a, "approval", "error").(string), "EFORBIDDEN: ") {
		w.t.Errorf("rejecting the held fact retraction = %v", a)
	}
	w.do("decide_approval", map[string]any{"id": review, "approve": true, "reason": "fine to share"})
	w.p.fail("decide_approval", map[string]any{"id": "apr-000000000000", "approve": true, "reason": "?"}, "ENOTFOUND", "list_reviews")
	w.do("list_reviews", map[string]any{"status": "approved"})
	w.do("list_approvals", map[string]any{}) // retired: list_reviews
	if all := get(w.do("list_reviews", map[string]any{}), "approvals").([]any); len(all) != len(pending) {
		w.t.Errorf("list_reviews = %d requests, want the %d decided", len(all), len(pending))
	}
}

func (w *sweep) prompts() {
	w.prompt("org_policies", nil)
	w.prompt("memory_context", map[string]string{"query": "staging database"})
	w.prompt("memory_context", map[string]string{"query": "billing deploy", "token_budget": "500",
		"categories": "semantic,episodic", "min_relevance": "0.1"})
	w.prompt("core_memory", nil)
}

// templateValues are values for every resource template variable.
var templateValues = map[string]string{
	"as_of":   "2026-01-01T00:00:00Z",
	"fact_id": "adr-store",
	"label":   "persona",
	"bucket":  "issues",
	"window":  "1h",
}

func (w *sweep) resources() {
	ctx := context.Background()
	rs, err := w.p.cs.ListResources(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, r := range rs.Resources {
		w.readURI(r.URI)
	}
	ts, err := w.p.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, rt := range ts.ResourceTemplates {
		tmpl, err := uritemplate.New(rt.URITemplate)
		if err != nil {
			w.t.Fatal(err)
		}
		values := uritemplate.Values{}
		for _, name := range tmpl.Varnames() {
			v, ok := templateValues[name]
			if !ok {
				w.t.Fatalf("template %s: no value for {%s}: add one to templateValues", rt.URITemplate, name)
			}
			values.Set(name, uritemplate.String(v))
		}
		uri, err := tmpl.Expand(values)
		if err != nil {
			w.t.Fatal(err)
		}
		w.readURI(uri)
	}
}

// covered fails for anything listed that the sweep left out: a tool or
// prompt not called, an argument never given or never left out, a resource
// or template never read. And the list fits the caller: a tool every call
// of which was refused (EFORBIDDEN) is not listed, nor an argument that only
// refused calls gave.
func (w *sweep) covered() {
	ctx := context.Background()
	tl, err := w.p.cs.ListTools(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range tl.Tools {
		var sch struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &sch)
		listed[tool.Name] = true
		if use, ok := tools.Retired()[tool.Name]; ok {
			w.t.Errorf("%s is retired (use %s), but listed", tool.Name, use)
		}
		w.coveredArgs(tool.Name, keys(sch.Properties), sch.Required)
		for _, a := range keys(sch.Properties) {
			if w.onlyRefused(tool.Name, a) {
				w.t.Errorf("%s lists argument %s, but every call that gave it was refused", tool.Name, a)
			}
		}
	}
	for tool := range w.refused {
		if len(w.args[tool]) == 0 && listed[tool] {
			w.t.Errorf("%s is listed, but every call of it was refused", tool)
		}
	}
	pl, err := w.p.cs.ListPrompts(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, p := range pl.Prompts {
		var names, required []string
		for _, a := range p.Arguments {
			names = append(names, a.Name)
			if a.Required {
				required = append(required, a.Name)
			}
		}
		w.coveredArgs("prompt "+p.Name, names, required)
	}
	// resources() reads every listed resource and template by construction.
}

// onlyRefused reports whether arg was given to tool only in refused calls.
func (w *sweep) onlyRefused(tool, arg string) bool {
	for _, c := range w.args[tool] {
		if c[arg] {
			return false
		}
	}
	for _, c := range w.refused[tool] {
		if c[arg] {
			return true
		}
	}
	return false
}

func (w *sweep) coveredArgs(name string, args, required []string) {
	calls := w.args[name]
	if len(calls) == 0 {
		w.t.Errorf("%s is listed but the sweep never calls it", name)
		return
	}
	for _, a := range args {
		given, left := false, false
		for _, c := range calls {
			given, left = given || c[a], left || !c[a]
		}
		switch {
		case !given:
			w.t.Errorf("%s: argument %s is never given", name, a)
		case !left && !slices.Contains(required, a) && a != "idempotency_key": // given only on a tool's first call
			w.t.Errorf("%s: optional argument %s is never left out", name, a)
		}
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
