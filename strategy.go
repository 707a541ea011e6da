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
	// model rewrites them with the memory tool (and the memory_block_* tools
	// when a server offers them).
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

// Offers reports whether s offers a tool or prompt that only strategy only
// offers, "" meaning every strategy: writing memory, organisational facts and
// the governed promotion path are the same in all of them (without remember,
// a context or tool-based agent could never store what the next session
// should know); strategies differ in how memory is read back. Each MCP
// surface declares, next to its registrations, which strategy offers what.
func (s Strategy) Offers(only Strategy) bool {
	return only == "" || s == StrategyAll || s == only
}
