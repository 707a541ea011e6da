package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// BenchmarkReviewPages measures the review page's pages as a browser gets
// them (over HTTP, rendered whole) on a store of 500 facts with two
// versions each and a ledger of 600 events: the first and the last page of
// a category, a point in time, a fact's history, the state, the ledger and
// the overview.
func BenchmarkReviewPages(b *testing.B) {
	for range b.N {
		rv := startReview(b)
		ctx := memory.WithIdentity(context.Background(), olivia)
		var mid time.Time
		for v := range 2 {
			for i := range 500 {
				w := memory.FactWrite{FactID: fmt.Sprintf("adr-%04d", i), Category: memory.FactADR,
					Content: fmt.Sprintf("Record %d, revision %d: service s%d owns the queue q%d and publishes to topic t%d-%d.", i, v, i, i, i, v)}
				if _, err := rv.app.facts.Publish(ctx, w); err != nil {
					b.Fatal(err)
				}
			}
			if v == 0 {
				mid = time.Now().UTC()
			}
		}
		for i := range 600 {
			rv.ok(sam, "write_note", map[string]any{"text": fmt.Sprintf("decision: adopt tool%d for job%d", i, i), "promote": i%50 == 49})
		}
		timePages(b, rv, "facts=500x2 events=600", 20, "/ui/facts?category=adr", "/ui/facts?category=adr&offset=450",
			"/ui/facts?as_of="+mid.Format(time.RFC3339Nano), "/ui/facts/adr-0250", "/ui/state", "/ui/state?bucket=decisions", "/ui/ledger", "/ui/")
	}
}

// BenchmarkReviewMemoryPages measures the pages that read memories, as a
// browser gets them, on one agent's 100k memories (LoCoMo turns, as
// BenchmarkStartup100k fills them): the agents' index, its list first and
// deep in it (by offset, and by the older links' key), the
// counts under a filter, a category with none (the kept counts say none,
// and the rows are asked whether one is there), a search, a memory's story, its erase
// confirmation (a dry run) and the statistics' trends of a day and a month.
func BenchmarkReviewMemoryPages(b *testing.B) {
	for range b.N {
		dir := filled(b, 100_000)
		rv := startReviewIn(b, dir)
		ctx := memory.WithIdentity(context.Background(), olivia)
		page, err := rv.app.memories.List(ctx, memory.ListQuery{AgentID: "bench", Offset: 50_000, Limit: 1})
		if err != nil || len(page.Memories) != 1 {
			b.Fatalf("a memory to open: %+v, %v", page, err)
		}
		id := page.Memories[0].ID
		deep, err := rv.app.memories.List(ctx, memory.ListQuery{AgentID: "bench", Offset: 99_850, Limit: 1})
		if err != nil || len(deep.Memories) != 1 {
			b.Fatalf("a memory deep in the list: %+v, %v", deep, err)
		}
		key := url.QueryEscape(deep.Memories[0].CreatedAt.UTC().Format(time.RFC3339Nano) + " " + deep.Memories[0].ID)
		timePages(b, rv, "memories=100000", 10, "/ui/agents", "/ui/memories?agent=bench", "/ui/memories?agent=bench&offset=99900",
			"/ui/memories?agent=bench&before="+key,
			"/ui/memories?agent=bench&category=episodic&state=forgotten", "/ui/memories?agent=bench&category=semantic",
			"/ui/memories?agent=bench&q=camping+trip+with+the+kids",
			"/ui/memories/"+id, "/ui/memories/"+id+"/erase", "/ui/stats?span=day", "/ui/stats?span=month")
	}
}

// timePages gets each page n times as the curator and prints its median
// and slowest time, labelled with the store's size.
func timePages(b *testing.B, rv *review, label string, n int, pages ...string) {
	for _, page := range pages {
		lat := make([]time.Duration, n)
		for i := range lat {
			start := time.Now()
			if status, body := rv.get("olivia-token", page); status != http.StatusOK {
				b.Fatalf("%s: %d\n%s", page, status, body)
			}
			lat[i] = time.Since(start)
		}
		slices.Sort(lat)
		fmt.Printf("review page %s %s p50=%.2fms max=%.2fms\n", label, page, ms(lat[len(lat)/2]), ms(lat[len(lat)-1]))
	}
}
