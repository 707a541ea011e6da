package prompt

import (
	_ "embed"
	"strings"
	"text/template"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed synthesis.tmpl
var synthesisText string

// synthesis is the llm consolidation strategy's prompt: templates "system"
// (the task, the data directive, and the agent's recent task records) and
// "user" (the memories to merge). Stored text reaches the model only
// through fence, after the directive.
var synthesis = template.Must(template.New("synthesis").Funcs(template.FuncMap{
	"fence":     memory.Fence,
	"directive": func() string { return memory.DataDirective },
	"inc":       func(i int) int { return i + 1 },
}).Parse(synthesisText))

// SynthesisEntry is one memory to merge, already cut to the size the
// caller allows.
type SynthesisEntry struct {
	Label string // e.g. "entry 2, 2026-03-01": no stored text
	Text  string
}

// Block is the entry as the user message shows it: fenced as data. Its
// length is what the caller's prompt cap counts.
func (e SynthesisEntry) Block() string { return memory.Fence(e.Label, e.Text) }

// SynthesisData is what the synthesis prompt shows the model.
type SynthesisData struct {
	Namespace string
	Category  memory.Category
	Entries   []SynthesisEntry
	// Trajectories are the agent's most recent task records (distillation
	// memories), already cut, for context only.
	Trajectories []string
	// MaxWords is how long the summary may be.
	MaxWords int
}

// Synthesis renders the synthesis prompt's system and user messages.
func Synthesis(d SynthesisData) (system, user string, err error) {
	var s, u strings.Builder
	if err := synthesis.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", err
	}
	if err := synthesis.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", err
	}
	return s.String(), u.String(), nil
}
