package memory

import (
	"testing"
	"time"
)

func TestSummariseWrites(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var recs []WriteRecord
	for i := 1; i <= 100; i++ {
		r := WriteRecord{Tool: "remember", Outcome: WriteOutcomeStored, Latency: ms(i), Gates: map[string]time.Duration{"dedup": ms(i)}}
		switch {
		case i%10 == 0:
			r.Outcome = WriteOutcomeDuplicate
		case i%25 == 1:
			r.Outcome, r.Gate, r.Reason = WriteOutcomeRejected, "rate_limit", ERATELIMIT
		case i == 2:
			r.Outcome, r.Gate, r.Reason, r.Tool = WriteOutcomeRejected, "service", EINVALID, "publish_fact"
		}
		recs = append(recs, r)
	}
	m := SummariseWrites(recs, time.Time{}, time.Time{})
	if m.Calls != 100 || m.Outcomes[WriteOutcomeDuplicate] != 10 || m.Outcomes[WriteOutcomeRejected] != 5 || m.Outcomes[WriteOutcomeStored] != 85 {
		t.Fatalf("outcomes %v", m.Outcomes)
	}
	if m.WAR != 0.85 || m.DHR != 0.10 {
		t.Fatalf("WAR %v DHR %v", m.WAR, m.DHR)
	}
	if len(m.Rejected) != 2 || m.Rejected[0] != (RejectionCount{"rate_limit", ERATELIMIT, 4}) || m.Rejected[1] != (RejectionCount{"service", EINVALID, 1}) {
		t.Fatalf("rejected %v", m.Rejected)
	}
	if g := m.Gates["dedup"]; g.Count != 100 || g.P50 != 50 || g.P95 != 95 || g.P99 != 99 {
		t.Fatalf("dedup latency %+v", g)
	}
	if m.Tools["publish_fact"] != 1 || m.Tools["remember"] != 99 {
		t.Fatalf("tools %v", m.Tools)
	}
	if e := SummariseWrites(nil, time.Time{}, time.Time{}); e.Calls != 0 || e.WAR != 0 || e.Latency.Count != 0 {
		t.Fatalf("empty: %+v", e)
	}
}
