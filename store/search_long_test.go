package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// A query with more distinct words than a search ranks by keeps its rarest
// ones, wherever they stand in it: here 30 words every memory but one holds,
// then 31 that two memories hold, then one that a single memory holds. Ranked
// by all 62 words, every memory would match; ranked by the first 32, the
// single memory with the rarest word would not.
func TestLongQueryRanksByItsRarestWords(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Words = store.NewWordVectors(wordvec.New())
		s.Dedup = false // eight memories in the same words are the point
		var common, rare []string
		for i := range 30 {
			common = append(common, fmt.Sprintf("c%02d", i))
		}
		for i := range 31 {
			rare = append(rare, fmt.Sprintf("r%02d", i))
		}
		want := []string{remember(t, s, ann, memory.EntryWrite{Content: "a crate of kumquat"}).ID}
		for i := range 10 {
			text := strings.Join(common, " ")
			if i < 2 {
				text += " " + strings.Join(rare, " ")
			}
			e := remember(t, s, ann, memory.EntryWrite{Content: text})
			if i < 2 {
				want = append(want, e.ID)
			}
		}
		query := strings.Join(common, " ") + " " + strings.Join(rare, " ") + " kumquat"
		got := search(t, s, ann, memory.Query{Text: query, Limit: 20})
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("found %v, want the memories with the 32 rarest words %v", got, want)
		}
	})
}
