package gate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// The rate limits' buckets and the write budgets' counts are rows in the
// database (store.Counters), taken in a short write transaction of their
// own when a call is admitted: every process on one database (the nodes of
// a team server) limits a caller together, and a node that stops takes no
// count with it. A bucket refills on the clock of the node that reads it,
// so nodes keep their clocks in step (NTP).

// fill brings bucket c's tokens under limit l up to now: tokens refill
// continuously at Burst per Per, up to Burst; a bucket never kept is full.
func fill(c *store.Counter, l memory.RateLimit, now time.Time) {
	if c.At.IsZero() {
		c.Value = float64(l.Burst)
	} else if now.After(c.At) {
		c.Value = math.Min(float64(l.Burst), c.Value+float64(l.Burst)*float64(now.Sub(c.At))/float64(l.Per))
	}
	c.At = now
}

// wait is how long until bucket c, filled at now, has a whole token.
func wait(c store.Counter, l memory.RateLimit) time.Duration {
	if c.Value >= 1 {
		return 0
	}
	if l.Burst == 0 {
		return -1 // never
	}
	return time.Duration((1 - c.Value) * float64(l.Per) / float64(l.Burst))
}

// take spends one of bucket c's tokens; the row matters until the bucket
// is full again (a bucket no longer kept is full), and a second more.
func take(c *store.Counter, l memory.RateLimit) {
	c.Value--
	c.Expires = c.At.Add(time.Duration((float64(l.Burst)-c.Value)/float64(l.Burst)*float64(l.Per)) + time.Second)
}

// BudgetRun says which run of the write budget now falls in ("" never: a
// run has a name), and when the next run begins (zero: when this process
// stops). A caller's count starts again with each run.
type BudgetRun func(now time.Time) (run string, next time.Time)

// ProcessRun is the run of one process: the budget starts again when the
// process does (a stdio server is one client session).
func ProcessRun() BudgetRun {
	b := make([]byte, 8)
	rand.Read(b)
	run := "process " + hex.EncodeToString(b)
	return func(time.Time) (string, time.Time) { return run, time.Time{} }
}

// DailyRun is a run per UTC day, counted across every process on the
// database: the team server's, whose nodes start and stop at will.
func DailyRun(now time.Time) (string, time.Time) {
	day := now.UTC().Truncate(24 * time.Hour)
	return "day " + day.Format(time.DateOnly), day.Add(24 * time.Hour)
}

// processBudgetKept is how long a process run's count is kept after its
// last write: the process may still run, and a row outlives no run by much.
const processBudgetKept = 30 * 24 * time.Hour

// admit is the rate-limit gate and the write budget: a call of tool by who
// takes a token from its tool's bucket and from the bucket of all writes,
// and counts in its budget, or is refused with ERATELIMIT saying how long
// to wait.
func (g *Gates) admit(ctx context.Context, who memory.Identity, tool string, now time.Time) error {
	if who.Human && g.ExemptHumans {
		return nil
	}
	var names []string
	var limits []memory.RateLimit
	for _, name := range []string{tool, memory.AnyTool} {
		if l, ok := g.Limits[name]; ok {
			names, limits = append(names, name), append(limits, l)
		}
	}
	var next time.Time
	if g.Budget > 0 {
		var run string
		run, next = g.BudgetRun(now)
		names = append(names, "budget "+run)
	}
	return g.db.Counters(ctx, who.Principal(), names, func(cs []store.Counter) error {
		if g.Budget > 0 {
			if err := g.spend(who, &cs[len(limits)], now, next); err != nil {
				return err
			}
		}
		for i, l := range limits {
			fill(&cs[i], l, now)
			switch w := wait(cs[i], l); {
			case w < 0:
				return memory.Errorf(memory.ERATELIMIT, "%s may not call %s on this server (its rate limit is 0)", who.Describe(), tool)
			case w > 0:
				what := "call " + tool
				if names[i] == memory.AnyTool {
					what = "write (all tools together)"
				}
				return memory.Errorf(memory.ERATELIMIT, "%s may %s at most %d times per %s: retry in %d s, and write less often",
					who.Describe(), what, l.Burst, per(l.Per), int(math.Ceil(w.Seconds())))
			}
		}
		for i, l := range limits {
			take(&cs[i], l)
		}
		return nil
	})
}

// spend counts one write in budget count c of the run that ends at next,
// or refuses it when the budget is spent.
func (g *Gates) spend(who memory.Identity, c *store.Counter, now, next time.Time) error {
	if int(c.Value) >= g.Budget {
		again := "the budget starts again when the server is restarted"
		if !next.IsZero() {
			again = "the budget starts again at " + next.UTC().Format("2006-01-02 15:04 UTC")
		}
		return memory.Errorf(memory.ERATELIMIT, "%s has made the %d writes this run allows (the write budget): stop writing, and tell the user; %s",
			who.Describe(), g.Budget, again)
	}
	c.Value++
	c.At, c.Expires = now, next
	if next.IsZero() {
		c.Expires = now.Add(processBudgetKept)
	}
	return nil
}

// per names a period: "minute" for time.Minute, else the duration.
func per(d time.Duration) string {
	switch d {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return d.String()
}
