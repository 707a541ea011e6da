package consolidation

import (
	"context"
	"strings"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// simple is the seed's concatenation: every member as a bullet, each cut
// to TruncateAt characters. It cannot fail, and every member is archived.
func (s *Service) simple(_ context.Context, g Group) (Draft, error) {
	return Draft{Content: concatenate(g.Members, s.Config.TruncateAt), Mode: ModeConcatenation, Sources: g.Members}, nil
}

// concatenate lists members as bullets, each cut to at most n characters
// (on a word boundary when one is near) with an ellipsis where cut.
func concatenate(members []memory.Entry, n int) string {
	var b strings.Builder
	for i, m := range members {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(truncate(strings.Join(strings.Fields(m.Content), " "), n))
	}
	return b.String()
}

// truncate cuts text to at most n characters, preferring the last space
// in its final fifth, and marks the cut with an ellipsis.
func truncate(text string, n int) string {
	if n <= 0 || utf8.RuneCountInString(text) <= n {
		return text
	}
	runes := []rune(text)
	cut := n - 1 // room for the ellipsis
	for i := cut; i > cut*4/5; i-- {
		if runes[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(runes[:cut]), " ") + "…"
}
