package main

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ServeConfig configures `memory-mcp serve`, the team server: MCP over
// streamable HTTP.
type ServeConfig struct {
	Addr string
	// Auth is how a request proves who calls: token (a bearer token from
	// `memory-mcp token add`), oauth (a JWT access token from an issuer) or
	// none (the configured identity, loopback only).
	Auth              string
	TLSCert, TLSKey   string
	AllowedHosts      []string // Host header values served; empty: derived from Addr
	AllowedOrigins    []string // browser origins allowed to call; empty: none
	MaxRequestBytes   int64
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	// Recheck is how often a long-lived request (a notification stream)
	// checks that its credential still holds.
	Recheck time.Duration
	// SessionIdle is how long a session (2025-11-25 and older) is kept
	// without a request.
	SessionIdle time.Duration
	// ReviewSession is how long a sign-in on the review page lasts.
	ReviewSession time.Duration
	OAuth         OAuthConfig
}

// OAuthConfig configures the OAuth 2.1 resource-server mode (auth oauth).
type OAuthConfig struct {
	Issuer   string
	Audience string
	JWKSURL  string // empty: found through the issuer's metadata
	Resource string // this server's URL as clients name it (RFC 9728); empty: the audience
	Claims   string // identity field=claim, comma-separated
	Scopes   []string
}

// Auth modes.
const (
	authToken = "token"
	authOAuth = "oauth"
	authNone  = "none"
)

func serveSettings() []setting {
	dur := func(name string, dst func(*ServeConfig) *time.Duration) func(c *Config, v string) error {
		return func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 30s", v)
			}
			*dst(&c.Serve) = d
			return nil
		}
	}
	return []setting{
		{"addr", "serve: the address to listen on, host:port (loopback unless you mean otherwise; :0 picks a free port)", constant("127.0.0.1:8080"),
			func(c *Config, v string) error {
				if _, _, err := net.SplitHostPort(v); err != nil {
					return fmt.Errorf("%q is not host:port: %v", v, err)
				}
				c.Serve.Addr = v
				return nil
			}},
		{"auth", "serve: how callers prove who they are: token (bearer tokens from `memory-mcp token add`), oauth (JWT access tokens " +
			"from the oauth-issuer) or none (every request is the configured identity; loopback addresses only)", constant(authToken),
			func(c *Config, v string) error {
				switch v {
				case authToken, authOAuth, authNone:
					c.Serve.Auth = v
					return nil
				}
				return fmt.Errorf("unknown auth %q: use token, oauth or none", v)
			}},
		{"tls-cert", "serve: TLS certificate file (PEM); with tls-key, serve HTTPS", constant(""),
			func(c *Config, v string) error { c.Serve.TLSCert = v; return nil }},
		{"tls-key", "serve: TLS private key file (PEM)", constant(""),
			func(c *Config, v string) error { c.Serve.TLSKey = v; return nil }},
		{"allowed-hosts", "serve: Host header values served, comma-separated (DNS-rebinding protection); empty: localhost, the loopback " +
			"addresses and the host of addr", constant(""),
			func(c *Config, v string) error { c.Serve.AllowedHosts = splitList(v); return nil }},
		{"allowed-origins", "serve: browser origins allowed to call, comma-separated (e.g. https://tools.example.com); a request with " +
			"any other Origin is refused", constant(""),
			func(c *Config, v string) error {
				c.Serve.AllowedOrigins = splitList(v)
				for _, o := range c.Serve.AllowedOrigins {
					if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
						return fmt.Errorf("%q is not an origin such as https://tools.example.com", o)
					}
				}
				return nil
			}},
		{"max-request-bytes", "serve: largest request body accepted, in bytes", constant(strconv.Itoa(1 << 20)),
			func(c *Config, v string) error {
				n, err := parsePositive(v)
				c.Serve.MaxRequestBytes = int64(n)
				return err
			}},
		{"read-header-timeout", "serve: time limit for a request's headers (slow clients are cut off)", constant("10s"),
			dur("read-header-timeout", func(s *ServeConfig) *time.Duration { return &s.ReadHeaderTimeout })},
		{"read-timeout", "serve: time limit for reading a whole request", constant("30s"),
			dur("read-timeout", func(s *ServeConfig) *time.Duration { return &s.ReadTimeout })},
		{"write-timeout", "serve: time limit for answering a request (notification streams are exempt)", constant("60s"),
			dur("write-timeout", func(s *ServeConfig) *time.Duration { return &s.WriteTimeout })},
		{"idle-timeout", "serve: how long an idle keep-alive connection is kept", constant("120s"),
			dur("idle-timeout", func(s *ServeConfig) *time.Duration { return &s.IdleTimeout })},
		{"shutdown-timeout", "serve: how long a stopping server waits for requests in flight", constant("30s"),
			dur("shutdown-timeout", func(s *ServeConfig) *time.Duration { return &s.ShutdownTimeout })},
		{"auth-recheck", "serve: how often a notification stream checks that its credential still holds (a revoked token or an " +
			"expired JWT ends the stream)", constant("5s"),
			dur("auth-recheck", func(s *ServeConfig) *time.Duration { return &s.Recheck })},
		{"session-idle", "serve: how long a session of protocol 2025-11-25 or older is kept without a request", constant("30m"),
			dur("session-idle", func(s *ServeConfig) *time.Duration { return &s.SessionIdle })},
		{"review-session", "serve: how long a sign-in on the review page (/ui) lasts before the person signs in again (an OAuth " +
			"sign-in no longer than its access token)", constant("12h"),
			dur("review-session", func(s *ServeConfig) *time.Duration { return &s.ReviewSession })},
		{"oauth-issuer", "serve, auth oauth: the authorization server whose access tokens are accepted, exactly as their iss claim " +
			"names it (a trailing / included)", constant(""),
			func(c *Config, v string) error { c.Serve.OAuth.Issuer = v; return nil }},
		{"oauth-audience", "serve, auth oauth: the audience an access token must name (its aud claim)", constant(""),
			func(c *Config, v string) error { c.Serve.OAuth.Audience = v; return nil }},
		{"oauth-jwks-url", "serve, auth oauth: the issuer's key set; empty: jwks_uri from the issuer's metadata", constant(""),
			func(c *Config, v string) error { c.Serve.OAuth.JWKSURL = v; return nil }},
		{"oauth-resource", "serve, auth oauth: this server's MCP URL as clients reach it, for the protected-resource metadata " +
			"(RFC 9728); empty: the audience", constant(""),
			func(c *Config, v string) error { c.Serve.OAuth.Resource = v; return nil }},
		{"oauth-claims", "serve, auth oauth: which claim gives each identity field, as field=claim (fields agent_id, seniority, " +
			"autonomy, human); a missing seniority is junior, autonomy supervised, human false",
			constant("agent_id=sub,seniority=seniority,autonomy=autonomy,human=is_human"),
			func(c *Config, v string) error { c.Serve.OAuth.Claims = v; return nil }},
		{"oauth-scopes", "serve, auth oauth: scopes every access token must carry, comma-separated (its scope claim)", constant(""),
			func(c *Config, v string) error { c.Serve.OAuth.Scopes = splitList(v); return nil }},
	}
}

// splitList splits a comma-separated setting, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
