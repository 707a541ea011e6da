package promotion

import (
	"fmt"
	"testing"
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
