package text

import (
	"slices"
	"strings"
)

// Claims that both hold (issue 22): a state told in the simple past
// ("Ann lived in Lyon") beside one told in the present ("Ann lives in
// Paris") is history beside now, not a replacement; a verb of change
// ("moved to", "switched to") is no past state and still replaces. And a
// second value of one attribute with a qualifier the first lacks (a
// schedule, a purpose, a role, a source, a rate, an office or a person
// rather than an employer) is a second value, not a replacement.

// pastStates are the simple pasts of verbs that state a lasting value.
var pastStates = map[string]bool{"lived": true, "worked": true, "studied": true, "listened": true, "seated": true,
	"earned": true, "resided": true, "stayed": true, "taught": true, "attended": true, "belonged": true,
	"weighed": true, "owned": true, "used": true, "ran": true, "held": true, "made": true, "served": true,
	"reported": true, "hosted": true, "employed": true}

// presentStates are the present forms of the same verbs.
var presentStates = map[string]bool{"lives": true, "live": true, "works": true, "work": true, "studies": true,
	"study": true, "listens": true, "listen": true, "seats": true, "seat": true, "earns": true, "earn": true,
	"resides": true, "reside": true, "stays": true, "stay": true, "teaches": true, "teach": true, "attends": true,
	"attend": true, "belongs": true, "belong": true, "weighs": true, "weigh": true, "owns": true, "own": true,
	"uses": true, "use": true, "runs": true, "run": true, "holds": true, "hold": true, "makes": true, "make": true,
	"serves": true, "serve": true, "reports": true, "report": true, "hosts": true, "host": true, "employs": true, "employ": true}

// tenseOf is "past" for a sentence whose first verb is the simple past of
// a verb of state, "present" for its present, else "" (a change, "is",
// a form this cannot tell).
func tenseOf(toks []token) string {
	v := verbAt(toks)
	if v < 1 {
		return ""
	}
	switch w := strings.ToLower(toks[v].raw); {
	case pastStates[w]:
		return "past"
	case presentStates[w]:
		return "present"
	}
	return ""
}

// qualifiers are what a sentence says of its value beside the value:
// "sched:sat" (on weekends, on Fridays, every Monday), "role:contractor"
// (as a contractor), "purpose" (for swimming lessons), "source:dividend"
// (in dividends, tutoring), "per:hour" (per hour, a year), "unit:office" (the Berlin office), "person" (the CTO),
// sorted and joined.
func qualifiers(toks []token) string {
	var q []string
	add := func(s string) {
		if !slices.Contains(q, s) {
			q = append(q, s)
		}
	}
	for i, t := range toks {
		w := strings.ToLower(t.raw)
		next := ""
		if i+1 < len(toks) {
			next = strings.ToLower(toks[i+1].raw)
		}
		switch {
		case (w == "on" || w == "every" || w == "at") && (t.slot == "" && (toks[min(i+1, len(toks)-1)].slot == "day" || strings.HasPrefix(next, "weekend") || strings.HasPrefix(next, "weekday"))):
			add("sched:" + toks[i+1].norm)
		case w == "as" && (next == "a" || next == "an") && i+2 < len(toks):
			add("role:" + toks[i+2].norm)
		case w == "as" && i+1 < len(toks) && jobs[toks[i+1].norm]:
			add("role:" + toks[i+1].norm)
		case w == "for" && i > 0 && toks[i-1].slot != "" && i+1 < len(toks):
			add("purpose")
		case incomes[w]:
			add("source:" + t.norm)
		case (w == "per" || w == "a" || w == "an" || w == "each" || w == "every") && rates[next] != "":
			add("per:" + rates[next])
		case rates[w] != "" && strings.HasSuffix(w, "ly"):
			add("per:" + rates[w])
		case units[w] && i > 0 && toks[i-1].slot == "name":
			add("unit:" + w)
		case t.slot == "name" && titles[strings.ToLower(t.raw)]:
			add("person")
		}
	}
	slices.Sort(q)
	return strings.Join(q, " ")
}

// incomes are the sources of an income beside a salary.
var incomes = map[string]bool{"dividends": true, "tutoring": true, "freelancing": true, "consulting": true,
	"royalties": true, "rent": true, "interest": true, "bonus": true, "bonuses": true, "tips": true,
	"commission": true, "commissions": true, "pension": true, "babysitting": true}

// rates are the periods an amount is counted by.
var rates = map[string]string{"hour": "hour", "day": "day", "week": "week", "month": "month", "year": "year",
	"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annually": "year",
	"annual": "year", "annum": "year"}

// units are the parts of an organisation a name is said of ("the Berlin
// office"), not the organisation.
var units = map[string]bool{"office": true, "branch": true, "site": true, "campus": true, "team": true,
	"department": true, "headquarters": true, "hq": true, "store": true, "plant": true}

// titles are people named by their post ("works for the CTO").
var titles = map[string]bool{"cto": true, "ceo": true, "cfo": true, "coo": true, "cio": true, "ciso": true, "vp": true}

// sameTime reports whether claims o and n can replace one another: not a
// past state beside a present one, nor a past state and a change (what
// Ann lived in stays true when she moves); for one attribute said two ways ("c|"
// keys), not with different qualifiers; for any other value, not one an
// office or a person and the other not.
func sameTime(o, n claim) bool {
	if o.tense == "past" || o.tense == "present" && n.tense == "past" {
		// A change ("moved to Paris") ends a present state, not a past
		// one; and two past states ("Ann lived in Lyon", "Ann lived in
		// Paris") are a history, each true in its own time.
		return false
	}
	switch {
	case n.slot == "":
		return true
	case strings.HasPrefix(n.key, "c|"):
		return sameQualifiers(o.qual, n.qual)
	}
	return slices.Equal(kindOf(o.qual), kindOf(n.qual))
}

// kindOf is the qualifiers that say what kind of thing a value is (an
// office, a person) rather than when or how it holds: on any key, "works
// for the CTO" is not another employer.
func kindOf(qual string) []string {
	return slices.DeleteFunc(strings.Fields(qual), func(q string) bool { return q != "person" && !strings.HasPrefix(q, "unit:") })
}

// sameQualifiers reports whether two sentences' qualifiers agree: the
// same, but a rate only where both tell one ("a salary of $90,000" is by
// the year).
func sameQualifiers(a, b string) bool {
	qa, qb := strings.Fields(a), strings.Fields(b)
	rated := func(q string) bool { return strings.HasPrefix(q, "per:") }
	if slices.ContainsFunc(qa, rated) && slices.ContainsFunc(qb, rated) {
		return slices.Equal(qa, qb)
	}
	return slices.Equal(slices.DeleteFunc(qa, rated), slices.DeleteFunc(qb, rated))
}
