package store_test

import (
	"math"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func sure(c float64) *float64 { return &c }

// With confidence weighed, of two memories a query matches equally the
// surer ranks first, whichever was written first: the confidence stored
// with each reaches fusion. RRF gives equal BM25 scores consecutive ranks
// (1 and 0.917 of the best score at k 10), so only a weight above about
// 0.17 reorders a pair of confidences 1 and 0.5.
func TestSearchRanksEquallyRelevantMemoriesByConfidence(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		for _, unsureFirst := range []bool{true, false} {
			s, _, _ := memoriesOn(t, openDB, nil)
			s.Dedup, s.Contradictions = false, memory.ContradictionsOff
			write := []memory.EntryWrite{
				{Content: "the standby generator is tested on Mondays", Confidence: sure(0.5)},
				{Content: "the standby generator is tested on Fridays", Confidence: sure(1)},
			}
			if !unsureFirst {
				write[0], write[1] = write[1], write[0]
			}
			ids := map[float64]string{}
			for _, w := range write {
				ids[*w.Confidence] = remember(t, s, ann, w).ID
			}
			s.Retrieval.ConfidenceWeight = 0.35
			got := search(t, s, ann, memory.Query{Text: "when is the standby generator tested", Limit: 2})
			if len(got) != 2 || got[0] != ids[1] {
				t.Errorf("unsure written first %v: ranked %v, want the sure %s first", unsureFirst, got, ids[1])
			}
		}
	})
}

// Candidates only the vector list found have their confidence read too:
// each score is the unweighed one scaled by 1 − w·(1 − confidence).
func TestSearchWeighsConfidenceOfVectorOnlyCandidates(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-conf", 64)
		s, _, _ := memoriesOn(t, openDB, &emb)
		s.Dedup, s.Contradictions = false, memory.ContradictionsOff
		conf := map[string]float64{}
		for i, text := range []string{"standby generator test", "generator fuel delivery", "quarterly fire drill"} {
			c := []float64{0.5, 1, 0.2}[i]
			conf[remember(t, s, ann, memory.EntryWrite{Content: text, Confidence: sure(c)}).ID] = c
		}
		s.Retrieval.BM25Weight, s.Retrieval.VectorFloor = 0, -1
		q := memory.Query{Text: "generator", Limit: 3}
		scores := func(w float64) map[string]float64 {
			s.Retrieval.ConfidenceWeight = w
			hits, err := s.Search(as(ann), q)
			if err != nil || len(hits) != 3 {
				t.Fatalf("weight %v: %d hits, %v", w, len(hits), err)
			}
			out := map[string]float64{}
			for _, h := range hits {
				out[h.ID] = h.Score
			}
			return out
		}
		base, weighed := scores(0), scores(0.5)
		for id, c := range conf {
			if want := base[id] * (1 - 0.5*(1-c)); math.Abs(weighed[id]-want) > 1e-9 {
				t.Errorf("%s (confidence %v): score %v, want %v", id, c, weighed[id], want)
			}
		}
	})
}
