package promotion

import (
	"strings"
	"testing"
)

// TestStemKnownOutputs checks stem against outputs of the Porter2 (English)
// stemmer from the Snowball project's published sample vocabulary and
// description, including its exceptional forms.
func TestStemKnownOutputs(t *testing.T) {
	for w, want := range map[string]string{
		// Porter2's own outputs (its sample vocabulary), where only the steps kept apply.
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consist": "consist", "consisted": "consist", "consisting": "consist", "consists": "consist",
		"consolatory": "consolatori", "console": "consol",
		"consoled": "consol", "consoles": "consol", "consoling": "consol", "consolingly": "consol", "consols": "consol",
		"consort": "consort", "consorted": "consort", "consorting": "consort",
		"conspiracy": "conspiraci",
		"conspire":   "conspir", "conspired": "conspir",
		"conspiring": "conspir", "constable": "constabl", "constables": "constabl", "constance": "constanc",
		"constant": "constant",
		"knack":    "knack", "knackeries": "knackeri", "knave": "knave", "knaves": "knave", "knavish": "knavish",
		"kneaded": "knead", "kneading": "knead", "knee": "knee", "kneeled": "kneel", "kneeling": "kneel",
		"knees": "knee", "knelt": "knelt", "knife": "knife", "knits": "knit",
		"knitted": "knit", "knitting": "knit", "knives": "knive", "knocker": "knocker", "knocking": "knock",
		// From the description: regions, special prefixes, short syllables.
		"generate": "generat", "general": "general", "communism": "communism",
		"hoped": "hope", "hopping": "hop", "agreed": "agre", "feed": "feed",
		"ties": "tie", "cries": "cri", "gas": "gas", "gaps": "gap", "kiwis": "kiwi", "this": "this",
		"cry": "cri", "by": "by", "say": "say", "caresses": "caress", "ponies": "poni",
		"happily": "happili", "adoption": "adopt", "rate": "rate", "cease": "ceas", "controll": "control",
		// Exceptional forms.
		"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
		"gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
		"news": "news", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias",
		"inning": "inning", "outings": "outing", "proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
		// "-able" and "-ible" in R1, where four letters stay (issue 22).
		"reachable": "reach", "unreachable": "unreach", "deployable": "deploy", "searchable": "search",
		"accessible": "access", "capable": "capabl", "notable": "notabl", "visible": "visibl", "table": "tabl",
		// Left alone: short words, digits, non-ASCII.
		"is": "is", "ok": "ok", "v2": "v2", "500s": "500s", "café": "café",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestStemWordForms checks the inflections notes and rows use for the same
// thing meet (and a few that must not).
func TestStemWordForms(t *testing.T) {
	for _, forms := range [][]string{
		{"fail", "fails", "failed", "failing"},
		{"deploy", "deploys", "deployed", "deploying", "deployment", "deployments"},
		{"cache", "caches", "cached", "caching"},
		{"crash", "crashes", "crashed", "crashing"},
		{"fix", "fixes", "fixed", "fixing"},
		{"timeout", "timeouts"},
		{"connect", "connects", "connected", "connecting", "connection", "connections"},
		{"stage", "staging"},
		{"retry", "retries", "retried"},
		{"flake", "flakes"},
		{"upload", "uploads", "uploaded", "uploading"},
		{"migrate", "migrated", "migrating", "migration", "migrations"},
	} {
		for _, w := range forms[1:] {
			if stem(w) != stem(forms[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: they should meet", w, stem(w), forms[0], stem(forms[0]))
			}
		}
	}
	// Apart: different words (Porter2's steps 2 to 4 fold these together,
	// which is why they are left out), and what inflection alone does not
	// reach ("-ure", adjectives in "-y"), listed so that a change is noticed.
	for _, pair := range [][2]string{{"general", "generic"}, {"news", "new"}, {"worker", "work"}, {"failure", "fail"}, {"flaky", "flake"},
		{"international", "internal"}, {"experiment", "experience"}, {"operator", "operation"}, {"generate", "general"},
		{"statement", "state"}, {"question", "quest"}, {"action", "act"}} {
		if stem(pair[0]) == stem(pair[1]) {
			t.Errorf("stem(%q) = stem(%q) = %q: they should not meet", pair[0], pair[1], stem(pair[0]))
		}
	}
}

// TestLexiconsAfterStemming checks that the lexicons in words.go, which are
// compared with both a word and its stem, still hold every inflection of
// the words lifecycle notes use, and keep nouns that share a stem with them.
func TestLexiconsAfterStemming(t *testing.T) {
	for _, w := range strings.Fields(`fix fixes fixed fixing resolve resolves resolved resolving solve solves solved
		solving close closes closed closing unblock unblocks unblocked unblocking work works worked working passes
		passed passing decide decides decided deciding agree agrees agreed chose chosen settle settles settled
		settling noted mentioned doing having being`) {
		if got := contentWords(w); len(got) > 0 {
			t.Errorf("%q is a content word (%v): lifecycle notes all use it", w, got)
		}
	}
	for _, w := range strings.Fields(`note notes resolver handle worker password fixture closure`) {
		if len(contentWords(w)) == 0 {
			t.Errorf("%q is dropped as a function word: it can name a row", w)
		}
	}
	for _, w := range strings.Fields(`blocker blockers issue issues bug bugs problems errors decision decisions rules choices`) {
		if !generic[stem(w)] {
			t.Errorf("%q (stem %q) is not generic", w, stem(w))
		}
	}
}
