package memory_test

import (
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestParseTimeHint(t *testing.T) {
	for _, tc := range []struct {
		text string
		want memory.TimeHint
		ok   bool
	}{
		{"What did Gina find for her clothing store on 1 February, 2023?", memory.TimeHint{Year: 2023, Month: 2, Day: 1}, true},
		{"What painting did Melanie show on October 13, 2023?", memory.TimeHint{Year: 2023, Month: 10, Day: 13}, true},
		{"the 3rd of March 2024 outage", memory.TimeHint{Year: 2024, Month: 3, Day: 3}, true},
		{"What setback did Melanie face in October 2023?", memory.TimeHint{Year: 2023, Month: 10}, true},
		{"deploys in Sept. 2025", memory.TimeHint{Year: 2025, Month: 9}, true},
		{"How many times has Melanie gone to the beach in 2023?", memory.TimeHint{Year: 2023}, true},
		{"When did Melanie go camping in June?", memory.TimeHint{Month: 6}, true},
		{"the review on 14 july", memory.TimeHint{Month: 7, Day: 14}, true},
		{"What happened in May?", memory.TimeHint{Month: 5}, true},
		{"may I ask what the deploy schedule is", memory.TimeHint{}, false},
		{"they will march on", memory.TimeHint{}, false},
		{"what did we decide about the cache", memory.TimeHint{}, false},
		{"on 45 June", memory.TimeHint{Month: 6}, true}, // no such day: the month alone
	} {
		got, ok := memory.ParseTimeHint(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseTimeHint(%q) = %+v, %v; want %+v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTimeHintWindow(t *testing.T) {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	ref := d(2023, 8, 20)
	for _, tc := range []struct {
		hint     memory.TimeHint
		from, to time.Time
	}{
		{memory.TimeHint{Year: 2023, Month: 2, Day: 1}, d(2023, 2, 1), d(2023, 2, 3)},
		{memory.TimeHint{Year: 2023, Month: 10}, d(2023, 10, 1), d(2023, 11, 16)},
		{memory.TimeHint{Year: 2022}, d(2022, 1, 1), d(2023, 1, 16)},
		{memory.TimeHint{Month: 6}, d(2023, 6, 1), d(2023, 7, 16)},  // June before the reference
		{memory.TimeHint{Month: 9}, d(2022, 9, 1), d(2022, 10, 16)}, // September has not begun in 2023 yet
		{memory.TimeHint{Month: 8, Day: 20}, d(2023, 8, 20), d(2023, 8, 22)},
	} {
		from, to := tc.hint.Window(ref)
		if !from.Equal(tc.from) || !to.Equal(tc.to) {
			t.Errorf("%+v.Window = [%s, %s), want [%s, %s)", tc.hint, from, to, tc.from, tc.to)
		}
	}
}
