package promotion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/llm/prompt"
)

// LLMInterpreter interprets notes with a model. The model only proposes:
// its answer passes the same resolver and validator as the rules', and when
// the call fails, times out, is refused, or returns something malformed or
// invalid, the note is interpreted by the rules instead (and the reason is
// logged and recorded as the interpreter).
type LLMInterpreter struct {
	Chat    llm.ChatFunc
	Timeout time.Duration // per note; 0 means 30s
	Log     *slog.Logger
}

// Interpret implements InterpretFunc.
func (li *LLMInterpreter) Interpret(ctx context.Context, n memory.Note, c memory.StateContext) Interpretation {
	req, err := li.ask(ctx, n, c)
	var hold string
	if err == nil {
		req, hold = ground(req, n)
		if v := req.Check(); v != nil {
			err = v
		}
	}
	if err != nil {
		why := failure(err)
		li.log().Warn("llm interpreter failed; the rules interpret the note", "note", n.ID, "why", why, "err", err)
		return Interpretation{Request: Rules(n), By: "rules (llm " + why + ")"}
	}
	return Interpretation{Request: req, By: "llm", Hold: hold}
}

func (li *LLMInterpreter) log() *slog.Logger {
	if li.Log == nil {
		return slog.Default()
	}
	return li.Log
}

func (li *LLMInterpreter) ask(ctx context.Context, n memory.Note, c memory.StateContext) (memory.WriteRequest, error) {
	timeout := li.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	system, user, err := prompt.Interpreter(prompt.InterpreterData{Note: n, Context: c.Rows})
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

// ground keeps of a model's answer only what the note's own words support.
// The model may propose the bucket, the operation and the payload; every
// input the resolver reads must come from the note: a reference_text or an
// alias that does not occur in the note is dropped (the rules' reading of
// the note, or its first line, stands in), and a lifecycle target_id the
// note does not name is dropped too, so the resolver decides from the note's
// words. An id the note states for its row is kept even when the model
// leaves it out (keepStatedID). A proposal the note does not support at all
// is held for a curator: an upsert of a row the note does not name, a plan
// without the plan: form, a task the note does not name, a payload whose
// words are not the note's, and a lifecycle change of a note that is
// negated, hedged, a question or reported speech, unless the rules read the
// note the same way.
func ground(r memory.WriteRequest, n memory.Note) (memory.WriteRequest, string) {
	if r.Decision != memory.DecisionAccept {
		return r, ""
	}
	rules := Rules(n)
	agrees := rules.Decision == memory.DecisionAccept && rules.Bucket == r.Bucket && rules.Operation == r.Operation
	if agrees {
		r = keepStatedID(r, rules)
	}
	r.CandidateAliases = reportedKind(occurring(r.CandidateAliases, n.Text), r, rules)
	if !occursIn(r.ReferenceText, n.Text) {
		r.ReferenceText = ""
	}
	if r.Operation.Lifecycle() {
		return groundLifecycle(r, n, rules, agrees)
	}
	named := slices.ContainsFunc(mentions(n.Text), func(m mention) bool { return m.id == r.TargetID })
	switch {
	case r.Bucket == memory.BucketPlan && !(agrees && rules.TargetID == memory.PlanID):
		return r, "the model proposes replacing the plan, but the note does not use the plan: form"
	case r.Bucket == memory.BucketTaskState && taskNamed(n, r.TargetID) == "":
		return r, fmt.Sprintf("the model proposes a state for task %q, which the note does not name", r.TargetID)
	case r.Bucket == memory.BucketTaskState:
		r.TargetID = taskNamed(n, r.TargetID)
	case r.Bucket.Tracked() && r.TargetID != "" && !named:
		return r, fmt.Sprintf("the model proposes writing %s %s, which the note does not name", r.Bucket, r.TargetID)
	}
	if agrees {
		return r, ""
	}
	if !supported(r.Payload.Text+" "+r.Payload.State, n.Text) {
		return r, "the model's text for the write is not in the note's own words"
	}
	if why := llmCaution(n.Text, false); why != "" {
		return r, "the note is " + why
	}
	return r, ""
}

// keepStatedID gives a model's write for an issue, decision or constraint
// the id the note states for its row (as the rules read it: "issue: ...
// (upload_retry_flake)"), when the model left the target empty, and keeps
// that id out of the row's text. The id is the note's own word for the row;
// without it the row would get an id derived from its text, and later notes
// naming the id would find nothing.
func keepStatedID(r, rules memory.WriteRequest) memory.WriteRequest {
	if !r.Bucket.Tracked() || rules.TargetID == "" {
		return r
	}
	if r.TargetID == "" {
		r.TargetID = rules.TargetID
	}
	if id, rest := statedID(r.Payload.Text); id == r.TargetID && rest != "" {
		r.Payload.Text = rest
	}
	return r
}

// reportedKind sets, among a model's aliases, the one that reports an
// issue's kind (memory.KindBlocker, which makes the row a blocker) as the
// rules read the note, not as the model does: an issue upsert carries it
// exactly when the note is a blocker by the note grammar (a blocker: form or
// a blocked-by sentence), and no other write carries it.
func reportedKind(aliases []string, r, rules memory.WriteRequest) []string {
	out := slices.DeleteFunc(aliases, func(a string) bool { return memory.TextKey(a) == memory.KindBlocker })
	upsert := func(w memory.WriteRequest) bool {
		return w.Bucket == memory.BucketIssues && w.Operation == memory.OpUpsert
	}
	if upsert(r) && upsert(rules) && slices.Contains(rules.CandidateAliases, memory.KindBlocker) {
		out = append(out, memory.KindBlocker)
	}
	return out
}

// groundLifecycle grounds a resolve or invalidate: its target only if the
// note names it, its reference and reason from the note.
func groundLifecycle(r memory.WriteRequest, n memory.Note, rules memory.WriteRequest, agrees bool) (memory.WriteRequest, string) {
	if r.TargetID != "" && !slices.ContainsFunc(mentions(n.Text), func(m mention) bool { return m.id == r.TargetID }) {
		r.TargetID = ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(n.Text), "\n")
	switch {
	case r.ReferenceText != "":
	case agrees:
		r.ReferenceText = rules.ReferenceText
	default:
		r.ReferenceText = clip(first, memory.MaxReferenceBytes)
	}
	if !occursIn(r.Payload.Reason, n.Text) {
		r.Payload.Reason = clip(first, memory.MaxReasonBytes)
	}
	if !agrees {
		if why := llmCaution(n.Text, true); why != "" {
			return r, "the note is " + why + "; the model's reading of it is not acted on"
		}
	}
	return r, ""
}

// llmCaution says why a note the rules do not read the same way must not
// change rows on a model's word: a question, a hedge, a condition, reported
// speech, and for lifecycle changes any negation.
func llmCaution(note string, lifecycle bool) string {
	switch {
	case question.MatchString(strings.TrimSpace(note)):
		return "a question"
	case hedge.MatchString(note):
		return "hedged"
	case conditional.MatchString(strings.TrimSpace(note)):
		return "conditional"
	case reported.MatchString(note):
		return "reported speech"
	case lifecycle && negation.MatchString(note):
		return "negated"
	}
	return ""
}

// occurring keeps the phrases that occur in text.
func occurring(phrases []string, text string) []string {
	var out []string
	for _, p := range phrases {
		if occursIn(p, text) {
			out = append(out, p)
		}
	}
	return out
}

// supported reports whether at least half of the distinctive words of a
// model's text are words of the note.
func supported(text, note string) bool {
	words := distinct(contentWords(text))
	if len(words) == 0 {
		return true
	}
	have := map[string]bool{}
	for _, w := range contentWords(note) {
		have[w] = true
	}
	n := 0
	for _, w := range words {
		if have[w] {
			n++
		}
	}
	return 2*n >= len(words)
}

// taskNamed returns the target id of the task the note names as target:
// by its task_id or by a word of the note, given as written ("T-12") or as
// its target id ("t_12"); "" when the note names no such task.
func taskNamed(n memory.Note, target string) string {
	names := strings.Fields(n.Text)
	if n.TaskID != "" {
		names = append(names, n.TaskID)
	}
	for _, f := range names {
		if f = strings.Trim(f, ".,;:!?()[]\"'`"); f != "" && (taskSlug(f) == target || strings.EqualFold(f, target)) {
			return taskSlug(f)
		}
	}
	return ""
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
