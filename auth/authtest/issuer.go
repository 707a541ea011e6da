// Package authtest is an OAuth authorization server for tests: its
// metadata (RFC 8414 or OpenID Connect discovery) and key set on httptest,
// and keys it generates to sign access tokens with. It stands in for the
// identity provider at the network's edge, which is the one place the tests
// use a fake.
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
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is a running authorization server.
type Issuer struct {
	URL string          // the issuer identifier, its iss claim
	Key *rsa.PrivateKey // published as "k1", RS256

	srv     *httptest.Server
	mu      sync.Mutex
	keys    []map[string]string
	fetches int
	status  int           // the key set's answer, when not 200
	hold    chan struct{} // when set, requests for the key set wait until it is closed
}

// Discovery is where an issuer publishes its metadata.
type Discovery int

const (
	// RFC8414: /.well-known/oauth-authorization-server, inserted before
	// the issuer's path.
	RFC8414 Discovery = iota
	// OpenIDConnect: the issuer's URL followed by
	// /.well-known/openid-configuration.
	OpenIDConnect
)

// NewIssuer starts an issuer at the root of its server, with RFC 8414
// metadata and one RSA key, stopped at cleanup.
func NewIssuer(t testing.TB) *Issuer { return NewIssuerAt(t, "", RFC8414) }

// NewIssuerAt starts an issuer whose identifier is its server's URL
// followed by path ("", "/", "/tenant"), publishing its metadata only where
// d puts it (the terminating "/" of the path removed, as both
// specifications say), with one RSA key, stopped at cleanup.
func NewIssuerAt(t testing.TB, path string, d Discovery) *Issuer {
	t.Helper()
	iss := &Issuer{}
	trimmed := strings.TrimSuffix(path, "/")
	meta := "/.well-known/oauth-authorization-server" + trimmed
	if d == OpenIDConnect {
		meta = trimmed + "/.well-known/openid-configuration"
	}
	mux := http.NewServeMux()
	mux.HandleFunc(meta, func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", iss.serveKeys)
	iss.srv = httptest.NewServer(mux)
	iss.URL = iss.srv.URL + path
	t.Cleanup(iss.srv.Close)
	t.Cleanup(func() { iss.FailKeySet(0) }) // registered last, run first: no request stays held
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss.Key = key
	iss.PublishRSA("k1", key)
	return iss
}

// serveKeys answers a request for the key set: counted on arrival, held
// while the test holds the set, then the keys or the failure the test set.
func (iss *Issuer) serveKeys(w http.ResponseWriter, r *http.Request) {
	iss.mu.Lock()
	iss.fetches++
	hold := iss.hold
	iss.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	iss.mu.Lock()
	defer iss.mu.Unlock()
	if iss.status != 0 {
		http.Error(w, http.StatusText(iss.status), iss.status)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"keys": iss.keys})
}

// FailKeySet makes the key set answer status from now on; 0 serves the
// keys again, and lets go of requests HoldKeySet holds.
func (iss *Issuer) FailKeySet(status int) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.status = status
	if status == 0 && iss.hold != nil {
		close(iss.hold)
		iss.hold = nil
	}
}

// HoldKeySet makes requests for the key set wait (counted, unanswered)
// until release is called.
func (iss *Issuer) HoldKeySet() (release func()) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	hold := make(chan struct{})
	iss.hold = hold
	var once sync.Once
	return func() {
		once.Do(func() {
			iss.mu.Lock()
			defer iss.mu.Unlock()
			if iss.hold == hold {
				close(hold)
				iss.hold = nil
			}
		})
	}
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

// Fetches counts the requests for the key set, each from its arrival.
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
