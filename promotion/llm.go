package promotion

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/prompts"
)

// ChatFunc is the LLM seam: one structured chat call whose JSON reply is
// decoded into out (llm.Client.ChatJSON).
type ChatFunc func(ctx context.Context, system, user string, schema llm.Schema, out any) error

// LLMInterpreter interprets notes with a model. The model only proposes:
// its answer passes the same resolver and validator as the rules', and when
// the call fails, times out, is refused, or returns something malformed or
// invalid, the note is interpreted by the rules instead (and the reason is
// logged and recorded as the interpreter).
type LLMInterpreter struct {
	Chat    ChatFunc
	Timeout time.Duration // per note; 0 means 30s
	Log     *slog.Logger
}

// Interpret implements InterpretFunc.
func (li *LLMInterpreter) Interpret(ctx context.Context, n memory.Note, c memory.SharedContext) Interpretation {
	req, err := li.ask(ctx, n, c)
	if err == nil {
		if v := req.Check(); v != nil {
			err = v
		}
	}
	if err != nil {
		why := failure(err)
		li.log().Warn("llm interpreter failed; the rules interpret the note", "note", n.ID, "why", why, "err", err)
		return Interpretation{Request: Rules(n), By: "rules (llm " + why + ")"}
	}
	return Interpretation{Request: demote(req, n.Text), By: "llm"}
}

func (li *LLMInterpreter) log() *slog.Logger {
	if li.Log == nil {
		return slog.Default()
	}
	return li.Log
}

func (li *LLMInterpreter) ask(ctx context.Context, n memory.Note, c memory.SharedContext) (memory.WriteRequest, error) {
	timeout := li.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	system, user, err := prompts.Interpreter(prompts.InterpreterData{Note: n, Context: c.Rows})
	if err != nil {
		return memory.WriteRequest{}, err
	}
	var req memory.WriteRequest
	err = li.Chat(ctx, system, user, WriteRequestSchema, &req)
	return req, err
}

// failure names why the model's answer was not used, for the record.
func failure(err error) string {
	var refusal *llm.RefusalError
	var decode *llm.DecodeError
	var rule *memory.Violation
	switch {
	case errors.As(err, &refusal):
		return "refused"
	case errors.As(err, &decode), errors.Is(err, llm.ErrTruncated):
		return "malformed output"
	case errors.As(err, &rule):
		return "invalid write: " + rule.Rule
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout"):
		return "timeout"
	}
	return "request failed"
}

// demote keeps a model's target_id for a lifecycle write only if the note
// itself names that id; otherwise the id becomes an alias hint, and the
// deterministic resolver decides from the note's words whether it binds.
// The model proposes meaning; it cannot by itself pick the row a write closes.
func demote(r memory.WriteRequest, note string) memory.WriteRequest {
	if r.Decision != memory.Accept || !r.Operation.Lifecycle() || r.TargetID == "" {
		return r
	}
	if slices.Contains(slugsIn(note), r.TargetID) {
		return r
	}
	if len(r.CandidateAliases) < memory.MaxAliases {
		r.CandidateAliases = append(slices.Clone(r.CandidateAliases), strings.ReplaceAll(r.TargetID, "_", " "))
	}
	r.TargetID = ""
	return r
}

// WriteRequestSchema is the structured-output schema of memory.WriteRequest,
// strict: every field required, nothing else allowed.
var WriteRequestSchema = llm.Schema{
	Name:        "write_request",
	Description: "What a note means for shared state: a write to one bucket, or ignore.",
	JSON:        json.RawMessage(writeRequestSchema),
}

const writeRequestSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["decision", "bucket", "operation", "target_id", "payload", "reference_text", "candidate_aliases", "confidence", "rationale"],
  "properties": {
    "decision": {"type": "string", "enum": ["accept", "ignore"]},
    "bucket": {"type": "string", "enum": ["", "plan", "constraints", "issues", "decisions", "results", "task_state", "learnings"]},
    "operation": {"type": "string", "enum": ["", "upsert", "append", "resolve", "invalidate"]},
    "target_id": {"type": "string", "description": "snake_case id of the row, or empty"},
    "payload": {
      "type": "object",
      "additionalProperties": false,
      "required": ["text", "state", "reason", "task_id"],
      "properties": {
        "text": {"type": "string"},
        "state": {"type": "string"},
        "reason": {"type": "string"},
        "task_id": {"type": "string"}
      }
    },
    "reference_text": {"type": "string", "description": "the words the note uses for the row it refers to"},
    "candidate_aliases": {"type": "array", "items": {"type": "string"}},
    "confidence": {"type": "number"},
    "rationale": {"type": "string"}
  }
}`
