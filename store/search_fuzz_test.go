package store_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// FuzzSearch feeds arbitrary query text through the whole search path. FTS5
// query syntax in the text must be searched for literally, never parsed:
// every query either succeeds or is rejected as EINVALID, and no internal
// error (a malformed MATCH expression) ever escapes.
func FuzzSearch(f *testing.F) {
	emb := hashEmbedder("hash-16", 16)
	s, _, _ := memories(f, &emb)
	for _, c := range []string{"deploy the api", `he said "hi" NEAR(x y)`, "tags: secret", "filters : zp0",
		"{content tags} : x", "a* OR b AND NOT c", "ünïcödé ✓ 部署", "-- ; DROP TABLE memories", ""} {
		remember(f, s, ann, memory.EntryWrite{Content: "memory about " + c + " and more", Tags: []string{"t"}})
		// bob holds the same words privately, and publishes some of them:
		// ann must find his shared copies and never his personal ones.
		e := remember(f, s, bob, memory.EntryWrite{Content: "memory about " + c + " and more", Tags: []string{"t"}})
		if _, err := s.Publish(as(bob), e.ID); err != nil {
			f.Fatal(err)
		}
		remember(f, s, bob, memory.EntryWrite{Content: "private memory about " + c, Tags: []string{"t"}})
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits, err := s.Search(as(ann), memory.Query{Text: q})
		if err != nil && memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("query %q: %v", q, err)
		}
		for _, h := range hits {
			if h.AgentID != "ann" && !h.Shared {
				t.Fatalf("query %q found another agent's personal memory %+v", q, h)
			}
		}
	})
}
