package prompt

import (
	_ "embed"
	"strings"
	"text/template"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed questions.tmpl
var questionsText string

// questions is the prompt of fine-tuning's synthetic training pairs
// (seed 001, stage 1): questions a document answers. The document reaches
// the model only fenced, after the data directive.
var questions = template.Must(template.New("questions").Funcs(template.FuncMap{
	"fence":     memory.Fence,
	"directive": func() string { return memory.DataDirective },
}).Parse(questionsText))

// QuestionsData is what the questions prompt shows the model: one document
// (its label says what it is, e.g. "memory mem-1") and how many questions
// to write.
type QuestionsData struct {
	Label string
	Text  string
	Count int
}

// Questions renders the questions prompt's system and user messages.
func Questions(d QuestionsData) (system, user string, err error) {
	var s, u strings.Builder
	if err := questions.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", err
	}
	if err := questions.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", err
	}
	return s.String(), u.String(), nil
}
