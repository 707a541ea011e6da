package memory

import (
	"slices"
	"strings"
)

// Strategy is how stored memory reaches the model (seed 004, "Injection"):
// the client places it in the context, the model fetches it with tools, or the
// model keeps core memory blocks it edits itself. It decides which MCP tools
// and prompts a server offers.
type Strategy string

// Injection strategies.
const (
	// StrategyContext: the client inserts the memory_context prompt before the
	// conversation; the model gets no retrieval tools.
	StrategyContext Strategy = "context"
	// StrategyToolBased: the model calls search_memory and recall_memory when
	// it needs to remember.
	StrategyToolBased Strategy = "tool_based"
	// StrategySelfEditing: the core_memory prompt shows the blocks and the
	// model rewrites them with the memory_block_* tools.
	StrategySelfEditing Strategy = "self_editing"
	// StrategyAll offers everything.
	StrategyAll Strategy = "all"
)

// Strategies lists every strategy in documentation order.
var Strategies = []Strategy{StrategyContext, StrategyToolBased, StrategySelfEditing, StrategyAll}

// ParseStrategy validates a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	st := Strategy(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Strategies, st) {
		return st, nil
	}
	return "", Errorf(EINVALID, "unknown strategy %q: use one of context, tool_based, self_editing, all", s)
}

// AlwaysOffered are the tools and prompts every strategy offers. Strategies
// differ in how memory is read back; writing memory (remember, forget,
// publishing to shared knowledge), organisational facts and the governed
// promotion path are the same in all of them: without remember, a context or
// tool-based agent could never store what the next session should know.
var AlwaysOffered = []string{
	// agent memory writes (issue 3)
	"remember", "forget", "publish_memory", "retract_memory",
	// organisational facts
	"publish_fact", "retract_fact", "get_fact", "query_facts", "list_facts", "org_policies",
	// governed promotion of notes into shared state
	"write_note", "promote_notes", "shared_state", "list_pending", "resolve_pending",
}

// strategyOffers names the tools and prompts only some strategies offer; this
// table and AlwaysOffered are the whole of the strategy switch.
var strategyOffers = map[Strategy][]string{
	StrategyContext:   {"memory_context"},
	StrategyToolBased: {"search_memory", "recall_memory"},
	StrategySelfEditing: {"core_memory", "memory_block_list", "memory_block_read", "memory_block_create",
		"memory_block_append", "memory_block_replace", "memory_block_insert", "memory_block_rethink",
		"memory_block_delete", "memory_block_history", "memory_block_restore"},
}

// Offers reports whether the strategy offers the tool or prompt called name.
// A name the table does not classify is offered, so that a new tool is never
// hidden by accident; Classified lets a test insist that every tool is listed.
func (s Strategy) Offers(name string) bool {
	if s == StrategyAll || slices.Contains(AlwaysOffered, name) {
		return true
	}
	if slices.Contains(strategyOffers[s], name) {
		return true
	}
	return !Classified(name)
}

// Classified reports whether name appears in the strategy table.
func Classified(name string) bool {
	if slices.Contains(AlwaysOffered, name) {
		return true
	}
	for _, names := range strategyOffers {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}
