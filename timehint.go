package memory

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimeHint is a period a search query names: a day ("on 1 February, 2023"),
// a month ("in June", "October 2023") or a year ("in 2022"). Search ranks
// the memories that occurred then as one more list, so that "what did we
// decide in March 2024" favours what happened in March 2024.
type TimeHint struct {
	Year  int        // 0: the query names no year
	Month time.Month // 0: no month
	Day   int        // 0: no day
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
	// Tried in order; the first that matches wins.
	hintPatterns = []struct {
		re         *regexp.Regexp
		day, month int // submatch indexes; year is the last
		year       bool
	}{
		{regexp.MustCompile(`(?i)\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `,?\s+` + yearRE + `\b`), 1, 2, true},
		{regexp.MustCompile(`(?i)\b` + monthRE + `\s+` + dayRE + `,?\s+` + yearRE + `\b`), 2, 1, true},
		{regexp.MustCompile(`(?i)\b` + monthRE + `,?\s+(?:of\s+)?` + yearRE + `\b`), 0, 1, true},
		{regexp.MustCompile(`(?i)\b` + dayRE + `\s+(?:of\s+)?` + monthRE + `\b`), 1, 2, false},
		{regexp.MustCompile(`(?i)\b` + monthRE + `\s+` + dayRE + `\b`), 2, 1, false},
		{regexp.MustCompile(`(?i)\b` + yearRE + `\b`), 0, 0, true},
		{regexp.MustCompile(`(?i)\b` + monthRE + `\b`), 0, 1, false},
	}
)

// ParseTimeHint finds the first period text names. "May" and "March" count
// as months only when capitalised or next to a day or year, so that "may I"
// and "march on" name nothing.
func ParseTimeHint(text string) (TimeHint, bool) {
	for _, p := range hintPatterns {
		m := p.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		var h TimeHint
		if p.month > 0 {
			h.Month = monthNames[strings.ToLower(m[p.month])]
			if p.day == 0 && !p.year && (m[p.month] == "may" || m[p.month] == "march" || m[p.month] == "mar") {
				continue
			}
		}
		if p.day > 0 {
			h.Day, _ = strconv.Atoi(m[p.day])
			if h.Day < 1 || h.Day > 31 {
				continue
			}
		}
		if p.year {
			h.Year, _ = strconv.Atoi(m[len(m)-1])
		}
		return h, true
	}
	return TimeHint{}, false
}

// Slack after a hinted period: memories are often written (and events
// reported) a little after they happen.
const (
	DaySlack    = 24 * time.Hour
	PeriodSlack = 15 * 24 * time.Hour
)

// Window is the period [from, to) the hint covers, widened by the slack after
// its end. A hint without a year means the latest such period that began at
// or before ref (the newest memory searched, so that "in June" over a 2023
// conversation means June 2023).
func (h TimeHint) Window(ref time.Time) (from, to time.Time) {
	ref = ref.UTC()
	year := h.Year
	if year == 0 {
		year = ref.Year()
		if h.start(year).After(ref) {
			year--
		}
	}
	from = h.start(year)
	switch {
	case h.Day > 0:
		return from, from.AddDate(0, 0, 1).Add(DaySlack)
	case h.Month > 0:
		return from, from.AddDate(0, 1, 0).Add(PeriodSlack)
	}
	return from, from.AddDate(1, 0, 0).Add(PeriodSlack)
}

func (h TimeHint) start(year int) time.Time {
	month, day := h.Month, h.Day
	if month == 0 {
		month = time.January
	}
	if day == 0 {
		day = 1
	}
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
}
