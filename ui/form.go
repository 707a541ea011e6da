package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
)

// Curator actions are POST forms, answered by Post/Redirect/Get: a form that
// did its work redirects (303) to a page, which shows what was done once;
// a form that failed is answered with its status, the reason, and the form
// again as it was sent. Every form carries two hidden fields: a token that
// proves this server rendered it for this human (CSRF), and an idempotency
// key made when it was rendered, so that sending it twice (a double click,
// a reload of the answer) does the write once.

// Form fields every action takes.
const (
	tokenField = "csrf"
	keyField   = "key"
)

// maxForm bounds a form's body: reasons are at most 1000 bytes.
const maxForm = 64 << 10

// action is one curator action: form gives back the form as it was sent
// (to show again when the action fails), do makes the write.
type action struct {
	form func(r *http.Request) *retry
	do   func(r *http.Request) (done, error)
}

// done says where to go after an action and what to tell the curator there.
type done struct {
	Next  string // a path under the prefix
	Flash string
}

// retry is a refused form, shown again with what was sent.
type retry struct {
	Action string
	Submit string
	Key    string
	Fields []field
}

// field is one field of a retried form.
type field struct {
	Name, Label, Value string
	Long               bool     // a text area
	Choices            []string // a choice among these
}

// action registers a POST action: it refuses cross-origin requests and
// forms without a valid token, then runs a.
func (h *handler) action(pattern string, a action) {
	method, path, _ := strings.Cut(pattern, " ")
	h.mux.HandleFunc(method+" "+h.prefix+path, func(w http.ResponseWriter, r *http.Request) {
		id, ok := h.checkForm(w, r, a.form)
		if !ok {
			return
		}
		d, err := a.do(r)
		if err != nil {
			f := h.failureOf(r, err)
			f.Retry = a.form(r)
			if errors.Is(err, memory.ErrKeyReused) {
				f.Retry.Key = "" // the form's key names another write: shown again, it gets a new one
			}
			h.failWith(w, r, f)
			return
		}
		h.setFlash(w, r, id, d.Flash)
		http.Redirect(w, r, h.prefix+d.Next, http.StatusSeeOther)
	})
}

// checkForm refuses, with its error page, a posted form that came from
// another site, cannot be read, or lacks a valid token; form (nil: none)
// gives back what was sent, to show again. It returns the sender's
// identity and whether the form may be acted on.
func (h *handler) checkForm(w http.ResponseWriter, r *http.Request, form func(r *http.Request) *retry) (memory.Identity, bool) {
	id, _ := memory.IdentityFrom(r.Context())
	if err := h.origin.Check(r); err != nil {
		h.fail(w, r, http.StatusForbidden, "This form was sent from another site, and refused: act from the review page itself.")
		return id, false
	}
	if status, msg := parseForm(w, r); status != 0 {
		h.fail(w, r, status, msg)
		return id, false
	}
	if !h.validToken(id, r.PostFormValue(tokenField)) {
		f := failure{Status: http.StatusForbidden, Code: memory.EFORBIDDEN,
			Message: "This form's token is missing, older than a day, or was made for someone else. Nothing was done: " +
				"check the form below and send it again."}
		if form != nil && fromPage(r) {
			f.Retry = form(r)
		}
		h.failWith(w, r, f)
		return id, false
	}
	return id, true
}

// fromPage reports whether the browser says r was sent from one of this
// server's own pages. A form without a valid token may have been forged
// elsewhere (the cross-origin check lets through requests that name no
// site at all); shown again, it would come back with a fresh token for one
// click to send, so it is shown again only to a page of ours.
func fromPage(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	u, err := url.Parse(r.Header.Get("Origin"))
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// write makes a curator's write through the gates, as a call of tool with
// args (the tool's own arguments) and the form's idempotency key, so that
// it is limited, classified and logged as the tool's call is; fn is the
// service call, say what the curator is told of its result, and next the
// page that tells it. The write runs to its end even if the browser goes
// away.
func write[T any](h *handler, r *http.Request, tool string, args map[string]any, next string, say func(T) string,
	fn func(ctx context.Context) (T, error)) (done, error) {
	v, err := gated(h, r, tool, r.PostFormValue(keyField), args, say, fn)
	if err != nil {
		return done{}, err
	}
	return done{Next: next, Flash: say(v)}, nil
}

// gated makes one write through the gates as a call of tool with args and
// idempotency key key, and returns its result; say is the call's text, as
// the gates keep it with the key.
func gated[T any](h *handler, r *http.Request, tool, key string, args map[string]any, say func(T) string,
	fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	ctx := context.WithoutCancel(r.Context())
	call := func(ctx context.Context) (any, string, error) {
		v, err := fn(ctx)
		return v, say(v), err
	}
	var res any
	var err error
	if h.svc.Gates == nil {
		res, _, err = call(ctx)
	} else {
		var b []byte
		if b, err = json.Marshal(args); err != nil { // map keys sorted: one form for the same arguments
			return zero, fmt.Errorf("%s arguments: %w", tool, err)
		}
		res, _, err = h.svc.Gates.Run(ctx, memory.WriteCall{Tool: tool, Key: key, Args: b}, call)
	}
	if err != nil {
		return zero, err
	}
	return result[T](res)
}

// result returns a write's result as T: as the service returned it, or
// decoded from the JSON the gates return for a repeated key.
func result[T any](res any) (T, error) {
	var out T
	switch v := res.(type) {
	case T:
		return v, nil
	case json.RawMessage:
		if err := json.Unmarshal(v, &out); err != nil {
			return out, fmt.Errorf("decode repeated result: %w", err)
		}
		return out, nil
	}
	return out, fmt.Errorf("unexpected result %T", res)
}

// newKey makes a form's idempotency key.
func newKey() string {
	var b [12]byte
	rand.Read(b[:])
	return "ui-" + hex.EncodeToString(b[:])
}

// day is the step the forms' tokens are dated in: a form is good on the day
// it was rendered and the next.
func (h *handler) day() int64 { return h.now.Now().Unix() / 86400 }

// token is the CSRF token of id's forms rendered on day.
func (h *handler) token(id memory.Identity, day int64) string {
	d := strconv.FormatInt(day, 10)
	return d + "." + h.sign("csrf", id.Principal(), d)
}

// validToken reports whether tok is a token of id's from today or yesterday.
func (h *handler) validToken(id memory.Identity, tok string) bool {
	d, _, _ := strings.Cut(tok, ".")
	day, err := strconv.ParseInt(d, 10, 64)
	if err != nil || day > h.day() || day < h.day()-1 {
		return false
	}
	return hmac.Equal([]byte(tok), []byte(h.token(id, day)))
}

// sign is the HMAC of parts under the handler's key, for one purpose.
func (h *handler) sign(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(purpose))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// flashCookie carries what an action did to the page it redirects to.
const flashCookie = "memory_mcp_flash"

// maxFlash bounds the message in bytes: base64 and the signature make the
// cookie about 1.4 KB, under the 4 KB browsers drop a cookie past (a
// message can quote stored text, such as a held write's error).
const maxFlash = 1 << 10

// clip cuts s to at most n bytes, on a character's boundary, and says it
// was cut.
func clip(s string, n int) string {
	const more = "…"
	if len(s) <= n {
		return s
	}
	cut := n - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// setFlash leaves msg for the next page id loads, signed, so that no other
// site's cookie can put words on the page.
func (h *handler) setFlash(w http.ResponseWriter, r *http.Request, id memory.Identity, msg string) {
	msg = clip(msg, maxFlash)
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v + "." + h.sign("flash", id.Principal(), msg),
		Path: h.prefix + "/", MaxAge: 120, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// takeFlash returns the message an action left for id, and clears it.
func (h *handler) takeFlash(w http.ResponseWriter, r *http.Request, id memory.Identity) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: h.prefix + "/", MaxAge: -1, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	v, sig, _ := strings.Cut(c.Value, ".")
	msg, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || !hmac.Equal([]byte(sig), []byte(h.sign("flash", id.Principal(), string(msg)))) {
		return ""
	}
	return string(msg)
}

// posted returns the form field name, trimmed.
func posted(r *http.Request, name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
