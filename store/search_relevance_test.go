package store_test

import (
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// A hit's relevance means the same from query to query, where its fused
// score puts the best hit of any search near 1: a memory holding every
// query word is 1, one holding one of two rare query words a half, and the
// best hit of a search that matched only a word most memories hold is near
// 0 however high it ranks.
func TestSearchRelevanceComparesAcrossQueries(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := wordvec.New()
		s, _, _ := memoriesOn(t, openDB, &emb)
		s.Words = store.NewWordVectors(wordvec.New())
		for _, c := range []string{"The staging database runs Postgres 16.", "The production database runs MySQL 8.",
			"Lunch is at noon on Fridays.", "The team prefers tabs over spaces in Go code.", "Database backups run nightly."} {
			remember(t, s, bob, memory.EntryWrite{Content: c})
		}
		hits := func(query string) []memory.Hit {
			t.Helper()
			h, err := s.Search(as(bob), memory.Query{Text: query, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(h) == 0 {
				t.Fatalf("%q found nothing", query)
			}
			return h
		}
		whole := hits("staging database Postgres")
		if whole[0].Content != "The staging database runs Postgres 16." || whole[0].Relevance != 1 {
			t.Errorf("every query word: top %q relevance %v, want the staging memory at 1", whole[0].Content, whole[0].Relevance)
		}
		for _, h := range whole[1:] {
			if h.Relevance >= 1 || h.Relevance > whole[0].Relevance {
				t.Errorf("%q holds fewer query words but has relevance %v", h.Content, h.Relevance)
			}
		}
		// Two memories, each with one of two equally rare query words: half.
		for _, h := range hits("staging lunch")[:2] {
			if h.Relevance != 0.5 {
				t.Errorf("%q holds one of two rare query words: relevance %v, want 0.5", h.Content, h.Relevance)
			}
		}
		// Only a word most memories hold: the best hit still ranks first with a
		// high score, but answers next to nothing of the query.
		weak := hits("which database formats dates")
		if weak[0].Score < 0.5 || weak[0].Relevance > 0.05 {
			t.Errorf("a search matching only a common word: top %q score %v relevance %v, want a high score and relevance near 0",
				weak[0].Content, weak[0].Score, weak[0].Relevance)
		}
		// Only function words: searched by them, but nothing a memory holds
		// answers them, so no hit is relevant at all.
		for _, h := range hits("the") {
			if h.Relevance != 0 {
				t.Errorf("a search for \"the\": %q has relevance %v, want 0", h.Content, h.Relevance)
			}
		}
	})
}
