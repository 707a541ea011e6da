package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	memory "github.com/memory-mcp/memory-mcp"
)

// OAuth configures the OAuth 2.1 resource-server mode: the server accepts
// JWT access tokens that an authorization server (the issuer) signed for it
// (the audience), and takes the caller's identity from their claims.
type OAuth struct {
	Issuer   string
	Audience string
	// JWKSURL is the issuer's key set; empty: jwks_uri from the issuer's
	// metadata (RFC 8414, else OpenID Connect discovery).
	JWKSURL string
	// Claims maps identity fields to claims (see ParseClaimMap).
	Claims ClaimMap
	// Scopes must all be in the token's scope claim.
	Scopes []string
	Client *http.Client     // nil: a client with a 10 s timeout
	Now    func() time.Time // nil: the wall clock
}

// ClaimMap names the claim that carries each identity field.
type ClaimMap struct{ AgentID, Seniority, Autonomy, Human string }

// ParseClaimMap parses "agent_id=sub,seniority=level,..."; fields left out
// keep their default claim (sub, seniority, autonomy, is_human).
func ParseClaimMap(s string) (ClaimMap, error) {
	m := ClaimMap{AgentID: "sub", Seniority: "seniority", Autonomy: "autonomy", Human: "is_human"}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		field, claim, ok := strings.Cut(part, "=")
		field, claim = strings.TrimSpace(field), strings.TrimSpace(claim)
		if !ok || claim == "" {
			return m, fmt.Errorf("%q is not field=claim", part)
		}
		switch field {
		case "agent_id":
			m.AgentID = claim
		case "seniority":
			m.Seniority = claim
		case "autonomy":
			m.Autonomy = claim
		case "human":
			m.Human = claim
		default:
			return m, fmt.Errorf("unknown identity field %q: use agent_id, seniority, autonomy or human", field)
		}
	}
	return m, nil
}

// algorithms are the signatures accepted: asymmetric ones only. "none"
// would let anyone mint a token, and an HMAC would take the issuer's public
// key as its secret (the key-confusion attack), so neither is ever accepted.
var algorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// leeway is the clock difference tolerated between the issuer and this server.
const leeway = 30 * time.Second

// JWT returns the authenticator of o's access tokens. It finds the issuer's
// key set now (through the issuer's metadata when o names no JWKS URL), so
// that a wrong configuration stops the server at start rather than failing
// every request.
func JWT(ctx context.Context, o OAuth) (AuthenticateFunc, error) {
	if o.Issuer == "" || o.Audience == "" {
		return nil, errors.New("auth oauth needs oauth-issuer and oauth-audience")
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.JWKSURL == "" {
		u, err := discoverJWKS(ctx, o.Client, o.Issuer)
		if err != nil {
			return nil, err
		}
		o.JWKSURL = u
	}
	keys := &keySet{url: o.JWKSURL, client: o.Client, now: o.Now}
	if err := keys.load(ctx); err != nil {
		return nil, err
	}
	parser := jwt.NewParser(jwt.WithValidMethods(algorithms), jwt.WithIssuer(o.Issuer), jwt.WithAudience(o.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(leeway), jwt.WithTimeFunc(o.Now))
	return func(ctx context.Context, credential string) (memory.Identity, error) {
		claims := jwt.MapClaims{}
		_, err := parser.ParseWithClaims(credential, claims, func(t *jwt.Token) (any, error) {
			kid, _ := t.Header["kid"].(string)
			k, err := keys.key(ctx, kid)
			if err != nil {
				return nil, err
			}
			if k.alg != "" && k.alg != t.Method.Alg() {
				return nil, invalidToken(fmt.Sprintf("the token is signed with %s, and its key is for %s", t.Method.Alg(), k.alg))
			}
			return k.key, nil
		})
		if err != nil {
			return memory.Identity{}, tokenError(err, claims)
		}
		if missing := missingScopes(claims, o.Scopes); len(missing) > 0 {
			return memory.Identity{}, insufficientScope(missing)
		}
		return o.Claims.identity(claims)
	}, nil
}

// tokenError says why a JWT with claims was refused, without quoting it. A
// failure to reach the issuer's keys is the server's, not the caller's.
func tokenError(err error, claims jwt.MapClaims) error {
	var bad *Error
	switch {
	case errors.As(err, &bad):
		return bad
	case errors.Is(err, jwt.ErrTokenMalformed):
		return invalidToken("the token is not a JWT")
	case strings.Contains(err.Error(), "signing method"): // the parser's only word for an algorithm it refuses
		return invalidToken("the token's signing algorithm is not accepted: use one of " + strings.Join(algorithms, ", "))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalidToken("the token's signature does not verify against the issuer's keys")
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return err // the keys could not be had: the server's failure, answered 503
	case errors.Is(err, jwt.ErrTokenExpired):
		return invalidToken("the token has expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return invalidToken("the token is not valid yet")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return invalidToken("the token is for another audience")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return invalidToken("the token is from another issuer")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return invalidToken(missingClaim(claims))
	}
	return invalidToken("the token is not valid")
}

// missingClaim says which required claim the token lacks, which the
// parser's error says only in its text.
func missingClaim(claims jwt.MapClaims) string {
	exp, _ := claims.GetExpirationTime()
	aud, _ := claims.GetAudience()
	iss, _ := claims.GetIssuer()
	switch {
	case exp == nil:
		return "the token has no expiry (exp)"
	case len(aud) == 0 || len(aud) == 1 && aud[0] == "":
		return "the token names no audience (aud)"
	case iss == "":
		return "the token names no issuer (iss)"
	}
	return "the token lacks a required claim"
}

// missingScopes lists the scopes of want that the token grants in neither
// scope (RFC 8693 and RFC 9068: one space-separated string) nor scp (a
// list for some issuers, a space-separated string for Azure AD).
func missingScopes(claims jwt.MapClaims, want []string) []string {
	have := append(scopes(claims["scope"]), scopes(claims["scp"])...)
	var missing []string
	for _, s := range want {
		if !slices.Contains(have, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// scopes reads a scope claim, a space-separated string or a list of strings.
func scopes(claim any) []string {
	switch v := claim.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var list []string
		for _, s := range v {
			if s, ok := s.(string); ok {
				list = append(list, s)
			}
		}
		return list
	}
	return nil
}

// identity maps the token's claims to the caller: an agent id it must
// carry; a seniority (junior when absent), autonomy (supervised when
// absent) and human flag (false when absent) it may carry. A claim present
// but not understood refuses the token rather than guessing.
func (m ClaimMap) identity(claims jwt.MapClaims) (memory.Identity, error) {
	var id memory.Identity
	agent, _ := claims[m.AgentID].(string)
	if err := memory.CheckID("agent id", agent); err != nil {
		return id, invalidToken(fmt.Sprintf("the token's %s claim is not an agent id: %s", m.AgentID, memory.ErrorMessage(err)))
	}
	id.AgentID, id.Seniority, id.Autonomy = agent, memory.SeniorityJunior, memory.AutonomySupervised
	if v, ok := claims[m.Seniority]; ok {
		s, _ := v.(string)
		sen, err := memory.ParseSeniority(s)
		if err != nil {
			return id, invalidToken(fmt.Sprintf("the token's %s claim: %s", m.Seniority, memory.ErrorMessage(err)))
		}
		id.Seniority = sen
	}
	if v, ok := claims[m.Autonomy]; ok {
		s, _ := v.(string)
		aut, err := memory.ParseAutonomy(s)
		if err != nil {
			return id, invalidToken(fmt.Sprintf("the token's %s claim: %s", m.Autonomy, memory.ErrorMessage(err)))
		}
		id.Autonomy = aut
	}
	switch v := claims[m.Human].(type) {
	case nil:
	case bool:
		id.Human = v
	case string:
		if v != "true" && v != "false" {
			return id, invalidToken(fmt.Sprintf("the token's %s claim is %q, not true or false", m.Human, v))
		}
		id.Human = v == "true"
	default:
		return id, invalidToken(fmt.Sprintf("the token's %s claim is not true or false", m.Human))
	}
	return id, nil
}

// discoverJWKS finds the issuer's key set URL in its metadata: OAuth 2.0
// Authorization Server Metadata (RFC 8414), else OpenID Connect discovery.
// The metadata must name the issuer exactly as configured (RFC 8414
// section 3.3), since every token's iss is compared with it exactly.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	urls, err := metadataURLs(issuer)
	if err != nil {
		return "", err
	}
	var errs []error
	for _, u := range urls {
		b, err := getJSON(ctx, client, u)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
			continue
		}
		if meta.Issuer != issuer {
			return "", fmt.Errorf("%s names issuer %q, not %q: set oauth-issuer to the issuer exactly as its tokens' iss claim "+
				"names it (a trailing / included)", u, meta.Issuer, issuer)
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("%s names no jwks_uri: set oauth-jwks-url", u)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("find the issuer's keys (set oauth-jwks-url to skip this): %w", errors.Join(errs...))
}

// metadataURLs are where the issuer's metadata may be: RFC 8414 inserts
// its well-known path between the host and the issuer's path, OpenID
// Connect discovery appends its own to the path; both drop the path's
// terminating "/" first.
func metadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth-issuer %q is not an issuer URL such as https://id.example.com", issuer)
	}
	origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
	return []string{origin + "/.well-known/oauth-authorization-server" + path, origin + path + "/.well-known/openid-configuration"}, nil
}
