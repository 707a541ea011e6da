package locomo

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// Search ranks the turns of one conversation for a query, best first, as
// turn ids. Only the first 10 are scored.
type Search func(ctx context.Context, query string) ([]string, error)

// Indexer stores the turns of one conversation in a space of its own and
// returns the Search over it.
type Indexer func(ctx context.Context, c *Conversation) (Search, error)

// Categories are the question categories scored, by number; 5 (adversarial,
// questions with no answer in the conversation) is left out as usual.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Metrics are recall figures averaged over Questions questions.
type Metrics struct {
	Questions int
	R1        float64 // share of a question's evidence turns in the top 1
	R5        float64 // ... in the top 5
	R10       float64 // ... in the top 10
	MRR       float64 // mean reciprocal rank of the first evidence turn (0 past 10)
	// NDCG10 is the normalised discounted cumulative gain of the first 10,
	// each evidence turn relevant (1) and every other turn not (0).
	NDCG10 float64
}

// Report is the outcome of one method over the benchmark.
type Report struct {
	Method   string
	Category map[int]Metrics // by category number, 1-4
	All      Metrics         // categories 1-4 together
	// Conversations are categories 1-4 of each conversation on its own, in
	// the data set's order: the spread says how much one figure can be trusted.
	Conversations []Metrics
	NoEvidence    int // questions of categories 1-4 skipped: no evidence turn left
	Normalised    int // evidence ids repaired while loading
	Dropped       int // evidence ids dropped while loading
}

// Score rates one ranking against the evidence turns of one question.
// Evidence must be distinct and non-empty; repeated ids in the ranking
// count once.
func Score(ranked, evidence []string) Metrics {
	want := make(map[string]bool, len(evidence))
	for _, e := range evidence {
		want[e] = true
	}
	m := Metrics{Questions: 1}
	var found [11]int // found[k]: evidence turns among the first k results
	var dcg, ideal float64
	for i := 0; i < 10; i++ {
		found[i+1] = found[i]
		if i < len(evidence) {
			ideal += 1 / math.Log2(float64(i)+2)
		}
		if i < len(ranked) && want[ranked[i]] {
			delete(want, ranked[i])
			found[i+1]++
			dcg += 1 / math.Log2(float64(i)+2)
			if m.MRR == 0 {
				m.MRR = 1 / float64(i+1)
			}
		}
	}
	n := float64(len(evidence))
	m.R1, m.R5, m.R10 = float64(found[1])/n, float64(found[5])/n, float64(found[10])/n
	m.NDCG10 = dcg / ideal
	return m
}

// add accumulates sums; mean turns them into averages.
func (m *Metrics) add(o Metrics) {
	m.Questions += o.Questions
	m.R1 += o.R1
	m.R5 += o.R5
	m.R10 += o.R10
	m.MRR += o.MRR
	m.NDCG10 += o.NDCG10
}

func (m Metrics) mean() Metrics {
	if m.Questions == 0 {
		return m
	}
	n := float64(m.Questions)
	return Metrics{Questions: m.Questions, R1: m.R1 / n, R5: m.R5 / n, R10: m.R10 / n, MRR: m.MRR / n, NDCG10: m.NDCG10 / n}
}

// Evaluate indexes every conversation with index and scores a search for
// each question of categories 1-4 that has evidence.
func Evaluate(ctx context.Context, ds *Dataset, method string, index Indexer) (Report, error) {
	r := Report{Method: method, Category: map[int]Metrics{}, Normalised: ds.Normalised, Dropped: ds.Dropped}
	for i := range ds.Conversations {
		c := &ds.Conversations[i]
		search, err := index(ctx, c)
		if err != nil {
			return r, fmt.Errorf("index %s: %w", c.ID, err)
		}
		var conv Metrics
		for _, q := range c.Questions {
			if _, ok := Categories[q.Category]; !ok {
				continue
			}
			if len(q.Evidence) == 0 {
				r.NoEvidence++
				continue
			}
			ranked, err := search(ctx, q.Text)
			if err != nil {
				return r, fmt.Errorf("search %s %q: %w", c.ID, q.Text, err)
			}
			s := Score(ranked, q.Evidence)
			m := r.Category[q.Category]
			m.add(s)
			r.Category[q.Category] = m
			r.All.add(s)
			conv.add(s)
		}
		r.Conversations = append(r.Conversations, conv.mean())
	}
	for k, m := range r.Category {
		r.Category[k] = m.mean()
	}
	r.All = r.All.mean()
	return r, nil
}

// PrintTable writes reports side by side as one table: a row per method and
// category, then the row for categories 1-4 together.
func PrintTable(w io.Writer, reports ...Report) error {
	if len(reports) == 0 {
		return nil
	}
	r0 := reports[0]
	fmt.Fprintf(w, "LoCoMo retrieval recall, categories 1-4 (%d questions scored, %d without evidence skipped; evidence ids: %d normalised, %d dropped)\n",
		r0.All.Questions, r0.NoEvidence, r0.Normalised, r0.Dropped)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tcategory\tn\tR@1\tR@5\tR@10\tMRR\t")
	for _, r := range reports {
		for c := 1; c <= 4; c++ {
			row(tw, r.Method, fmt.Sprintf("%d %s", c, Categories[c]), r.Category[c])
		}
		row(tw, r.Method, "1-4", r.All)
	}
	return tw.Flush()
}

// PrintSpread writes, for each report, the least, median and greatest R@5
// and R@10 of a single conversation.
func PrintSpread(w io.Writer, reports ...Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tconversations\tR@5 min\tmedian\tmax\tR@10 min\tmedian\tmax\t")
	for _, r := range reports {
		r5, r10 := make([]float64, len(r.Conversations)), make([]float64, len(r.Conversations))
		for i, m := range r.Conversations {
			r5[i], r10[i] = m.R5, m.R10
		}
		slices.Sort(r5)
		slices.Sort(r10)
		if len(r5) == 0 {
			continue
		}
		mid := func(v []float64) float64 { return (v[(len(v)-1)/2] + v[len(v)/2]) / 2 }
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", r.Method, len(r5), r5[0], mid(r5), r5[len(r5)-1],
			r10[0], mid(r10), r10[len(r10)-1])
	}
	return tw.Flush()
}

// PrintSummary writes one row per report: categories 1-4 together.
func PrintSummary(w io.Writer, reports ...Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tcategory\tn\tR@1\tR@5\tR@10\tMRR\t")
	for _, r := range reports {
		row(tw, r.Method, "1-4", r.All)
	}
	return tw.Flush()
}

func row(w io.Writer, method, category string, m Metrics) {
	fmt.Fprintf(w, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", method, category, m.Questions, m.R1, m.R5, m.R10, m.MRR)
}

// Pooled is categories 1-4 of conversations [from, to) together (0-based,
// in the data set's order): the conversations' figures weighted by their
// questions, so it equals what Evaluate over those conversations would say.
func (r Report) Pooled(from, to int) Metrics {
	var sum Metrics
	for _, m := range r.Conversations[from:min(to, len(r.Conversations))] {
		n := float64(m.Questions)
		sum.add(Metrics{Questions: m.Questions, R1: m.R1 * n, R5: m.R5 * n, R10: m.R10 * n, MRR: m.MRR * n, NDCG10: m.NDCG10 * n})
	}
	return sum.mean()
}

// PrintSplit writes R@5, R@10 and MRR of each report over the first half of
// the conversations, the second half, and all of them. The defaults were
// chosen on all ten, so a new choice is made on the first half (tune) and
// kept only if the second (held out) agrees.
func PrintSplit(w io.Writer, reports ...Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\ttune R@5\tR@10\tMRR\theld-out R@5\tR@10\tMRR\tall R@5\tR@10\tMRR\t")
	for _, r := range reports {
		half := (len(r.Conversations) + 1) / 2
		fmt.Fprint(tw, r.Method)
		for _, m := range []Metrics{r.Pooled(0, half), r.Pooled(half, len(r.Conversations)), r.All} {
			fmt.Fprintf(tw, "\t%.3f\t%.3f\t%.3f", m.R5, m.R10, m.MRR)
		}
		fmt.Fprintln(tw, "\t")
	}
	return tw.Flush()
}
