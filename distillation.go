package memory

import (
	"slices"
	"strconv"
	"strings"
)

// DistillationTag tags the memory that records one finished task's
// trajectory (seed 001, "Distillation Capture"). The llm consolidation
// strategy shows the agent's latest ones to the model as context.
const DistillationTag = "distillation"

// TaskOutcome is how a task ended (seed 001's termination reason).
type TaskOutcome string

// Task outcomes.
const (
	TaskOutcomeCompleted       TaskOutcome = "completed"
	TaskOutcomeError           TaskOutcome = "error"
	TaskOutcomeTimeout         TaskOutcome = "timeout"
	TaskOutcomeMaxTurns        TaskOutcome = "max_turns"
	TaskOutcomeBudgetExhausted TaskOutcome = "budget_exhausted"
	TaskOutcomeCancelled       TaskOutcome = "cancelled"
)

// taskOutcomes says each outcome in words, in documentation order.
var taskOutcomes = []struct {
	outcome TaskOutcome
	words   string
}{
	{TaskOutcomeCompleted, "finished"},
	{TaskOutcomeError, "failed with an error"},
	{TaskOutcomeTimeout, "ran out of time"},
	{TaskOutcomeMaxTurns, "stopped at its turn limit"},
	{TaskOutcomeBudgetExhausted, "stopped when its budget ran out"},
	{TaskOutcomeCancelled, "was cancelled"},
}

// ParseTaskOutcome validates an outcome name, in any case.
func ParseTaskOutcome(s string) (TaskOutcome, error) {
	o := TaskOutcome(strings.ToLower(strings.TrimSpace(s)))
	names := make([]string, len(taskOutcomes))
	for i, t := range taskOutcomes {
		if t.outcome == o {
			return o, nil
		}
		names[i] = string(t.outcome)
	}
	return "", Errorf(EINVALID, "unknown outcome %q: use one of %s", s, strings.Join(names, ", "))
}

// Distillation limits.
const (
	MaxDistillationTools        = 100
	MaxDistillationSummaryBytes = 2000
	MaxDistillationErrorBytes   = 1000
)

// Distillation is what an agent (or its client's hook) records when a task
// ends, whatever the outcome: which task, how it ended, and its trajectory
// (seed 001's DistillationRequest). It is stored as an episodic memory
// tagged DistillationTag; see EntryWrite.
type Distillation struct {
	TaskID    string
	Outcome   TaskOutcome
	Error     string // what went wrong, for an outcome other than completed
	Summary   string // what the task was and how it went, in the agent's words
	Namespace string // default: DefaultNamespace
	// The trajectory; 0 (or empty) means not recorded.
	Turns       int
	TotalTokens int
	ToolsUsed   []string // each tool once
	ToolCalls   int      // calls to every tool, the memory tools included
	// MemoryToolCalls counts the calls to each memory tool (search_memory: 3).
	MemoryToolCalls map[string]int
}

// Validate checks d, sorts its tools and drops repeated ones.
func (d *Distillation) Validate() error {
	if err := CheckID("task_id", d.TaskID); err != nil {
		return err
	}
	var err error
	if d.Outcome, err = ParseTaskOutcome(string(d.Outcome)); err != nil {
		return err
	}
	if err := d.checkText(); err != nil {
		return err
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"turns", d.Turns}, {"total_tokens", d.TotalTokens}, {"total_tool_calls", d.ToolCalls}} {
		if n.v < 0 {
			return Errorf(EINVALID, "%s %d is negative: give a count, or leave %s out", n.name, n.v, n.name)
		}
	}
	if err := d.checkTools(); err != nil {
		return err
	}
	return d.checkMemoryTools()
}

// checkText checks the error and the summary.
func (d *Distillation) checkText() error {
	if d.Error != "" && d.Outcome == TaskOutcomeCompleted {
		return Errorf(EINVALID, "a completed task has no error: give outcome error (or another) with it, or leave error out")
	}
	for _, f := range []struct {
		name, text string
		max        int
	}{{"error", d.Error, MaxDistillationErrorBytes}, {"summary", d.Summary, MaxDistillationSummaryBytes}} {
		if err := CheckText(f.name, f.text, f.max); err != nil {
			return err
		}
	}
	return nil
}

// checkTools checks, sorts and deduplicates the tools used.
func (d *Distillation) checkTools() error {
	tools := make([]string, 0, len(d.ToolsUsed))
	for _, t := range d.ToolsUsed {
		t = strings.TrimSpace(t)
		if err := CheckID("tools_used entry", t); err != nil {
			return err
		}
		if !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	if len(tools) > MaxDistillationTools {
		return Errorf(EINVALID, "tools_used names %d tools; the limit is %d", len(tools), MaxDistillationTools)
	}
	slices.Sort(tools)
	d.ToolsUsed = tools
	if d.ToolCalls > 0 && d.ToolCalls < len(tools) {
		return Errorf(EINVALID, "total_tool_calls %d is fewer than the %d tools in tools_used, each called at least once", d.ToolCalls, len(tools))
	}
	return nil
}

// checkMemoryTools checks the per-tool counts against the rest.
func (d *Distillation) checkMemoryTools() error {
	if len(d.MemoryToolCalls) > MaxDistillationTools {
		return Errorf(EINVALID, "memory_tool_calls names %d tools; the limit is %d", len(d.MemoryToolCalls), MaxDistillationTools)
	}
	sum := 0
	for _, name := range d.memoryTools() {
		n := d.MemoryToolCalls[name]
		if err := CheckID("memory_tool_calls tool", name); err != nil {
			return err
		}
		if n < 1 {
			return Errorf(EINVALID, "memory_tool_calls %s is %d: count the calls (at least 1), or leave the tool out", name, n)
		}
		if len(d.ToolsUsed) > 0 && !slices.Contains(d.ToolsUsed, name) {
			return Errorf(EINVALID, "memory_tool_calls counts %s, which tools_used does not name: add it there", name)
		}
		sum += n
	}
	if d.ToolCalls > 0 && d.ToolCalls < sum {
		return Errorf(EINVALID, "total_tool_calls %d is fewer than the %d memory tool calls counted in memory_tool_calls", d.ToolCalls, sum)
	}
	return nil
}

// memoryTools returns the memory tools counted, by name.
func (d *Distillation) memoryTools() []string {
	names := make([]string, 0, len(d.MemoryToolCalls))
	for name := range d.MemoryToolCalls {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Content renders a validated distillation as the memory's text: the same
// record always reads the same, one fact to a line, lines with nothing
// recorded left out.
func (d *Distillation) Content() string {
	words := ""
	for _, t := range taskOutcomes {
		if t.outcome == d.Outcome {
			words = t.words
		}
	}
	lines := []string{"Task " + d.TaskID + " " + words + " (outcome: " + string(d.Outcome) + ")."}
	if s := strings.TrimSpace(d.Summary); s != "" {
		lines = append(lines, "Summary: "+s)
	}
	if e := strings.TrimSpace(d.Error); e != "" {
		lines = append(lines, "Error: "+e)
	}
	var traj []string
	for _, n := range []struct {
		v    int
		unit string
	}{{d.Turns, "turn"}, {d.TotalTokens, "token"}, {d.ToolCalls, "tool call"}} {
		if n.v > 0 {
			traj = append(traj, plural(n.v, n.unit))
		}
	}
	if len(traj) > 0 {
		lines = append(lines, "Trajectory: "+strings.Join(traj, ", ")+".")
	}
	if len(d.ToolsUsed) > 0 {
		lines = append(lines, "Tools used: "+strings.Join(d.ToolsUsed, ", ")+".")
	}
	if len(d.MemoryToolCalls) > 0 {
		var calls []string
		for _, name := range d.memoryTools() {
			calls = append(calls, name+" "+plural(d.MemoryToolCalls[name], "call"))
		}
		lines = append(lines, "Memory tool calls: "+strings.Join(calls, ", ")+".")
	}
	return strings.Join(lines, "\n")
}

// plural says n of unit, plural when n is not 1.
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// EntryWrite validates d and returns the memory that records it: episodic,
// tagged DistillationTag, its source "distillation".
func (d *Distillation) EntryWrite() (EntryWrite, error) {
	if err := d.Validate(); err != nil {
		return EntryWrite{}, err
	}
	return EntryWrite{Namespace: d.Namespace, Category: CategoryEpisodic, Content: d.Content(),
		Tags: []string{DistillationTag}, Source: DistillationTag}, nil
}
