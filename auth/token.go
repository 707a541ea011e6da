package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// TokenPrefix starts every bearer token the server issues, so that a token
// pasted in the wrong place (a log, a repository) is recognisable, and
// secret scanners can look for it.
const TokenPrefix = "mmcp_"

// tokenBytes is a token's randomness: 256 bits, beyond guessing, which is
// why a plain SHA-256 of it is safe to store (a slow password hash guards
// guessable secrets, and would cost every request its time).
const tokenBytes = 32

var encoding = base64.RawURLEncoding

// NewToken returns a new bearer token, its hash (what the store keeps) and
// an id to name it by in lists and revocations.
func NewToken() (token string, hash []byte, id string) {
	b := make([]byte, tokenBytes)
	rand.Read(b) // never fails (crypto/rand)
	token = TokenPrefix + encoding.EncodeToString(b)
	var idb [6]byte
	rand.Read(idb[:])
	return token, HashToken(token), "tok-" + hex.EncodeToString(idb[:])
}

// HashToken is what the store keeps of token: its SHA-256.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// TokenLookup returns the token record whose hash is hash (ENOTFOUND when
// there is none); *store.DB's TokenByHash is one.
type TokenLookup func(ctx context.Context, hash []byte) (memory.Token, error)

// Tokens authenticates the server's own bearer tokens: a token is looked
// up by its hash on every request, so a revoked token is refused on its
// next request, from whichever process revoked it.
func Tokens(lookup TokenLookup) AuthenticateFunc {
	return func(ctx context.Context, credential string) (memory.Identity, error) {
		if problem := tokenShape(credential); problem != nil {
			return memory.Identity{}, problem
		}
		t, err := lookup(ctx, HashToken(credential))
		switch {
		case memory.ErrorCode(err) == memory.ENOTFOUND:
			return memory.Identity{}, invalidToken("the bearer token is not one this server issued")
		case err != nil:
			return memory.Identity{}, err
		case t.RevokedAt != nil:
			return memory.Identity{}, invalidToken("the bearer token " + t.ID + " was revoked")
		}
		return t.Identity, nil
	}
}

// tokenShape refuses, without a lookup, what cannot be a token of ours.
func tokenShape(credential string) *Error {
	rest, ok := strings.CutPrefix(credential, TokenPrefix)
	if !ok {
		if strings.Count(credential, ".") == 2 {
			return invalidToken("the bearer token is a JWT, and this server takes its own tokens (auth token): use one from `memory-mcp token add`")
		}
		return invalidToken("the bearer token is not one this server issued: its tokens start with " + TokenPrefix)
	}
	if b, err := encoding.DecodeString(rest); err != nil || len(b) != tokenBytes {
		return invalidToken("the bearer token is malformed: it was cut short or changed")
	}
	return nil
}
