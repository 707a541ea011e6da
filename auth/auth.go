// Package auth decides who calls the HTTP server: a bearer token from the
// server's own token store, or a JWT access token from an OAuth
// authorization server. The identity a credential stands for is put in the
// request's context (memory.WithIdentity) before any handler runs, so that
// tools, resources and prompts act as that caller, and no argument of theirs
// can claim another. A request without a credential, or with one that does
// not hold, is answered 401 with a WWW-Authenticate challenge (RFC 6750); a
// token that holds but lacks a scope the server requires, 403 with
// error="insufficient_scope" (RFC 6750 section 3.1), so that its client can
// ask for one that has it; what a valid caller may not do is for the tools
// to refuse (EFORBIDDEN).
package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// AuthenticateFunc returns the identity a bearer credential stands for, or
// an error saying why it does not hold (an *Error for what the caller can
// fix; anything else is the server's own failure).
type AuthenticateFunc func(ctx context.Context, credential string) (memory.Identity, error)

// Error is why a credential was refused, told to the client in the
// challenge's error_description. It never quotes the credential.
type Error struct {
	Code        string // RFC 6750: invalid_request, invalid_token or insufficient_scope
	Description string
	Status      int // the HTTP status to answer with; 0: 401 Unauthorized
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func invalidToken(format string) *Error { return &Error{Code: "invalid_token", Description: format} }

// insufficientScope refuses a token that lacks the scopes missing: 403,
// since a token with them would be served (RFC 6750 section 3.1).
func insufficientScope(missing []string) *Error {
	return &Error{Code: "insufficient_scope", Description: "the token lacks scope " + strings.Join(missing, " "), Status: http.StatusForbidden}
}

// Challenge configures the WWW-Authenticate challenge of a refused request.
type Challenge struct {
	Realm string
	// ResourceMetadata is the URL of the RFC 9728 protected-resource
	// metadata, named in every challenge so that an OAuth client can find
	// the authorization server; empty for bearer tokens of our own.
	ResourceMetadata string
	Scopes           []string
	// SignIn, when set, is the page a browser (a request that accepts
	// text/html) is sent to (303 See Other) instead of being answered 401:
	// where a person gives the credential the pages need.
	SignIn string
}

// header renders the challenge for err (nil: no credential was sent, which
// RFC 6750 answers without an error code).
func (c Challenge) header(err *Error) string {
	parts := []string{`Bearer realm="` + quote(c.Realm) + `"`}
	if c.ResourceMetadata != "" {
		parts = append(parts, `resource_metadata="`+quote(c.ResourceMetadata)+`"`)
	}
	if len(c.Scopes) > 0 {
		parts = append(parts, `scope="`+quote(strings.Join(c.Scopes, " "))+`"`)
	}
	if err != nil {
		parts = append(parts, `error="`+err.Code+`"`, `error_description="`+quote(err.Description)+`"`)
	}
	return strings.Join(parts, ", ")
}

// quote makes s safe inside a quoted-string: no quote, backslash or control character.
func quote(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
			return '\''
		}
		return r
	}, s)
}

// Require serves next only to requests whose bearer credential authn
// accepts, with the caller's identity in the request's context. While a
// request runs (a notification stream may run for hours), its credential is
// checked again every recheck; when it no longer holds (the token was
// revoked, the JWT expired) the request's context is cancelled, which ends
// the stream. log receives the server's own failures to check a
// credential; those are answered 503, and never let a request through.
func Require(authn AuthenticateFunc, ch Challenge, recheck time.Duration, log func(msg string, args ...any), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		credential, problem := bearer(r.Header)
		if credential == "" {
			refuse(w, r, ch, problem)
			return
		}
		who, err := authn(r.Context(), credential)
		if err != nil {
			var bad *Error
			if errors.As(err, &bad) {
				refuse(w, r, ch, bad)
				return
			}
			log("check a credential", "err", err)
			http.Error(w, "the server could not check the credential; retry shortly", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithCancelCause(memory.WithIdentity(r.Context(), who))
		defer cancel(nil)
		stop := watch(ctx, recheck, func(ctx context.Context) error {
			_, err := authn(ctx, credential)
			return err
		}, cancel)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// ErrCredentialWithdrawn is the cause of a request's context cancelled
// because its credential stopped holding while it ran.
var ErrCredentialWithdrawn = errors.New("the credential no longer holds")

// watch checks again every interval, until stop, and cancels the request
// once the credential is refused. A check that fails for the server's own
// reasons (the database busy) leaves the request running.
func watch(ctx context.Context, every time.Duration, check func(context.Context) error, cancel context.CancelCauseFunc) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	var timer *time.Timer
	timer = time.AfterFunc(every, func() {
		var bad *Error
		if err := check(ctx); errors.As(err, &bad) {
			cancel(ErrCredentialWithdrawn)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			timer.Reset(every)
		}
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		timer.Stop()
	}
}

// bearer reads the credential of an Authorization: Bearer header.
func bearer(h http.Header) (string, *Error) {
	values := h.Values("Authorization")
	switch {
	case len(values) == 0:
		return "", nil
	case len(values) > 1:
		return "", &Error{Code: "invalid_request", Description: "more than one Authorization header"}
	}
	scheme, credential, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", &Error{Code: "invalid_request", Description: "the Authorization header is not \"Bearer <token>\""}
	}
	if credential = strings.TrimSpace(credential); credential == "" {
		return "", &Error{Code: "invalid_request", Description: "the bearer token is empty"}
	}
	return credential, nil
}

// refuse answers with the challenge, 401 unless problem says otherwise; a
// request that sent no credential at all (problem nil) is told only where to
// get one.
func refuse(w http.ResponseWriter, r *http.Request, ch Challenge, problem *Error) {
	if ch.SignIn != "" && browser(r) && (problem == nil || problem.Status == 0) {
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, ch.SignIn, http.StatusSeeOther)
		return
	}
	w.Header().Set("WWW-Authenticate", ch.header(problem))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	status := http.StatusUnauthorized
	if problem != nil && problem.Status != 0 {
		status = problem.Status
	}
	w.WriteHeader(status)
	if problem == nil {
		w.Write([]byte("this server needs a bearer token: send Authorization: Bearer <token>\n"))
		return
	}
	w.Write([]byte(problem.Description + "\n"))
}

// As serves next to every request as who, without a credential: for one
// person on their own machine, as stdio does.
func As(who memory.Identity, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(memory.WithIdentity(r.Context(), who)))
	})
}
