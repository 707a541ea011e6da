package promotion

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// TestMentionsStatedIDs checks that an id a note states in parentheses or
// brackets counts as named plainly, as any other id, unless its clause
// negates, contrasts or says the row persists.
func TestMentionsStatedIDs(t *testing.T) {
	for note, want := range map[string]string{
		"issue: uploads retry forever on slow networks (upload_retry_flake)": "[{upload_retry_flake true}]",
		"decision: keep sessions in Redis [session_store_redis].":            "[{session_store_redis true}]",
		"fixed: uploads retry forever (upload_retry_flake)":                  "[{upload_retry_flake true}]",
		"fixed: ( upload_retry_flake )":                                      "[{upload_retry_flake true}]",
		"fixed: uploads still retry forever (upload_retry_flake)":            "[{upload_retry_flake false}]",
		"fixed: thumbnails (but upload_retry_flake is still open)":           "[{upload_retry_flake false}]",
		"fixed: not (upload_retry_flake)":                                    "[{upload_retry_flake false}]",
	} {
		if got := fmt.Sprint(mentions(note)); got != want {
			t.Errorf("mentions(%q) = %s, want %s", note, got, want)
		}
	}
}

// TestLexiconsAfterStemming checks that the lexicons in words.go, which are
// compared with both a word and its stem, still hold every inflection of
// the words lifecycle notes use, and keep nouns that share a stem with them.
func TestLexiconsAfterStemming(t *testing.T) {
	for _, w := range strings.Fields(`fix fixes fixed fixing resolve resolves resolved resolving solve solves solved
		solving close closes closed closing unblock unblocks unblocked unblocking work works worked working passes
		passed passing decide decides decided deciding agree agrees agreed chose chosen settle settles settled
		settling noted mentioned doing having being`) {
		if got := contentWords(w); len(got) > 0 {
			t.Errorf("%q is a content word (%v): lifecycle notes all use it", w, got)
		}
	}
	for _, w := range strings.Fields(`note notes resolver handle worker password fixture closure`) {
		if len(contentWords(w)) == 0 {
			t.Errorf("%q is dropped as a function word: it can name a row", w)
		}
	}
	for _, w := range strings.Fields(`blocker blockers issue issues bug bugs problems errors decision decisions rules choices`) {
		if !generic[text.Root(w)] {
			t.Errorf("%q (stem %q) is not generic", w, text.Root(w))
		}
	}
}
