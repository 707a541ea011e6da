package consolidation

import (
	"cmp"
	"math"
	"slices"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// Grouping decides which memories a run consolidates together. The seed's
// selector groups a whole category; a real store needs groups about one
// thing, or a summary of everything says nothing. So a group is memories of
// one namespace and category that occurred close together in time and
// share their content words. Words, not vectors: they mean the same with
// every embedder (the offline word vectors put any two English texts at a
// cosine of 0.93 to 0.99), and a summary keeps what its members share in
// words, which is what search then finds it by.
type Grouping struct {
	// MinSize: smaller groups are left alone (seed: 3, the least that can
	// deduplicate against the memory kept).
	MinSize int
	// MaxSize bounds a group, so that a summary stays readable.
	MaxSize int
	// Window: every member occurred within it of the group's first.
	Window time.Duration
	// MinWordSimilarity is the cosine of content-word counts a memory needs
	// with a group's words to join it.
	MinWordSimilarity float64
	// Open bounds how many groups are open at once (the least recently
	// joined is closed first), which keeps a run over a large store linear.
	Open int
	// FewWords: a memory with fewer distinct content words than this says
	// too little to be grouped by its words ("Thanks, sounds great!"). It
	// is a reply, and joins the group of the memory just before it, when
	// that one occurred at most ReplyGap earlier.
	FewWords int
	ReplyGap time.Duration
}

// DefaultGrouping groups 3 to 6 memories from within a day that share
// their content words; a reply of fewer than three content words joins the
// memory written just before it, within ten minutes. The size was chosen
// on LoCoMo conversations 1-5 with dual_mode: groups of up to 8 memories
// took 65% of the memories out of search and kept 0.72 of the questions'
// evidence in the summaries' own words, up to 6 took 58% and kept 0.74,
// up to 5 took 53% and kept no more (BenchmarkLoCoMoConsolidation). Replies
// of few words changed nothing there (LoCoMo's are rare and its turns
// share a session's time), and in an agent's burst of notes they are
// what a word-less acknowledgement belongs to.
func DefaultGrouping() Grouping {
	return Grouping{MinSize: 3, MaxSize: 6, Window: 24 * time.Hour, MinWordSimilarity: 0.15, Open: 64, FewWords: 3, ReplyGap: 10 * time.Minute}
}

// Group is memories about the same thing: one namespace and category,
// close in time and topic.
type Group struct {
	Namespace string
	Category  memory.Category
	// Kept is the group's most valuable memory (highest confidence, then
	// the most recent, as the seed's selector keeps), left as it is.
	Kept memory.Entry
	// Members are the rest, in the order they occurred: what a summary
	// replaces.
	Members []memory.Entry
	// vocab is the run's word statistics, which tell the group's own words
	// from the agent's everyday ones (nil: the group's words alone).
	vocab *vocabulary
}

// vocabulary counts in how many of a run's memories each content word
// occurs.
type vocabulary struct {
	docs int
	df   map[string]int
}

// idf is the inverse document frequency of content word w: how much more
// it says about a memory than a word every memory uses.
func (v *vocabulary) idf(w string) float64 {
	if v == nil || v.docs == 0 {
		return 1
	}
	return math.Log(1 + float64(v.docs)/float64(1+v.df[w]))
}

// Groups partitions candidates, which come ordered by namespace, category
// and time, into groups of at least MinSize. Summaries are never grouped
// again: a memory is summarised once, and its summary is what search finds.
func (g Grouping) Groups(cands []memory.Entry) []Group {
	words := make([]map[string]int, len(cands))
	vocab := &vocabulary{docs: len(cands), df: map[string]int{}}
	for i, c := range cands {
		words[i] = wordsOf(c.Content)
		for w := range words[i] {
			vocab.df[w]++
		}
	}
	var out []Group
	at := 0
	for part := range partitions(cands) {
		groups := g.cluster(part, words[at:at+len(part)])
		for i := range groups {
			groups[i].vocab = vocab
		}
		out = append(out, groups...)
		at += len(part)
	}
	return out
}

// partitions yields the runs of candidates sharing a namespace and category.
func partitions(cands []memory.Entry) func(func([]memory.Entry) bool) {
	return func(yield func([]memory.Entry) bool) {
		for start := 0; start < len(cands); {
			end := start + 1
			for end < len(cands) && cands[end].Namespace == cands[start].Namespace && cands[end].Category == cands[start].Category {
				end++
			}
			if !yield(cands[start:end]) {
				return
			}
			start = end
		}
	}
}

// cluster groups one partition greedily in time order: each memory joins
// the open group it is most similar to, or opens one; a reply of few words
// joins the group of the memory before it. words are the content words of
// each memory of part.
func (g Grouping) cluster(part []memory.Entry, partWords []map[string]int) []Group {
	type open struct {
		members []memory.Entry
		first   time.Time
		words   map[string]int
		touched int
	}
	var groups []Group
	closeGroup := func(o *open) {
		if len(o.members) >= g.MinSize {
			groups = append(groups, newGroup(o.members))
		}
	}
	var opened []*open
	var prev *open // the group the memory before joined
	var prevAt time.Time
	for i, c := range part {
		at := c.OccurredAt
		// Close the groups this memory is too late for.
		opened = slices.DeleteFunc(opened, func(o *open) bool {
			if at.Sub(o.first) > g.Window || len(o.members) >= g.MaxSize {
				closeGroup(o)
				return true
			}
			return false
		})
		words := partWords[i]
		var best *open
		bestSim := g.MinWordSimilarity
		if len(words) < g.FewWords && prev != nil && slices.Contains(opened, prev) && at.Sub(prevAt) <= g.ReplyGap {
			best, bestSim = prev, math.Inf(1)
		}
		for _, o := range opened {
			if sim := overlap(o.words, words); sim >= bestSim {
				best, bestSim = o, sim
			}
		}
		if best == nil {
			if len(opened) >= g.Open { // close the least recently joined
				oldest := slices.MinFunc(opened, func(a, b *open) int { return cmp.Compare(a.touched, b.touched) })
				closeGroup(oldest)
				opened = slices.DeleteFunc(opened, func(o *open) bool { return o == oldest })
			}
			best = &open{first: at, words: map[string]int{}}
			opened = append(opened, best)
		}
		best.members = append(best.members, c)
		best.touched = i
		prev, prevAt = best, at
		for w, n := range words {
			best.words[w] += n
		}
	}
	for _, o := range opened {
		closeGroup(o)
	}
	slices.SortFunc(groups, func(a, b Group) int { return a.Members[0].OccurredAt.Compare(b.Members[0].OccurredAt) })
	return groups
}

// newGroup keeps the most valuable of members and returns the rest, in
// time order, as what a summary replaces.
func newGroup(members []memory.Entry) Group {
	keep := 0
	for i, m := range members {
		k := members[keep]
		if c := cmp.Or(cmp.Compare(m.Confidence, k.Confidence), m.OccurredAt.Compare(k.OccurredAt), m.CreatedAt.Compare(k.CreatedAt)); c > 0 {
			keep = i
		}
	}
	rest := slices.Concat(members[:keep], members[keep+1:])
	return Group{Namespace: members[0].Namespace, Category: members[0].Category, Kept: members[keep], Members: rest}
}

// wordsOf counts the content words of s (text.Words): at least three
// letters or digits, stop words and small talk left out, each by its stem
// (text.Stem), so that "tomato" and "tomatoes" count as one.
func wordsOf(s string) map[string]int {
	out := map[string]int{}
	for _, w := range text.Words(s) {
		if len(w) >= 3 && !stopWords[w] {
			out[text.Stem(w)]++
		}
	}
	return out
}

// overlap is the cosine of two word-count vectors.
func overlap(a, b map[string]int) float64 {
	var dot, na, nb float64
	for w, n := range b {
		dot += float64(a[w] * n)
		nb += float64(n * n)
	}
	for _, n := range a {
		na += float64(n * n)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// stopWords are the stop words (text.StopWords) and the small talk of a
// conversation, which tells no two memories' subjects apart.
var stopWords = text.Lexicon(`the and for are but not you all any can had her was one our out has him his how its
		may new now old see two way who did get let put say she too use that with have this will your from they
		know want been good much some time very when come here just like long make many over such take than them
		well were what would there their about which could other into more also only then these those because
		yeah really think thing things going being does doing done okay sure
		hey hello bye thanks thank yes yep nope wow cool great glad awesome amazing congrats sounds looks totally
		lol haha omg
		don didn doesn isn wasn aren weren won wouldn couldn shouldn haven hasn hadn ain
		gonna gotta wanna gave give gives got gets getting made makes making went goes came comes said says told
		should might must shall maybe perhaps quite rather pretty since last later soon ago ever never always
		still even yet already again back around through after before while where why whatever whenever
		something anything everything nothing someone anyone everyone somebody anybody sometime sometimes
		myself yourself himself herself itself ourselves themselves mine yours ours theirs
		lot lots kind sort bit stuff ways guess mean means meant feel feels felt seem seems seemed`)
