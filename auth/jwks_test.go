package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/memory-mcp/memory-mcp/auth/authtest"
)

// clock is a settable clock for the key set's refresh intervals.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// keySetFixture is an issuer, an authenticator of its tokens on a clock
// the test moves, and tokens to present.
type keySetFixture struct {
	iss    *authtest.Issuer
	clock  *clock
	authn  AuthenticateFunc
	claims jwt.MapClaims
	other  *rsa.PrivateKey // a key the issuer has not published
}

// newKeySetFixture starts an issuer and its authenticator, whose HTTP
// client has no time limit of its own.
func newKeySetFixture(t *testing.T) *keySetFixture {
	t.Helper()
	f := &keySetFixture{iss: authtest.NewIssuer(t), clock: &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}}
	claims, err := ParseClaimMap("")
	if err != nil {
		t.Fatal(err)
	}
	f.authn, err = JWT(context.Background(), OAuth{Issuer: f.iss.URL, Audience: "aud", Claims: claims, Client: &http.Client{}, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.claims = jwt.MapClaims{"iss": f.iss.URL, "aud": "aud", "sub": "ann", "exp": f.clock.Now().Add(time.Hour).Unix()}
	if f.other, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	return f
}

// valid is a token signed with the issuer's published key.
func (f *keySetFixture) valid(t *testing.T) string { return f.iss.Token(t, f.claims) }

// unknown is a token naming key id kid, which the issuer has not published
// (unless the test publishes f.other under it).
func (f *keySetFixture) unknown(t *testing.T, kid string) string {
	return authtest.Sign(t, jwt.SigningMethodRS256, f.other, kid, f.claims)
}

// waitFor waits until cond holds, failing the test after a generous while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
	}
}

// TestKeySetFailingIssuer: tokens naming key ids the set does not hold,
// which anyone can make without a credential, cause at most one fetch per
// minRefresh even when the issuer refuses every fetch.
func TestKeySetFailingIssuer(t *testing.T) {
	f := newKeySetFixture(t)
	f.iss.FailKeySet(http.StatusTooManyRequests)
	f.clock.advance(minRefresh + time.Second)
	before := f.iss.Fetches()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if _, err := f.authn(context.Background(), f.unknown(t, fmt.Sprint("made-up-", i))); err == nil {
				t.Error("a token naming a key id the issuer never published was accepted")
			}
		})
	}
	wg.Wait()
	for i := range 20 {
		f.authn(context.Background(), f.unknown(t, fmt.Sprint("later-", i)))
	}
	if got := f.iss.Fetches() - before; got != 1 {
		t.Fatalf("60 tokens with unknown key ids in one interval fetched the key set %d times from a failing issuer, want 1", got)
	}
	if _, err := f.authn(context.Background(), f.valid(t)); err != nil {
		t.Fatalf("a token signed with a known key, while the issuer fails: %v", err)
	}
	f.clock.advance(minRefresh + time.Second)
	for i := range 20 {
		f.authn(context.Background(), f.unknown(t, fmt.Sprint("next-", i)))
	}
	if got := f.iss.Fetches() - before; got != 2 {
		t.Fatalf("two intervals fetched the key set %d times, want 2", got)
	}
}

// TestKeySetCancelledRequest: a request that goes away while it waits for
// the key set neither cancels the fetch nor lets the next token fetch
// again; the fetch completes, and its keys serve the tokens after it.
func TestKeySetCancelledRequest(t *testing.T) {
	f := newKeySetFixture(t)
	release := f.iss.HoldKeySet()
	defer release()
	f.clock.advance(minRefresh + time.Second)
	before := f.iss.Fetches()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := f.authn(ctx, f.unknown(t, "r2")); done <- err }()
	waitFor(t, "the fetch reached the issuer", func() bool { return f.iss.Fetches() > before })
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled request was served")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled request still waits for the key set")
	}
	f.iss.PublishRSA("r2", f.other) // the issuer rotated: the fetch under way will bring r2
	release()
	for i := range 20 {
		f.authn(context.Background(), f.unknown(t, fmt.Sprint("made-up-", i)))
	}
	if _, err := f.authn(context.Background(), f.unknown(t, "r2")); err != nil {
		t.Fatalf("a token signed with the key the fetch brought: %v", err)
	}
	if got := f.iss.Fetches() - before; got != 1 {
		t.Fatalf("a cancelled request and 21 tokens after it fetched the key set %d times in one interval, want 1", got)
	}
}

// TestKeySetKnownKeysDoNotWait: while a fetch of the key set hangs, a
// token signed with a key the set holds is verified at once, whether the
// set is fresh or due to be fetched again.
func TestKeySetKnownKeysDoNotWait(t *testing.T) {
	f := newKeySetFixture(t)
	release := f.iss.HoldKeySet()
	defer release()
	f.clock.advance(minRefresh + time.Second)
	before := f.iss.Fetches()
	go f.authn(context.Background(), f.unknown(t, "made-up"))
	waitFor(t, "the fetch reached the issuer", func() bool { return f.iss.Fetches() > before })
	verifies := func(what string) {
		t.Helper()
		verified := make(chan error, 1)
		go func() { _, err := f.authn(context.Background(), f.valid(t)); verified <- err }()
		select {
		case err := <-verified:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(5 * time.Second): // the hung fetch never ends by itself
			t.Fatalf("%s: a token signed with a known key waits for a fetch of the key set", what)
		}
	}
	verifies("fresh keys")
	f.clock.advance(maxAge)
	verifies("keys due to be fetched again")
}
