package text

import (
	"strings"
	"testing"
	"unicode"
)

func TestDedupKeys(t *testing.T) {
	same := [][2]string{
		{"The deploy window is Friday.", "the  deploy window is friday."},
		{"The deploy window is Friday.", "Deploy window: Friday"},
		{"Backups are stored in S3", "backups stored in s3!"},
		{"Backups were moved to S3", "backups was moved to s3"},
		{"The replica is read-only", "the replica is read only."},
		{"Data warehouse = Snowflake", "The data warehouse: Snowflake"},
		{"The build needs Node >= 18", "build needs node >=18"},
		{"A plan was chosen. A date too.", "a plan was chosen. a date too"},
		{"I am on call", "I on call"},
		{"Ann's team owns the billing services.", "Ann team owns billing service"},
		{"The cache isn't warmed on deploy.", "the cache is not warmed on deploy"},
		{"Jo doesn't like meetings before ten", "Jo does not like meetings before ten."},
		{"We can't ship on Fridays", "we can not ship on Fridays"},
		{"Carlos is the user's accountant.", "Carlos: the user's accountant."},
		{"The user's favourite colour is green.", "The user's favorite color is green."},
		{"Staging certificates are issued by Let's Encrypt.", "Staging certificates are issued by Lets Encrypt."},
		{"The staging database is Postgres 16.", "Staging database: Postgres 16"},
		{"THE DEPLOY WINDOW IS FRIDAY.", "The deploy window is Friday."},
		{"The budget is $1,000.", "The budget is $1000."},
		{"Never force-push to main.", "NEVER force-push to main."},
		{"Do NOT restart the database.", "Do not restart the database."},
		{"Run ALL the tests.", "Run all the tests."},
		{"The printer is on floor 3?", "The printer is on floor 3."},
		{"We're on call; they've left.", "We are on call; they have left."},
		{"Test coverage must stay above 80 percent.", "Test coverage must stay above 80%."},
		{"All timestamps are UTC.", "All timestamps are utc."},
		{"The call is at 10 am.", "The call is at 10 AM."},
		{"Ann has two cats.", "Ann has two cat."},
		// A number and its unit however spaced, a whole amount's ".00",
		// and code marks say nothing more.
		{"The upload limit is 10 MB.", "The upload limit is 10MB."},
		{"The request timeout is 30s.", "The request timeout is 30 s."},
		{"Latency p99 is 250 ms.", "Latency p99 is 250ms."},
		{"The disk holds 5Gb.", "The disk holds 5 Gb."},
		{"The plan costs $20 per month.", "The plan costs $20.00 per month."},
		{"Run `make test` before pushing.", "Run make test before pushing."},
		{"Config is in /etc/app/config.yaml.", "config is in /etc/app/config.yaml"},
	}
	for _, p := range same {
		_, wa := DedupKeys(p[0])
		_, wb := DedupKeys(p[1])
		if wa != wb {
			t.Errorf("%q and %q: different word keys (%v, %v)", p[0], p[1], dedupWords(p[0]), dedupWords(p[1]))
		}
	}
	apart := [][2]string{
		{"Alice owes Bob 50 euros", "Bob owes Alice 50 euros"},
		{"The flight is on Tuesday", "The flight is on Wednesday"},
		{"The flight is on Tuesday", "The flight is not on Tuesday"},
		{"The cache is warmed on deploy", "The cache isn't warmed on deploy"},
		{"Retries: 3", "Retries: 4"},
		{"Python 3.11 is required", "Python 3.12 is required"},
		{"moved to Berlin", "moved from Berlin"},
		{"The bus leaves at 9", "The bus leaves at 9:30"},
		{"Dana is the team lead", "Dana was the team lead"},
		{"Blood type A+", "Blood type A-"},
		{"The price rose by 10%", "The price rose by $10"},
		{"Prefers C++ for speed", "Prefers C for speed"},
		{"Timezone UTC+2", "Timezone UTC-2"},
		{"Needs Node >= 18", "Needs Node < 18"},
		{"Kept at -4°C", "Kept at 4°C"},
		{"We chose plan A", "We chose a plan"},
		{"Standup is at 9 am", "Standup is at 9"},
		{"Use 3/4 of the budget", "Use 3 4 of the budget"},
		{"Needs Node != 18", "Needs Node 18"},
		{"The user has a daughter.", "The user has daughters."},
		{"Luca is the on-call engineer this week.", "Lucas is the on-call engineer this week."},
		{"The on-call engineer is Luca.", "The on-call engineer is Lucas."},
		{"Account balance is -$250.", "Account balance is $250."},
		{"Ann works on the internal API.", "Ann works on the international API."},
		// A camel-case identifier keeps its case; so does a word of
		// emphasis in capitals after a determiner, which names a thing.
		{"The helper function in utils is named getURL.", "The helper function in utils is named getUrl."},
		{"The NOT gate feeds the latch.", "The not gate feeds the latch."},
		{"Is the API public?", "The API is public."},
		{"Ann has been the lead.", "Ann has the lead."},
		{"The team cut costs.", "The team cuts costs."},
		{"Use http://example.com for the docs.", "Use https://example.com for the docs."},
		{"Don't deploy. On Friday, run the tests.", "Don't deploy on Friday. Run the tests."},
		{"The account balance is –$250.", "The account balance is $250."},
		{"Rename old_id => new_id.", "Rename old_id > new_id."},
		{"Also, is the cache warm?", "Also, the cache is warm."},
		{"The user reads the news.", "The user read the news."},
		// Issue 22: a number's separators, a meaningful capital, an -s
		// noun of its own and an identifier tell memories apart.
		{"The ratio is 1,5.", "The ratio is 15."},
		{"We run version 1.10 of the client.", "We run version 1.1 of the client."},
		{"Standup is at 10:30.", "Standup is at 1030."},
		{"The API is at v2.0.", "The API is at v20."},
		{"IT handles it.", "it handles it."},
		{"Tell US about the outage.", "Tell us about the outage."},
		{"The disk holds 5 Gb.", "The disk holds 5 GB."},
		{"The file is 20 MB.", "The file is 20 mB."},
		{"Set MAX_RETRIES to 3.", "Set max_retries to 3."},
		{"The news team meets on Monday.", "The new team meets on Monday."},
		{"The package is stuck in customs.", "The package is stuck in custom."},
		{"The table is keyed by user_id.", "The table is keyed by user_ids."},
		{"Call getUsers on startup.", "Call getUser on startup."},
		{"The service logs to app.logs.", "The service logs to app.log."},
		// A path is one word whose parts keep their order and case; a
		// lexical -s noun keeps its s whatever its spelling.
		{"Deploy scripts live in scripts/deploy/.", "Deploy scripts live in deploy/scripts/."},
		{"The mount points /opt/data at /mnt/disk.", "The mount points /mnt/disk at /opt/data."},
		{"Logs go to /var/log/App.log.", "Logs go to /var/log/app.log."},
		{"Keep it in ./scripts/deploy.", "Keep it in ./script/deploy."},
		{"The premises are locked at 20:00.", "The premise is locked at 20:00."},
		{"The quarters are cleaned daily.", "The quarter is cleaned daily."},
		{"The plan costs $20.50 per month.", "The plan costs $20 per month."},
		{"The timeout is 30s.", "The timeout is 30m."},
	}
	for _, p := range apart {
		ea, wa := DedupKeys(p[0])
		eb, wb := DedupKeys(p[1])
		if wa == wb || ea == eb {
			t.Errorf("%q and %q share a key: %v", p[0], p[1], dedupWords(p[0]))
		}
	}
	ea, _ := DedupKeys("Deploy on Friday")
	eb, _ := DedupKeys("  deploy on\tFRIDAY ")
	ec, _ := DedupKeys("deploy on friday.")
	if ea != eb || ea == ec {
		t.Errorf("exact key: case and spacing fold (%v), punctuation does not (%v)", ea == eb, ea != ec)
	}
}

// FuzzDedupKeys: any text has keys and a meaning key, and caseFold only
// changes case, rune for rune.
func FuzzDedupKeys(f *testing.F) {
	for _, s := range []string{"IT handles it.", "The ratio is 1,5.", "5 Gb", "MAX_RETRIES = 3", "THE DEPLOY WINDOW IS FRIDAY.",
		"user_ids app.logs getUsers", "$1,000,000.50 at 10:30 AM", "_", "1,", ",1", "a_", "É_Ü", "9:30am"} {
		f.Add(s, "The ratio is 15.")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		DedupKeys(a)
		MeaningKey(a)
		Restates(a, b)
		NamesAgree(a, b)
		writtenNumber(a)
		folded, orig := []rune(caseFold(a)), []rune(a)
		if len(folded) != len(orig) {
			t.Fatalf("caseFold(%q) = %q: %d runes, want %d", a, string(folded), len(folded), len(orig))
		}
		for i := range orig {
			if folded[i] != orig[i] && folded[i] != unicode.ToLower(orig[i]) {
				t.Fatalf("caseFold(%q) = %q: rune %d changed beyond case", a, string(folded), i)
			}
		}
	})
}

// A name that is also a word is not that word (issue 22): the keys fold
// its case, and NamesAgree tells them apart where case tells anything.
func TestNamesAgree(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		agree bool
	}{
		{"Pay Bill on Friday.", "Pay bill on Friday.", false},
		{"Ask Bob about the China exports.", "Ask Bob about the china exports.", false},
		{"We ship to Turkey in May.", "We ship turkey in May.", false},
		{"The team prefers Apple laptops.", "The team prefers apple laptops.", false},
		{"Order the Polish version.", "Order the polish version.", false},
		// Case that tells no name from a word.
		{"The staging database is Postgres 16.", "the staging database is postgres 16.", true},
		{"The build needs Node >= 18", "build needs node >=18", true},
		{"Carla is the tech lead for Payments.", "Carla is the tech lead for payments.", true},
		{"Bill pays the rent.", "bill pays the rent.", true},
		{"Tom approves the expense reports.", "The expense reports are approved by Tom.", true},
		{"Project Atlas uses PostgreSQL 15.", "project atlas uses postgresql 15.", true},
		{"The user trains for the Berlin marathon.", "The user trains for the Berlin Marathon.", true},
		{"Next Offsite Is In Turkey.", "Next offsite is in turkey.", true},
		{"PAY BILL ON FRIDAY.", "Pay bill on Friday.", true},
		{"Priority: Bill the client.", "Priority: bill the client.", true},
	} {
		if got := NamesAgree(c.a, c.b); got != c.agree {
			t.Errorf("NamesAgree(%q, %q) = %v, want %v", c.a, c.b, got, c.agree)
		}
		if got := NamesAgree(c.b, c.a); got != c.agree {
			t.Errorf("NamesAgree(%q, %q) = %v, want %v", c.b, c.a, got, c.agree)
		}
	}
}

// BenchmarkKeysWithoutSpaces derives every key a write needs (dedup keys,
// meaning key, claims) of 32 KiB without a space, as minified JSON or a
// list of paths is: each must read it once, not once a word.
func BenchmarkKeysWithoutSpaces(b *testing.B) {
	for name, unit := range map[string]string{"paths": "src/", "dots": "a.", "csv": "alpha,beta,", "json": `{"id":7,"tags":["a","b"]},`} {
		in := strings.Repeat(unit, 32*1024/len(unit))
		b.Run(name, func(b *testing.B) {
			for range b.N {
				DedupKeys(in)
				MeaningKey(in)
				ClaimKeys(in)
			}
		})
	}
}
