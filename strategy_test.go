package memory_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestStrategyOffers(t *testing.T) {
	for _, only := range memory.Strategies {
		for _, st := range memory.Strategies {
			want := st == only || st == memory.StrategyAll
			if got := st.Offers(only); got != want {
				t.Errorf("%s.Offers(what only %s offers) = %v, want %v", st, only, got, want)
			}
			if !st.Offers("") {
				t.Errorf("%s does not offer what every strategy offers", st)
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
