package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm/prompt"
)

// judgementSchema is the reply the contradiction prompt asks for.
var judgementSchema = Schema{
	Name:        "contradiction",
	Description: "whether the newer memory contradicts the older, or says the same",
	JSON: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["contradicts", "same", "score", "reason"],
		"properties": {"contradicts": {"type": "boolean"}, "same": {"type": "boolean"}, "score": {"type": "number"}, "reason": {"type": "string"}}}`),
	MaxTokens: 200,
}

// NewJudge returns a judge of contradictions and paraphrases that asks the model behind chat,
// each call bounded by timeout (0: none).
func NewJudge(chat ChatFunc, timeout time.Duration) memory.ContradictionJudge {
	return func(ctx context.Context, older, newer string) (memory.Judgement, error) {
		system, user, err := prompt.Contradiction(prompt.ContradictionData{Older: older, Newer: newer})
		if err != nil {
			return memory.Judgement{}, err
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		var reply struct {
			Contradicts bool    `json:"contradicts"`
			Same        bool    `json:"same"`
			Score       float64 `json:"score"`
			Reason      string  `json:"reason"`
		}
		if err := chat(ctx, system, user, judgementSchema, &reply); err != nil {
			return memory.Judgement{}, err
		}
		if math.IsNaN(reply.Score) || reply.Score < 0 || reply.Score > 1 {
			return memory.Judgement{}, fmt.Errorf("model judged with score %v, not a number from 0 to 1", reply.Score)
		}
		reason := []rune(reply.Reason)
		if len(reason) > 200 {
			reason = reason[:200]
		}
		if reply.Contradicts && reply.Same {
			// Both at once is no reading at all: it counts as unsure, and
			// the rules decide this pair (the other pairs are still asked).
			reply.Contradicts, reply.Same, reply.Score = false, false, 0
		}
		return memory.Judgement{Contradicts: reply.Contradicts, Same: reply.Same, Score: reply.Score, Reason: string(reason)}, nil
	}
}
