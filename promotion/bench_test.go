package promotion_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// BenchmarkPromotion measures offline promotion throughput on a real SQLite
// file: notes/s through interpreter, resolver, validator, ledger, projection
// and pending retries, against the baseline of only capturing the same notes
// (one write transaction each) in the same process.
func BenchmarkPromotion(b *testing.B) {
	const n = 2000
	notes := workload(rand.New(rand.NewPCG(7, 8)), n)

	capture := newHarness(b)
	start := time.Now()
	for _, text := range notes {
		if _, err := capture.p.WriteNote(as(agent), memory.NoteWrite{Text: text}); err != nil {
			b.Fatal(err)
		}
	}
	captureRate := n / time.Since(start).Seconds()

	h := newHarness(b)
	for _, text := range notes {
		if _, err := h.p.WriteNote(as(agent), memory.NoteWrite{Text: text}); err != nil {
			b.Fatal(err)
		}
	}
	counts := map[memory.OutcomeStatus]int{}
	retried := 0
	b.ResetTimer()
	start = time.Now()
	for done := 0; done < n; {
		rep, err := h.p.Promote(as(agent), 500)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range rep.Outcomes {
			counts[o.Status]++
		}
		retried += len(rep.Retried)
		done += len(rep.Outcomes)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	rate := n / elapsed.Seconds()
	b.ReportMetric(rate, "notes/s")
	b.ReportMetric(captureRate, "capture-notes/s")
	b.Logf("promotion: %d notes in %v = %.0f notes/s (capture alone %.0f notes/s, promotion costs %.1fx a capture); outcomes %v, %d pending retries",
		n, elapsed.Round(time.Millisecond), rate, captureRate, captureRate/rate, counts, retried)

	start = time.Now()
	rep, err := h.db.Replay(context.Background(), store.Project)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("replay: %d events in %v", rep.Events, time.Since(start).Round(time.Millisecond))
}

// BenchmarkResolverBinding scores the resolver's binds on each part of the
// gold binding corpus (tuning, adversarial, held-out), on the lifecycle
// notes of the scenario corpora, and on all of them: precision, recall and
// wrong binds (which must be 0).
func BenchmarkResolverBinding(b *testing.B) {
	scores := scoreCorpus(b)
	all := scores[len(scores)-1]
	b.ReportMetric(all.precision(), "precision")
	b.ReportMetric(all.recall(), "recall")
	b.ReportMetric(float64(all.wrong), "wrong-binds")
	for _, s := range scores {
		b.Log(s.String())
	}
	for _, m := range all.misses {
		b.Logf("  missed: %s", m)
	}
	for _, w := range all.wrongs {
		b.Errorf("WRONG BIND: %s", w)
	}
}
