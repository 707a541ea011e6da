package text

import "testing"

func TestContradicts(t *testing.T) {
	for _, c := range []struct {
		older, newer string
		kind         ConflictKind
		slot         string
		whole        bool
	}{
		{"The user likes spicy food.", "The user doesn't like spicy food.", ConflictNegation, "", true},
		{"Ravi will attend the workshop.", "Ravi won't attend the workshop.", ConflictNegation, "", true},
		{"The build is passing on main.", "The build is failing on main.", ConflictNegation, "", true},
		{"The flag is enabled.", "The flag is not disabled.", "", "", false}, // a double negation agrees
		{"The flight is on Tuesday.", "The flight is on Wednesday.", ConflictValue, "day", true},
		{"Priya works at Stripe.", "Priya works at Adyen.", ConflictValue, "name", true},
		{"Standup starts at 9:30.", "Standup now starts at 10 am.", ConflictValue, "time", true},
		{"Standup starts at 3pm.", "Standup starts at 15:00.", "", "", false}, // the same time
		{"Tom has 2 kids.", "Tom has three kids.", ConflictValue, "number", true},
		{"The budget is $5,000.", "The budget is $7,500.", ConflictValue, "amount", true},
		{"The budget is $5,000.", "The budget is $5000.", "", "", false},
		{"Rent is due on March 3rd.", "Rent is due on 5 March.", ConflictValue, "date", true},
		{"Ravi is 28.", "Ravi is 33 years old.", ConflictValue, "number", true},
		{"Our database runs PostgreSQL 14.", "Our database runs PostgreSQL 16.", ConflictValue, "name", true},
		{"The Node.js version is 18. It ships with npm.", "The Node.js version is 20.", ConflictValue, "number", false},
		{"The landlord is Mr. Patel.", "The landlord is Mrs. Greene.", ConflictValue, "name", true},
		{"The logo is navy blue.", "The logo is bright red.", ConflictValue, "colour", true},
		{"Alice met Bob on Monday.", "Alice met Carol on Monday.", "", "", false},          // one meets many
		{"The user bought 3 apples.", "The user bought 5 apples.", "", "", false},          // two purchases
		{"Anna lives in Rome.", "Marco lives in Milan.", "", "", false},                    // two people
		{"The meeting is on Tuesday.", "The meeting is on Tuesday at 3pm.", "", "", false}, // more detail
		{"The user doesn't eat meat.", "The user doesn't drink milk.", "", "", false},
		{"The flight leaves at 9am.", "The flight lands at 1pm.", "", "", false},
		{"The user may travel in May.", "The user may travel in June.", "", "", false}, // "may" is no month here, and travel no anchor
		// Updates told in other words (issue 22), and their near-misses.
		{"The offsite is on Tuesday 14 March.", "The offsite is on Wednesday 15 March.", ConflictValue, "day", true},
		{"The offsite is on Tuesday 14 March.", "The offsite is on Tuesday 14 March at 9am.", "", "", false},
		{"Deploys go out only on Tuesdays and Thursdays after 10:00 UTC.", "Deploys go out only on Mondays and Thursdays after 10:00 UTC.", ConflictValue, "day", true},
		{"The gym is open on Mondays and Fridays.", "The gym is open on Mondays, Wednesdays and Fridays.", "", "", false}, // more days, not others
		{"The staging Postgres listens on port 5433.", "The staging Postgres listens on port 5434.", ConflictValue, "number", true},
		{"The API gateway listens on port 8080.", "The admin console listens on port 8081.", "", "", false},
		{"Ann lives in Lyon.", "Ann moved to Paris.", ConflictValue, "name", true},
		{"Ann lives in Lyon.", "Ann visited Paris.", "", "", false},
		{"Ann works at Stripe.", "Ann moved to Paris.", "", "", false},
		{"Ann lives in Lyon.", "Ann's sister moved to Paris.", "", "", false},
		{"The primary database runs in us-east-1.", "The primary database runs in eu-west-1.", ConflictValue, "code", true},
		{"The primary database runs in us-east-1.", "The replica database runs in eu-west-1.", "", "", false},
		{"The team deploys with Jenkins.", "The team switched from Jenkins to Buildkite.", ConflictValue, "name", true},
		{"The team deploys with Jenkins.", "The data team switched from Jenkins to Airflow.", "", "", false},
		{"The retro is on Fridays.", "The retro has been moved to Thursdays.", ConflictValue, "day", true},
		{"The user's default browser is Chrome.", "The user changed the default browser to Firefox.", ConflictValue, "name", true},
		{"The user works at Deloitte.", "The user left Deloitte and now works at KPMG.", ConflictValue, "name", true},
		{"The user paid the plumber.", "The user hasn't paid the plumber yet.", ConflictNegation, "", true},
		{"The pool water is warm.", "The pool water is cold.", ConflictNegation, "", true},
		{"Meeting room B is free on Friday.", "Meeting room B is booked on Friday.", ConflictNegation, "", true},
		{"The design team meets every Monday.", "The design team meets every Tuesday.", ConflictValue, "day", true},
		{"The design team meets every Monday.", "The sales team meets every Tuesday.", "", "", false},
	} {
		got, ok := Contradicts(c.older, c.newer)
		if ok != (c.kind != "") || got.Kind != c.kind || got.Slot != c.slot || ok && got.Whole != c.whole {
			t.Errorf("%q / %q: %+v %v, want kind %q slot %q whole %v", c.older, c.newer, got, ok, c.kind, c.slot, c.whole)
		}
		if _, ok := Contradicts(c.older, c.older); ok {
			t.Errorf("%q contradicts itself", c.older)
		}
	}
}

// Two texts clash only where they make a claim of one key with other
// values: that is how a store finds the candidates, so a clash without one
// would never be found.
func TestClaimKeysFindEveryClash(t *testing.T) {
	pairs := [][2]string{{"The flight is on Tuesday.", "The flight is on Wednesday."},
		{"The user likes spicy food.", "The user doesn't like spicy food."}, {"Tom has 2 kids.", "Tom has three kids."}}
	for _, p := range pairs {
		if !clashingClaims(p[0], p[1]) {
			t.Errorf("%q and %q make no claim of one key with other values", p[0], p[1])
		}
	}
	if k := ClaimKeys("Yes."); len(k) != 0 {
		t.Errorf("a one-word sentence claims %v", k)
	}
}

// clashingClaims reports whether a and b make a claim of one key with
// other values.
func clashingClaims(a, b string) bool {
	for _, x := range ClaimKeys(a) {
		for _, y := range ClaimKeys(b) {
			if x.Key == y.Key && x.Value != y.Value {
				return true
			}
		}
	}
	return false
}

// FuzzContradicts: any text, however malformed, is read without a panic,
// never contradicts itself, and every clash it finds is one the claims find.
func FuzzContradicts(f *testing.F) {
	for _, s := range []string{"The flight is on Tuesday.", "Ravi won't attend.", "$-4.5e3 at 25:99pm on 2026-13-45",
		"Mr. . . e.g. 3rd March 2026 navy", "I'm not ‘no’ longer"} {
		f.Add(s, "The flight is on Wednesday.")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if _, ok := Contradicts(a, a); ok {
			t.Fatalf("%q contradicts itself", a)
		}
		if _, ok := Contradicts(a, b); ok && !clashingClaims(a, b) {
			t.Fatalf("%q and %q clash without a claim of one key with other values", a, b)
		}
	})
}
