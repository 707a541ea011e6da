package ui

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
)

// A browser sends no Authorization header when it navigates or posts a
// form, so a person signs in by pasting their credential (a bearer token,
// or an OAuth access token) into the sign-in page once: it is checked as the
// server checks every credential, and the server opens a session for it,
// kept in its database. The browser's cookie carries only the session's
// random id, never the credential, and only the review page's paths receive
// it. The server's authentication looks the session up on each request, so
// signing out, revoking the token or the session's expiry ends it on every
// process at the next page.

// SessionCookie is the cookie that holds a signed-in person's session id.
const SessionCookie = "memory_mcp_session"

// Session is what a sign-in opened: its id (for the cookie) and when it
// expires.
type Session struct {
	ID      string
	Expires time.Time
}

// SignInFunc returns the identity credential stands for, as the server's
// authentication would, and, when it is a human's, the session it opened
// for them: a domain error (memory.Errorf) says why it does not hold, and
// is shown to the person; anything else is the server's failure.
type SignInFunc func(ctx context.Context, credential string) (memory.Identity, Session, error)

// SignOutFunc ends the session whose id a browser's cookie carried, for
// every process serving the page.
type SignOutFunc func(ctx context.Context, id string) error

type signinData struct {
	Message string
}

// signinRoutes are the pages served without an identity: the sign-in form
// and what it posts.
func (h *handler) signinRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	t := h.template("signin.html")
	mux.HandleFunc("GET "+h.prefix+"/signin", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusOK, t, view{Title: "Sign in", Data: signinData{}})
	})
	mux.HandleFunc("POST "+h.prefix+"/signin", func(w http.ResponseWriter, r *http.Request) {
		if status, msg := h.signin(w, r); status != 0 {
			h.render(w, r, status, t, view{Title: "Sign in", Data: signinData{Message: msg}})
		}
	})
	return mux
}

// signin checks the posted credential and, when it names a human, keeps it
// in the cookie and sends the browser to the review; otherwise it returns
// the status and the reason to show with the form again. No form token can
// exist before sign-in: the cross-origin check (Sec-Fetch-Site, Origin)
// stands in for it, and signing someone in as themselves is all a forged
// post could do.
func (h *handler) signin(w http.ResponseWriter, r *http.Request) (int, string) {
	if err := h.origin.Check(r); err != nil {
		return http.StatusForbidden, "This form was sent from another site, and refused: sign in on the review page itself."
	}
	if status, msg := parseForm(w, r); status != 0 {
		return status, msg
	}
	credential := posted(r, "credential")
	if scheme, rest, ok := strings.Cut(credential, " "); ok && strings.EqualFold(scheme, "Bearer") {
		credential = strings.TrimSpace(rest)
	}
	if credential == "" {
		return http.StatusBadRequest, "Paste your token to sign in."
	}
	who, session, err := h.signIn(r.Context(), credential)
	if err != nil {
		public, internal := memory.Public(err)
		if internal {
			h.log.ErrorContext(r.Context(), "review page: sign in", "err", err)
			return http.StatusServiceUnavailable, "The server could not check the token; try again shortly."
		}
		if public.Code == memory.EFORBIDDEN {
			return http.StatusForbidden, public.Message
		}
		return http.StatusUnauthorized, "That token does not sign anyone in: " + public.Message
	}
	if !who.Human {
		return http.StatusForbidden, "The review page is for human curators; that token is " + who.Describe() + "'s."
	}
	h.sessionCookie(w, r, session.ID, max(1, int(time.Until(session.Expires).Seconds())))
	http.Redirect(w, r, h.prefix+"/", http.StatusSeeOther)
	return 0, ""
}

// signout ends the session the browser's cookie names, for every process,
// forgets the cookie, and shows the sign-in page. A session that cannot be
// ended is said so, and the cookie kept: the person must not believe a
// copy of it dead.
func (h *handler) signout(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.checkForm(w, r, nil); !ok {
		return
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" && h.signOut != nil {
		if err := h.signOut(context.WithoutCancel(r.Context()), c.Value); err != nil {
			h.log.ErrorContext(r.Context(), "review page: sign out", "err", err)
			h.fail(w, r, http.StatusServiceUnavailable, "The server could not end this session; sign out again shortly.")
			return
		}
	}
	h.sessionCookie(w, r, "", -1)
	http.Redirect(w, r, h.prefix+"/signin", http.StatusSeeOther)
}

// sessionCookie sets the cookie that holds session id for maxAge seconds
// (-1: clears it). It goes to the review page's paths only, never to a
// script (HttpOnly) or another site's request (SameSite=Strict), and over
// TLS only when the page came so.
func (h *handler) sessionCookie(w http.ResponseWriter, r *http.Request, id string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: h.prefix + "/", MaxAge: maxAge,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// parseForm reads a posted form, bounded; a status and a reason when it
// cannot.
func parseForm(w http.ResponseWriter, r *http.Request) (int, string) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		status := http.StatusBadRequest
		if _, big := errors.AsType[*http.MaxBytesError](err); big {
			status = http.StatusRequestEntityTooLarge
		}
		return status, "The form could not be read: " + err.Error()
	}
	return 0, ""
}
