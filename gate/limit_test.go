package gate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestRateLimitPerToolAndInAll(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		f.g.Limits = memory.RateLimits{"remember": {Burst: 3, Per: time.Minute}, memory.AnyTool: {Burst: 5, Per: time.Hour}}
		for i := range 3 {
			if _, _, err := f.remember(ann, "", fmt.Sprintf("Fact number %d about the build.", i)); err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := f.remember(ann, "", "One too many.")
		if memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "may call remember at most 3 times per minute") ||
			!strings.Contains(err.Error(), "retry in 20 s") {
			t.Fatalf("4th call in a minute: %v, want ERATELIMIT saying to retry in 20 s", err)
		}
		// Another caller has its own buckets.
		if _, _, err := f.remember(bob, "", "Bob's first memory."); err != nil {
			t.Fatalf("bob: %v", err)
		}
		// A token comes back every 20 s.
		f.clk.Advance(20 * time.Second)
		if _, _, err := f.remember(ann, "", "After a pause."); err != nil {
			t.Fatalf("after 20 s: %v", err)
		}
		// The limit on all writes together (5 an hour) binds next, with
		// remember's bucket refilled.
		f.clk.Advance(time.Minute)
		if _, _, err := f.remember(ann, "", "Fifth write this hour."); err != nil {
			t.Fatal(err)
		}
		_, _, err = f.remember(ann, "", "Sixth write this hour.")
		if memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "may write (all tools together) at most 5 times per hour") {
			t.Fatalf("6th write in an hour: %v", err)
		}
		if n := f.count(ann); n != 5 {
			t.Fatalf("ann has %d memories, want 5: refused calls write nothing", n)
		}
		got := outcomes(f.log())
		if strings.Count(got, "rejected@rate_limit(ERATELIMIT)") != 2 {
			t.Fatalf("write log %q: want both refusals logged at the rate limit", got)
		}
	})
}

func TestRateLimitZeroForbidsAndHumansMayBeExempt(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		f.g.Limits = memory.RateLimits{"remember": {Burst: 0, Per: time.Minute}}
		if _, _, err := f.remember(ann, "", "x"); memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "rate limit is 0") {
			t.Fatalf("limit 0: %v", err)
		}
		if _, _, err := f.remember(olive, "", "x"); memory.ErrorCode(err) != memory.ERATELIMIT {
			t.Fatalf("a human, not exempt: %v", err)
		}
		f.g.ExemptHumans = true
		if _, _, err := f.remember(olive, "", "x"); err != nil {
			t.Fatalf("an exempt human: %v", err)
		}
	})
}

func TestWriteBudget(t *testing.T) {
	onEngines(t, func(t *testing.T, newFixture func(*testing.T) *fixture) {
		f := newFixture(t)
		f.g.Budget = 2
		for i := range 2 {
			if _, _, err := f.remember(ann, "", fmt.Sprintf("Budgeted write %d.", i)); err != nil {
				t.Fatal(err)
			}
		}
		f.clk.Advance(24 * time.Hour) // a budget is per run, not per period
		_, _, err := f.remember(ann, "", "Over budget.")
		if memory.ErrorCode(err) != memory.ERATELIMIT || !strings.Contains(err.Error(), "2 writes this run allows") {
			t.Fatalf("over budget: %v", err)
		}
		if _, _, err := f.remember(bob, "", "Bob has his own budget."); err != nil {
			t.Fatal(err)
		}
		// A repeat of a key answered from its first result costs nothing: bob
		// has spent his budget of 2 with the keyed call.
		if _, _, err := f.remember(bob, "k", "Keyed."); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.remember(bob, "k", "Keyed."); err != nil {
			t.Fatalf("a replay over budget: %v", err)
		}
	})
}
