package auth

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	memory "github.com/memory-mcp/memory-mcp"
)

// SessionPrefix starts every review-page session id, which the browser's
// cookie carries in place of the credential a person signed in with: a
// copied cookie is worth a session, which signing out, revoking the token
// or time ends, and is no credential at all on /mcp.
const SessionPrefix = "mmcps_"

// NewSession returns a new session id and its hash (what the store keeps:
// 256 random bits, so a plain SHA-256 is safe, as for tokens).
func NewSession() (id string, hash []byte) {
	b := make([]byte, tokenBytes)
	rand.Read(b)
	id = SessionPrefix + encoding.EncodeToString(b)
	return id, HashToken(id)
}

// SessionLookup returns the session whose id hash is hash (ENOTFOUND when
// there is none); *store.DB's PageSessionByHash is one.
type SessionLookup func(ctx context.Context, hash []byte) (memory.PageSession, error)

// Sessions authenticates review-page session ids, looked up on every
// request so that signing out or revoking ends a session on every process
// sharing the store at its next request; any other credential goes to
// next. Mount it only in front of the pages: a session is no credential on
// /mcp.
func Sessions(lookup SessionLookup, now memory.Clock, next AuthenticateFunc) AuthenticateFunc {
	return func(ctx context.Context, credential string) (memory.Identity, error) {
		if !strings.HasPrefix(credential, SessionPrefix) {
			return next(ctx, credential)
		}
		s, err := lookup(ctx, HashToken(credential))
		switch {
		case memory.ErrorCode(err) == memory.ENOTFOUND:
			return memory.Identity{}, invalidToken("this sign-in session is not one this server opened, or it ended: sign in again")
		case err != nil:
			return memory.Identity{}, err
		case s.EndedAt != nil:
			return memory.Identity{}, invalidToken("this sign-in session was signed out: sign in again")
		case s.Revoked:
			return memory.Identity{}, invalidToken("the bearer token this session was signed in with was revoked")
		case !now.Now().Before(s.ExpiresAt):
			return memory.Identity{}, invalidToken("this sign-in session expired: sign in again")
		}
		return s.Identity, nil
	}
}

// Expiry returns the expiry (exp) of a JWT credential that authentication
// already accepted, so that a session opened with it ends no later than
// it would; false for a credential that is no JWT (a bearer token of ours,
// which lasts until it is revoked).
func Expiry(credential string) (time.Time, bool) {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(credential, claims); err != nil {
		return time.Time{}, false
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return time.Time{}, false
	}
	return exp.Time, true
}
