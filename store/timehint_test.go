package store

import (
	"testing"
	"time"
)

func TestParseTimeHint(t *testing.T) {
	type H = timeHint
	for _, tc := range []struct {
		text string
		want timeHint
		ok   bool
	}{
		// Dates.
		{"What did Gina find for her clothing store on 1 February, 2023?", H{Year: 2023, Month: 2, Day: 1, Relation: "in"}, true},
		{"What painting did Melanie show on October 13, 2023?", H{Year: 2023, Month: 10, Day: 13, Relation: "in"}, true},
		{"the 3rd of March 2024 outage", H{Year: 2024, Month: 3, Day: 3, Relation: "in"}, true},
		{"What setback did Melanie face in October 2023?", H{Year: 2023, Month: 10, Relation: "in"}, true},
		{"deploys in Sept. 2025", H{Year: 2025, Month: 9, Relation: "in"}, true},
		{"released March 2024", H{Year: 2024, Month: 3, Relation: "in"}, true},
		{"How many times has Melanie gone to the beach in 2023?", H{Year: 2023, Relation: "in"}, true},
		{"When did Melanie go camping in June?", H{Month: 6, Relation: "in"}, true},
		{"the review on 14 july", H{Month: 7, Day: 14, Relation: "in"}, true},
		{"What happened in May?", H{Month: 5, Relation: "in"}, true},
		{"what happened during march", H{Month: 3, Relation: "in"}, true},
		{"the incident of 2024-03-01 in prod", H{Year: 2024, Month: 3, Day: 1, Relation: "in"}, true},
		{"backups on May 5", H{Month: 5, Day: 5, Relation: "in"}, true},
		{"backups on may 5", H{Month: 5, Day: 5, Relation: "in"}, true},
		{"Jan 12 release notes", H{Month: 1, Day: 12, Relation: "in"}, true},
		{"what changed since 2019", H{Year: 2019, Relation: "since"}, true},
		{"outages before June 2024", H{Year: 2024, Month: 6, Relation: "before"}, true},
		{"what broke after the 2nd of May", H{Month: 5, Day: 2, Relation: "after"}, true},
		{"until 2025 we used Jenkins", H{Year: 2025, Relation: "before"}, true},
		// Names: a month word alone is not a date.
		{"Jan billing release", H{}, false},
		{"June release checklist", H{}, false},
		{"What did June say about the release checklist?", H{}, false},
		{"May I see the release checklist?", H{}, false},
		{"may I ask what the deploy schedule is", H{}, false},
		{"Ask April about the budget", H{}, false},
		{"August wrote the spec", H{}, false},
		{"rely on June for reviews", H{}, false},
		{"the notes in June's folder", H{}, false},
		{"they will march on", H{}, false},
		{"step 3 may fail", H{}, false},
		{"what did we decide about the cache", H{}, false},
		// Numbers: a bare number is not a year.
		{"port 2048 postgres backups", H{}, false},
		{"postgres backups 2024", H{}, false},
		{"error 2019 in the build log", H{}, false},
		{"ticket #2023 is open", H{}, false},
		{"1999 problems", H{}, false},
		{"version 2024-13-45 tag", H{}, false},
		{"on 45 June", H{}, false}, // no such day, and the month is not after a preposition
	} {
		got, ok := parseTimeHint(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseTimeHint(%q) = %+v, %v; want %+v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTimeHintWindow(t *testing.T) {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	ref := d(2023, 8, 20)
	for _, tc := range []struct {
		hint     timeHint
		from, to time.Time
	}{
		{timeHint{Year: 2023, Month: 2, Day: 1}, d(2023, 2, 1), d(2023, 2, 3)},
		{timeHint{Year: 2023, Month: 10}, d(2023, 10, 1), d(2023, 11, 16)},
		{timeHint{Year: 2022}, d(2022, 1, 1), d(2023, 1, 16)},
		{timeHint{Month: 6}, d(2023, 6, 1), d(2023, 7, 16)},  // June before the reference
		{timeHint{Month: 9}, d(2022, 9, 1), d(2022, 10, 16)}, // September has not begun in 2023 yet
		{timeHint{Month: 8, Day: 20}, d(2023, 8, 20), d(2023, 8, 22)},
		{timeHint{Year: 2019, Relation: "since"}, d(2019, 1, 1), time.Time{}},
		{timeHint{Year: 2024, Month: 3, Relation: "after"}, d(2024, 4, 1), time.Time{}},
		{timeHint{Year: 2024, Month: 6, Relation: "before"}, time.Time{}, d(2024, 6, 1)},
	} {
		from, to := tc.hint.Window(ref)
		if !from.Equal(tc.from) || !to.Equal(tc.to) {
			t.Errorf("%+v.Window = [%s, %s), want [%s, %s)", tc.hint, from, to, tc.from, tc.to)
		}
	}
}
