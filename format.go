package memory

import (
	"context"
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

// ContextMinRelevance is context injection's default min_relevance: a
// memory scoring below it ranked low in every list that found it, and would
// only dilute what is injected.
const ContextMinRelevance = 0.2

// ContextLimit is how many ranked memories context injection considers
// before packing them into the budget.
const ContextLimit = 50

// ContextFor is seed 004's context-injection strategy: search svc for q (up to
// ContextLimit hits) and pack the ranked memories into budget tokens as
// fenced data. It returns the text and how many memories it holds.
func ContextFor(ctx context.Context, svc MemoryService, q Query, budget int) (string, int, error) {
	budget, err := CheckTokenBudget(budget)
	if err != nil {
		return "", 0, err
	}
	q.Limit = ContextLimit
	if q.MinRelevance == nil {
		m := ContextMinRelevance
		q.MinRelevance = &m
	}
	hits, err := svc.Search(ctx, q)
	if err != nil {
		return "", 0, err
	}
	text, n := FormatContext(hits, budget)
	return text, n, nil
}
