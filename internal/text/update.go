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

// toolClaims are the one tool a sentence says its subject uses ("the
// build uses Maven"), which a migration or a switch to another replaces
// ("the build was migrated to Gradle", "the mobile team switched to
// Supabase"): both claim the subject's tool (u|subject|tool), which only
// the change clashes on. A list of tools ("uses Tableau and dbt") is not
// replaced whole by one migration; a move ("moved to Lisbon") may be of
// place, not of tool.
func toolClaims(toks []token) []claim {
	v := verbAt(toks)
	if v < 1 || v+1 >= len(toks) || slices.ContainsFunc(toks, func(t token) bool { return negation(t) || t.norm == "and" || t.norm == "or" }) {
		return nil
	}
	subj, ok := subject(toks[:v])
	if !ok {
		return nil
	}
	t := toks[v]
	switch {
	case (t.norm == fold("uses") || t.norm == fold("use")) && v+2 == len(toks) && (toks[v+1].slot == "name" || toks[v+1].slot == "code"):
		n := toks[v+1]
		return []claim{{key: "u|" + subj + "|tool|" + n.slot, slot: n.slot, value: n.norm, raw: n.raw, values: []string{n.norm}}}
	case auxiliary[t.norm] || migrating[t.norm]:
		m := slices.IndexFunc(toks[v:], func(u token) bool { return migrating[u.norm] })
		if m < 0 {
			return nil
		}
		m += v
		if m+3 != len(toks) || toks[m+1].norm != "to" || toks[m+2].slot != "name" && toks[m+2].slot != "code" ||
			slices.ContainsFunc(toks[v:m], func(u token) bool { return !auxiliary[u.norm] }) {
			return nil
		}
		n := toks[m+2]
		return []claim{{key: "u|" + subj + "|tool|" + n.slot, slot: n.slot, value: n.norm, raw: n.raw, change: true}}
	}
	return nil
}

// migrating are the verbs of a change of tool.
var migrating = foldSet("migrated", "switched", "migrate", "switch")

// hasIts reads "the band has its rehearsal space in Camden" as "the band
// rehearsal space is in Camden", which is how "the band's rehearsal space
// is in Hackney" reads: a place held, said with "has its".
func hasIts(toks []token) ([]token, bool) {
	h := slices.IndexFunc(toks, func(t token) bool { return strings.EqualFold(t.raw, "has") })
	if h < 1 || h+3 >= len(toks) || !possessives[toks[h+1].norm] {
		return nil, false
	}
	p := slices.IndexFunc(toks[h+2:], func(t token) bool { return t.slot != "" || t.norm == "in" || t.norm == "at" || t.norm == "on" })
	if p < 1 || p > 3 || toks[h+2+p].slot != "" {
		return nil, false
	}
	p += h + 2
	out := slices.Clone(toks[:h])
	out = append(out, toks[h+2:p]...)
	out = append(out, token{norm: "is", raw: "is"})
	return append(out, toks[p:]...), true
}

// nowClause is, of a sentence that goes on with "and now" or "but now",
// the clause after it with the first clause's subject ("the user sold the
// car and now commutes by bike": "the user commutes by bike"), or nil.
func nowClause(toks []token) []token {
	k := slices.IndexFunc(toks, func(t token) bool { return t.norm == "and" || t.norm == "but" })
	if k < 2 || k+1 >= len(toks) {
		return nil
	}
	v := verbAt(toks[:k])
	if v < 1 {
		return nil
	}
	return append(slices.Clone(toks[:v]), toks[k+1:]...)
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

// attributeNouns name an attribute a subject has one of at a time, which
// a sentence may state by its noun ("the user's salary is $90,000") or by
// a verb (earnsAttr and the frames in attributeClaims): the attribute each
// names.
var attributeNouns = map[string]string{fold("salary"): "income", fold("income"): "income", fold("wage"): "income",
	fold("employer"): "employer", fold("hometown"): "hometown", fold("birthplace"): "birthplace",
	fold("headquarters"): "headquarters", "hq": "headquarters", fold("school"): "school", fold("age"): "age",
	fold("birthday"): "birthday", fold("weight"): "weight", fold("height"): "height", fold("address"): "address"}

// schools are the last words of a school's name ("Oakwood School",
// "Riverside Primary"): going to one is attending it.
var schools = foldSet("school", "primary", "academy", "college", "university", "nursery", "high", "elementary", "kindergarten")

// attributeClaims are the attributes of one value at a time that a
// sentence states, by noun or by verb, keyed by subject and attribute
// (c|), so that one said two ways clashes: "the user's salary is $90,000"
// and "the user earns $95,000", "Marta's employer is Siemens" and "Marta
// works for Bosch", "the son's school is Riverside Primary" and "the son
// goes to Greenfield Primary", "the startup's headquarters are in Berlin"
// and "the startup is headquartered in Hamburg", "Jon's birthday is on 4
// May" and "Jon was born on 9 May". A past that tells of another time
// ("earned $60,000 in 2019") states none.
func attributeClaims(toks []token) []claim {
	if len(toks) < 3 || slices.ContainsFunc(toks, func(t token) bool { return negation(t) || t.norm == "and" || t.norm == "or" }) {
		return nil
	}
	at := func(subj, attr string, j int, want ...string) []claim {
		for j < len(toks) && toks[j].slot == "" && (linking[toks[j].norm] || toks[j].norm == "is") {
			j++
		}
		if j >= len(toks) || !slices.Contains(want, toks[j].slot) || subj == "" {
			return nil
		}
		v := toks[j]
		if f := strings.Fields(v.norm); attr == "school" && !schools[fold(f[len(f)-1])] {
			return nil
		}
		return []claim{{key: "c|" + subj + "|" + attr, slot: v.slot, value: v.norm, raw: v.raw}}
	}
	// By noun: "the user's salary is", "the startup's headquarters are in",
	// "the charity has its headquarters in".
	for n := 1; n+1 < len(toks); n++ {
		attr, ok := attributeNouns[toks[n].norm]
		if !ok {
			continue
		}
		if n > 2 && possessives[toks[n-1].norm] && toks[n-2].norm == have && strings.EqualFold(toks[n-2].raw, "has") && toks[n+1].norm == "in" {
			subj, ok := subject(toks[:n-2])
			if !ok {
				return nil
			}
			return at(subj, attr, n+1, attributeSlots[attr]...)
		}
		if !present(toks[n+1]) {
			continue
		}
		subj, ok := subject(toks[:n])
		if !ok {
			return nil
		}
		return at(subj, attr, n+2, attributeSlots[attr]...)
	}
	v := verbAt(toks)
	if v < 1 {
		return nil
	}
	subj, ok := subject(toks[:v])
	if !ok {
		return nil
	}
	w, lw := toks[v].norm, strings.ToLower(toks[v].raw)
	if lw != "grew" && lw != "was" && lw != "joined" && !present(toks[v]) {
		return nil // "worked at Klarna before", "earned $60,000 in 2019": another time
	}
	next := ""
	if v+1 < len(toks) {
		next = toks[v+1].norm
	}
	switch {
	case w == fold("earns") || w == fold("makes"):
		return at(subj, "income", v+1, "amount")
	case w == fold("works") && (next == "for" || next == "at") || w == "is" && next == fold("employed"):
		return at(subj, "employer", v+1, "name")
	case lw == "joined":
		// "Ann joined Spotify": an employer from now on, as "works at"
		// says (a name right after the verb; "joined the running club"
		// names none).
		return at(subj, "employer", v+1, "name")
	case lw == "grew" && next == "up", w == "is" && next == "from", w == fold("comes") && next == "from":
		return at(subj, "hometown", v+2, "name")
	case w == fold("headquartered"):
		return at(subj, "headquarters", v+1, "name")
	case w == "is" && next == fold("headquartered"):
		return at(subj, "headquarters", v+2, "name")
	case w == fold("attends") || w == fold("goes") && next == "to":
		return at(subj, "school", v+1, "name")
	case w == fold("weighs"):
		return at(subj, "weight", v+1, "number")
	case w == fold("turns") || w == "is" && v+1 < len(toks) && strings.HasSuffix(strings.ToLower(toks[v+1].raw), "old"):
		return at(subj, "age", v+1, "number")
	case (lw == "was" || w == "is") && next == fold("born"):
		if v+2 < len(toks) && toks[v+2].norm == "in" {
			return at(subj, "birthplace", v+2, "name")
		}
		return at(subj, "birthday", v+2, "date")
	}
	return nil
}

// present reports whether t is a verb in the present: "is", "are", or a
// third person in -s.
func present(t token) bool {
	lw := strings.ToLower(t.raw)
	return lw == "is" || lw == "are" || lw == "am" || len(lw) > 3 && strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss")
}

// attributeSlots are the kinds of value each attribute takes.
var attributeSlots = map[string][]string{"income": {"amount"}, "employer": {"name"}, "hometown": {"name"}, "birthplace": {"name"},
	"headquarters": {"name"}, "school": {"name"}, "age": {"number"}, "birthday": {"date"}, "weight": {"number"}, "height": {"number"},
	"address": {"name", "code"}}
