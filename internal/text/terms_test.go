package text

import (
	"slices"
	"testing"
)

func TestTermFoldsInflectionOnly(t *testing.T) {
	same := [][2]string{{"servers", "server"}, {"deployed", "deploy"}, {"deploys", "deploy"}, {"memories", "memory"},
		{"accounts", "account"}, {"meetings", "meeting"}, {"café", "cafe"}, {"naïve", "naive"},
		{"painting", "paint"}, {"went", "go"}, {"goes", "go"}, {"flies", "fly"}, {"children", "child"}, {"people", "persons"},
		{"buildings", "building"}, {"met", "meeting"}}
	for _, p := range same {
		if Term(p[0]) != Term(p[1]) {
			t.Errorf("Term(%q) = %q, Term(%q) = %q: want one term", p[0], Term(p[0]), p[1], Term(p[1]))
		}
	}
	apart := [][2]string{{"internal", "international"}, {"memory", "memorial"}, {"account", "accounting"},
		{"product", "production"}, {"general", "generation"}, {"build", "building"}, {"custom", "customer"},
		{"even", "evening"}, {"set", "setting"}, {"saw", "see"}, {"left", "leave"}}
	for _, p := range apart {
		if Term(p[0]) == Term(p[1]) {
			t.Errorf("Term(%q) = Term(%q) = %q: want two terms", p[0], p[1], Term(p[0]))
		}
	}
}

func TestTermsSpans(t *testing.T) {
	s := "Deployed the API-servers; Café x86 ok"
	var terms []string
	for _, sp := range Terms(s) {
		terms = append(terms, sp.Term)
		if w := Words(s[sp.Start:sp.End]); len(w) != 1 {
			t.Errorf("span %d-%d is %q, not one word", sp.Start, sp.End, s[sp.Start:sp.End])
		}
	}
	want := []string{"deploy", "the", "api", "server", "cafe", "x86", "ok"}
	if !slices.Equal(terms, want) {
		t.Errorf("Terms = %q, want %q", terms, want)
	}
	long := string(make([]byte, 0)) + "a"
	for len(long) < 3*MaxTermBytes {
		long += "é"
	}
	if got := Terms(long); len(got) != 1 || len(got[0].Term) > MaxTermBytes {
		t.Errorf("a long word makes %d terms, the first of %d bytes", len(got), len(got[0].Term))
	}
}

func termList(s string) []string {
	var out []string
	for _, sp := range Terms(s) {
		out = append(out, sp.Term)
	}
	return out
}

func TestTermsKeepNamesWithSigns(t *testing.T) {
	cases := map[string][]string{
		"I write C++":                  {"i", "write", "c++"},
		"I write C#.":                  {"i", "write", "c#"},
		"F# and C, not C#":             {"f#", "and", "c", "not", "c#"},
		"Ann uses .NET (and ASP.NET)":  {"ann", "use", ".net", "and", "asp.net"},
		"Node.js, then Vue.js.":        {"node.js", "then", "vue.js"},
		"Python 3.5 ends. Then 4":      {"python", "3.5", "end", "then", "4"},
		"C++11 and g++":                {"c++", "11", "and", "g++"},
		"see ticket#42 and #go; a+b":   {"see", "ticket", "42", "and", "go", "a", "b"},
		"it ends...then .5 and .":      {"it", "end", "then", "5", "and"},
		"J.K. Rowling wrote":           {"j.k", "rowl", "write"},
		"notepad++ is not notepad":     {"notepad++", "is", "not", "notepad"},
		"the servers.":                 {"the", "server"},
		"deployed the API-servers ok.": {"deploy", "the", "api", "server", "ok"},
	}
	for s, want := range cases {
		if got := termList(s); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", s, got, want)
		}
	}
	apart := [][2]string{{"C++", "C#"}, {"C#", "F#"}, {"C", "C#"}, {"C", "C++"}, {".NET", "net"}, {"Node.js", "node"}}
	for _, p := range apart {
		if slices.Equal(termList(p[0]), termList(p[1])) {
			t.Errorf("%q and %q make the same terms %q", p[0], p[1], termList(p[0]))
		}
	}
}

func TestTermsPairCJK(t *testing.T) {
	cases := map[string][]string{
		"東京タワーに行った":               {"東京", "京タ", "タワ", "ワー", "ーに", "に行", "行っ", "った"},
		"私は寿司が好き。猫":               {"私は", "は寿", "寿司", "司が", "が好", "好き", "猫"},
		"Ann visited 東京 in 2023年": {"ann", "visit", "東京", "in", "2023", "年"},
		"서울에 살아요":                 {"서울", "울에", "살아", "아요"},
		"がか":                      {"がか"},
	}
	for s, want := range cases {
		if got := termList(s); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", s, got, want)
		}
	}
	// Every term's text makes that term again: a search looks for a
	// document's terms by their text.
	for _, s := range []string{"東京タワーに行った", "I write C++ and .NET", "J.K. Rowling"} {
		words, terms := TermWords(s), termList(s)
		for i, w := range words {
			if got := termList(w); len(got) != 1 || got[0] != terms[i] {
				t.Errorf("TermWords(%q)[%d] = %q makes %q, want %q", s, i, w, got, terms[i])
			}
		}
	}
}
