package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/tools"
)

type args struct {
	Name  string   `json:"name"`
	Limit int      `json:"limit,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Ver   *int     `json:"expected_version,omitempty"`
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		raw  any
		want string // error substring; "" means success
	}{
		{map[string]any{"name": "x", "limit": 3, "tags": []string{"a"}}, ""},
		{nil, ""},
		{json.RawMessage(`null`), ""},
		{map[string]any{"limit": "3"}, `argument "limit" must be an integer, not string`},
		{map[string]any{"tags": "a"}, `argument "tags" must be an array of strings, not string`},
		{map[string]any{"limit": 1.5}, `argument "limit" must be an integer`},
		// A wrong value inside an array is named where it is, not at the array.
		{map[string]any{"tags": []any{"a", 2}}, `argument "tags[1]" must be a string, not number`},
		{map[string]any{"agent_id": "root"}, `unknown argument "agent_id"; this tool takes: expected_version, limit, name, tags`},
		// A name in another case is another name: the gates read arguments
		// by their exact names, so the tool must not take "Name" for "name".
		{map[string]any{"Name": "x"}, `unknown argument "Name"; this tool takes: expected_version, limit, name, tags`},
		{[]any{1, 2}, "arguments must be a JSON object"},
		{"text", "arguments must be a JSON object"},
	}
	for _, tt := range tests {
		var a args
		err := tools.DecodeArgs(tt.raw, &a)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("DecodeArgs(%v) = %v", tt.raw, err)
		case tt.want != "" && (memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("DecodeArgs(%v) = %v, want EINVALID containing %q", tt.raw, err, tt.want)
		}
	}
}

// FuzzDecodeArgs feeds arbitrary JSON as tool arguments: decoding must never
// panic, and every failure must be an EINVALID a model can read.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"x","limit":2}`, `{"tags":[1,2]}`, `[]`, `{"expected_version":null}`, `{"name":{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var raw any
		if json.Unmarshal(b, &raw) != nil {
			return
		}
		var a args
		if err := tools.DecodeArgs(raw, &a); err != nil && memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("non-EINVALID error %v for %s", err, b)
		}
	})
}
