package memory_test

import (
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestRepeatQueryValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		q    memory.RepeatQuery
		code string
		want string // in the message
		// limit after a valid query
		limit int
	}{
		{name: "defaults", limit: memory.DefaultSearchLimit},
		{name: "every selector", q: memory.RepeatQuery{AgentID: "ann", MemoryIDs: []string{"mem-1"}, IDs: []string{"rep-1"}, Limit: 5}, limit: 5},
		{name: "bad agent", q: memory.RepeatQuery{AgentID: "a b"}, code: memory.EINVALID, want: "agent_id"},
		{name: "bad memory id", q: memory.RepeatQuery{MemoryIDs: []string{"mem 1"}}, code: memory.EINVALID, want: "id"},
		{name: "bad repeat id", q: memory.RepeatQuery{IDs: []string{""}}, code: memory.EINVALID, want: "id"},
		{name: "limit too high", q: memory.RepeatQuery{Limit: memory.MaxSearchLimit + 1}, code: memory.EINVALID, want: "limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.q.Validate()
			if memory.ErrorCode(err) != c.code {
				t.Fatalf("err = %v, want %q", err, c.code)
			}
			if err != nil && !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to name %q", err, c.want)
			}
			if err == nil && c.q.Limit != c.limit {
				t.Fatalf("limit = %d, want %d", c.q.Limit, c.limit)
			}
		})
	}
}

func TestEntryWriteChecksNotARepeatOf(t *testing.T) {
	w := memory.EntryWrite{Content: "Ann reviews pull requests.", NotARepeatOf: "mem 1"}
	if err := w.Validate(memory.DefaultMaxContentBytes, w.OccurredAt); memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "not_a_repeat_of") {
		t.Fatalf("err = %v, want EINVALID naming not_a_repeat_of", err)
	}
}
