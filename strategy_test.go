package memory_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestStrategyOffers(t *testing.T) {
	tests := []struct {
		name string
		in   []memory.Strategy // strategies that offer it; all others must not
	}{
		{"memory_context", []memory.Strategy{memory.StrategyContext, memory.StrategyAll}},
		{"search_memory", []memory.Strategy{memory.StrategyToolBased, memory.StrategyAll}},
		{"recall_memory", []memory.Strategy{memory.StrategyToolBased, memory.StrategyAll}},
		{"core_memory", []memory.Strategy{memory.StrategySelfEditing, memory.StrategyAll}},
		{"memory_block_rethink", []memory.Strategy{memory.StrategySelfEditing, memory.StrategyAll}},
		{"remember", memory.Strategies},
		{"forget", memory.Strategies},
		{"publish_fact", memory.Strategies},
		{"resolve_pending", memory.Strategies},
		{"some_future_tool", memory.Strategies}, // unclassified names are never hidden
	}
	for _, tt := range tests {
		for _, st := range memory.Strategies {
			want := false
			for _, in := range tt.in {
				want = want || in == st
			}
			if got := st.Offers(tt.name); got != want {
				t.Errorf("%s.Offers(%s) = %v, want %v", st, tt.name, got, want)
			}
		}
	}
}

func TestParseStrategy(t *testing.T) {
	for _, in := range []string{"context", " Tool_Based ", "self_editing", "all"} {
		if _, err := memory.ParseStrategy(in); err != nil {
			t.Errorf("ParseStrategy(%q): %v", in, err)
		}
	}
	if _, err := memory.ParseStrategy("telepathy"); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("ParseStrategy(telepathy) = %v", err)
	}
}
