package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/memory-mcp/memory-mcp/auth"
	"github.com/memory-mcp/memory-mcp/ui"
)

// signinBrowser is a browser as net/http can be one: it keeps cookies,
// follows no redirect, and asks for pages (Accept: text/html) with no
// Authorization header, as a browser navigating does.
type signinBrowser struct {
	t      *testing.T
	base   string // http://host:port
	client *http.Client
}

func newSigninBrowser(t *testing.T, h *httpServe) *signinBrowser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &signinBrowser{t: t, base: strings.TrimSuffix(h.url, "/mcp"), client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// send sends a request as the browser, a form when form is not nil (as a
// page of the server's own posts it, unless headers say otherwise).
func (b *signinBrowser) send(method, path string, form url.Values, headers ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Origin", b.base)
	}
	for i := 0; i+1 < len(headers); i += 2 { // an empty value: no such header
		req.Header.Del(headers[i])
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

// signin posts credential to the sign-in form.
func (b *signinBrowser) signin(credential string, headers ...string) (*http.Response, string) {
	b.t.Helper()
	return b.send(http.MethodPost, "/ui/signin", url.Values{"credential": {credential}}, headers...)
}

// TestServeReviewPageSignIn: a person signs in from a browser by pasting a
// token into the sign-in page; the cookie it sets carries a session id, not
// the token, is HttpOnly, SameSite Strict and for /ui/ only, and serve's
// authentication reads it on /ui/, never on /mcp. An agent's token, a bad one or a cross-site post signs no
// one in; a revoked token stops working on the next page; signing out
// (a form with its token) forgets it.
func TestServeReviewPageSignIn(t *testing.T) {
	h := serveHTTPIn(t, "")
	human := h.token("--agent-id", "olivia", "--seniority", "mid", "--human", "--label", "olivia-laptop")
	agent := h.token("--agent-id", "jo", "--seniority", "senior")
	b := newSigninBrowser(t, h)

	if resp, _ := b.send(http.MethodGet, "/ui/facts", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/signin" {
		t.Fatalf("a browser without a credential: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := b.send(http.MethodGet, "/ui/signin", nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="credential"`) {
		t.Fatalf("the sign-in page: %d\n%s", resp.StatusCode, body)
	}
	for _, c := range []struct {
		name, credential string
		headers          []string
		status           int
		want             string
	}{
		{"an agent's token", agent, nil, http.StatusForbidden, `agent &#34;jo&#34;`},
		{"a token never issued", "mmcp_" + strings.Repeat("A", 43), nil, http.StatusUnauthorized, "not one this server issued"},
		{"no token", " ", nil, http.StatusBadRequest, "Paste your token"},
		{"cross-site", human, []string{"Sec-Fetch-Site", "cross-site", "Origin", ""}, http.StatusForbidden, "another site"},
		{"another origin", human, []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}, http.StatusForbidden, "evil.example"},
	} {
		resp, body := b.signin(c.credential, c.headers...)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) || len(resp.Cookies()) != 0 {
			t.Errorf("%s: %d, cookies %v, want %d with %q\n%s", c.name, resp.StatusCode, resp.Cookies(), c.status, c.want, body)
		}
	}

	resp, body := b.signin("Bearer " + human)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" || len(resp.Cookies()) != 1 {
		t.Fatalf("signing in: %d %q %v\n%s", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies(), body)
	}
	c := resp.Cookies()[0]
	if !strings.HasPrefix(c.Value, auth.SessionPrefix) || strings.Contains(c.Value, strings.TrimPrefix(human, auth.TokenPrefix)) ||
		!c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui/" || c.Secure || c.MaxAge <= 0 {
		t.Fatalf("the cookie: %+v", c)
	}
	if resp, body := b.send(http.MethodGet, "/ui/", nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `human &#34;olivia&#34;`) {
		t.Fatalf("signed in: %d\n%s", resp.StatusCode, body)
	}
	// The cookie is a credential for the pages only: sent to /mcp (as a
	// page on another site could make the browser send it), it is not one.
	status, _, _ := h.post(t, initialize, "Cookie", c.Name+"="+c.Value)
	if status != http.StatusUnauthorized {
		t.Fatalf("/mcp with the page's cookie: %d", status)
	}
	if status, _, _ := h.post(t, initialize, "Authorization", "Bearer "+c.Value); status != http.StatusUnauthorized {
		t.Fatalf("/mcp with the session id as a bearer token: %d", status)
	}

	// Signing out is a form like the others: without its token it is refused.
	if resp, _ := b.send(http.MethodPost, "/ui/signout", url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("signing out without the form's token: %d", resp.StatusCode)
	}
	_, page := b.send(http.MethodGet, "/ui/", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no sign-out form:\n%s", page)
	}
	if resp, _ := b.send(http.MethodPost, "/ui/signout", url.Values{"csrf": {m[1]}}); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/ui/signin" {
		t.Fatalf("signing out: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := b.send(http.MethodGet, "/ui/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after signing out: %d", resp.StatusCode)
	}

	// A token revoked while its browser is signed in stops working on the
	// next page.
	if resp, _ := b.signin(human); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in again: %d", resp.StatusCode)
	}
	var list []struct {
		ID    string
		Label string
	}
	json.Unmarshal([]byte(h.cli("token", "list", "--json")), &struct {
		Tokens *[]struct {
			ID    string
			Label string
		}
	}{&list})
	for _, tok := range list {
		if tok.Label == "olivia-laptop" {
			h.cli("token", "revoke", tok.ID)
		}
	}
	if resp, _ := b.send(http.MethodGet, "/ui/", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/signin" {
		t.Fatalf("after the revocation: %d", resp.StatusCode)
	}
	if resp, _ := b.send(http.MethodGet, "/ui/", nil, "Accept", "*/*"); resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), "revoked") {
		t.Fatalf("after the revocation, not a browser: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// TestServeReviewPageSessionAcrossProcesses: two servers on one data
// directory (two nodes behind a balancer). A session opened on one holds
// on the other; a form rendered by one is accepted by the other (the
// form-signing key is the database's); signing out on one ends the session
// on both, so a copy of the cookie taken before is worth nothing; revoking
// the token ends the sessions it opened; a session lasts review-session.
func TestServeReviewPageSessionAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	one := serveHTTPIn(t, dir)
	two := serveHTTPIn(t, dir, "--review-session", "2s")
	human := one.token("--agent-id", "olivia", "--seniority", "mid", "--human", "--label", "olivia-laptop")
	b1, b2 := newSigninBrowser(t, one), newSigninBrowser(t, two)
	session := func(b *signinBrowser, resp *http.Response) string {
		t.Helper()
		if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
			t.Fatalf("signing in: %d %v", resp.StatusCode, resp.Cookies())
		}
		return resp.Cookies()[0].Value
	}
	get := func(b *signinBrowser, id string) *http.Response {
		t.Helper()
		resp, _ := b.send(http.MethodGet, "/ui/", nil, "Cookie", ui.SessionCookie+"="+id, "Accept", "*/*")
		return resp
	}
	resp, _ := b1.signin(human)
	id := session(b1, resp)
	if resp := get(b2, id); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session opened on one server, on the other: %d", resp.StatusCode)
	}
	_, page := b1.send(http.MethodGet, "/ui/", nil, "Cookie", ui.SessionCookie+"="+id)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no sign-out form:\n%s", page)
	}
	// The sign-out form rendered by the first server, sent to the second.
	if resp, body := b2.send(http.MethodPost, "/ui/signout", url.Values{"csrf": {m[1]}}, "Cookie", ui.SessionCookie+"="+id); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a form of the first server sent to the second: %d\n%s", resp.StatusCode, body)
	}
	for name, b := range map[string]*signinBrowser{"first": b1, "second": b2} {
		if resp := get(b, id); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "signed out") {
			t.Errorf("a copy of the signed-out cookie on the %s server: %d %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// Sessions the second server opens last two seconds.
	resp, _ = b2.signin(human)
	short := session(b2, resp)
	if c := resp.Cookies()[0]; c.MaxAge > 2 {
		t.Errorf("the cookie of a 2s session lasts %ds", c.MaxAge)
	}
	resp, _ = b1.signin(human)
	long := session(b1, resp)
	if resp := get(b1, short); resp.StatusCode != http.StatusOK {
		t.Fatalf("a fresh short session: %d", resp.StatusCode)
	}
	time.Sleep(2100 * time.Millisecond)
	if resp := get(b1, short); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "expired") {
		t.Errorf("a session past its time: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if resp := get(b2, long); resp.StatusCode != http.StatusOK {
		t.Fatalf("a 12h session after two seconds: %d", resp.StatusCode)
	}
	var list struct{ Tokens []struct{ ID, Label string } }
	json.Unmarshal([]byte(one.cli("token", "list", "--json")), &list)
	for _, tok := range list.Tokens {
		if tok.Label == "olivia-laptop" {
			one.cli("token", "revoke", tok.ID)
		}
	}
	if resp := get(b2, long); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "revoked") {
		t.Errorf("a session whose token was revoked: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}
