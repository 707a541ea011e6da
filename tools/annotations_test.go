package tools_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
	"github.com/memory-mcp/memory-mcp/promotion"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// registered returns every tool Register adds when every service is there,
// the memory_block_* tools too. The services are never called: registering
// only reads their presence.
func registered(t *testing.T) map[string]*server.ServerTool {
	return registeredWith(true)
}

func registeredWith(blockTools bool) map[string]*server.ServerTool {
	s := server.NewMCPServer("test", "1")
	tools.Register(s, tools.Services{Facts: (*store.FactService)(nil), Memories: (*store.MemoryService)(nil),
		Blocks: (*store.BlockService)(nil), Promotion: (*promotion.Pipeline)(nil), Consolidation: (*consolidation.Service)(nil),
		BlockTools: blockTools})
	return s.ListTools()
}

// TestMemoryToolReplacesTheBlockTools: by default the memory tool alone
// offers the blocks; the ten memory_block_* tools only when asked for.
func TestMemoryToolReplacesTheBlockTools(t *testing.T) {
	for _, blockTools := range []bool{false, true} {
		all := registeredWith(blockTools)
		if all["memory"] == nil {
			t.Errorf("block tools %v: the memory tool is not registered", blockTools)
		}
		n := 0
		for name := range all {
			if strings.HasPrefix(name, "memory_block_") {
				n++
			}
		}
		if want := map[bool]int{false: 0, true: 10}[blockTools]; n != want {
			t.Errorf("block tools %v: %d memory_block_* tools registered, want %d", blockTools, n, want)
		}
	}
}

func TestEveryToolTellsClientsWhatItDoes(t *testing.T) {
	all := registered(t)
	if len(all) < 26 {
		t.Fatalf("only %d tools registered", len(all))
	}
	for name, st := range all {
		a := st.Tool.Annotations
		switch {
		case st.Tool.Title == "" || a.Title != st.Tool.Title:
			t.Errorf("%s: title %q, annotations title %q", name, st.Tool.Title, a.Title)
		case a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil:
			t.Errorf("%s: a hint is left to the client's default (mcp-go and the spec default destructive and open-world to true): %+v", name, a)
		case *a.OpenWorldHint:
			t.Errorf("%s: says it reaches an open world; a local store is closed", name)
		case *a.ReadOnlyHint && (*a.DestructiveHint || !*a.IdempotentHint):
			t.Errorf("%s: read-only but destructive or not idempotent", name)
		}
	}
}

// TestAnnotationsSayWhatTheToolsDo holds the table to what the tools do:
// reads change nothing, and what may replace, close or hide data (not only
// add) says so. (That the reads change nothing is checked against the
// change feed by the end-to-end sweep.)
func TestAnnotationsSayWhatTheToolsDo(t *testing.T) {
	all := registered(t)
	reads := []string{"get_fact", "query_facts", "list_facts", "search_memory", "recall_memory", "memory_block_list",
		"memory_block_read", "memory_block_history", "shared_state", "list_pending", "list_memories", "memory_stats", "list_conflicts"}
	hides := []string{"retract_fact", "forget", "retract_memory", "memory_block_delete", "resolve_pending",
		"publish_fact", "memory_block_replace", "memory_block_rethink", "memory_block_restore", "write_note", "promote_notes",
		"consolidate_memory",           // consolidating archives its sources: out of default search
		"memory",                       // str_replace, delete and rename replace or hide what is there
		"remember", "resolve_conflict"} // a superseded memory leaves search
	repeatsAdd := []string{"publish_fact", "remember", "memory_block_append", "memory_block_insert", "write_note", "record_distillation"}
	for name, st := range all {
		a := st.Tool.Annotations
		if got, want := *a.ReadOnlyHint, slices.Contains(reads, name); got != want {
			t.Errorf("%s: readOnlyHint %v, want %v", name, got, want)
		}
		if got, want := *a.DestructiveHint, slices.Contains(hides, name); got != want {
			t.Errorf("%s: destructiveHint %v, want %v", name, got, want)
		}
		if slices.Contains(repeatsAdd, name) && *a.IdempotentHint {
			t.Errorf("%s: a repeat adds again, but it says it is idempotent", name)
		}
	}
	for _, name := range slices.Concat(reads, hides, repeatsAdd) {
		if all[name] == nil {
			t.Errorf("%s is not registered", name)
		}
	}
}

// TestEachStrategyOffersItsTools: search and recall are the tool_based
// strategy's, the block tools the self_editing strategy's, the rest common.
func TestEachStrategyOffersItsTools(t *testing.T) {
	var list []mcp.Tool
	for _, st := range registered(t) {
		list = append(list, st.Tool)
	}
	offered := func(st memory.Strategy) []string {
		var names []string
		for _, tool := range tools.Filter(st)(context.Background(), list) {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	all := offered(memory.StrategyAll)
	for _, st := range memory.Strategies {
		for _, name := range all {
			want := st == memory.StrategyAll || ownStrategy(name) == "" || ownStrategy(name) == st
			if got := slices.Contains(offered(st), name); got != want {
				t.Errorf("strategy %s offers %s: %v, want %v", st, name, got, want)
			}
		}
	}
}

// ownStrategy is the strategy a tool belongs to by what it does.
func ownStrategy(name string) memory.Strategy {
	switch {
	case strings.HasPrefix(name, "memory_block_") || name == "memory":
		return memory.StrategySelfEditing
	case name == "search_memory" || name == "recall_memory" || name == "list_memories":
		return memory.StrategyToolBased
	}
	return ""
}
