package locomo_test

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/internal/locomo"
)

func TestNormaliseEvidence(t *testing.T) {
	known := map[string]bool{"D8:6": true, "D9:17": true, "D11:26": true, "D30:5": true, "D9:1": true, "D4:4": true, "D4:6": true}
	tests := []struct {
		raw                 []string
		want                []string
		normalised, dropped int
	}{
		{[]string{"D8:6"}, []string{"D8:6"}, 0, 0},
		{[]string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}, 2, 0},
		{[]string{"D9:1 D4:4 D4:6"}, []string{"D9:1", "D4:4", "D4:6"}, 3, 0},
		{[]string{"D:11:26"}, []string{"D11:26"}, 1, 0},
		{[]string{"D30:05"}, []string{"D30:5"}, 1, 0},
		{[]string{" D8:6 "}, []string{"D8:6"}, 0, 0},
		{[]string{"D"}, nil, 0, 1},
		{[]string{""}, nil, 0, 1},
		{[]string{"D10:19"}, nil, 0, 1}, // well-formed, but no such turn
		{[]string{"D8:6", "D8:6", "D08:6"}, []string{"D8:6"}, 1, 0},
		{[]string{"D8:6; D99:1"}, []string{"D8:6"}, 1, 1},
	}
	for _, tt := range tests {
		got, n, d := locomo.NormaliseEvidence(tt.raw, known)
		if !reflect.DeepEqual(got, tt.want) || n != tt.normalised || d != tt.dropped {
			t.Errorf("NormaliseEvidence(%q) = %q, %d normalised, %d dropped; want %q, %d, %d",
				tt.raw, got, n, d, tt.want, tt.normalised, tt.dropped)
		}
	}
}

func TestScore(t *testing.T) {
	ten := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	tests := []struct {
		name     string
		ranked   []string
		evidence []string
		want     locomo.Metrics
	}{
		{"first", ten, []string{"a"}, locomo.Metrics{Questions: 1, R1: 1, R5: 1, R10: 1, MRR: 1, NDCG10: 1}},
		{"third", ten, []string{"c"}, locomo.Metrics{Questions: 1, R5: 1, R10: 1, MRR: 1.0 / 3, NDCG10: 0.5}},
		{"sixth", ten, []string{"f"}, locomo.Metrics{Questions: 1, R10: 1, MRR: 1.0 / 6, NDCG10: 1 / math.Log2(7)}},
		{"eleventh is past the cut", ten, []string{"k"}, locomo.Metrics{Questions: 1}},
		{"missing", ten, []string{"z"}, locomo.Metrics{Questions: 1}},
		{"two of four", ten, []string{"b", "g", "y", "z"}, locomo.Metrics{Questions: 1, R5: 0.25, R10: 0.5, MRR: 0.5,
			NDCG10: (1/math.Log2(3) + 1.0/3) / (1 + 1/math.Log2(3) + 0.5 + 1/math.Log2(5))}},
		{"short ranking", []string{"x", "a"}, []string{"a", "b"}, locomo.Metrics{Questions: 1, R5: 0.5, R10: 0.5, MRR: 0.5,
			NDCG10: (1 / math.Log2(3)) / (1 + 1/math.Log2(3))}},
		{"empty ranking", nil, []string{"a"}, locomo.Metrics{Questions: 1}},
		{"repeats count once", []string{"a", "a", "a"}, []string{"a", "b"}, locomo.Metrics{Questions: 1, R1: 0.5, R5: 0.5, R10: 0.5, MRR: 1,
			NDCG10: 1 / (1 + 1/math.Log2(3))}},
	}
	for _, tt := range tests {
		if got := locomo.Score(tt.ranked, tt.evidence); !same(got, tt.want) {
			t.Errorf("%s: Score = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func same(a, b locomo.Metrics) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.Questions == b.Questions && eq(a.R1, b.R1) && eq(a.R5, b.R5) && eq(a.R10, b.R10) && eq(a.MRR, b.MRR) &&
		eq(a.NDCG10, b.NDCG10)
}

func TestLoadTiny(t *testing.T) {
	ds, err := locomo.Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Conversations[0]
	var ids []string
	for _, turn := range c.Turns {
		ids = append(ids, turn.ID)
	}
	if want := []string{"D1:1", "D1:2", "D2:1", "D2:2"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("turn order %q, want sessions in numeric order %q", ids, want)
	}
	if got, want := c.Turns[3].Text, "Ada: Look at this! [shares: a photo of a red kite]"; got != want {
		t.Errorf("turn text %q, want %q", got, want)
	}
	if got, want := c.Turns[0].Date, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("session 1 date %v, want %v", got, want)
	}
	if got, want := c.Questions[1].Evidence, []string{"D2:2", "D1:2", "D2:1", "D1:1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if ds.Normalised != 3 || ds.Dropped != 2 {
		t.Errorf("normalised %d, dropped %d; want 3, 2", ds.Normalised, ds.Dropped)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, raw := range []string{
		`{`,
		`[{"sample_id":"x","conversation":{"session_1":[],"session_1_date_time":"yesterday"},"qa":[]}]`,
		`[{"sample_id":"x","conversation":{"session_1":[]},"qa":[]}]`,
		`[{"sample_id":"x","conversation":{"session_1":{},"session_1_date_time":"1:56 pm on 8 May, 2023"},"qa":[]}]`,
	} {
		if _, err := locomo.Parse([]byte(raw)); err == nil {
			t.Errorf("Parse(%s) succeeded, want an error", raw)
		}
	}
}

// TestEvaluate checks averaging per category and overall, the skipping of
// category 5 and of questions without evidence, and the printed table.
func TestEvaluate(t *testing.T) {
	ds, err := locomo.Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	// A fixed ranking: D1:1 first, then D2:2.
	index := func(ctx context.Context, c *locomo.Conversation) (locomo.Search, error) {
		return func(ctx context.Context, q string) ([]string, error) {
			return []string{"D1:1", "D2:2"}, nil
		}, nil
	}
	r, err := locomo.Evaluate(context.Background(), ds, "fixed", index)
	if err != nil {
		t.Fatal(err)
	}
	// Category 4: evidence D1:1 at rank 1. Category 1: 2 of 4 evidence turns
	// in the top 2, first at rank 1. Category 2 has no evidence left.
	want4 := locomo.Metrics{Questions: 1, R1: 1, R5: 1, R10: 1, MRR: 1, NDCG10: 1}
	ndcg1 := (1 + 1/math.Log2(3)) / (1 + 1/math.Log2(3) + 0.5 + 1/math.Log2(5))
	want1 := locomo.Metrics{Questions: 1, R1: 0.25, R5: 0.5, R10: 0.5, MRR: 1, NDCG10: ndcg1}
	wantAll := locomo.Metrics{Questions: 2, R1: 0.625, R5: 0.75, R10: 0.75, MRR: 1, NDCG10: (1 + ndcg1) / 2}
	if !same(r.Category[4], want4) || !same(r.Category[1], want1) || !same(r.All, wantAll) {
		t.Errorf("report %+v", r)
	}
	if len(r.Conversations) != len(ds.Conversations) {
		t.Fatalf("%d conversation rows for %d conversations", len(r.Conversations), len(ds.Conversations))
	}
	var sum locomo.Metrics
	for _, m := range r.Conversations {
		sum.Questions += m.Questions
	}
	if sum.Questions != r.All.Questions {
		t.Errorf("conversations hold %d questions, all %d", sum.Questions, r.All.Questions)
	}
	if r.NoEvidence != 1 || r.Category[2].Questions != 0 {
		t.Errorf("no-evidence questions %d, category 2 scored %d; want 1, 0", r.NoEvidence, r.Category[2].Questions)
	}
	var buf bytes.Buffer
	if err := locomo.PrintTable(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"2 questions scored, 1 without evidence", "3 normalised, 2 dropped", "1 multi-hop", "0.625  0.750  0.750  1.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := locomo.PrintSummary(&buf, r, r); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(buf.String(), "fixed       1-4  2  0.625  0.750  0.750  1.000"); got != 2 {
		t.Errorf("summary has %d rows for the two reports:\n%s", got, buf.String())
	}
	buf.Reset()
	r.Conversations = []locomo.Metrics{{R5: 0.5, R10: 0.6}, {R5: 0.9, R10: 1}, {R5: 0.7, R10: 0.8}, {R5: 0.1, R10: 0.2}}
	if err := locomo.PrintSpread(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "fixed              4    0.100   0.600  0.900     0.200   0.700  1.000"; !strings.Contains(buf.String(), want) {
		t.Errorf("spread lacks %q:\n%s", want, buf.String())
	}
}

// TestLoadLoCoMo checks the real data set against the counts its README
// states. The file lives outside the repository (its licence forbids
// shipping it), so a clone without it skips this test.
func TestLoadLoCoMo(t *testing.T) {
	path, err := locomo.Find()
	if err != nil {
		t.Skip(err)
	}
	ds, err := locomo.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	turns, questions := 0, map[int]int{}
	for _, c := range ds.Conversations {
		turns += len(c.Turns)
		for _, q := range c.Questions {
			questions[q.Category]++
		}
	}
	if len(ds.Conversations) != 10 || turns != 5882 {
		t.Errorf("%d conversations, %d turns; want 10, 5882", len(ds.Conversations), turns)
	}
	if want := map[int]int{1: 282, 2: 321, 3: 96, 4: 841, 5: 446}; !reflect.DeepEqual(questions, want) {
		t.Errorf("questions per category %v, want %v", questions, want)
	}
	// 11 ids from 3 strings holding several, "D8:6; D9:17" (2), "D:11:26",
	// "D30:05"; dropped: "D" and two ids past the end of their session.
	if ds.Normalised != 15 || ds.Dropped != 3 {
		t.Errorf("evidence ids: %d normalised, %d dropped; want 15, 3", ds.Normalised, ds.Dropped)
	}
}

// TestPooled checks that a split weighs each conversation by its questions,
// as scoring those conversations alone would, and prints tune, held-out and
// all side by side.
func TestPooled(t *testing.T) {
	r := locomo.Report{Method: "m", All: locomo.Metrics{Questions: 10, R5: 0.5, R10: 0.6, MRR: 0.4},
		Conversations: []locomo.Metrics{
			{Questions: 1, R1: 1, R5: 1, R10: 1, MRR: 1},
			{Questions: 3, R5: 0.2, R10: 0.4, MRR: 0.2},
			{Questions: 2, R5: 0.5, R10: 0.5, MRR: 0.5},
			{Questions: 4, R5: 0.25, R10: 1},
		}}
	for _, tt := range []struct {
		from, to int
		want     locomo.Metrics
	}{
		{0, 2, locomo.Metrics{Questions: 4, R1: 0.25, R5: 0.4, R10: 0.55, MRR: 0.4}},
		{2, 4, locomo.Metrics{Questions: 6, R5: 2.0 / 6, R10: 5.0 / 6, MRR: 1.0 / 6}},
		{3, 9, locomo.Metrics{Questions: 4, R5: 0.25, R10: 1}},
		{4, 4, locomo.Metrics{}},
	} {
		if got := r.Pooled(tt.from, tt.to); !same(got, tt.want) {
			t.Errorf("Pooled(%d, %d) = %+v, want %+v", tt.from, tt.to, got, tt.want)
		}
	}
	var buf bytes.Buffer
	if err := locomo.PrintSplit(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "m     0.400  0.550  0.400         0.333  0.833  0.167    0.500  0.600  0.400"; !strings.Contains(buf.String(), want) {
		t.Errorf("split lacks %q:\n%s", want, buf.String())
	}
}

func TestCorpusAndGrown(t *testing.T) {
	ds, err := locomo.Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	texts, queries := ds.Corpus()
	turns, questions := 0, 0
	for _, c := range ds.Conversations {
		turns += len(c.Turns)
		questions += len(c.Questions)
	}
	if len(texts) != turns || len(queries) != questions || texts[0] != ds.Conversations[0].Turns[0].Text {
		t.Fatalf("corpus: %d texts for %d turns, %d queries for %d questions", len(texts), turns, len(queries), questions)
	}
	for i, want := range map[int]string{0: "a", 2: "c", 3: "a (note 1)", 7: "b (note 2)"} {
		if got := locomo.Grown([]string{"a", "b", "c"}, i); got != want {
			t.Errorf("Grown(%d) = %q, want %q", i, got, want)
		}
	}
}
