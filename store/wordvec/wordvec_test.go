package wordvec

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testTable(t testing.TB) *table {
	t.Helper()
	tab, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func tokenList(tab *table, text string) []string {
	var out []string
	tab.tokens(text, func(w string) { out = append(out, w) })
	return out
}

func TestTokens(t *testing.T) {
	tab := testTable(t)
	tests := []struct {
		text string
		want []string
	}{
		{"Don't stop", []string{"do", "not", "stop"}},
		{"I can't, we won't, they aren't", []string{"can", "not", "we", "will", "not", "they", "are", "not"}},
		{"Caroline's dog", []string{"caroline", "dog"}},
		{"we're sure you've seen it, I'll go, I'm here, she'd know", []string{"we", "are", "sure", "you", "have", "seen", "it", "will", "go", "am", "here", "she", "would", "know"}},
		{"it\u2019s \u2018quoted\u2019", []string{"it", "quoted"}},
		{"pandas_import_blocker", []string{"pandas", "import", "blocker", "pandasimportblocker"}},
		{"pandasImportBlocker", []string{"pandas", "import", "blocker", "pandasimportblocker"}},
		{"parseHTTPRequest", []string{"parse", "http", "request", "parsehttprequest"}},
		{"my iPhone and YouTube", []string{"my", "iphone", "and", "youtube"}},
		{"4 years ago, in 2022: 18th birthday", []string{"4", "years", "ago", "in", "2022", "18th", "birthday"}},
		{"I have a U.S. visa", []string{"have", "visa"}},
		{"rock'n'roll o'clock", []string{"rock", "roll", "clock"}},
		{"Café naïve", []string{"café", "naïve"}},
		{"_private __init__ 'quoted'", []string{"private", "init", "quoted"}},
		{"", nil},
		{"!!! ... ???", nil},
	}
	for _, tt := range tests {
		if got := tokenList(tab, tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func embedOne(t testing.TB, text string) []float32 {
	t.Helper()
	v, err := New().Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// checkUnit fails unless v has Dim finite components and unit length.
func checkUnit(t testing.TB, text string, v []float32) {
	t.Helper()
	if len(v) != Dim {
		t.Fatalf("%q: %d dimensions, want %d", text, len(v), Dim)
	}
	var n float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("%q: component %v", text, x)
		}
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Fatalf("%q: squared length %v, want 1", text, n)
	}
}

func TestEmbedUnitVectors(t *testing.T) {
	texts := []string{
		"", " ", "!!!", "a", "I", "42", "🙂🙂", "日本語のテキスト",
		"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
		"pandas_import_blocker", strings.Repeat("word ", 10000), "\x00\xff invalid utf-8 \xc3",
	}
	vs, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		checkUnit(t, texts[i], v)
	}
}

// TestEmptyTextIsThePole pins the documented vector of a text without words.
func TestEmptyTextIsThePole(t *testing.T) {
	want := make([]float32, Dim)
	want[Dim-1] = 1
	for _, text := range []string{"", "... !!", "a I"} {
		if got := embedOne(t, text); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, want the pole", text, got[:5])
		}
	}
}

func TestEmbedBatchMatchesSingles(t *testing.T) {
	texts := []string{"the cat sat on the mat", "", "stock prices fell", "the cat sat on the mat"}
	vs, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !reflect.DeepEqual(vs[i], embedOne(t, text)) {
			t.Errorf("vector %d (%q) differs from embedding it alone", i, text)
		}
	}
}

// TestSimilarityOrder checks that the vectors carry meaning: paraphrases
// without shared words are closer than unrelated texts.
func TestSimilarityOrder(t *testing.T) {
	tests := []struct{ query, near, far string }{
		{"I adopted a puppy last week", "We got a new dog recently", "Stock markets fell sharply on Tuesday"},
		{"She is studying to become a counselor", "Her plan is a career in psychology and therapy", "The recipe needs two cups of flour"},
		{"We went camping in the mountains", "Our family hiked and slept in a tent by the lake", "The invoice is due at the end of the month"},
		{"The deployment failed with a timeout", "The release crashed because the server took too long to respond", "My grandmother knits scarves in winter"},
	}
	for _, tt := range tests {
		q := embedOne(t, tt.query)
		near, far := cos(q, embedOne(t, tt.near)), cos(q, embedOne(t, tt.far))
		if near <= far {
			t.Errorf("%q: near %q scores %.4f, not above far %q at %.4f", tt.query, tt.near, near, tt.far, far)
		}
	}
}

// TestRareTokensMatchThemselves checks the hashed vectors of words the
// table lacks: a query for an id finds the memory that holds it.
func TestRareTokensMatchThemselves(t *testing.T) {
	q := embedOne(t, "status of XQ-4471 pandas_import_blocker")
	hit := embedOne(t, "The build failed on ticket XQ-4471 because of pandas_import_blocker")
	miss := embedOne(t, "The build failed on ticket ZK-9902 because of numpy_export_helper")
	if cos(q, hit) <= cos(q, miss) {
		t.Errorf("id query: holder %.4f, other %.4f", cos(q, hit), cos(q, miss))
	}
}

// TestGolden pins a few components of one vector. If it fails because the
// table, tokeniser or weighting changed on purpose, bump ID: vectors stored
// under the old ID must not be compared with new ones.
func TestGolden(t *testing.T) {
	v := embedOne(t, "Caroline went to an LGBTQ support group; it wasn't easy, 4 years ago.")
	got := []float32{v[0], v[1], v[2], v[50], v[99], v[100]}
	// Components 0, 1, 2, 50, 99 and 100 under ID wordvec-glove100-v1.
	want := []float32{0.008581902, -0.0010721148, -0.02923758, 0.016269743, -0.015000928, 0.976661}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("golden components %v, want %v: the embedding changed; bump ID (%s) if that was intended", got, want, ID)
		}
	}
}

func TestEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

func TestParseTableErrors(t *testing.T) {
	for name, data := range map[string]string{
		"empty":           "",
		"bad magic":       "WORDVEC0" + tableData[8:],
		"truncated words": tableData[:40],
		"truncated rows":  tableData[:len(tableData)-1],
	} {
		if _, err := parseTable(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// TestTableIsFrequencyOrdered checks the assumption behind the SIF weights:
// the table's rows are in order of word frequency, falling off as Zipf's
// law says (about tenfold per tenfold rank). The reference is an
// independent English text that ships with every Go installation (Newton's
// Opticks): the mean count of the words in each decade of rows must fall
// at least threefold from one decade to the next.
func TestTableIsFrequencyOrdered(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "src", "testdata", "Isaac.Newton-Opticks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tab := testTable(t)
	counts := make([]int, len(tab.ranks))
	tab.tokens(string(raw), func(w string) {
		if i, ok := tab.index[w]; ok {
			counts[i]++
		}
	})
	prev := math.Inf(1)
	for lo := 1; lo < len(counts); lo *= 10 {
		hi := min(lo*10, len(counts))
		sum := 0
		for _, n := range counts[lo:hi] {
			sum += n
		}
		mean := float64(sum) / float64(hi-lo)
		t.Logf("rows %d-%d: mean count %.3f", lo, hi, mean)
		if mean*3 > prev {
			t.Errorf("rows %d-%d: mean count %.3f, not a third of the decade before (%.3f)", lo, hi, mean, prev)
		}
		prev = mean
	}
}

func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "Don't stop", "pandas_import_blocker", "4 years", "🙂", "a'b'c", "_'_'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkUnit(t, text, embedOne(t, text))
	})
}

func TestWeighted(t *testing.T) {
	key := []byte("a key")
	quiet, err := Weighted("test", key, map[uint64]float32{WordHash(key, "caroline"): 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	got, err := quiet.Embed(context.Background(), []string{"Caroline: I went to the beach", "I went to the beach"})
	if err != nil {
		t.Fatal(err)
	}
	if c := cos(got[0], got[1]); c < 0.9999 {
		t.Errorf("with caroline weighed down, cos(with the name, without) = %.6f, want about 1", c)
	}
	plain := embedOne(t, "Caroline: I went to the beach")
	if c := cos(plain, got[1]); c > 0.9999 {
		t.Errorf("without weights the name moves the vector nowhere (cos %.6f): the test proves nothing", c)
	}
	other, _ := Weighted("test", []byte("another key"), map[uint64]float32{WordHash(key, "caroline"): 1e-6})
	v, _ := other.Embed(context.Background(), []string{"Caroline: I went to the beach"})
	if c := cos(v[0], plain); c < 0.999999 {
		t.Errorf("a weight hashed under another key changed the vector (cos %.6f)", c)
	}
	for _, bad := range []float32{0, -1, float32(math.Inf(1)), float32(math.NaN())} {
		if _, err := Weighted("test", key, map[uint64]float32{1: bad}); err == nil {
			t.Errorf("Weighted accepted a factor of %v", bad)
		}
	}
}
