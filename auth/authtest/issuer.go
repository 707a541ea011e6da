// Package authtest is an OAuth authorization server for tests: its
// metadata (RFC 8414) and key set on httptest, and keys it generates to sign
// access tokens with. It stands in for the identity provider at the
// network's edge, which is the one place the tests use a fake.
package authtest

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is a running authorization server.
type Issuer struct {
	URL string
	Key *rsa.PrivateKey // published as "k1", RS256

	srv     *httptest.Server
	mu      sync.Mutex
	keys    []map[string]string
	fetches int
}

// NewIssuer starts an issuer with one RSA key, stopped at cleanup.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	iss := &Issuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		iss.mu.Lock()
		defer iss.mu.Unlock()
		iss.fetches++
		json.NewEncoder(w).Encode(map[string]any{"keys": iss.keys})
	})
	iss.srv = httptest.NewServer(mux)
	iss.URL = iss.srv.URL
	t.Cleanup(iss.srv.Close)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss.Key = key
	iss.PublishRSA("k1", key)
	return iss
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// PublishRSA adds key to the key set under kid, for RS256.
func (iss *Issuer) PublishRSA(kid string, key *rsa.PrivateKey) {
	iss.publish(map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())})
}

// PublishEC adds a P-256 key to the key set under kid.
func (iss *Issuer) PublishEC(kid string, key *ecdsa.PrivateKey) {
	iss.publish(map[string]string{"kty": "EC", "kid": kid, "crv": "P-256",
		"x": b64(key.X.FillBytes(make([]byte, 32))), "y": b64(key.Y.FillBytes(make([]byte, 32)))})
}

func (iss *Issuer) publish(k map[string]string) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys = append(iss.keys, k)
}

// Fetches counts the requests for the key set.
func (iss *Issuer) Fetches() int {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.fetches
}

// Token signs claims with the issuer's own key (k1, RS256).
func (iss *Issuer) Token(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	return Sign(t, jwt.SigningMethodRS256, iss.Key, "k1", claims)
}

// Sign makes a token of claims with method and key, naming kid ("" names none).
func Sign(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
