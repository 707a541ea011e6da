package storetest

import (
	"sync"
	"time"
)

// Clock is a clock a test moves: every reading moves it on by its step (so
// that writes in a row get distinct times), and Advance jumps. It is safe
// for concurrent use.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock returns a clock at t that moves on by step at every reading.
func NewClock(t time.Time, step time.Duration) *Clock {
	return &Clock{t: t, step: step}
}

// Now moves the clock on by its step and returns the time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Peek returns the time without moving the clock.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
