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
// keys), at most once per minRefresh so that tokens naming made-up key ids
// cannot make the server hammer the issuer.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    map[string]verifyKey
	fetched time.Time
}

const (
	minRefresh = 30 * time.Second
	maxAge     = 10 * time.Minute // keys older than this are fetched again before use
	maxJWKS    = 1 << 20
)

// key returns the key with id kid ("" when the token names none: the set's
// only key then).
func (s *keySet) key(ctx context.Context, kid string) (verifyKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.find(kid); ok && s.now().Sub(s.fetched) < maxAge {
		return k, nil
	}
	if s.keys == nil || s.now().Sub(s.fetched) >= minRefresh {
		if err := s.fetch(ctx); err != nil && s.keys == nil {
			return verifyKey{}, err
		}
	}
	if k, ok := s.find(kid); ok {
		return k, nil
	}
	return verifyKey{}, invalidToken(fmt.Sprintf("the token was signed with key %q, which the issuer's key set does not hold", kid))
}

func (s *keySet) find(kid string) (verifyKey, bool) {
	if kid == "" && len(s.keys) == 1 {
		for _, k := range s.keys {
			return k, true
		}
	}
	k, ok := s.keys[kid]
	return k, ok && kid != ""
}

func (s *keySet) fetch(ctx context.Context) error {
	b, err := getJSON(ctx, s.client, s.url)
	if err != nil {
		return fmt.Errorf("fetch the issuer's keys: %w", err)
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return fmt.Errorf("the issuer's keys at %s: %w", s.url, err)
	}
	s.keys, s.fetched = keys, s.now()
	return nil
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
