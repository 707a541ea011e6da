package auth

import (
	"net/http"
	"strings"
)

// FromCookie lets a browser's cookie stand in for the Authorization header,
// which browsers send neither when they navigate nor when they post a form:
// a request without that header that carries cookie name goes on with the
// cookie's value as its bearer credential, to be checked (on every request,
// so that revocation and expiry hold from the next page on) by Require
// behind it like any other. Mount it only in front of pages for people: a
// cookie is sent with every request to its path, so what it guards must
// refuse forged cross-site posts itself (the review page's forms carry a
// token, and the cookie is SameSite=Strict).
func FromCookie(name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("Authorization")) == 0 {
			if c, err := r.Cookie(name); err == nil && strings.TrimSpace(c.Value) != "" {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+c.Value)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// browser reports whether r was sent by a browser showing pages, which is
// better sent to a page to sign in on than shown a bare refusal.
func browser(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/html") {
			return true
		}
	}
	return false
}
