package consolidation

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memory-mcp/memory-mcp/internal/text"
)

// The offline abstractive summary of a sparse group: no model, so it is
// made by extraction, and it must be good, since it is the default. A group
// is memories about one thing; its summary keeps the sentences that say the
// most of what the group says (centrality: the words many members share)
// and cover the most of it (coverage: every content word counts once),
// within a length budget, in the order they were written. What the chosen
// sentences leave out is kept as the list of its distinctive words, so that
// a search for a detail still finds the summary that stands for it.
//
// A group may hold versions of one claim that the contradiction rules did
// not settle when they were written (they were off, or the newer was less
// sure): "deploys go out on Tuesdays and Thursdays", later "on Mondays".
// The summary states the newest value and says what it replaced ("… on
// Mondays (earlier: Tuesdays and Thursdays)"), never an older one as the
// headline and the newer as an aside.

// sentence is one sentence of a member, with its content words.
type sentence struct {
	member int // index of the member it came from
	pos    int // order in the group
	text   string
	words  map[string]int
	// newest: the sentence states the newest value of a claim older
	// members stated otherwise, and is chosen whatever its weight.
	newest bool
}

// summaryBudget is the length of an offline summary in characters: a share
// of what it replaces, no less than a short paragraph (a small group needs
// no cutting) and no more than a long one.
func (c DualModeConfig) summaryBudget(total int) int {
	return min(total, max(c.SummaryMinChars, int(float64(total)*c.SummaryRatio)), c.SummaryMaxChars)
}

// summarise is the offline abstractive summary of texts, deterministic:
// the same texts and vocabulary give the same summary.
func summarise(texts []string, vocab *vocabulary, c DualModeConfig) string {
	return summariseBeside(texts, -1, vocab, c)
}

// summariseBeside is summarise of texts, of which texts[kept] (if kept is
// not -1) is the group's kept memory, in the order it occurred: it is not
// summarised (it stays as it is), but a sentence of it that updates a
// member's is stated with what it replaced, so that the summary does not
// tell the older value as if it held.
func summariseBeside(texts []string, kept int, vocab *vocabulary, c DualModeConfig) string {
	total := 0
	for i, t := range texts {
		if i != kept {
			total += utf8.RuneCountInString(t)
		}
	}
	sents, labels := splitMembers(texts)
	live := slices.DeleteFunc(updated(sents), func(s sentence) bool { return s.member == kept && !s.newest })
	weight := groupWeights(live, vocab)
	chosen := choose(live, weight, c.summaryBudget(total))
	var lines []string
	for m := range texts {
		var parts []string
		for _, s := range chosen {
			if s.member == m {
				parts = append(parts, s.text)
			}
		}
		if len(parts) == 0 {
			continue
		}
		line := strings.Join(parts, " ")
		if labels[m] != "" {
			line = labels[m] + " " + line
		}
		lines = append(lines, line)
	}
	if rest := leftOut(live, chosen, weight, c.SummaryKeywords); len(rest) > 0 {
		lines = append(lines, "Also mentioned: "+strings.Join(rest, ", ")+".")
	}
	return strings.Join(lines, "\n")
}

// updated is sents without the sentences a later member's sentence
// updates (text.Contradicts: the same claim with another value, or
// denied), each newest sentence saying what it replaced, newest first:
// "Deploys go out on Mondays (earlier: Wednesdays; before that Tuesdays
// and Thursdays)." A newest sentence is always chosen (see choose).
func updated(sents []sentence) []sentence {
	replacedBy := make([]int, len(sents))
	earlier := make([]string, len(sents))
	for i := range sents {
		replacedBy[i] = -1
		for j := len(sents) - 1; j > i; j-- {
			if sents[j].member == sents[i].member {
				continue
			}
			if c, ok := text.Contradicts(sents[i].text, sents[j].text); ok && (c.Kind == text.ConflictValue || c.Kind == text.ConflictNegation) {
				replacedBy[i] = j
				earlier[i] = c.Older
				if c.Kind == text.ConflictNegation {
					earlier[i] = strings.TrimRight(sents[i].text, ".!?")
				}
				break
			}
		}
	}
	// Each replaced sentence's value goes to the newest of its chain.
	olds := map[int][]string{}
	for i := len(sents) - 1; i >= 0; i-- {
		if replacedBy[i] < 0 {
			continue
		}
		last := replacedBy[i]
		for replacedBy[last] >= 0 {
			last = replacedBy[last]
		}
		if !slices.Contains(olds[last], earlier[i]) && !strings.Contains(sents[last].text, earlier[i]) {
			olds[last] = append(olds[last], earlier[i])
		}
	}
	var out []sentence
	for i, s := range sents {
		if replacedBy[i] >= 0 {
			continue
		}
		if vs := olds[i]; len(vs) > 0 {
			note := " (earlier: " + vs[0]
			for _, v := range vs[1:] {
				note += "; before that " + v
			}
			note += ")"
			body := strings.TrimRight(s.text, ".!?")
			s.text = body + note + s.text[len(body):]
			s.words = wordsOf(s.text)
			s.newest = true
		}
		out = append(out, s)
	}
	return out
}

// splitMembers splits each text into sentences and finds its label: a
// speaker or source written first, "Caroline:" or "user:", which is not
// content (it would make every greeting central) and which the line taken
// from the member keeps.
func splitMembers(texts []string) ([]sentence, []string) {
	var out []sentence
	labels := make([]string, len(texts))
	for m, t := range texts {
		t = strings.Join(strings.Fields(t), " ")
		labels[m] = labelOf(t)
		t = strings.TrimSpace(strings.TrimPrefix(t, labels[m]))
		for _, s := range sentencesOf(t) {
			out = append(out, sentence{member: m, pos: len(out), text: s, words: wordsOf(s)})
		}
	}
	return out, labels
}

// labelOf returns text's leading label ("Name:"), if it has one: at most
// three words before a colon, none of them ending a sentence.
func labelOf(text string) string {
	i := strings.Index(text, ": ")
	if i <= 0 || i > 40 {
		return ""
	}
	head := text[:i]
	if len(strings.Fields(head)) > 3 || strings.ContainsAny(head, ".!?,;\"()[]") {
		return ""
	}
	return head + ":"
}

// sentencesOf splits text after each ., ! or ? followed by a space, outside
// brackets (an image's caption, "[shares: ...]", stays whole), and never
// into pieces of fewer than three words, which say nothing on their own.
func sentencesOf(text string) []string {
	var out []string
	depth, start := 0, 0
	runes := []rune(text)
	for i, r := range runes {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(0, depth-1)
		case '.', '!', '?':
			if depth == 0 && i+1 < len(runes) && runes[i+1] == ' ' && (i+2 >= len(runes) || !unicode.IsPunct(runes[i+2]) || runes[i+2] == '[' || runes[i+2] == '"') {
				if piece := strings.TrimSpace(string(runes[start : i+1])); len(strings.Fields(piece)) >= 3 {
					out = append(out, piece)
					start = i + 1
				}
			}
		}
	}
	if piece := strings.TrimSpace(string(runes[start:])); piece != "" {
		if len(out) > 0 && len(strings.Fields(piece)) < 3 {
			out[len(out)-1] += " " + piece
		} else {
			out = append(out, piece)
		}
	}
	return out
}

// groupWeights weighs each content word by how many members use it (the
// group's topic weighs most, and a word only one member uses still counts)
// and by how rare it is in the agent's memories (a name said in every
// memory says nothing of this group's).
func groupWeights(sents []sentence, vocab *vocabulary) map[string]float64 {
	members := map[string]map[int]bool{}
	for _, s := range sents {
		for w := range s.words {
			if members[w] == nil {
				members[w] = map[int]bool{}
			}
			members[w][s.member] = true
		}
	}
	out := make(map[string]float64, len(members))
	for w, ms := range members {
		out[w] = (1 + math.Log(float64(len(ms)))) * vocab.idf(w)
	}
	return out
}

// fillerShare: a sentence that adds less than this share of what the first
// chosen added (per character) is filler ("Sure thing, John."), and ends
// the choice even when the budget has room: on LoCoMo conversations 1-5 it
// saved 2% of the tokens and no recall.
const fillerShare = 0.3

// choose picks sentences greedily by the weight of the words they add per
// character, while they fit in budget (the first always does) and are not
// filler, and returns them in the order they were written.
func choose(sents []sentence, weight map[string]float64, budget int) []sentence {
	covered := map[string]bool{}
	taken := make([]bool, len(sents))
	var out []sentence
	used, top := 0, 0.0
	for i, s := range sents {
		if s.newest {
			taken[i] = true
			used += utf8.RuneCountInString(s.text) + 1
			for w := range s.words {
				covered[w] = true
			}
			out = append(out, s)
		}
	}
	for {
		best, bestGain := -1, 0.0
		if len(out) == 0 {
			bestGain = -1 // a summary has a sentence, even of words that say little
		}
		for i, s := range sents {
			n := utf8.RuneCountInString(s.text) + 1
			if taken[i] || (len(out) > 0 && used+n > budget) {
				continue
			}
			gain := 0.0
			for w := range s.words {
				if !covered[w] {
					gain += weight[w]
				}
			}
			if strings.HasSuffix(s.text, "?") {
				gain /= 2 // a question records what was asked, not what is known
			}
			if gain /= math.Sqrt(float64(n)); gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 || bestGain < fillerShare*top {
			break
		}
		top = max(top, bestGain)
		taken[best] = true
		used += utf8.RuneCountInString(sents[best].text) + 1
		for w := range sents[best].words {
			covered[w] = true
		}
		out = append(out, sents[best])
	}
	slices.SortFunc(out, func(a, b sentence) int { return cmp.Compare(a.pos, b.pos) })
	return out
}

// leftOut lists, as written, up to n content words of the sentences not
// chosen that no chosen sentence has: the heaviest first, then the longest
// (among words as rare, a longer one is the more specific: "marigolds"
// before "nice"), then the first written.
func leftOut(sents, chosen []sentence, weight map[string]float64, n int) []string {
	if n <= 0 {
		return nil
	}
	covered := map[string]bool{}
	for _, s := range chosen {
		for w := range s.words {
			covered[w] = true
		}
	}
	type word struct {
		stem, as string
		pos      int
	}
	var rest []word
	for _, s := range sents {
		for _, tok := range tokens(s.text) {
			low := strings.ToLower(tok)
			st := stem(low)
			if !stopWords[low] && len(low) >= 3 && !covered[st] {
				covered[st] = true
				rest = append(rest, word{st, tok, len(rest)})
			}
		}
	}
	slices.SortStableFunc(rest, func(a, b word) int {
		return cmp.Or(cmp.Compare(weight[b.stem], weight[a.stem]), cmp.Compare(utf8.RuneCountInString(b.as), utf8.RuneCountInString(a.as)))
	})
	rest = rest[:min(n, len(rest))]
	slices.SortFunc(rest, func(a, b word) int { return cmp.Compare(a.pos, b.pos) })
	out := make([]string, len(rest))
	for i, w := range rest {
		out[i] = w.as
	}
	return out
}

// tokens are text's words as written, split where wordsOf splits them.
func tokens(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}
