package promotion_test

import (
	"slices"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// The ledger reads back newest first, by bucket or by row, a page at a time
// from a sequence number, and only to a human.
func TestLedgerReadsNewestFirstToHumans(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"issue: flaky test in the auth module", "decision: use SQLite",
		"issue: slow build on the CI runner", "The flaky test in the auth module is fixed."} {
		h.note(agent, memory.NoteWrite{Text: n}, true)
	}
	all, err := h.p.Ledger(as(curator), memory.LedgerQuery{})
	if err != nil || len(all) != 4 {
		t.Fatalf("whole ledger = %d events, %v", len(all), err)
	}
	if !slices.IsSortedFunc(all, func(a, b memory.Event) int { return int(b.Seq - a.Seq) }) {
		t.Fatalf("not newest first: %v", seqs(all))
	}
	if all[0].Operation != memory.OpResolve || all[0].RawInput != "The flaky test in the auth module is fixed." {
		t.Fatalf("newest event = %+v", all[0])
	}

	issues, err := h.p.Ledger(as(curator), memory.LedgerQuery{Bucket: memory.BucketIssues})
	if err != nil || len(issues) != 3 {
		t.Fatalf("issues = %v, %v", seqs(issues), err)
	}
	row, err := h.p.Ledger(as(curator), memory.LedgerQuery{Bucket: memory.BucketIssues, TargetID: all[0].TargetID})
	if err != nil || len(row) != 2 || row[0].Operation != memory.OpResolve || row[1].Operation != memory.OpUpsert {
		t.Fatalf("row %s = %+v, %v", all[0].TargetID, row, err)
	}
	page, err := h.p.Ledger(as(curator), memory.LedgerQuery{Before: all[1].Seq, Limit: 1})
	if err != nil || len(page) != 1 || page[0].Seq != all[2].Seq {
		t.Fatalf("page before %d = %v, %v; want %d", all[1].Seq, seqs(page), err, all[2].Seq)
	}

	if _, err := h.p.Ledger(as(agent), memory.LedgerQuery{}); memory.ErrorCode(err) != memory.EFORBIDDEN ||
		!strings.Contains(err.Error(), "only a human") {
		t.Fatalf("agent reading the ledger: %v", err)
	}
	for _, bad := range []memory.LedgerQuery{{Bucket: "bugs"}, {TargetID: "x"}, {Bucket: memory.BucketIssues, TargetID: "no spaces"},
		{Before: -1}, {Limit: 501}} {
		if _, err := h.p.Ledger(as(curator), bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("query %+v: %v, want EINVALID", bad, err)
		}
	}
}

func seqs(evs []memory.Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}
