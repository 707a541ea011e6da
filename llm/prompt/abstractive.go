package prompt

import (
	_ "embed"
	"strings"
	"text/template"

	memory "github.com/memory-mcp/memory-mcp"
)

//go:embed abstractive.tmpl
var abstractiveText string

// abstractive is the prompt of dual_mode's abstractive summary of a sparse
// group of memories: templates "system" and "user". The memories reach the
// model only fenced, after the data directive.
var abstractive = template.Must(template.New("abstractive").Funcs(template.FuncMap{
	"fence":     memory.Fence,
	"directive": func() string { return memory.DataDirective },
}).Parse(abstractiveText))

// AbstractiveData is what the abstractive prompt shows the model: the
// memories to summarise, oldest first, and the summary's length limit.
type AbstractiveData struct {
	Memories []memory.Entry
	MaxWords int
}

// Abstractive renders the abstractive summary prompt's system and user
// messages.
func Abstractive(d AbstractiveData) (system, user string, err error) {
	var s, u strings.Builder
	if err := abstractive.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", err
	}
	if err := abstractive.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", err
	}
	return s.String(), u.String(), nil
}
