package consolidation_test

import (
	"slices"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
)

// TestReplyJoinsTheMemoryBefore: a reply of too few content words to be
// grouped by them joins the group of the memory written just before it,
// if that was within the reply gap; later, it stands alone.
func TestReplyJoinsTheMemoryBefore(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(testing.TB) *fixture) {
		for _, tt := range []struct {
			name   string
			pause  time.Duration
			joined bool
		}{{"right after", time.Minute, true}, {"past the gap", consolidation.DefaultGrouping().ReplyGap + time.Minute, false}} {
			t.Run(tt.name, func(t *testing.T) {
				f := newFixture(t)
				first := f.remember(ann, memory.EntryWrite{Content: garden[0]})
				f.clk.Advance(tt.pause)
				reply := f.remember(ann, memory.EntryWrite{Content: "Yes, will do. Thanks!"})
				last := f.remember(ann, memory.EntryWrite{Content: garden[1]})
				f.clk.Advance(48 * time.Hour)
				rep, err := f.svc.Consolidate(as(ann), memory.ConsolidationRequest{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if !tt.joined {
					if len(rep.Groups) != 0 {
						t.Fatalf("groups %+v: the reply came too late to join", rep.Groups)
					}
					return
				}
				if len(rep.Groups) != 1 {
					t.Fatalf("groups %+v, want the reply with the garden", rep.Groups)
				}
				all := append([]string{rep.Groups[0].Kept}, rep.Groups[0].Sources...)
				for _, id := range []string{first.ID, reply.ID, last.ID} {
					if !slices.Contains(all, id) {
						t.Errorf("%s not in the group %v", id, all)
					}
				}
			})
		}
	})
}
