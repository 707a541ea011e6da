package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/yosida95/uritemplate/v3"

	memory "github.com/memory-mcp/memory-mcp"
)

// TestEveryCallForEveryIdentity is what a user's client meets: as the human
// operator and as an agent of every seniority and autonomy, it calls every
// tool the server lists with valid arguments — each optional argument both
// given and left out, so optional result fields are present and absent —
// gets every prompt and reads every resource and template. The checking wire
// (wire_test.go) holds each answer to what the server declares, as the
// official TypeScript SDK does. Anything listed but not exercised fails the
// test, so a new tool, prompt or template is covered by being added here.
func TestEveryCallForEveryIdentity(t *testing.T) {
	type identity struct {
		name string
		args []string
	}
	ids := []identity{{"human", []string{"--agent-id", "olivia", "--human"}}}
	autonomies := []string{"locked", "supervised", "semi", "full"}
	for _, sen := range memory.Seniorities {
		for _, aut := range autonomies {
			ids = append(ids, identity{fmt.Sprintf("%s-%s", sen, aut),
				[]string{"--agent-id", "agent-" + string(sen), "--seniority", string(sen), "--autonomy", aut}})
		}
	}
	for _, id := range ids {
		t.Run(id.name, func(t *testing.T) {
			w := newSweep(t, startIn(t, options{args: id.args}))
			w.human = slices.Contains(id.args, "--human")
			w.senior = w.human || slices.Contains([]string{"senior", "lead", "principal"}, id.args[3])
			w.run()
			w.covered()
		})
	}
}

// sweep drives one server through every call and records what it used.
type sweep struct {
	t             *testing.T
	p             *proc
	human, senior bool
	args          map[string][]map[string]bool // tool or prompt -> the argument names of each call
}

func newSweep(t *testing.T, p *proc) *sweep {
	return &sweep{t: t, p: p, args: map[string][]map[string]bool{}}
}

func (w *sweep) note(name string, args map[string]any) {
	names := map[string]bool{}
	for k := range args {
		names[k] = true
	}
	w.args[name] = append(w.args[name], names)
}

// do calls a tool that must succeed and returns its structured result.
func (w *sweep) do(tool string, args map[string]any) map[string]any {
	w.t.Helper()
	w.note(tool, args)
	res := w.p.call(tool, args)
	if res.IsError {
		w.t.Fatalf("%s(%v): %s", tool, args, text(res))
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
	w.note(tool, args)
	w.p.fail(tool, args, "EFORBIDDEN", "")
	return nil
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
	w.blocks()
	w.notes()
	w.prompts()
	w.resources()
}

func (w *sweep) facts() {
	f := w.do("publish_fact", map[string]any{"content": "Every service logs in JSON lines.", "category": "convention"})
	derived := get(f, "fact", "fact_id").(string)
	w.do("publish_fact", map[string]any{"fact_id": "adr-store", "content": "We keep memory in one SQLite file.",
		"category": "adr", "tags": []string{"storage", "superseded_by:adr-store-2"}, "expected_version": 0})
	w.maybe(w.senior, "publish_fact", map[string]any{"fact_id": "policy-secrets", "content": "Never log secrets.", "category": "core_policy"})
	w.do("get_fact", map[string]any{"fact_id": "adr-store"})
	w.do("get_fact", map[string]any{"fact_id": "adr-store", "include_history": true})
	w.do("query_facts", map[string]any{})
	w.do("query_facts", map[string]any{"query": "SQLite memory", "categories": []string{"adr"}, "tags": []string{"storage"},
		"as_of": time.Now().UTC().Format(time.RFC3339Nano), "limit": 5})
	w.do("list_facts", map[string]any{"category": "adr"})
	w.do("list_facts", map[string]any{"category": "convention", "offset": 0, "limit": 10})
	w.do("retract_fact", map[string]any{"fact_id": derived})
	w.do("publish_fact", map[string]any{"fact_id": "adr-old", "content": "We kept memory in JSON files.", "category": "adr"})
	w.do("retract_fact", map[string]any{"fact_id": "adr-old", "reason": "replaced by adr-store", "expected_version": 1})
	w.do("get_fact", map[string]any{"fact_id": "adr-old", "include_history": true}) // retracted_at present
}

func (w *sweep) memories() {
	m1 := get(w.do("remember", map[string]any{"content": "The staging database is Postgres 16 on db-staging-1."}), "id").(string)
	m2 := get(w.do("remember", map[string]any{"content": "Deployed billing 2.3 to staging on a Friday; it rolled back.",
		"category": "episodic", "namespace": "billing", "tags": []string{"deploy"}, "confidence": 0.8, "source": "user said",
		"occurred_at": "2026-03-06T16:00:00Z", "expires_at": time.Now().Add(240 * time.Hour).UTC().Format(time.RFC3339)}), "id").(string)
	w.do("search_memory", map[string]any{"query": "staging database"})
	w.do("search_memory", map[string]any{"query": "billing deploy rolled back", "scope": "personal", "categories": []string{"episodic"},
		"tags": []string{"deploy"}, "namespaces": []string{"billing"}, "since": "2026-01-01T00:00:00Z", "until": "2027-01-01T00:00:00Z",
		"limit": 5, "min_relevance": 0})
	w.do("search_memory", map[string]any{"query": "nothing like this was ever stored zebra"}) // no results
	shared := get(w.do("publish_memory", map[string]any{"id": m1}), "id").(string)
	w.do("recall_memory", map[string]any{"ids": []string{m1, m2, shared}})
	w.do("retract_memory", map[string]any{"id": shared})
	w.do("forget", map[string]any{"id": m2})
	w.do("forget", map[string]any{"id": m1, "reason": "moved to db-staging-2"})
	w.do("recall_memory", map[string]any{"ids": []string{m1, m2, shared}}) // forgotten, retracted
}

func (w *sweep) blocks() {
	w.do("memory_block_list", map[string]any{})
	w.do("memory_block_list", map[string]any{"labels_only": true})
	w.do("memory_block_read", map[string]any{"label": "persona"})
	w.do("memory_block_create", map[string]any{"label": "goals", "description": "What this agent is working towards."})
	w.do("memory_block_create", map[string]any{"label": "board", "description": "The team's notice board.", "value": "Welcome.",
		"limit": 3000, "shared": true, "writers": []string{"*"}, "readers": []string{"ann"}, "read_only": false})
	w.maybe(w.human, "memory_block_create", map[string]any{"label": "rules", "description": "House rules.", "read_only": true, "shared": true})
	v := int(get(w.do("memory_block_append", map[string]any{"label": "goals", "text": "Ship v1."}), "block", "version").(float64))
	v = int(get(w.do("memory_block_append", map[string]any{"label": "goals", "text": "Write the docs.", "expected_version": v}), "block", "version").(float64))
	w.do("memory_block_replace", map[string]any{"label": "goals", "old_text": "Ship v1.", "new_text": "Ship v1 by May."})
	w.do("memory_block_replace", map[string]any{"label": "goals", "old_text": "docs", "new_text": "user guide", "expected_version": v + 1})
	w.do("memory_block_insert", map[string]any{"label": "goals", "after_line": 0, "text": "Goals:"})
	v = int(get(w.do("memory_block_insert", map[string]any{"label": "goals", "after_line": 1, "text": "- first", "expected_version": v + 3}), "block", "version").(float64))
	v = int(get(w.do("memory_block_rethink", map[string]any{"label": "goals", "value": "Ship v1 by May.", "expected_version": v}), "block", "version").(float64))
	w.do("memory_block_history", map[string]any{"label": "goals"})
	w.do("memory_block_history", map[string]any{"label": "goals", "limit": 2})
	w.do("memory_block_restore", map[string]any{"label": "goals", "version": 2})
	w.do("memory_block_restore", map[string]any{"label": "goals", "version": 3, "expected_version": v + 1})
	w.do("memory_block_delete", map[string]any{"label": "goals"})
	w.do("memory_block_delete", map[string]any{"label": "board", "expected_version": 1})
	w.do("memory_block_history", map[string]any{"label": "goals"}) // the deletion is a version
}

func (w *sweep) notes() {
	w.do("write_note", map[string]any{"text": "issue: upload_retry: uploads retry forever on slow networks"})
	w.do("promote_notes", map[string]any{})
	w.do("write_note", map[string]any{"text": "result: p95 upload time 4.1 s", "kind": "agent", "task_id": "T-7", "promote": true})
	w.do("write_note", map[string]any{"text": "the upload fix works", "kind": "tool_result", "promote": true}) // ignored
	w.do("write_note", map[string]any{"text": "fixed: the flaky thing", "promote": true})                      // waits: names nothing
	w.do("write_note", map[string]any{"text": "[issues/resolve upload_retry] backoff capped", "kind": "tool_result"})
	w.do("promote_notes", map[string]any{"limit": 5}) // tool output may not close an issue: it waits for a curator
	w.do("shared_state", map[string]any{})
	w.do("shared_state", map[string]any{"bucket": "issues", "status": "open", "limit": 10})
	pending := w.do("list_pending", map[string]any{})
	w.do("list_pending", map[string]any{"all": true, "limit": 10})
	items := get(pending, "pending").([]any)
	if len(items) < 2 {
		w.t.Fatalf("want two pending items, have %v", items)
	}
	id := func(i int) any { return get(items[i], "pending_id") }
	w.maybe(w.human, "resolve_pending", map[string]any{"pending_id": id(0), "drop_reason": "names no issue"})
	w.maybe(w.human, "resolve_pending", map[string]any{"pending_id": id(1), "target_id": "upload_retry"})
	w.do("list_pending", map[string]any{"all": true}) // resolutions present
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
// or template never read.
func (w *sweep) covered() {
	ctx := context.Background()
	tl, err := w.p.cs.ListTools(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		var sch struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &sch)
		w.coveredArgs(tool.Name, keys(sch.Properties), sch.Required)
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
		case !left && !slices.Contains(required, a):
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
