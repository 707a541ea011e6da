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
		if lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n"); err == nil && !strings.Contains(lines[len(lines)-1], `"end":true`) {
			t.Fatalf("accepted an export whose last line is not its trailer: %q", in)
		}
	})
}

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestPortableTrailingData: what follows an export's trailer is outside its
// checksum, so it is refused like any other change, not ignored.
func TestPortableTrailingData(t *testing.T) {
	head := `{"format":"memory-mcp","version":1,"filter":{}}` + "\n"
	whole := head + `{"end":true,"records":0,"kinds":{},"sha256":"` + sumOf(head) + `"}` + "\n"
	if _, err := ReadExport(strings.NewReader(whole), func(string, json.RawMessage) error { return nil }); err != nil {
		t.Fatalf("a whole export: %v", err)
	}
	for _, tail := range []string{`{"kind":"note","row":{"note_id":1}}` + "\n", "\n", "x"} {
		_, err := ReadExport(strings.NewReader(whole+tail), func(string, json.RawMessage) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "line 3 of the export: data after the trailer") {
			t.Errorf("%q after the trailer: %v", tail, err)
		}
	}
}
