package memory_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestDistillationValidate(t *testing.T) {
	ok := func() memory.Distillation {
		return memory.Distillation{TaskID: "T-12", Outcome: "error", Error: "tests failed", Turns: 14, TotalTokens: 52000,
			ToolsUsed: []string{"search_memory", "bash", "bash"}, ToolCalls: 23, MemoryToolCalls: map[string]int{"search_memory": 3}}
	}
	tests := []struct {
		name   string
		change func(*memory.Distillation)
		want   string // "" means valid
	}{
		{"valid", func(*memory.Distillation) {}, ""},
		{"only the required fields", func(d *memory.Distillation) { *d = memory.Distillation{TaskID: "T-1", Outcome: "Completed"} }, ""},
		{"no task", func(d *memory.Distillation) { d.TaskID = "" }, "task_id is empty"},
		{"task with a space", func(d *memory.Distillation) { d.TaskID = "task 12" }, "task_id \"task 12\" may contain only"},
		{"no outcome", func(d *memory.Distillation) { d.Outcome = "" }, `unknown outcome "": use one of completed, error, timeout, max_turns, budget_exhausted, cancelled`},
		{"unknown outcome", func(d *memory.Distillation) { d.Outcome = "success" }, `unknown outcome "success"`},
		{"error of a completed task", func(d *memory.Distillation) { d.Outcome = "completed" }, "a completed task has no error"},
		{"error too long", func(d *memory.Distillation) { d.Error = strings.Repeat("x", 1001) }, "error is 1001 bytes"},
		{"summary too long", func(d *memory.Distillation) { d.Summary = strings.Repeat("x", 2001) }, "summary is 2001 bytes"},
		{"control character", func(d *memory.Distillation) { d.Summary = "a\x1bb" }, "summary"},
		{"negative turns", func(d *memory.Distillation) { d.Turns = -1 }, "turns -1 is negative"},
		{"negative tokens", func(d *memory.Distillation) { d.TotalTokens = -5 }, "total_tokens -5 is negative"},
		{"bad tool name", func(d *memory.Distillation) { d.ToolsUsed = []string{"run tests"} }, "tools_used entry \"run tests\""},
		{"fewer calls than tools", func(d *memory.Distillation) { d.ToolCalls = 1 }, "total_tool_calls 1 is fewer than the 2 tools"},
		{"fewer calls than memory calls", func(d *memory.Distillation) { d.ToolCalls = 2 }, "total_tool_calls 2 is fewer than the 3 memory tool calls"},
		{"zero memory calls", func(d *memory.Distillation) { d.MemoryToolCalls["search_memory"] = 0 }, "memory_tool_calls search_memory is 0"},
		{"memory tool not used", func(d *memory.Distillation) { d.MemoryToolCalls["recall_memory"] = 1 }, "counts recall_memory, which tools_used does not name"},
		{"memory tools without tools_used", func(d *memory.Distillation) { d.ToolsUsed = nil; d.MemoryToolCalls["recall_memory"] = 1 }, ""},
		{"bad memory tool name", func(d *memory.Distillation) { d.ToolsUsed = nil; d.MemoryToolCalls = map[string]int{"": 1} }, "memory_tool_calls tool is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ok()
			tt.change(&d)
			err := d.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate = %v", err)
			case tt.want != "" && (memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want EINVALID %q", err, tt.want)
			}
		})
	}
}

// TestDistillationContent: the memory reads the same for the same record,
// whatever order its tools came in, and leaves out what was not recorded.
func TestDistillationContent(t *testing.T) {
	d := memory.Distillation{TaskID: "T-12", Outcome: "error", Error: "tests failed in store/", Summary: "Fix the flaky upload test.",
		Turns: 14, TotalTokens: 52000, ToolsUsed: []string{"search_memory", "bash", "recall_memory", "bash"}, ToolCalls: 23,
		MemoryToolCalls: map[string]int{"search_memory": 3, "recall_memory": 1}, Namespace: "uploads"}
	w, err := d.EntryWrite()
	if err != nil {
		t.Fatal(err)
	}
	want := `Task T-12 failed with an error (outcome: error).
Summary: Fix the flaky upload test.
Error: tests failed in store/
Trajectory: 14 turns, 52000 tokens, 23 tool calls.
Tools used: bash, recall_memory, search_memory.
Memory tool calls: recall_memory 1 call, search_memory 3 calls.`
	if w.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", w.Content, want)
	}
	if w.Category != memory.CategoryEpisodic || len(w.Tags) != 1 || w.Tags[0] != memory.DistillationTag ||
		w.Source != "distillation" || w.Namespace != "uploads" {
		t.Errorf("write %+v", w)
	}
	d.ToolsUsed = []string{"recall_memory", "search_memory", "bash"}
	if again, _ := d.EntryWrite(); again.Content != want {
		t.Errorf("the same record reads differently:\n%s", again.Content)
	}

	short := memory.Distillation{TaskID: "T-1", Outcome: "max_turns", Turns: 1}
	if w, err := short.EntryWrite(); err != nil || w.Content != "Task T-1 stopped at its turn limit (outcome: max_turns).\nTrajectory: 1 turn." {
		t.Errorf("short record: %q, %v", w.Content, err)
	}
	if _, err := (&memory.Distillation{TaskID: "T-1"}).EntryWrite(); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("an invalid record was written: %v", err)
	}
}
