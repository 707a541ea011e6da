package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/auth/authtest"
)

func TestJWT(t *testing.T) {
	iss := authtest.NewIssuer(t)
	rsaKey := iss.Key
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	impostor, _ := rsa.GenerateKey(rand.Reader, 2048)
	iss.PublishEC("e1", ecKey)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	claims, _ := ParseClaimMap("agent_id=preferred_username,human=staff")
	authn, err := JWT(context.Background(), OAuth{Issuer: iss.URL, Audience: "https://memory.example.com/mcp", Claims: claims,
		Scopes: []string{"memory"}, Now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	base := func(extra jwt.MapClaims) jwt.MapClaims {
		c := jwt.MapClaims{"iss": iss.URL, "aud": "https://memory.example.com/mcp", "sub": "u-123", "preferred_username": "ann",
			"seniority": "senior", "autonomy": "full", "staff": true, "scope": "openid memory", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		for k, v := range extra {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	for _, tt := range []struct {
		name  string
		token string
		want  memory.Identity
		err   string
	}{
		{"RS256", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(nil)),
			memory.Identity{AgentID: "ann", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull, Human: true}, ""},
		{"ES256", authtest.Sign(t, jwt.SigningMethodES256, ecKey, "e1", base(jwt.MapClaims{"seniority": nil, "autonomy": nil, "staff": nil})),
			memory.Identity{AgentID: "ann", Seniority: memory.SeniorityJunior, Autonomy: memory.AutonomySupervised}, ""},
		{"audience as a list", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"aud": []string{"other", "https://memory.example.com/mcp"}})),
			memory.Identity{AgentID: "ann", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull, Human: true}, ""},
		{"expired", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"exp": now.Add(-time.Minute).Unix()})), memory.Identity{}, "expired"},
		{"no expiry", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"exp": nil})), memory.Identity{}, "no expiry"},
		{"no audience", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"aud": nil})), memory.Identity{}, "names no audience (aud)"},
		{"an empty audience list", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"aud": []string{}})), memory.Identity{}, "names no audience (aud)"},
		{"no issuer", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"iss": nil})), memory.Identity{}, "names no issuer (iss)"},
		{"not yet valid", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"nbf": now.Add(time.Hour).Unix()})), memory.Identity{}, "not valid yet"},
		{"wrong audience", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"aud": "https://other.example.com"})), memory.Identity{}, "another audience"},
		{"wrong issuer", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"iss": "https://evil.example.com"})), memory.Identity{}, "another issuer"},
		{"unsigned (alg none)", authtest.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", base(nil)), memory.Identity{}, "algorithm is not accepted"},
		{"HS256 keyed with the public key", authtest.Sign(t, jwt.SigningMethodHS256, pubDER, "k1", base(nil)), memory.Identity{}, "algorithm is not accepted"},
		{"signed by another key", authtest.Sign(t, jwt.SigningMethodRS256, impostor, "k1", base(nil)), memory.Identity{}, "signature does not verify"},
		{"a key for another algorithm", authtest.Sign(t, jwt.SigningMethodRS384, rsaKey, "k1", base(nil)), memory.Identity{}, "its key is for RS256"},
		{"an unknown key id", authtest.Sign(t, jwt.SigningMethodRS256, impostor, "r9", base(nil)), memory.Identity{}, `key "r9"`},
		{"a missing scope", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"scope": "openid"})), memory.Identity{}, "lacks scope memory"},
		{"scp as a space-separated string (Azure AD)", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"scope": nil, "scp": "openid memory"})),
			memory.Identity{AgentID: "ann", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull, Human: true}, ""},
		{"scp as a list", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"scope": nil, "scp": []string{"openid", "memory"}})),
			memory.Identity{AgentID: "ann", Seniority: memory.SenioritySenior, Autonomy: memory.AutonomyFull, Human: true}, ""},
		{"scp as a string without the scope", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"scope": nil, "scp": "openid memory.read"})),
			memory.Identity{}, "lacks scope memory"},
		{"no agent id", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"preferred_username": nil})), memory.Identity{}, "preferred_username claim is not an agent id"},
		{"a bad seniority", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"seniority": "god"})), memory.Identity{}, "unknown seniority"},
		{"a bad human flag", authtest.Sign(t, jwt.SigningMethodRS256, rsaKey, "k1", base(jwt.MapClaims{"staff": "yes"})), memory.Identity{}, "not true or false"},
		{"not a JWT", "mmcp_abc", memory.Identity{}, "not a JWT"},
	} {
		got, err := authn(context.Background(), tt.token)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !isInvalid(err) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %+v, %v; want a refusal saying %q", tt.name, got, err, tt.err)
		}
	}

	// The issuer rotates to a new key: a token naming it is accepted once
	// the set is fetched again, which an unknown key id causes at most every
	// minRefresh.
	rotated, _ := rsa.GenerateKey(rand.Reader, 2048)
	iss.PublishRSA("r2", rotated)
	fetches := iss.Fetches()
	fresh := authtest.Sign(t, jwt.SigningMethodRS256, rotated, "r2", base(nil))
	if _, err := authn(context.Background(), fresh); err == nil {
		t.Fatal("a key published after the last fetch was used before minRefresh passed")
	}
	clock.Lock()
	now = now.Add(minRefresh + time.Second)
	clock.Unlock()
	if got, err := authn(context.Background(), authtest.Sign(t, jwt.SigningMethodRS256, rotated, "r2", base(nil))); err != nil || got.AgentID != "ann" {
		t.Fatalf("after the rotation: %+v, %v", got, err)
	}
	if iss.Fetches() != fetches+1 {
		t.Fatalf("fetched the keys %d times for the rotation, want once", iss.Fetches()-fetches)
	}
}

// TestJWTConfiguration: a wrong configuration stops the server at start.
func TestJWTConfiguration(t *testing.T) {
	iss := authtest.NewIssuer(t)
	if _, err := JWT(context.Background(), OAuth{Issuer: iss.URL, Audience: "a", JWKSURL: iss.URL + "/.well-known/oauth-authorization-server"}); err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("a document that is no key set: %v", err)
	}
	if _, err := JWT(context.Background(), OAuth{Issuer: iss.URL + "/elsewhere", Audience: "a"}); err == nil || !strings.Contains(err.Error(), "find the issuer's keys") {
		t.Fatalf("no metadata: %v", err)
	}
	if _, err := JWT(context.Background(), OAuth{Issuer: iss.URL}); err == nil || !strings.Contains(err.Error(), "oauth-audience") {
		t.Fatalf("no audience: %v", err)
	}
	if _, err := ParseClaimMap("agent_id=sub,role=admin"); err == nil || !strings.Contains(err.Error(), `unknown identity field "role"`) {
		t.Fatalf("a bad claim map: %v", err)
	}
}

// isInvalid reports whether err refuses the credential (rather than being
// the server's own failure).
func isInvalid(err error) bool {
	var bad *Error
	return errors.As(err, &bad)
}

func FuzzParseJWKS(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"},{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := parseJWKS(b)
		if err == nil && len(keys) == 0 {
			t.Fatal("no error and no key")
		}
		for _, k := range keys {
			if k.key == nil {
				t.Fatal("a nil key")
			}
		}
	})
}

// TestJWTDiscovery: the issuer's metadata is found where RFC 8414 puts it
// (the well-known path before the issuer's path), else where OpenID Connect
// discovery does (after it), and the issuer is compared exactly as
// configured: one whose identifier ends in "/" (Auth0's do) authenticates.
func TestJWTDiscovery(t *testing.T) {
	claims, _ := ParseClaimMap("")
	for _, tt := range []struct {
		name, path string
		discovery  authtest.Discovery
	}{
		{"RFC 8414, at the root", "", authtest.RFC8414},
		{"RFC 8414, an issuer ending in /", "/", authtest.RFC8414},
		{"RFC 8414, an issuer with a path", "/tenant", authtest.RFC8414},
		{"RFC 8414, a path ending in /", "/tenant/", authtest.RFC8414},
		{"OpenID Connect, an issuer with a path", "/realms/team", authtest.OpenIDConnect},
		{"OpenID Connect, an issuer ending in /", "/", authtest.OpenIDConnect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iss := authtest.NewIssuerAt(t, tt.path, tt.discovery)
			authn, err := JWT(context.Background(), OAuth{Issuer: iss.URL, Audience: "aud", Claims: claims})
			if err != nil {
				t.Fatal(err)
			}
			token := iss.Token(t, jwt.MapClaims{"iss": iss.URL, "aud": "aud", "sub": "ann", "exp": time.Now().Add(time.Hour).Unix()})
			if who, err := authn(context.Background(), token); err != nil || who.AgentID != "ann" {
				t.Fatalf("a token of issuer %s: %+v, %v", iss.URL, who, err)
			}
		})
	}
	// Configured without the "/" its tokens carry, the issuer would refuse
	// every token: the server does not start, and says what the issuer is.
	iss := authtest.NewIssuerAt(t, "/", authtest.RFC8414)
	_, err := JWT(context.Background(), OAuth{Issuer: strings.TrimSuffix(iss.URL, "/"), Audience: "aud"})
	if err == nil || !strings.Contains(err.Error(), `names issuer "`+iss.URL+`"`) {
		t.Fatalf("an issuer configured without its trailing /: %v", err)
	}
}
