package store_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// dedupPair is one line of a labelled corpus such as
// testdata/dedup_pairs.jsonl: memory A is
// remembered first and B second, by the same agent in the default
// namespace; Label says whether storing B would add nothing to A
// ("duplicate") or not ("distinct"), judged by meaning.
type dedupPair struct {
	A        string          `json:"a"`
	B        string          `json:"b"`
	Label    string          `json:"label"`
	Kind     string          `json:"kind"`
	Category memory.Category `json:"category"`
}

// dedupKind is a kind of pair in a corpus, with the label it must carry.
type dedupKind struct{ name, label string }

// dedupKinds are the kinds of pair in the corpus, in report order, with the
// label each kind must carry.
var dedupKinds = []dedupKind{
	{"exact", "duplicate"},
	{"reworded", "duplicate"},
	{"paraphrased", "duplicate"},
	{"similar", "distinct"},
	{"contradicting", "distinct"},
	{"extended", "distinct"},
}

// dedupCorpora are the labelled corpora, in report order: "tuned" is the
// corpus the dedup rules were tuned on, "heldout" one written apart from the
// rules to measure them honestly. Only the tuned corpus is asserted on; the
// held-out one is reported, never tuned on or asserted.
var dedupCorpora = []dedupCorpus{
	{"tuned", "dedup_pairs.jsonl", dedupKinds},
	{"heldout", "dedup_pairs_heldout.jsonl", dedupKinds},
}

// dedupCorpus is a labelled corpus of pairs and the kinds it holds.
type dedupCorpus struct {
	name, file string
	kinds      []dedupKind
}

// nearStemKinds are the kinds of the near-stem corpus
// (testdata/nearstem_pairs.jsonl): two memories that differ in one word
// sharing its first letters with the other's but meaning something else,
// "derived" from one root (internal / international, account /
// accounting) or sharing only a "prefix" (contract / control, interval /
// interview); and true rewordings, told in another order, in the
// passive, with a plural, a tense, an -ing or an -ly form.
var nearStemKinds = []dedupKind{
	{"derived", "distinct"},
	{"prefix", "distinct"},
	{"order", "duplicate"},
	{"passive", "duplicate"},
	{"plural", "duplicate"},
	{"tense", "duplicate"},
	{"ing", "duplicate"},
	{"ly", "duplicate"},
}

// nearStemCorpora split the near-stem corpus, written before the rules
// were changed for it, in two: the rules were tuned on the first; the
// held-out half is only reported, by BenchmarkNearStemDedup.
var nearStemCorpora = []dedupCorpus{
	{"nearstem-tuned", "nearstem_pairs.jsonl", nearStemKinds},
	{"nearstem-heldout", "nearstem_pairs_heldout.jsonl", nearStemKinds},
}

// distinctKinds are the kinds of the separators-and-case corpus
// (testdata/dedup_distinct.jsonl): different memories told apart only by
// a number's separators ("1,5" / "15", "1.10" / "1.1"), by case where it
// carries meaning ("IT" / "it", "Gb" / "GB"), by an -s noun that is a word
// of its own ("news" / "new", "customs" / "custom") or by an identifier
// ("user_id" / "user_ids"); and true repeats that differ in case, in a
// shouted sentence, in spacing, punctuation, a true plural or a thousands
// separator ("$1,000" / "$1000": the same number).
var distinctKinds = []dedupKind{
	{"number", "distinct"},
	{"case", "distinct"},
	{"lexical", "distinct"},
	{"identifier", "distinct"},
	{"casefold", "duplicate"},
	{"shouted", "duplicate"},
	{"spacing", "duplicate"},
	{"punctuation", "duplicate"},
	{"plural", "duplicate"},
	{"value", "duplicate"},
}

// distinctCorpora split that corpus, written before the rules were
// changed for it, in two: the rules were tuned on the first; the held-out
// half is only reported, by BenchmarkDistinctDedup.
var distinctCorpora = []dedupCorpus{
	{"distinct-tuned", "dedup_distinct.jsonl", distinctKinds},
	{"fresh-tuned", "dedup_fresh.jsonl", freshKinds},
	{"fresh2-tuned", "dedup_fresh2.jsonl", fresh2Kinds},
	{"fresh3-tuned", "dedup_fresh3.jsonl", fresh3Kinds},
	{"fresh4-tuned", "dedup_fresh4.jsonl", fresh4Kinds},
	{"fresh5-tuned", "dedup_fresh5.jsonl", fresh5Kinds},
	{"order-tuned", "dedup_order.jsonl", orderKinds},
	{"review-attacks", "dedup_review.jsonl", reviewKinds},
	{"distinct-heldout", "dedup_distinct_heldout.jsonl", distinctKinds},
}

// freshKinds are the kinds of testdata/dedup_fresh.jsonl, a set written by
// a tester who had not read the rules and then tuned on (issue 22): the
// different memories that a version, unit, acronym, identifier, single
// word, negation, near-stem word, lexical -s, name, address, port, time,
// amount, percentage, number, path, tense, date or the order of two roles
// ("Ann reports to Bob") tells apart; and the true repeats that differ in
// punctuation, case, spacing, word order, a thousands separator, a plural,
// shouting or a Unicode form. Word order is a kind of both labels.
var freshKinds = []dedupKind{
	{"version", "distinct"},
	{"unit", "distinct"},
	{"acronym", "distinct"},
	{"identifier", "distinct"},
	{"oneword", "distinct"},
	{"negation", "distinct"},
	{"nearstem", "distinct"},
	{"lexical", "distinct"},
	{"name", "distinct"},
	{"ip", "distinct"},
	{"port", "distinct"},
	{"time", "distinct"},
	{"money", "distinct"},
	{"percent", "distinct"},
	{"number", "distinct"},
	{"path", "distinct"},
	{"tense", "distinct"},
	{"date", "distinct"},
	{"order", "distinct"},
	{"punctuation", "duplicate"},
	{"casefold", "duplicate"},
	{"spacing", "duplicate"},
	{"order", "duplicate"},
	{"separator", "duplicate"},
	{"plural", "duplicate"},
	{"shouted", "duplicate"},
	{"unicode", "duplicate"},
}

// fresh3Kinds are the kinds of testdata/dedup_fresh3.jsonl, a third set
// written by a tester who had not read the rules, measured once (precision
// 0.868: roles swapped, a scope word moved, "getURL" and "getUrl", "npm
// ci" and "npm i") and tuned on since.
var fresh3Kinds = []dedupKind{
	{"negation", "distinct"},
	{"role-swap", "distinct"},
	{"number", "distinct"},
	{"unit", "distinct"},
	{"version", "distinct"},
	{"date", "distinct"},
	{"time", "distinct"},
	{"preposition", "distinct"},
	{"modal", "distinct"},
	{"comparative", "distinct"},
	{"tense", "distinct"},
	{"scope-word", "distinct"},
	{"name-as-word", "distinct"},
	{"capitalisation", "distinct"},
	{"acronym", "distinct"},
	{"symbol", "distinct"},
	{"code-identifier", "distinct"},
	{"file-path", "distinct"},
	{"url", "distinct"},
	{"non-english", "distinct"},
	{"antonym", "distinct"},
	{"quantifier", "distinct"},
	{"case", "duplicate"},
	{"punctuation", "duplicate"},
	{"spacing", "duplicate"},
	{"article", "duplicate"},
	{"word-order", "duplicate"},
	{"plural", "duplicate"},
	{"verb-form", "duplicate"},
	{"passive", "duplicate"},
	{"spelling", "duplicate"},
	{"contraction", "duplicate"},
	{"list-order", "duplicate"},
	{"hyphenation", "duplicate"},
	{"number-format", "duplicate"},
	{"that-omission", "duplicate"},
}

// fresh4Kinds are the kinds of testdata/dedup_fresh4.jsonl, a fourth set
// written by a tester who had not read the rules, measured once held out
// after the third set and the attacks of the order corpus had been tuned
// on (precision 0.970, recall 0.640: "She approved his request" taken for
// "He approved her request") and tuned on since.
var fresh4Kinds = []dedupKind{
	{"negation", "distinct"},
	{"swapped-roles", "distinct"},
	{"pronoun", "distinct"},
	{"number", "distinct"},
	{"bound", "distinct"},
	{"quantifier", "distinct"},
	{"version", "distinct"},
	{"date-time", "distinct"},
	{"frequency", "distinct"},
	{"unit", "distinct"},
	{"preposition", "distinct"},
	{"particle", "distinct"},
	{"modal", "distinct"},
	{"comparative", "distinct"},
	{"scope-word", "distinct"},
	{"name-as-word", "distinct"},
	{"case-meaning", "distinct"},
	{"symbol", "distinct"},
	{"file-path", "distinct"},
	{"code-identifier", "distinct"},
	{"tense", "distinct"},
	{"non-english", "distinct"},
	{"url", "distinct"},
	{"acronym", "distinct"},
	{"logic-word", "distinct"},
	{"case", "duplicate"},
	{"punctuation", "duplicate"},
	{"spacing", "duplicate"},
	{"hyphenation", "duplicate"},
	{"article", "duplicate"},
	{"word-order", "duplicate"},
	{"plural", "duplicate"},
	{"verb-form", "duplicate"},
	{"passive", "duplicate"},
	{"british-american", "duplicate"},
	{"contraction", "duplicate"},
	{"list-reorder", "duplicate"},
	{"numeral-form", "duplicate"},
	{"time-format", "duplicate"},
	{"date-format", "duplicate"},
	{"abbreviation", "duplicate"},
	{"possessive", "duplicate"},
	{"ampersand", "duplicate"},
	{"symbol-word", "duplicate"},
}

// fresh5Kinds are the kinds of testdata/dedup_fresh5.jsonl, a fifth set
// written by a tester who had not read the rules, measured once held out
// through the binary after every rule above (precision 0.939, recall
// 0.620: "Invite Dana, Lee and Kim" taken for "Invite Dana Lee and Kim",
// "500 EUR" for "500 USD") and tuned on since.
var fresh5Kinds = []dedupKind{
	{"negation", "distinct"},
	{"swapped-roles", "distinct"},
	{"direction", "distinct"},
	{"names-as-words", "distinct"},
	{"path-case", "distinct"},
	{"acronym", "distinct"},
	{"operator", "distinct"},
	{"punctuation", "distinct"},
	{"decimal", "distinct"},
	{"code-identifier", "distinct"},
	{"cli-flag", "distinct"},
	{"file-path", "distinct"},
	{"url", "distinct"},
	{"version", "distinct"},
	{"date", "distinct"},
	{"time", "distinct"},
	{"units", "distinct"},
	{"quantity", "distinct"},
	{"network", "distinct"},
	{"particle", "distinct"},
	{"preposition", "distinct"},
	{"modal", "distinct"},
	{"comparative", "distinct"},
	{"tense", "distinct"},
	{"pronoun", "distinct"},
	{"scope", "distinct"},
	{"conjunction", "distinct"},
	{"question", "distinct"},
	{"non-english", "distinct"},
	{"antonym", "distinct"},
	{"frequency", "distinct"},
	{"family", "distinct"},
	{"hyphen", "distinct"},
	{"config-value", "distinct"},
	{"currency", "distinct"},
	{"case", "duplicate"},
	{"punctuation", "duplicate"},
	{"spacing", "duplicate"},
	{"article", "duplicate"},
	{"word-order", "duplicate"},
	{"plural", "duplicate"},
	{"verb-form", "duplicate"},
	{"passive", "duplicate"},
	{"spelling", "duplicate"},
	{"contraction", "duplicate"},
	{"list-order", "duplicate"},
	{"number-words", "duplicate"},
	{"date-format", "duplicate"},
	{"time-format", "duplicate"},
	{"units", "duplicate"},
	{"symbols", "duplicate"},
	{"abbreviation", "duplicate"},
	{"quotes", "duplicate"},
	{"hyphen", "duplicate"},
	{"possessive", "duplicate"},
	{"preposition", "duplicate"},
	{"alias", "duplicate"},
	{"synonym", "duplicate"},
}

// reviewKinds are the kinds of testdata/dedup_review.jsonl, 200 pairs a
// reviewer wrote against the rules to break them (152 different
// memories, 48 repeats). At first 130 of the 152 were dropped as repeats;
// the order rules were rebuilt on them. What still fools the rules is
// reported, not asserted: a plural and its singular ("the user's
// brothers", "brother"), which every tier folds by design, a statement
// with a question mark, a shouted sentence, an adverb moved between two
// clauses, a framing phrase said as a modifier.
var reviewKinds = []dedupKind{
	{"pronoun-role", "distinct"},
	{"compound-swap", "distinct"},
	{"modifier-move", "distinct"},
	{"adverb-scope", "distinct"},
	{"degree-scope", "distinct"},
	{"unlike", "distinct"},
	{"values-same-neighbours", "distinct"},
	{"values-edges", "distinct"},
	{"attachment", "distinct"},
	{"plural", "distinct"},
	{"third-missing", "distinct"},
	{"endash", "distinct"},
	{"arrow", "distinct"},
	{"question", "distinct"},
	{"shout", "distinct"},
	{"possessive-swap", "distinct"},
	{"pronoun-passive", "distinct"},
	{"has-is", "distinct"},
	{"to-be", "distinct"},
	{"short-past", "distinct"},
	{"infinitive", "distinct"},
	{"and-or", "distinct"},
	{"negation-scope", "distinct"},
	{"without", "distinct"},
	{"quantifier", "distinct"},
	{"modal-scope", "distinct"},
	{"cause-swap", "distinct"},
	{"article", "distinct"},
	{"frame", "distinct"},
	{"were-was", "distinct"},
	{"sentence-boundary", "distinct"},
	{"appositive-list", "distinct"},
	{"question-nomark", "distinct"},
	{"tense-move", "distinct"},
	{"possessive-start", "distinct"},
	{"rep", "duplicate"},
}

// orderKinds are the kinds of testdata/dedup_order.jsonl, written with the
// rules in view to attack what only word order, scope words, voice and
// case tell apart ("The client calls the server", "The server calls the
// client"; "Only admins can delete logs", "Admins can only delete logs";
// "The NOT gate", "the not gate"), and by a question, "re-", "been", "a
// few", a pronoun, "and" or "or", or a verb whose past is its plain form
// ("Is the API public?", "The API is public."; "re-sign", "resign"; "I
// prefer tabs", "You prefer tabs"; "Ann sets the agenda", "Ann set the
// agenda"), beside the reorderings that say the same (a phrase fronted,
// a passive, the sides of "is").
var orderKinds = []dedupKind{
	{"roles", "distinct"},
	{"order", "distinct"},
	{"scope", "distinct"},
	{"stopword", "distinct"},
	{"negation", "distinct"},
	{"modal", "distinct"},
	{"small", "distinct"},
	{"prep", "distinct"},
	{"not", "distinct"},
	{"tense", "distinct"},
	{"time", "distinct"},
	{"version", "distinct"},
	{"word", "distinct"},
	{"values", "distinct"},
	{"poss", "distinct"},
	{"hyphen", "distinct"},
	{"question", "distinct"},
	{"emoji", "distinct"},
	{"currency", "distinct"},
	{"accent", "distinct"},
	{"been", "distinct"},
	{"few", "distinct"},
	{"approx", "distinct"},
	{"sign", "distinct"},
	{"german", "distinct"},
	{"chinese", "distinct"},
	{"than", "distinct"},
	{"cond", "distinct"},
	{"quant", "distinct"},
	{"and-or", "distinct"},
	{"pronoun", "distinct"},
	{"orient", "distinct"},
	{"number", "distinct"},
	{"degree", "distinct"},
	{"url", "distinct"},
	{"flag", "distinct"},
	{"ordinal", "distinct"},
	{"year", "distinct"},
	{"unit", "distinct"},
	{"spanish", "distinct"},
	{"french", "distinct"},
	{"file", "distinct"},
	{"code", "distinct"},
	{"name-case", "duplicate"},
	{"shout", "duplicate"},
	{"passive", "duplicate"},
	{"case", "duplicate"},
	{"spelling", "duplicate"},
	{"punct", "duplicate"},
	{"number", "duplicate"},
	{"contraction", "duplicate"},
	{"list", "duplicate"},
	{"copula", "duplicate"},
	{"front", "duplicate"},
	{"sym", "duplicate"},
	{"question-mark", "duplicate"},
	{"hyphen", "duplicate"},
	{"per", "duplicate"},
	{"poss", "duplicate"},
	{"order", "duplicate"},
	{"plural", "duplicate"},
	{"synonym", "duplicate"},
	{"spacing", "duplicate"},
	{"date", "duplicate"},
	{"time", "duplicate"},
	{"code", "duplicate"},
}

// fresh2Kinds are the kinds of testdata/dedup_fresh2.jsonl, a second set
// written by a tester who had not read the rules, and tuned on since: names
// that are also words ("Mark", "Frank"), brands, prefixes, prepositions,
// quantifiers and comparatives tell memories apart; case, punctuation,
// spacing, units, plurals and word order do not.
var fresh2Kinds = []dedupKind{
	{"name-word", "distinct"},
	{"name-prefix", "distinct"},
	{"brand", "distinct"},
	{"from-to", "distinct"},
	{"acronym", "distinct"},
	{"quantifier", "distinct"},
	{"negation", "distinct"},
	{"magnitude", "distinct"},
	{"unit", "distinct"},
	{"currency", "distinct"},
	{"percent-points", "distinct"},
	{"date", "distinct"},
	{"time", "distinct"},
	{"version", "distinct"},
	{"comparative", "distinct"},
	{"preposition", "distinct"},
	{"path", "distinct"},
	{"url", "distinct"},
	{"identifier", "distinct"},
	{"email", "distinct"},
	{"hashtag", "distinct"},
	{"prefix", "distinct"},
	{"near-stem", "distinct"},
	{"lexical-plural", "distinct"},
	{"tense", "distinct"},
	{"tense-negation", "distinct"},
	{"number", "distinct"},
	{"qualifier", "distinct"},
	{"word-order-role", "distinct"},
	{"brand-word", "distinct"},
	{"case", "duplicate"},
	{"case-punct", "duplicate"},
	{"spacing", "duplicate"},
	{"punctuation", "duplicate"},
	{"case-unit", "duplicate"},
	{"number-format", "duplicate"},
	{"unit-spacing", "duplicate"},
	{"case-spacing", "duplicate"},
	{"plural", "duplicate"},
	{"word-order", "duplicate"},
	{"punctuation-path", "duplicate"},
	{"punctuation-url", "duplicate"},
	{"case-ident", "duplicate"},
	{"punctuation-version", "duplicate"},
	{"case-hashtag", "duplicate"},
	{"punctuation-date", "duplicate"},
	{"case-negation", "duplicate"},
}

func loadDedupPairs(tb testing.TB, file string, kinds []dedupKind) []dedupPair {
	want := map[dedupKind]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	return loadPairs(tb, file, func(p dedupPair) bool {
		return want[dedupKind{p.Kind, p.Label}] && p.A != "" && p.B != ""
	})
}

// loadPairs reads testdata/file, a labelled corpus of pairs a line each,
// refusing an unknown field and a pair that valid refuses (one of the
// corpus's kinds with its label, and both texts).
func loadPairs[T any](tb testing.TB, file string, valid func(T) bool) []T {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var pairs []T
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var p T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			tb.Fatalf("%s:%d: %v", file, line, err)
		}
		if !valid(p) {
			tb.Fatalf("%s:%d: %+v (want one of the kinds, each with its label, and both texts)", file, line, p)
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return pairs
}

// confusion counts a prediction against labels: true and false positives,
// false negatives.
type confusion struct{ tp, fp, fn int }

func (c confusion) precision() float64 {
	if c.tp+c.fp == 0 {
		return 1
	}
	return float64(c.tp) / float64(c.tp+c.fp)
}

func (c confusion) recall() float64 {
	if c.tp+c.fn == 0 {
		return 1
	}
	return float64(c.tp) / float64(c.tp+c.fn)
}

// add counts one pair.
func (c *confusion) add(predicted, labelled bool) {
	switch {
	case predicted && labelled:
		c.tp++
	case predicted:
		c.fp++
	case labelled:
		c.fn++
	}
}

// dedupKindCount counts one kind of pair.
type dedupKindCount struct {
	n, predicted, labelled, hits int
}

// dedupFalsePositive is a pair remember took for a repeat that says
// something the first memory does not: storing nothing loses it.
type dedupFalsePositive struct {
	dedupPair
	tier string
}

// dedupReport is how remember's duplicate outcome fared on a corpus.
type dedupReport struct {
	corpus    string
	pairs, tn int
	confusion
	order          []dedupKind
	kinds          map[dedupKind]*dedupKindCount
	tiers          map[string]*confusion // by the tier that answered duplicate (fn unused)
	falsePositives []dedupFalsePositive
}

// measureDedup remembers each pair's A then B of the named corpus in
// testdata/file through a memory service with dedup on (the default), each
// pair as an agent of its own in one store, and counts B's duplicate outcome
// against the label.
func measureDedup(tb testing.TB, c dedupCorpus) dedupReport {
	tb.Helper()
	pairs := loadDedupPairs(tb, c.file, c.kinds)
	db, _ := openDB(tb)
	s := store.NewMemoryService(db, nil)
	if !s.Dedup {
		tb.Fatal("dedup is off by default")
	}
	r := dedupReport{corpus: c.name, pairs: len(pairs), order: c.kinds, kinds: map[dedupKind]*dedupKindCount{},
		tiers: map[string]*confusion{}}
	for _, k := range c.kinds {
		r.kinds[k] = &dedupKindCount{}
	}
	for i, p := range pairs {
		ctx := memory.WithIdentity(tb.Context(), memory.Identity{AgentID: fmt.Sprintf("p%03d", i),
			Seniority: memory.SeniorityMid, Autonomy: memory.AutonomySemi})
		category := p.Category
		if category == "" {
			category = memory.CategorySemantic
		}
		first, err := s.Remember(ctx, memory.EntryWrite{Content: p.A, Category: category})
		if err != nil {
			tb.Fatalf("pair %d: remember %q: %v", i+1, p.A, err)
		}
		if first.Outcome != memory.WriteOutcomeStored {
			tb.Fatalf("pair %d: the first memory %q was not stored: %s", i+1, p.A, first.Outcome)
		}
		second, err := s.Remember(ctx, memory.EntryWrite{Content: p.B, Category: category})
		if err != nil {
			tb.Fatalf("pair %d: remember %q: %v", i+1, p.B, err)
		}
		predicted := second.Outcome == memory.WriteOutcomeDuplicate
		if predicted && second.ID != first.ID {
			tb.Fatalf("pair %d: duplicate of %s, want %s", i+1, second.ID, first.ID)
		}
		labelled := p.Label == "duplicate"
		k := r.kinds[dedupKind{p.Kind, p.Label}]
		k.n++
		if predicted {
			k.predicted++
		}
		if labelled {
			k.labelled++
		}
		if predicted == labelled {
			k.hits++
		}
		r.add(predicted, labelled)
		if predicted {
			if r.tiers[second.Tier] == nil {
				r.tiers[second.Tier] = &confusion{}
			}
			r.tiers[second.Tier].add(predicted, labelled)
		}
		switch {
		case predicted && !labelled:
			r.falsePositives = append(r.falsePositives, dedupFalsePositive{p, second.Tier})
		case !predicted && !labelled:
			r.tn++
		}
	}
	return r
}

// lines renders the report: the totals, a line per kind and a line per
// false positive, each prefixed with the corpus.
func (r dedupReport) lines() []string {
	out := []string{fmt.Sprintf("dedup corpus=%s pairs=%d duplicate precision=%.3f recall=%.3f (tp=%d fp=%d fn=%d tn=%d)",
		r.corpus, r.pairs, r.precision(), r.recall(), r.tp, r.fp, r.fn, r.tn)}
	labelled := r.tp + r.fn
	for _, tier := range []string{memory.DedupExact, memory.DedupWords, memory.DedupSemantic, memory.DedupModel} {
		if t := r.tiers[tier]; t != nil {
			out = append(out, fmt.Sprintf("dedup corpus=%s tier=%s answered=%d precision=%.3f recall=%.3f (tp=%d fp=%d)",
				r.corpus, tier, t.tp+t.fp, t.precision(), float64(t.tp)/float64(max(labelled, 1)), t.tp, t.fp))
		}
	}
	for _, kd := range r.order {
		k := r.kinds[kd]
		if k.n == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("dedup corpus=%s kind=%s n=%d predicted_duplicate=%d labelled_duplicate=%d correct=%.3f",
			r.corpus, kd.name, k.n, k.predicted, k.labelled, float64(k.hits)/float64(k.n)))
	}
	for _, fp := range r.falsePositives {
		out = append(out, fmt.Sprintf("dedup corpus=%s false_positive kind=%s tier=%s a=%q b=%q", r.corpus, fp.Kind, fp.tier, fp.A, fp.B))
	}
	return out
}

// BenchmarkDedupPrecision prints the precision and recall of remember's
// duplicate outcome on each labelled corpus (tuned and held-out), with every
// false positive: a memory that said something new and was dropped as a
// repeat. The reported metrics are the held-out corpus's.
func BenchmarkDedupPrecision(b *testing.B) {
	benchDedup(b, dedupCorpora)
}

// benchDedup measures each corpus, prints its report and reports the
// last one's figures (the held-out corpus's).
func benchDedup(b *testing.B, corpora []dedupCorpus) {
	reports := make([]dedupReport, len(corpora))
	for range b.N {
		for i, c := range corpora {
			reports[i] = measureDedup(b, c)
		}
	}
	for _, r := range reports {
		for _, l := range r.lines() {
			fmt.Println(l)
		}
	}
	r := reports[len(reports)-1]
	b.ReportMetric(r.precision(), "precision")
	b.ReportMetric(r.recall(), "recall")
	b.ReportMetric(float64(r.fp), "false_positives")
}

// TestDedupCorpusPrecision holds remember's duplicate outcome to the
// product's aim on the tuned corpus: at least 99.5% of the memories it
// drops as repeats say nothing new (issue 22; it was 95% while the stem was
// any shared five-letter prefix). The held-out corpus is only reported, by
// BenchmarkDedupPrecision, so that it is never tuned on.
func TestDedupCorpusPrecision(t *testing.T) {
	r := measureDedup(t, dedupCorpora[0])
	for _, l := range r.lines() {
		t.Log(l)
	}
	if p := r.precision(); p < 0.995 {
		t.Errorf("duplicate precision %.3f is below 0.995: %d of %d memories dropped as repeats said something new", p, r.fp, r.tp+r.fp)
	}
}

// BenchmarkNearStemDedup prints remember's duplicate outcome on both halves
// of the near-stem corpus, by tier and by kind, with every different
// memory dropped as a repeat. The reported metrics are the held-out half's.
func BenchmarkNearStemDedup(b *testing.B) {
	benchDedup(b, nearStemCorpora)
}

// TestNearStemCorpus holds dedup to its first promise on the tuned half of
// the near-stem corpus: no memory that differs from an earlier one by a
// word sharing its first letters (internal / international) is dropped as
// a repeat of it. Its rewordings are reported, not asserted.
func TestNearStemCorpus(t *testing.T) {
	r := measureDedup(t, nearStemCorpora[0])
	for _, l := range r.lines() {
		t.Log(l)
	}
	if r.fp != 0 {
		t.Errorf("%d different memories were dropped as repeats (precision %.3f)", r.fp, r.precision())
	}
	if r.tn == 0 || r.tp+r.fn == 0 {
		t.Errorf("the corpus holds %d different pairs and %d rewordings; want both", r.tn+r.fp, r.tp+r.fn)
	}
}

// BenchmarkDistinctDedup prints remember's duplicate outcome on both halves
// of the separators-and-case corpus, by tier and by kind, with every
// different memory dropped as a repeat. The reported metrics are the
// held-out half's.
func BenchmarkDistinctDedup(b *testing.B) {
	benchDedup(b, distinctCorpora)
}

// TestDistinctCorpus holds dedup to its first promise on the tuned half of
// the separators-and-case corpus: at least 99.5% of the memories it drops
// as repeats say nothing new, as on the other corpora (a number's
// separators, a meaningful capital, a lexical -s and an identifier tell
// memories apart); and it still finds repeats among the true ones.
//
// The same holds on the fresh set (testdata/dedup_fresh.jsonl), tuned on
// since: names that are also words ("Pay Bill", "pay bill"), paths as one
// word whose order is kept, and lexical -s nouns ("premises").
func TestDistinctCorpus(t *testing.T) {
	for _, c := range distinctCorpora {
		if strings.HasSuffix(c.name, "-heldout") || strings.HasSuffix(c.name, "-attacks") {
			continue // only reported, by BenchmarkDistinctDedup
		}
		t.Run(c.name, func(t *testing.T) {
			r := measureDedup(t, c)
			for _, l := range r.lines() {
				t.Log(l)
			}
			if p := r.precision(); p < 0.995 {
				t.Errorf("duplicate precision %.3f is below 0.995: %d of %d memories dropped as repeats said something new", p, r.fp, r.tp+r.fp)
			}
			if r.tn == 0 || r.tp == 0 {
				t.Errorf("%d different pairs kept apart and %d repeats found; want both", r.tn, r.tp)
			}
		})
	}
}
