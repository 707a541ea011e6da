package text

import "strings"

// american spells a British form the American way ("colour" is
// "color", "organise" "organize"), so that a word meets its other
// spelling: they are one word, not two near each other.
func american(w string) string {
	if a, ok := spellings[w]; ok {
		return a
	}
	for _, s := range spellingSuffixes {
		if stem, ok := strings.CutSuffix(w, s.british); ok && len(stem) >= s.min {
			return stem + s.american
		}
	}
	return w
}

// spellings are British forms the suffixes below do not reach, or reach
// wrongly.
var spellings = map[string]string{
	"favourite": "favorite", "favourites": "favorites", "grey": "gray", "greys": "grays", "centre": "center",
	"centres": "centers", "metre": "meter", "metres": "meters", "litre": "liter", "litres": "liters",
	"theatre": "theater", "theatres": "theaters", "fibre": "fiber", "licence": "license", "licences": "licenses",
	"defence": "defense", "offence": "offense", "catalogue": "catalog", "catalogues": "catalogs",
	"dialogue": "dialog", "dialogues": "dialogs", "programme": "program", "programmes": "programs",
	"aluminium": "aluminum", "cheque": "check", "cheques": "checks", "mum": "mom", "mums": "moms",
	"cancelled": "canceled", "cancelling": "canceling", "travelled": "traveled", "travelling": "traveling",
	"modelled": "modeled", "modelling": "modeling", "labelled": "labeled", "labelling": "labeling",
	"analyse": "analyze", "analysed": "analyzed", "analyses": "analyzes", "analysing": "analyzing",
}

// spellingSuffixes turn British endings American where the stem before
// them is at least min letters long: "colour" (but not "four", "our",
// "hour", "tour", "pour"), "organise" (but not "rise", "wise", "noise").
var spellingSuffixes = []struct {
	british, american string
	min               int
}{
	{"ours", "ors", 3}, {"our", "or", 3}, {"oured", "ored", 3}, {"ouring", "oring", 3},
	{"isation", "ization", 3}, {"isations", "izations", 3},
	{"ising", "izing", 4}, {"ised", "ized", 4}, {"ises", "izes", 4}, {"ise", "ize", 4},
}
