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
		{"The budget is 500 EUR.", "The budget is 500 USD.", ConflictValue, "amount", true},
		{"The budget is 500 euros.", "The budget is €500.", "", "", false},
		{"Rent is due on March 3rd.", "Rent is due on 5 March.", ConflictValue, "date", true},
		{"Ravi is 28.", "Ravi is 33 years old.", ConflictValue, "number", true},
		{"Our database runs PostgreSQL 14.", "Our database runs PostgreSQL 16.", ConflictValue, "name", true},
		{"The Node.js version is 18. It ships with npm.", "The Node.js version is 20.", ConflictValue, "number", false},
		{"The landlord is Mr. Patel.", "The landlord is Mrs. Greene.", ConflictValue, "name", true},
		{"The logo is navy blue.", "The logo is bright red.", ConflictValue, "colour", true},
		{"Alice met Bob on Monday.", "Alice met Carol on Monday.", "", "", false}, // one meets many
		// A name, a day or a code before a noun says which thing it is.
		{"Ruby owns the IT budget.", "Ruby owns the CI budget.", "", "", false},
		{"Sky is the QA contact for release 4.", "Sky is the HR contact for release 4.", "", "", false},
		{"Kim runs the Monday standup.", "Kim runs the Friday standup.", "", "", false},
		{"Raj maintains the Python SDK.", "Raj maintains the Go SDK.", "", "", false},
		{"The QA lead is Sky.", "The QA lead is Ruby.", ConflictValue, "name", true},
		{"Ann works at Google now.", "Ann works at Apple now.", ConflictValue, "name", true},
		{"The bike shop is on Elm Street.", "The bike shop is on Oak Street.", ConflictValue, "name", true},
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
		{"Ann lived in Lyon.", "Ann moved to Paris.", "", "", false},                 // history stays true
		{"Ann lived in Lyon.", "Ann lived in Paris.", "", "", false},                 // two past states: both can be true
		{"Kofi worked at Shell.", "Kofi worked at BP.", "", "", false},               // a career, not a correction
		{"Ann lives in Lyon.", "Ann lives in Paris.", ConflictValue, "name", true},   // two present states cannot
		{"Ann works at Google.", "Ann joined Spotify.", ConflictValue, "name", true}, // a new employer
		{"Ann works at Google.", "Ann's brother joined Spotify.", "", "", false},     // another subject
		{"Ann works at Google.", "Ann joined the running club.", "", "", false},      // no employer named
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

		// Channels, email addresses and room codes are values; a charge
		// handed over is given up (issue 22, part 3), and their near-misses.
		{"Ann's email is ann@acme.com.", "Ann's email is ann@newco.io.", ConflictValue, "code", true},
		{"Dana's email is dana@corp.com.", "Dana changed her email to dana.k@gmail.com.", ConflictValue, "code", true},
		{"The billing service sends mail from billing@acme.com.", "The support service sends mail from support@acme.com.", "", "", false},
		{"Ann's work email is ann@acme.com.", "Ann's personal email is ann.lee@gmail.com.", "", "", false},
		{"The on-call channel is #ops-alerts.", "The on-call channel was renamed to #incidents.", ConflictValue, "code", true},
		{"The team's Slack channel is #team-core.", "The team's Slack channel moved to #core-eng.", ConflictValue, "code", true},
		{"Ben mentioned #ops-alerts in the retro.", "The pager alerts moved to #ops-pager.", "", "", false},
		{"The design channel is #design.", "The research channel is #research.", "", "", false},
		{"Standup is in room 4B.", "Standup is now in room 2A.", ConflictValue, "code", true},
		{"The design review is in room 4B.", "The sales review is in room 2A.", "", "", false},
		{"Priya is the owner of the billing service.", "Priya handed the billing service over to Tom.", ConflictValue, "name", true},
		{"Lucas is the team's scrum master.", "Lucas handed the scrum master role to Ines.", ConflictValue, "name", true},
		{"Sven is responsible for the vendor contracts.", "Sven handed over the vendor contracts to Lena.", ConflictValue, "name", true},
		{"Ann is the owner of the laptop.", "Ann handed the laptop to IT for repair.", "", "", false},
		{"Ann is on the platform team.", "Ann handed the platform roadmap over to Ben.", "", "", false},
		{"Marco is the release manager for the mobile app.", "Marco handed the web app over to Aisha.", "", "", false},
		{"She is the owner of the billing service.", "She handed the billing service over to Tom.", "", "", false}, // which she?
		{"The printer on floor 3 works.", "The printer on floor 3 is broken.", ConflictNegation, "", true},
		{"The user is on the waiting list.", "The user is not on the waiting list anymore.", ConflictNegation, "", true},
		{"Ravi loves jazz.", "Ravi can't stand jazz.", ConflictNegation, "", true},
		{"Ravi likes jazz.", "Ravi can't stand for long.", "", "", false},
		{"Tom smokes.", "Tom quit smoking last year.", ConflictNegation, "", true},
		{"Tom smokes.", "Tom's father quit smoking.", "", "", false},
		{"The contract auto-renews.", "The contract does not auto-renew.", ConflictNegation, "", true},
		{"Everyone on the team has access to production.", "Nobody on the team has access to production.", ConflictNegation, "", true},

		{"Keiko is the tech lead for search.", "Pavel took over as tech lead for search.", ConflictValue, "name", true},
		{"Keiko is the tech lead for search.", "Pavel took over as tech lead for billing.", "", "", false},
		{"Priya is the owner of the billing service.", "Tom took over the billing service from Priya.", ConflictValue, "name", true},
		{"Priya is the owner of the billing service.", "Tom took over the night shift from Priya.", "", "", false},
		{"The team deploys with Jenkins.", "The team replaced Jenkins with Buildkite.", ConflictValue, "name", true},
		{"The team deploys with Jenkins.", "The data team replaced Jenkins with Airflow.", "", "", false},
		{"Ann uses a Dell laptop.", "Ann replaced the battery with a new one.", "", "", false},

		{"The March invoice is paid.", "The March invoice is overdue.", ConflictNegation, "", true},
		{"The March invoice is paid.", "The April invoice is overdue.", "", "", false},
		{"The integration test suite is reliable.", "The integration test suite is flaky.", ConflictNegation, "", true},
		{"The tool is proprietary.", "The tool is open-source.", ConflictNegation, "", true},

		// More updates told in other words, and their near-misses.
		{"Office hours are on Mondays and Wednesdays.", "Office hours are also on Fridays.", "", "", false}, // added, not replaced
		{"The billing service is owned by the payments team.", "The billing service is now owned by the platform team.", ConflictValue, "value", true},
		{"The billing service is owned by the payments team.", "The billing service is owned by the platform team too.", "", "", false},
		{"Priya works on the search team.", "Priya now works on weekends.", "", "", false}, // another kind of ending
		{"The cleaner comes on Tuesdays and Fridays.", "The cleaner now comes only on Fridays.", ConflictValue, "day", true},
		{"The cleaner comes on Tuesdays.", "The cleaner now comes on Tuesdays and Fridays.", "", "", false},
		{"The team lead for mobile is Ana.", "Bruno is now the team lead for mobile.", ConflictValue, "name", true},
		{"The user eats meat.", "The user has been vegetarian for a year and doesn't eat meat.", ConflictNegation, "", true},
		{"The user eats fish.", "The user has been vegetarian for a year and doesn't eat meat.", "", "", false},
		{"The user drives to work.", "The user no longer drives to work and now takes the train.", ConflictNegation, "", true},
		{"The repository is public.", "The repository was made private.", ConflictNegation, "", true},
		{"The meeting room booking is confirmed.", "The meeting room booking was cancelled.", ConflictNegation, "", true},
		{"The project is on version 2.3.", "The project was upgraded to version 3.0.", ConflictValue, "number", true},
		{"The project is on version 2.3.", "The mobile app was upgraded to version 3.0.", "", "", false},
		{"The cluster runs Kubernetes 1.27.", "The cluster was upgraded to Kubernetes 1.29.", ConflictValue, "number", true},
		{"The cluster runs Kubernetes 1.27.", "The cluster runs on 12 nodes.", "", "", false},
		{"The app requires Python 3.9.", "The app requires Python 3.12.", ConflictValue, "number", true},
		{"The app supports Python 3.9.", "The app supports Python 3.12.", "", "", false}, // many at once
		{"The team uses Slack.", "The team now uses Microsoft Teams instead of Slack.", ConflictValue, "name", true},
		{"The team uses Slack.", "The sales team uses Zoom instead of Slack.", "", "", false},
		{"The company's main office is in Austin.", "The company moved its main office to Dallas.", ConflictValue, "name", true},
		{"Tess has worked at the firm for six years.", "Tess has worked at the firm for two years.", ConflictValue, "number", true},
		{"Tess worked at the firm for six years.", "Tess worked at the bank for two years.", "", "", false},
		{"The newsletter is sent on Mondays.", "The newsletter is now sent on Thursdays.", ConflictValue, "day", true},
		{"The report was sent to Ann.", "The report was sent to Bob.", "", "", false}, // sent to both
		{"The design system is maintained by Lina.", "The design system is now maintained by Omar.", ConflictValue, "name", true},

		{"The user's landlord is helpful.", "The user's landlord is unhelpful.", ConflictNegation, "", true},
		{"The new hire is experienced with Terraform.", "The new hire is inexperienced with Terraform.", ConflictNegation, "", true},
		{"The user's install is complete.", "The user's install is internal.", "", "", false}, // "in" denies nothing here
		{"The checkout page loads quickly.", "The checkout page loads slowly.", ConflictNegation, "", true},
		{"The checkout page loads quickly.", "The search page loads slowly.", "", "", false},
		{"The user's passport is valid.", "The user's passport has expired.", ConflictNegation, "", true},
		{"Priya likes her new role.", "Priya doesn't like her new role at all.", ConflictNegation, "", true},
		{"The price of the plan is $20 a month.", "The price of the plan went up to $25 a month.", ConflictValue, "amount", true},
		{"The price of the plan is $20 a month.", "The price of the family plan went up to $35 a month.", "", "", false},
		{"The user's nephew studies at Oxford.", "The user's nephew studies at Cambridge.", ConflictValue, "name", true},
		{"The user's gym is PureGym.", "The user cancelled PureGym and joined The Gym Group.", ConflictValue, "name", true},
		{"The quarterly report was submitted.", "The quarterly report hasn't been submitted.", ConflictNegation, "", true},

		// A measure a present states as a rule; an attribute said two ways.
		{"The conference room seats 12 people.", "The conference room seats 20 people.", ConflictValue, "number", true},
		{"The user's phone battery lasts about 9 hours.", "The user's phone battery lasts about 5 hours.", ConflictValue, "number", true},
		{"The user's phone battery lasts about 9 hours.", "The user's laptop battery lasts about 5 hours.", "", "", false},
		{"The user bought 3 shirts.", "The user bought 5 shirts.", "", "", false},     // two purchases
		{"The build fails on arm v2.", "The build fails on arm v3.", "", "", false},   // a code names a thing
		{"The router supports 5 GHz.", "The router supports 2.4 GHz.", "", "", false}, // many at once
		{"The user spent $40 at the market on Saturday.", "The user spent $40 at the market on Tuesday.", "", "", false},
		{"The user swims on Tuesdays.", "The user swims on Thursdays.", "", "", false}, // habits on two days
		{"The user's salary is $90,000.", "The user earns $95,000.", ConflictValue, "amount", true},
		{"The user's salary is $90,000.", "The user's bonus is $5,000.", "", "", false},
		{"The user earns $95,000.", "The user earned $60,000 in 2019.", "", "", false}, // another time
		{"Marta's employer is Siemens.", "Marta works for Bosch.", ConflictValue, "name", true},
		{"Marta's employer is Siemens.", "Marta's husband works for Bosch.", "", "", false},
		{"The user works at Spotify.", "The user worked at Klarna before joining Spotify.", "", "", false},
		{"The user's son goes to Greenfield Primary.", "The user's son's school is Riverside Primary.", ConflictValue, "name", true},
		{"The user goes to Paris.", "The user's school is Riverside Primary.", "", "", false},
		{"Jon's birthday is on 4 May.", "Jon was born on 9 May.", ConflictValue, "date", true},

		{"The project is ahead of schedule.", "The project is behind schedule.", ConflictNegation, "", true},
		{"The payments API runs on port 7000.", "The payments API was moved to port 7100.", ConflictValue, "number", true},
		{"The payments API runs on port 7000.", "The payments worker runs on port 7100.", "", "", false},
		{"The user commutes by car.", "The user sold the car and now commutes by bike.", ConflictValue, "value", true},
		{"The user commutes by car.", "The user's partner commutes by bike.", "", "", false},

		{"The build uses Maven.", "The build was migrated to Gradle.", ConflictValue, "name", true},
		{"The build uses Maven.", "The build server was migrated to AWS.", "", "", false},
		{"The analytics team uses Tableau and dbt.", "The analytics team migrated to Looker.", "", "", false}, // one of two
		{"The mobile team uses Firebase.", "The mobile team moved to Lisbon.", "", "", false},
		{"The charity has its headquarters in Geneva.", "The charity is headquartered in Vienna.", ConflictValue, "name", true},
		{"The charity has its headquarters in Geneva.", "The charity has an office in Vienna.", "", "", false},
		{"The user's band has its rehearsal space in Camden.", "The user's band's rehearsal space is in Hackney.", ConflictValue, "name", true},

		// A past state beside a present one is history beside now; a verb
		// of change, or the same tense, still replaces.
		{"Ann lives in Paris.", "Ann lived in Lyon.", "", "", false},
		{"Ann lived in Lyon.", "Ann lives in Paris.", "", "", false},
		{"Ann works at Spotify.", "Ann worked at Klarna.", "", "", false},
		{"Ann worked at Klarna.", "Ann works at Spotify.", "", "", false},
		{"Ben works for Spotify.", "Ben worked for Klarna.", "", "", false},
		{"Ann studies at MIT.", "Ann studied at Oxford.", "", "", false},
		{"The service listens on port 8080.", "The service listened on port 9090.", "", "", false},
		{"The room seats 12 people.", "The room seated 40 people.", "", "", false},
		{"Ann lives in Lyon.", "Ann moved to Paris.", ConflictValue, "name", true},
		{"Ann lived in Lyon.", "Ann moved to Paris.", "", "", false},                 // history stays true
		{"Ann lived in Lyon.", "Ann lived in Paris.", "", "", false},                 // two past states: both can be true
		{"Kofi worked at Shell.", "Kofi worked at BP.", "", "", false},               // a career, not a correction
		{"Ann lives in Lyon.", "Ann lives in Paris.", ConflictValue, "name", true},   // two present states cannot
		{"Ann works at Google.", "Ann joined Spotify.", ConflictValue, "name", true}, // a new employer
		{"Ann works at Google.", "Ann's brother joined Spotify.", "", "", false},     // another subject
		{"Ann works at Google.", "Ann joined the running club.", "", "", false},      // no employer named
		{"Ann works at Klarna.", "Ann now works at Spotify.", ConflictValue, "name", true},
		{"The service listens on port 8080.", "The service now listens on port 9090.", ConflictValue, "number", true},
		{"The user earns $90,000 a year.", "The user now earns $95,000 a year.", ConflictValue, "amount", true},

		// A second value with a qualifier the first lacks is a second value.
		{"The user earns $90,000 a year.", "The user earns $40 per hour tutoring on weekends.", "", "", false},
		{"The user's salary is $90,000.", "The user earns $500 a month in dividends.", "", "", false},
		{"Marta works for Siemens.", "Marta works for Bosch as a contractor on weekends.", "", "", false},
		{"Ann works at Klarna on Mondays.", "Ann works at Spotify on Fridays.", "", "", false},
		{"Ann works at the Berlin office.", "Ann works at Spotify.", "", "", false},
		{"Ann works for Spotify.", "Ann works for the CTO.", "", "", false},
		{"The son goes to Riverside Primary.", "The son goes to Greenfield Primary for swimming lessons.", "", "", false},

		// "working" is no anchor: the stemmer keeps a word in -ing whole here.
		{"The user won't be working on Friday.", "The user won't be working on Saturday.", "", "", false},
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
