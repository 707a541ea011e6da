package memory

// Token estimates and packing into a budget: how much stored text a model
// is shown (seed 004's context injection). The memory_context prompt packs
// its search results with them; they are the domain's measure of stored
// text, so a service that counts or packs tokens uses the same one.

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Token budgets for formatted memory context.
const (
	DefaultTokenBudget = 1000
	MinTokenBudget     = 100
	MaxTokenBudget     = 100000
)

// CheckTokenBudget validates a token budget: 0 means the default.
func CheckTokenBudget(budget int) (int, error) {
	if budget == 0 {
		return DefaultTokenBudget, nil
	}
	if budget < MinTokenBudget || budget > MaxTokenBudget {
		return 0, Errorf(EINVALID, "token_budget %d is out of range: use %d to %d", budget, MinTokenBudget, MaxTokenBudget)
	}
	return budget, nil
}

// EstimateTokens approximates what text costs a model in tokens. English runs
// at about four bytes a token; Chinese, Japanese and most other scripts at a
// token a character or more, so every character outside ASCII counts as one.
// Rounding up keeps packing on the safe side.
func EstimateTokens(text string) int {
	ascii, other := 0, 0
	for _, r := range text {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}

// Pack chooses greedily, in rank order, the items whose costs fit in budget:
// an item that does not fit is skipped and later, smaller ones still get
// their turn. It returns the chosen indexes in order.
func Pack(costs []int, budget int) []int {
	var out []int
	for i, c := range costs {
		if c <= budget {
			out = append(out, i)
			budget -= c
		}
	}
	return out
}

// ContextBlock renders one memory as a fenced data block labelled with its id,
// category, when it happened and whether it is shared.
func ContextBlock(h Hit) string {
	label := fmt.Sprintf("memory %s; %s; occurred %s", h.ID, h.Category, h.OccurredAt.Format(time.DateOnly))
	if h.Shared {
		label += "; shared by " + h.AgentID
	}
	return Fence(label, h.Content)
}

// FormatContext packs ranked hits into a token budget as fenced data blocks
// after DataDirective, which is counted against the budget too. It returns the
// text and how many memories it holds; when none fit the text is empty, so
// the directive never appears alone.
func FormatContext(hits []Hit, budget int) (string, int) {
	header := DataDirective + "\n\n"
	blocks := make([]string, len(hits))
	costs := make([]int, len(hits))
	for i, h := range hits {
		blocks[i] = ContextBlock(h) + "\n"
		costs[i] = EstimateTokens(blocks[i])
	}
	chosen := Pack(costs, budget-EstimateTokens(header))
	if len(chosen) == 0 {
		return "", 0
	}
	var b strings.Builder
	b.WriteString(header)
	for _, i := range chosen {
		b.WriteString(blocks[i])
	}
	return strings.TrimRight(b.String(), "\n"), len(chosen)
}
