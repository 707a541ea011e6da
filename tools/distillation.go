package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// RecordDistillationArgs are the arguments of record_distillation.
type RecordDistillationArgs struct {
	TaskID          string         `json:"task_id" jsonschema:"The task's id, e.g. T-12 or PROJ-481 (letters, digits, . _ : -)."`
	Outcome         string         `json:"outcome" jsonschema:"How the task ended: completed, error, timeout, max_turns, budget_exhausted or cancelled."`
	Error           string         `json:"error,omitempty" jsonschema:"What went wrong, for an outcome other than completed (max 1000 bytes)."`
	Summary         string         `json:"summary,omitempty" jsonschema:"What the task was and how it went, briefly."`
	Namespace       string         `json:"namespace,omitempty" jsonschema:"A project or topic (default 'default')."`
	Turns           int            `json:"turns,omitempty" jsonschema:"How many turns the task took."`
	TotalTokens     int            `json:"total_tokens,omitempty" jsonschema:"How many tokens the task used, input and output."`
	ToolsUsed       []string       `json:"tools_used,omitempty" jsonschema:"The tools called, each once."`
	TotalToolCalls  int            `json:"total_tool_calls,omitempty" jsonschema:"How many tool calls the task made, every tool counted."`
	MemoryToolCalls map[string]int `json:"memory_tool_calls,omitempty" jsonschema:"Calls per memory tool, e.g. {\"search_memory\": 3}."`
}

// registerDistillation registers record_distillation, which records a
// finished task through the memory service.
func registerDistillation(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("record_distillation",
		mcp.WithDescription("At the end of a task, whatever its outcome, record how it went: outcome, error, what it was and its trajectory (turns, tokens, tools). Stored as an episodic memory tagged distillation, which later consolidation reads. Returns its id."),
		mcp.WithInputSchema[RecordDistillationArgs](), mcp.WithOutputSchema[RememberResult](),
	), func(ctx context.Context, a RecordDistillationArgs) (RememberResult, string, error) {
		d := memory.Distillation{TaskID: a.TaskID, Outcome: memory.TaskOutcome(a.Outcome), Error: a.Error, Summary: a.Summary,
			Namespace: a.Namespace, Turns: a.Turns, TotalTokens: a.TotalTokens, ToolsUsed: a.ToolsUsed, ToolCalls: a.TotalToolCalls,
			MemoryToolCalls: a.MemoryToolCalls}
		w, err := d.EntryWrite()
		if err != nil {
			return RememberResult{}, "", err
		}
		r, err := svc.Memories.Remember(ctx, w)
		if err != nil {
			return RememberResult{}, "", err
		}
		res, text := remembered(r, fmt.Sprintf("recorded task %s (%s) as", d.TaskID, d.Outcome))
		return res, text, nil
	})
}
