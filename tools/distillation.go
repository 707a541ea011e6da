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
	Summary         string         `json:"summary,omitempty" jsonschema:"What the task was and how it went, in a sentence or two (max 2000 bytes)."`
	Namespace       string         `json:"namespace,omitempty" jsonschema:"A project or topic to file the record under (default 'default')."`
	Turns           int            `json:"turns,omitempty" jsonschema:"How many turns the task took."`
	TotalTokens     int            `json:"total_tokens,omitempty" jsonschema:"How many tokens the task used, input and output."`
	ToolsUsed       []string       `json:"tools_used,omitempty" jsonschema:"The names of the tools called, each once, e.g. [\"bash\", \"search_memory\"]."`
	TotalToolCalls  int            `json:"total_tool_calls,omitempty" jsonschema:"How many tool calls the task made, every tool counted."`
	MemoryToolCalls map[string]int `json:"memory_tool_calls,omitempty" jsonschema:"Calls to each memory tool, e.g. {\"search_memory\": 3, \"recall_memory\": 1}."`
}

// registerDistillation registers record_distillation, which records a
// finished task through the memory service.
func registerDistillation(s *server.MCPServer, svc Services) {
	add(s, svc, mcp.NewTool("record_distillation",
		mcp.WithDescription("At the end of a task, whatever its outcome, record how it went: the task, the outcome "+
			"(and error), what it was, and its trajectory (turns, tokens, tools used, tool calls, calls per memory tool). "+
			"It is stored as one of your episodic memories, tagged distillation; consolidation shows your latest records "+
			"to its model, so that summaries of your memories know what you were working on. A client hook may call it "+
			"for you. Returns the new memory's id."),
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
