// Package prompt holds the prompts memory-mcp itself sends to a model (the
// LLM interpreter's, consolidation's synthesis), as embedded templates.
// Stored text reaches a model only fenced as data after
// memory.DataDirective. It imports only the domain package, so every
// service can reach its templates without the MCP layer; the MCP prompt
// surface (ready-made messages for clients) is the prompts package.
package prompt

import (
	_ "embed"
	"strings"
	"text/template"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed interpreter.tmpl
var interpreterText string

// interpreter is the LLM interpreter's prompt: templates "system" and
// "user". Stored text reaches the model only through fence, after the
// data directive.
var interpreter = template.Must(template.New("interpreter").Funcs(template.FuncMap{
	"fence":     memory.Fence,
	"directive": func() string { return memory.DataDirective },
}).Parse(interpreterText))

// InterpreterData is what the interpreter prompt shows the model: the note
// and the narrow context of the shared state.
type InterpreterData struct {
	Note    memory.Note
	Context []memory.StateRow
}

// Interpreter renders the interpreter prompt's system and user messages.
func Interpreter(d InterpreterData) (system, user string, err error) {
	var s, u strings.Builder
	if err := interpreter.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", err
	}
	if err := interpreter.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", err
	}
	return s.String(), u.String(), nil
}
