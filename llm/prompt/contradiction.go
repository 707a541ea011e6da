package prompt

import (
	_ "embed"
	"strings"
	"text/template"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed contradiction.tmpl
var contradictionText string

// contradiction is the prompt that asks a model whether a newer memory
// contradicts an older one: templates "system" and "user", the memories
// fenced after the data directive.
var contradiction = template.Must(template.New("contradiction").Funcs(template.FuncMap{
	"fence":     memory.Fence,
	"directive": func() string { return memory.DataDirective },
}).Parse(contradictionText))

// ContradictionData are the two memories the prompt compares.
type ContradictionData struct {
	Older, Newer string
}

// Contradiction renders the contradiction prompt's system and user
// messages.
func Contradiction(d ContradictionData) (system, user string, err error) {
	var s, u strings.Builder
	if err := contradiction.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", err
	}
	if err := contradiction.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", err
	}
	return s.String(), u.String(), nil
}
