package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
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
// token into the sign-in page; the cookie it sets is HttpOnly, SameSite
// Strict and for /ui/ only, and serve's authentication reads it on /ui/,
// never on /mcp. An agent's token, a bad one or a cross-site post signs no
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
	if c.Value != human || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui/" || c.Secure {
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
