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

// check checks token with ctx, and sends the outcome on the channel it returns.
func (f *keySetFixture) check(ctx context.Context, token string) <-chan error {
	outcome := make(chan error, 1)
	go func() { _, err := f.authn(ctx, token); outcome <- err }()
	return outcome
}

// hang holds the key set and, once minRefresh has passed, checks a token
// naming kid with ctx: the fetch that starts hangs until release. It returns
// once the fetch has reached the issuer, with the fetches counted before it
// and the check's outcome to come.
func (f *keySetFixture) hang(t *testing.T, ctx context.Context, kid string) (before int, release func(), outcome <-chan error) {
	t.Helper()
	release = f.iss.HoldKeySet()
	t.Cleanup(release)
	f.clock.advance(minRefresh + time.Second)
	before = f.iss.Fetches()
	outcome = f.check(ctx, f.unknown(t, kid))
	waitFor(t, "the fetch reached the issuer", func() bool { return f.iss.Fetches() > before })
	return before, release, outcome
}

// soon returns the outcome of a check, failing the test when there is none
// within a generous while (a hung fetch never ends by itself).
func soon(t *testing.T, what string, outcome <-chan error) error {
	t.Helper()
	select {
	case err := <-outcome:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still waiting for the key set", what)
		return nil
	}
}

// TestKeySetCancelledRequest: a request that goes away while it waits for
// the key set neither cancels the fetch nor lets the next token fetch
// again; the fetch completes, and its keys serve the tokens after it.
func TestKeySetCancelledRequest(t *testing.T) {
	f := newKeySetFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	before, release, outcome := f.hang(t, ctx, "r2")
	cancel()
	if err := soon(t, "a cancelled request", outcome); err == nil {
		t.Fatal("a cancelled request was served")
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
	f.hang(t, context.Background(), "made-up")
	if err := soon(t, "fresh keys", f.check(context.Background(), f.valid(t))); err != nil {
		t.Fatalf("fresh keys: %v", err)
	}
	f.clock.advance(maxAge)
	if err := soon(t, "keys due to be fetched again", f.check(context.Background(), f.valid(t))); err != nil {
		t.Fatalf("keys due to be fetched again: %v", err)
	}
}
