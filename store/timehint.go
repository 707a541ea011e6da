package store

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// timeHint is a period a search query names: a day ("on 1 February, 2023",
// "2024-03-01"), a month ("in June", "October 2023") or a year ("in 2022"),
// and how the query relates to it ("since 2022"). Search ranks the memories
// that occurred then as one more list, so that "what did we decide in March
// 2024" favours what happened in March 2024.
type timeHint struct {
	Year  int        // 0: the query names no year
	Month time.Month // 0: no month
	Day   int        // 0: no day
	// Relation is "in" (the period itself), "since", "after" or "before".
	Relation string
}

var (
	monthNames = map[string]time.Month{
		"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
		"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
		"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
	}
	monthRE = `(january|february|march|april|may|june|july|august|september|october|november|december|` +
		`jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`
	dayRE  = `(\d{1,2})(?:st|nd|rd|th)?`
	yearRE = `((?:19|20)\d\d)`
	// A preposition that puts what follows in time.
	prepRE = `\b(in|on|during|since|before|after|until)\s+(?:the\s+)?`
	// Tried in order, most specific first; the first that matches wins.
	hintPatterns = []hintPattern{
		{re: `\b` + yearRE + `-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b`, year: 1, month: 2, day: 3},
		{re: `(?:` + prepRE + `)?\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `,?\s+` + yearRE + `\b`, prep: 1, day: 2, month: 3, year: 4},
		{re: `(?:` + prepRE + `)?\b` + monthRE + `\s+` + dayRE + `,?\s+` + yearRE + `\b`, prep: 1, month: 2, day: 3, year: 4},
		{re: `(?:` + prepRE + `)?\b` + monthRE + `,?\s+(?:of\s+)?` + yearRE + `\b`, prep: 1, month: 2, year: 3},
		{re: `(?:` + prepRE + `)?\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `\b`, prep: 1, day: 2, month: 3},
		{re: `(?:` + prepRE + `)?\b` + monthRE + `\s+` + dayRE + `\b`, prep: 1, month: 2, day: 3},
		// A bare year or month only right after a preposition: "2048" is
		// a port as often as a year, and June, May and Jan are people.
		{re: `\b(in|during|since|before|after|until)\s+` + yearRE + `\b`, prep: 1, year: 2, needPrep: true},
		{re: `\b(in|during|since|before|after|until)\s+(?:early\s+|mid\s+|late\s+)?` + monthRE + `('s\b|’s)?`, prep: 1, month: 2, possessive: 3, needPrep: true},
	}
)

// hintPattern is one shape of date expression and where its parts are.
type hintPattern struct {
	re                     string
	prep, day, month, year int // submatch indexes; 0: the shape has no such part
	possessive             int // submatch of a trailing "'s": "in June's notes" names a person
	needPrep               bool
	compiled               *regexp.Regexp
}

func init() {
	for i := range hintPatterns {
		hintPatterns[i].compiled = regexp.MustCompile(`(?i)` + hintPatterns[i].re)
	}
}

// parseTimeHint finds the first date expression in text: an ISO date, a
// month with a day or a year, or a month or year right after a preposition
// (in, during, since, before, after, until). A capitalised month word alone
// ("Jan owns billing", "May I ask") and a bare number ("port 2048") name
// nothing; "may" and "march" in lower case count only beside a year or
// after a preposition.
func parseTimeHint(text string) (timeHint, bool) {
	for _, p := range hintPatterns {
		for _, m := range p.compiled.FindAllStringSubmatchIndex(text, -1) {
			if h, ok := p.hint(text, m); ok {
				return h, true
			}
		}
	}
	return timeHint{}, false
}

// hint reads one match of p; false when it is not a date after all.
func (p hintPattern) hint(text string, m []int) (timeHint, bool) {
	part := func(i int) string {
		if i == 0 || m[2*i] < 0 {
			return ""
		}
		return text[m[2*i]:m[2*i+1]]
	}
	h := timeHint{Relation: relation(part(p.prep))}
	if p.possessive > 0 && part(p.possessive) != "" {
		return h, false
	}
	if mo := part(p.month); mo != "" {
		h.Month = monthNames[strings.ToLower(mo)]
		if h.Month == 0 {
			n, _ := strconv.Atoi(mo) // ISO: a number
			h.Month = time.Month(n)
		}
		if p.year == 0 && part(p.prep) == "" && ambiguousMonth(mo) {
			return h, false
		}
	}
	if p.day > 0 {
		h.Day, _ = strconv.Atoi(part(p.day))
		if h.Day < 1 || h.Day > 31 {
			return h, false
		}
	}
	if p.year > 0 {
		h.Year, _ = strconv.Atoi(part(p.year))
	}
	return h, true
}

// ambiguousMonth reports whether a month word written so is as likely an
// ordinary word: "3 may fail", "march 2 miles".
func ambiguousMonth(word string) bool {
	switch word {
	case "may", "march", "mar", "mar.":
		return true
	}
	return false
}

func relation(prep string) string {
	switch p := strings.ToLower(prep); p {
	case "since", "after", "before":
		return p
	case "until":
		return "before"
	}
	return "in"
}

// Slack after a hinted period: memories are often written (and events
// reported) a little after they happen.
const (
	daySlack    = 24 * time.Hour
	periodSlack = 15 * 24 * time.Hour
)

// Window is the time [from, to) the hint covers; a zero bound is open. The
// period itself is widened by the slack after its end; "since" runs from
// its start on, "after" from its end on, "before" up to its start. A hint
// without a year means the latest such period that began at or before ref
// (the newest memory searched, so that "in June" over a 2023 conversation
// means June 2023).
func (h timeHint) Window(ref time.Time) (from, to time.Time) {
	ref = ref.UTC()
	year := h.Year
	if year == 0 {
		year = ref.Year()
		if h.start(year).After(ref) {
			year--
		}
	}
	from = h.start(year)
	end := from.AddDate(1, 0, 0)
	switch {
	case h.Day > 0:
		end = from.AddDate(0, 0, 1)
	case h.Month > 0:
		end = from.AddDate(0, 1, 0)
	}
	switch h.Relation {
	case "since":
		return from, time.Time{}
	case "after":
		return end, time.Time{}
	case "before":
		return time.Time{}, from
	}
	if h.Day > 0 {
		return from, end.Add(daySlack)
	}
	return from, end.Add(periodSlack)
}

func (h timeHint) start(year int) time.Time {
	month, day := h.Month, h.Day
	if month == 0 {
		month = time.January
	}
	if day == 0 {
		day = 1
	}
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
}
