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
