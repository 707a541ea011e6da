package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// jwk is one key of a JSON Web Key Set (RFC 7517), as far as verifying a
// signature needs it.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`   // RSA
	E   string `json:"e"`   // RSA
	Crv string `json:"crv"` // EC, OKP
	X   string `json:"x"`   // EC, OKP
	Y   string `json:"y"`   // EC
}

// verifyKey is a public key of the set and the algorithm it is pinned to,
// if the set says.
type verifyKey struct {
	key crypto.PublicKey
	alg string
}

// parseJWKS reads a JSON Web Key Set and returns its signing keys by key
// id. Keys it cannot use (private parts are ignored; unknown types, curves
// and encryption keys are skipped) are left out, and so is a set that holds
// none it can use: that is an error.
func parseJWKS(b []byte) (map[string]verifyKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("the key set is not JSON: %w", err)
	}
	keys := map[string]verifyKey{}
	var problems []error
	for i, raw := range set.Keys {
		var k jwk
		if err := json.Unmarshal(raw, &k); err != nil {
			problems = append(problems, fmt.Errorf("key %d: %w", i, err))
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub, err := k.public()
		if err != nil {
			problems = append(problems, fmt.Errorf("key %d (%q): %w", i, k.Kid, err))
			continue
		}
		keys[k.Kid] = verifyKey{key: pub, alg: k.Alg}
	}
	if len(keys) == 0 {
		return nil, errors.Join(append([]error{errors.New("the key set holds no signing key this server can use")}, problems...)...)
	}
	return keys, nil
}

func (k jwk) public() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64int(k.N)
		if err != nil {
			return nil, fmt.Errorf("n: %w", err)
		}
		e, err := b64int(k.E)
		if err != nil || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
			return nil, errors.New("e is not a usable RSA exponent")
		}
		if n.BitLen() < 2048 {
			return nil, fmt.Errorf("an RSA key of %d bits is too short (2048 at least)", n.BitLen())
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("unknown curve %q", k.Crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		x, errX := base64.RawURLEncoding.DecodeString(k.X)
		y, errY := base64.RawURLEncoding.DecodeString(k.Y)
		if errX != nil || errY != nil || len(x) != size || len(y) != size {
			return nil, fmt.Errorf("x and y are not %d-byte base64url coordinates", size)
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
		if err != nil { // not a point of the curve
			return nil, fmt.Errorf("not a point of %s", k.Crv)
		}
		return pub, nil
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("unknown curve %q", k.Crv)
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("x is not an Ed25519 public key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("unknown key type %q", k.Kty)
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, errors.New("not base64url")
	}
	return new(big.Int).SetBytes(b), nil
}

// keySet is an issuer's keys, fetched from its JWKS URL and fetched again
// when a token names a key id the set does not hold (the issuer rotated its
// keys) or the set is older than maxAge.
//
// A key id is read before any signature is checked, so anyone can send
// tokens naming made-up ones, without a credential. Three rules keep that
// from hammering the issuer or stalling the server: a fetch starts at most
// once per minRefresh, counted from when it starts whatever comes of it (a
// failure or a cancelled caller does not open the way to the next); a fetch
// runs on its own, detached from the request that started it, with its own
// time limit, and the checks that need it wait for that one fetch rather
// than starting others; and a key the set holds is served at once, never
// behind a fetch (a set due to be fetched again serves while it is).
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex // guards what follows; never held over I/O
	keys     map[string]verifyKey
	fetched  time.Time // when keys were fetched
	started  time.Time // when the last fetch started, whatever came of it
	inFlight *fetch    // the fetch under way, if any
}

// fetch is one fetch of the key set, which every check that needs it waits for.
type fetch struct {
	done chan struct{}
	err  error // set before done is closed
}

const (
	minRefresh   = 30 * time.Second
	maxAge       = 10 * time.Minute // keys older than this are fetched again
	fetchTimeout = 10 * time.Second
	maxJWKS      = 1 << 20
)

// load fetches the set and waits for it: the first fetch, at start.
func (s *keySet) load(ctx context.Context) error {
	s.mu.Lock()
	f := s.start(ctx)
	s.mu.Unlock()
	return f.wait(ctx)
}

// key returns the key with id kid ("" when the token names none: the set's
// only key then).
func (s *keySet) key(ctx context.Context, kid string) (verifyKey, error) {
	s.mu.Lock()
	k, found := find(s.keys, kid)
	var f *fetch
	if !found || s.now().Sub(s.fetched) >= maxAge {
		f = s.start(ctx)
	}
	s.mu.Unlock()
	if found {
		return k, nil
	}
	if f != nil {
		if err := f.wait(ctx); err != nil {
			return verifyKey{}, err
		}
		s.mu.Lock()
		k, found = find(s.keys, kid)
		s.mu.Unlock()
		if found {
			return k, nil
		}
	}
	return verifyKey{}, invalidToken(fmt.Sprintf("the token was signed with key %q, which the issuer's key set does not hold", kid))
}

// start returns the fetch under way, or starts one if minRefresh has passed
// since the last started; nil when neither. s.mu is held. The fetch takes
// ctx's values but not its end: a caller that goes away does not cut short
// what the other callers wait for.
func (s *keySet) start(ctx context.Context) *fetch {
	if s.inFlight != nil {
		return s.inFlight
	}
	if !s.started.IsZero() && s.now().Sub(s.started) < minRefresh {
		return nil
	}
	s.started = s.now()
	f := &fetch{done: make(chan struct{})}
	s.inFlight = f
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		keys, err := s.get(ctx)
		s.mu.Lock()
		if err == nil {
			s.keys, s.fetched = keys, s.now()
		}
		s.inFlight = nil
		s.mu.Unlock()
		f.err = err
		close(f.done)
	}()
	return f
}

// wait waits for the fetch, or for ctx to end.
func (f *fetch) wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the issuer's keys: %w", context.Cause(ctx))
	}
}

// find returns the key of keys with id kid ("": the only key, if there is one).
func find(keys map[string]verifyKey, kid string) (verifyKey, bool) {
	if kid == "" && len(keys) == 1 {
		for _, k := range keys {
			return k, true
		}
	}
	k, ok := keys[kid]
	return k, ok && kid != ""
}

// get fetches and parses the key set.
func (s *keySet) get(ctx context.Context) (map[string]verifyKey, error) {
	b, err := getJSON(ctx, s.client, s.url)
	if err != nil {
		return nil, fmt.Errorf("fetch the issuer's keys: %w", err)
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return nil, fmt.Errorf("the issuer's keys at %s: %w", s.url, err)
	}
	return keys, nil
}

// getJSON fetches a small JSON document.
func getJSON(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKS+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJWKS {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, maxJWKS)
	}
	return b, nil
}
