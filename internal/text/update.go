package text

import (
	"slices"
	"strings"
)

// Updates told in other words (issue 22): a clause that denies after "and"
// ("has been vegetarian for a year and doesn't eat meat"), what a sentence
// says after its verb's preposition replaced "now" ("the billing service
// is now owned by the platform team"), a tool's version upgraded, a tool
// used "instead of" another.

// verbAt is the index of a sentence's first verb, as far as its words
// tell one: a negation, an auxiliary or a modal, "to be", a verb that
// states a value, has, uses or changes, a past in -ed; else the first
// word in -s after the subject ("the nightly build publishes"). -1 if none.
func verbAt(toks []token) int {
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		lw := strings.ToLower(t.raw)
		_, change := changes[t.norm]
		_, past := pasts[lw]
		if t.slot == "" && (negation(t) || auxiliary[t.norm] || modals[t.norm] || copulas[t.norm] || anchors[t.norm] || habits[t.norm] ||
			t.norm == have || tooled[t.norm] && t.norm != "with" && t.norm != "via" || change || past || len(lw) > 4 && strings.HasSuffix(lw, "ed")) {
			return i
		}
	}
	for i := 1; i < len(toks); i++ {
		lw := strings.ToLower(toks[i].raw)
		if toks[i].slot == "" && len(lw) > 3 && strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && !strings.ContainsAny(lw, "'’") {
			return i
		}
	}
	return -1
}

// modals are the auxiliaries and modals, as fold makes them ("doesn't" is
// "do" "not").
var modals = foldSet("can", "could", "will", "would", "should", "must", "may", "might", "is", "are", "was", "were", "does", "do", "did",
	"has", "have", "had", "won't")

// clausePolarity is the statements of a sentence of two clauses joined by
// "and" or "but" where the second has no subject of its own and opens
// with a negation or an auxiliary ("the user has been vegetarian for a
// year and doesn't eat meat"), or with "now" after what stopped ("the
// user no longer drives to work and now takes the train"): each clause is
// claimed as a sentence of its own, the second with the first's subject.
func clausePolarity(toks []token, andNow bool) []claim {
	k := slices.IndexFunc(toks, func(t token) bool { return t.norm == "and" || t.norm == "but" })
	if k < 2 || k+2 >= len(toks) {
		return nil
	}
	v := verbAt(toks[:k])
	if v < 1 {
		return nil
	}
	rest := toks[k+1:]
	opens := rest[0].slot == "" && (negation(rest[0]) || modals[rest[0].norm])
	if !opens && !andNow {
		return nil
	}
	out := polarityClaim(toks[:k])
	if opens {
		out = append(out, polarityClaim(append(slices.Clone(toks[:v]), rest...))...)
	}
	return out
}

// tails are the prepositions after which a sentence says where, by whom
// or on what something is ("is owned by", "works on", "is kept in").
var tails = map[string]bool{"by": true, "on": true, "in": true, "at": true, "to": true, "for": true, "with": true, "from": true}

// tailClaim is what a sentence says after the first preposition past its
// verb, when that is a few words or one list of values: "the billing
// service is owned by | the payments team". The words up to the
// preposition are its key, and only a sentence that says "now" (or
// "instead", "no longer") clashes on it, with another ending of the same
// kind: "the billing service is now owned by the platform team" replaces
// it, "the user now works on weekends" does not replace "works on the
// search team".
func tailClaim(toks []token, now bool) []claim {
	if slices.ContainsFunc(toks, negation) {
		return nil
	}
	v := verbAt(toks)
	if v < 1 || auxiliary[toks[v].norm] && v+1 < len(toks) && toks[v+1].slot != "" {
		return nil
	}
	p := slices.IndexFunc(toks[v:], func(t token) bool { return t.slot == "" && tails[t.norm] })
	if p < 0 {
		return nil
	}
	p += v
	tail := toks[p+1:]
	if len(tail) == 0 || len(tail) > 4 {
		return nil
	}
	var key []string
	only := false
	for j, t := range toks[:p+1] {
		switch {
		case strings.EqualFold(t.raw, "only"):
			only = true
		case fresh[t.norm] || frequency[strings.ToLower(t.raw)] || j == 0 && owner(t) && len(toks) > 1:
		case t.slot != "":
			key = append(key, t.slot+":"+t.norm)
		default:
			key = append(key, t.norm)
		}
	}
	c := claim{only: only, change: now}
	switch {
	case tail[0].slot != "" && listEnd(toks, p+1) == len(toks):
		c.slot = tail[0].slot
		c.value, c.raw = listOf(tail)
	case !slices.ContainsFunc(tail, func(t token) bool { return t.slot != "" || t.norm == "and" || t.norm == "or" || tails[t.norm] }):
		c.slot, c.value, c.raw = "value", strings.Join(norms(tail), " "), strings.Join(raws(tail), " ")
	default:
		return nil
	}
	c.key = "t|" + strings.Join(key, " ") + "|" + c.slot
	return []claim{c}
}

// versionClaims are the version a sentence states of a tool it names with
// one ("runs Kubernetes 1.27", "requires Python 3.9"): an upgrade to
// another replaces it ("was upgraded to Kubernetes 1.29"), and so does the
// same sentence with another version, where its verb needs one version
// ("requires", "uses"), not many ("supports", "was tested on").
func versionClaims(toks []token) []claim {
	v := verbAt(toks)
	if v < 1 || slices.ContainsFunc(toks, func(t token) bool { return negation(t) || t.norm == "and" || t.norm == "or" }) {
		return nil
	}
	subj, ok := subject(toks[:v])
	if !ok {
		return nil
	}
	var out []claim
	for i, t := range toks {
		if t.slot != "name" || i < v {
			continue
		}
		f := strings.Fields(t.norm)
		if len(f) < 2 {
			continue
		}
		ver := f[len(f)-1]
		if _, ok := number(ver); !ok {
			continue
		}
		base := strings.Join(f[:len(f)-1], " ")
		change := slices.ContainsFunc(toks[v:i], func(u token) bool { _, ok := changes[u.norm]; return ok })
		out = append(out, claim{key: "u|" + subj + "|version:" + base, slot: "number", value: ver, raw: t.raw, change: change, values: []string{ver}})
		if !change && slices.ContainsFunc(toks[v:i], func(u token) bool { return needing[u.norm] }) {
			key := slices.Clone(norms(toks))
			key[i] = base + " <version>"
			out = append(out, claim{key: "n|" + strings.Join(key, " "), slot: "number", value: ver, raw: t.raw})
		}
	}
	return out
}

// needing are the verbs that need one version of what they name.
var needing = foldSet("requires", "require", "needs", "need", "uses", "use", "targets", "target", "pinned", "depends")

// insteadClaims are a tool used instead of another ("the team now uses
// Microsoft Teams instead of Slack"): the other is no longer the
// subject's, as after "switched from Slack to".
func insteadClaims(toks []token) []claim {
	i := slices.IndexFunc(toks, func(t token) bool { return t.norm == fold("instead") })
	if i < 2 || i+2 >= len(toks) || toks[i+1].norm != "of" || toks[i+2].slot != "name" && toks[i+2].slot != "code" {
		return nil
	}
	v := verbAt(toks[:i])
	if v < 1 {
		return nil
	}
	subj, ok := subject(toks[:v])
	if !ok {
		return nil
	}
	x := toks[i+2]
	n := slices.IndexFunc(toks[v:i], func(t token) bool { return t.slot == x.slot })
	if n < 0 {
		return nil
	}
	y := toks[v+n]
	return []claim{{key: "x|" + x.slot + ":" + x.norm, slot: x.slot, value: "→" + y.norm, raw: y.raw, change: true, lead: strings.Fields(subj)}}
}
