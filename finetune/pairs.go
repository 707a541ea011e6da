package finetune

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Doc is one text the pipeline learns from: a memory or an org fact, as it
// is stored (the text a search ranks).
type Doc struct {
	ID        string
	Fact      bool   // an org fact; else a memory
	Agent     string // the memory's agent ("" for a fact)
	Namespace string
	Shared    bool
	Text      string
	At        time.Time // when a memory's event occurred; a fact's last change
}

// Source is where a training pair came from.
type Source string

// The sources of training pairs.
const (
	// SourceICT is the inverse cloze task: a sentence of a document is the
	// query and the rest of the document its positive. It needs no model.
	SourceICT Source = "ict"
	// SourceNeighbour pairs a memory with the next memory of its episode
	// (the same agent and namespace, close in time): what is said next is
	// most often about the same thing. It needs no model.
	SourceNeighbour Source = "neighbour"
	// SourceLLM is a question a model wrote about a document.
	SourceLLM Source = "llm"
)

// Pair is one training example: a query and the document that answers it.
type Pair struct {
	Source Source
	Query  string
	// Doc is the positive, an index into the run's documents.
	Doc int
	// From is the document the query was taken from (the positive itself for
	// ICT and LLM questions, the neighbour for SourceNeighbour): it is never
	// counted as a negative.
	From int
	// Positive, when set, is the text of Doc the query is paired with in
	// place of Doc's own (ICT: the document without the query's sentence).
	Positive string
	// Negatives are hard negatives (stage 2), indexes into the documents.
	Negatives []int
}

// ictMinWords is the least a sentence and the rest of its document must
// each hold, in words, to make an ICT pair: a two-word sentence ("Thanks
// Mel!") says nothing to search for.
const ictMinWords = 4

// ICTPairs makes one inverse-cloze pair of each document of two sentences
// or more: a sentence chosen at random (by rng) is the query, the document
// without it the positive.
func ICTPairs(docs []Doc, rng *rand.Rand) []Pair {
	var out []Pair
	for i, d := range docs {
		sents := sentences(d.Text)
		var ok []int
		for j, s := range sents {
			if wordCount(s) >= ictMinWords && wordCount(d.Text)-wordCount(s) >= ictMinWords {
				ok = append(ok, j)
			}
		}
		if len(sents) < 2 || len(ok) == 0 {
			continue
		}
		j := ok[rng.IntN(len(ok))]
		rest := slices.Concat(sents[:j], sents[j+1:])
		out = append(out, Pair{Source: SourceICT, Query: sents[j], Doc: i, From: i, Positive: strings.Join(rest, " ")})
	}
	return out
}

// EpisodeGap is how far apart in time two memories of one agent and
// namespace may be and still be one episode.
const EpisodeGap = 30 * time.Minute

// NeighbourPairs pairs each memory with the next of its episode, both ways:
// memories of one agent, namespace and sharing, in order of occurrence (then
// of storage), no more than EpisodeGap apart. Facts have no episodes.
func NeighbourPairs(docs []Doc) []Pair {
	type key struct {
		agent, ns string
		shared    bool
	}
	groups := map[key][]int{}
	var keys []key
	for i, d := range docs {
		if d.Fact || wordCount(d.Text) < ictMinWords {
			continue
		}
		k := key{d.Agent, d.Namespace, d.Shared}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []Pair
	for _, k := range keys {
		g := groups[k]
		slices.SortStableFunc(g, func(a, b int) int { return docs[a].At.Compare(docs[b].At) })
		for n := 1; n < len(g); n++ {
			a, b := g[n-1], g[n]
			if docs[b].At.Sub(docs[a].At) > EpisodeGap {
				continue
			}
			out = append(out,
				Pair{Source: SourceNeighbour, Query: docs[a].Text, Doc: b, From: a},
				Pair{Source: SourceNeighbour, Query: docs[b].Text, Doc: a, From: b})
		}
	}
	return out
}

// sentences splits text at sentence ends (., ! or ? before a space) and
// line breaks, trimming each part and dropping empty ones.
func sentences(text string) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			add(i + 1)
		case (c == '.' || c == '!' || c == '?') && i+1 < len(text) && text[i+1] == ' ':
			add(i + 1)
		}
	}
	add(len(text))
	return out
}

// words calls emit with each word of text in lower case: runs of letters
// and digits.
func words(text string, emit func(string)) {
	start := -1
	lower := true
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start, lower = i, true
			}
			if r >= utf8.RuneSelf || 'A' <= r && r <= 'Z' {
				lower = false
			}
			continue
		}
		if start >= 0 {
			emit(lowered(text[start:i], lower))
			start = -1
		}
	}
	if start >= 0 {
		emit(lowered(text[start:], lower))
	}
}

func lowered(w string, already bool) string {
	if already {
		return w
	}
	return strings.ToLower(w)
}

func wordCount(text string) int {
	n := 0
	words(text, func(string) { n++ })
	return n
}
