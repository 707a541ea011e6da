package gate

import (
	"math"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// bucket is a token bucket: tokens refill continuously at Burst per Per, up
// to Burst.
type bucket struct {
	tokens float64
	at     time.Time
}

// fill brings b's tokens under limit l up to now.
func (b *bucket) fill(l memory.RateLimit, now time.Time) {
	if b.at.IsZero() {
		b.tokens = float64(l.Burst)
	} else if now.After(b.at) {
		b.tokens = math.Min(float64(l.Burst), b.tokens+float64(l.Burst)*float64(now.Sub(b.at))/float64(l.Per))
	}
	b.at = now
}

// wait is how long until b, filled at now, has a whole token.
func (b *bucket) wait(l memory.RateLimit) time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	if l.Burst == 0 {
		return -1 // never
	}
	return time.Duration((1 - b.tokens) * float64(l.Per) / float64(l.Burst))
}

// admit is the rate-limit gate and the write budget: a call of tool by who
// takes a token from its tool's bucket and from the bucket of all writes,
// or is refused with ERATELIMIT saying how long to wait.
func (g *Gates) admit(who memory.Identity, tool string, now time.Time) error {
	if who.Human && g.ExemptHumans {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := who.Principal()
	if g.Budget > 0 && g.written[p] >= g.Budget {
		return memory.Errorf(memory.ERATELIMIT, "%s has made the %d writes this run allows (the write budget): stop writing, and tell the user; the budget starts again when the server is restarted",
			who.Describe(), g.Budget)
	}
	var take []*bucket
	for _, name := range []string{tool, memory.AnyTool} {
		l, ok := g.Limits[name]
		if !ok {
			continue
		}
		b := g.buckets[p+"\x00"+name]
		if b == nil {
			b = &bucket{}
			g.buckets[p+"\x00"+name] = b
		}
		b.fill(l, now)
		switch w := b.wait(l); {
		case w < 0:
			return memory.Errorf(memory.ERATELIMIT, "%s may not call %s on this server (its rate limit is 0)", who.Describe(), tool)
		case w > 0:
			what := "call " + tool
			if name == memory.AnyTool {
				what = "write (all tools together)"
			}
			return memory.Errorf(memory.ERATELIMIT, "%s may %s at most %d times per %s: retry in %d s, and write less often",
				who.Describe(), what, l.Burst, per(l.Per), int(math.Ceil(w.Seconds())))
		}
		take = append(take, b)
	}
	for _, b := range take {
		b.tokens--
	}
	g.written[p]++
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
