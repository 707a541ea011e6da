package ui

import (
	"context"
	"errors"
	"net/http"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
)

// A browser sends no Authorization header when it navigates or posts a
// form, so a person signs in by pasting their credential (a bearer token,
// or an OAuth access token) into the sign-in page once: it is checked as the
// server checks every credential, and kept in a cookie that only the review
// page's paths receive. The server's authentication reads the cookie on
// each request (auth.FromCookie), so a revoked or expired credential stops
// working on the next page.

// CredentialCookie is the cookie that holds a signed-in person's credential.
const CredentialCookie = "memory_mcp_credential"

// maxCredential bounds a credential kept in a cookie: browsers drop a
// cookie over 4 KB whole, and a larger credential would sign nobody in
// without saying why.
const maxCredential = 3800

// SignInFunc returns the identity credential stands for, as the server's
// authentication would: a domain error (memory.Errorf) says why it does not
// hold, and is shown to the person; anything else is the server's failure.
type SignInFunc func(ctx context.Context, credential string) (memory.Identity, error)

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
	switch {
	case credential == "":
		return http.StatusBadRequest, "Paste your token to sign in."
	case len(credential) > maxCredential:
		return http.StatusBadRequest, "This token is longer than a browser keeps in a cookie; sign in with a shorter one, or send it in an Authorization header."
	}
	who, err := h.signIn(r.Context(), credential)
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
	h.credentialCookie(w, r, credential, 0)
	http.Redirect(w, r, h.prefix+"/", http.StatusSeeOther)
	return 0, ""
}

// signout forgets the credential the browser keeps, and shows the sign-in
// page.
func (h *handler) signout(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.checkForm(w, r, nil); !ok {
		return
	}
	h.credentialCookie(w, r, "", -1)
	http.Redirect(w, r, h.prefix+"/signin", http.StatusSeeOther)
}

// credentialCookie sets the cookie that holds credential (maxAge -1: clears
// it). It lasts as long as the browser's session, goes to the review page's
// paths only, never to a script (HttpOnly) or another site's request
// (SameSite=Strict), and over TLS only when the page came so.
func (h *handler) credentialCookie(w http.ResponseWriter, r *http.Request, credential string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: CredentialCookie, Value: credential, Path: h.prefix + "/", MaxAge: maxAge,
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
