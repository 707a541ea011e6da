package main

import (
	"net/url"
	"strings"
	"testing"
)

// How a hostile visitor might try to break the review page: numbers past
// any page, ids that name nothing or are not ids, oversized words, another
// human's form token or another site's form on the new actions. Each gets
// a clear refusal or an empty page, never a server error, and nothing it
// sent comes back as markup.
func TestReviewPageHostileInput(t *testing.T) {
	rv := startReview(t)
	orig := memID.FindString(rv.ok(sam, "remember", map[string]any{"content": "The build cache lives on runner r7."}))
	huge := "9223372036854775807"
	for _, c := range []struct {
		name, path string
		status     int
	}{
		{"facts at the largest offset", "/ui/facts?category=adr&offset=" + huge, 200},
		{"approvals at the largest offset", "/ui/approvals?offset=" + huge, 200},
		{"pending at the largest offset", "/ui/pending?all=1&offset=" + huge, 200},
		{"memories at the largest offset", "/ui/memories?agent=sam&offset=" + huge, 200},
		{"shared memories at the largest offset", "/ui/memories?shared=1&offset=" + huge, 200},
		{"memories keyed in 2200", "/ui/memories?agent=sam&before=2200-01-01T00:00:00Z+mem-ffffffffffff", 200},
		// Times the store's nanoseconds cannot hold would wrap around.
		{"memories keyed at the end of time", "/ui/memories?agent=sam&before=9999-12-31T23:59:59.999999999Z+mem-ffffffffffff", 400},
		{"memories keyed at the start of time", "/ui/memories?agent=sam&before=0001-01-01T00:00:00Z+mem-000000000000", 400},
		{"an offset past int64", "/ui/memories?agent=sam&offset=" + huge + "0", 400},
		{"a pending offset past int64", "/ui/pending?offset=" + huge + "0", 400},
		{"an id far too long", "/ui/memories/mem-" + strings.Repeat("a", 4000), 400},
		{"an agent far too long", "/ui/memories?agent=" + strings.Repeat("a", 4000), 400},
		{"a pending agent far too long", "/ui/pending?agent=" + strings.Repeat("a", 4000), 400},
		{"a search of a megabyte", "/ui/memories?agent=sam&q=" + strings.Repeat("word+", 200_000), 400},
		{"a namespace with markup", "/ui/memories?agent=sam&namespace=%3Cscript%3E", 400},
		{"an unknown agent's memories", "/ui/memories?agent=nobody-at-all", 404},
		{"an unknown memory's erase page", "/ui/memories/mem-000000000000/erase", 404},
	} {
		status, body := rv.get("olivia-token", c.path)
		if status != c.status || strings.Contains(body, "<script") || strings.Contains(body, "internal error") {
			t.Errorf("%s: %d, want %d\n%.2000s", c.name, status, c.status, body)
		}
	}

	tok := rv.csrf("olivia-token", "/ui/memories/"+orig)
	for _, c := range []struct {
		name, path string
		form       url.Values
		header     []string
		status     int
		want       string
	}{
		{"retract a memory never shared", "/ui/memories/" + orig + "/retract", url.Values{"csrf": {tok}}, nil, 409, "nothing to retract"},
		{"retract an unknown memory", "/ui/memories/mem-000000000000/retract", url.Values{"csrf": {tok}}, nil, 404, "mem-000000000000"},
		{"retract a malformed id", "/ui/memories/%3Cb%3E/retract", url.Values{"csrf": {tok}}, nil, 400, "&lt;b&gt;"},
		{"retract with another human's token", "/ui/memories/" + orig + "/retract", url.Values{"csrf": {tok}}, []string{"as", "hana-token"}, 403, "made for someone else"},
		{"retract from another site", "/ui/memories/" + orig + "/retract", url.Values{"csrf": {tok}}, []string{"Sec-Fetch-Site", "cross-site"}, 403, "another site"},
		{"retract with a forged token", "/ui/memories/" + orig + "/retract", url.Values{"csrf": {"20000.AAAA"}}, nil, 403, ""},
		{"bind an unknown pending item", "/ui/pending/999999/bind", url.Values{"csrf": {tok}, "target_id": {"x"}}, nil, 404, "999999"},
		{"bind a pending id past int64", "/ui/pending/" + huge + "0/bind", url.Values{"csrf": {tok}, "target_id": {"x"}}, nil, 400, "not a pending item"},
	} {
		token := "olivia-token"
		var header []string
		for i := 0; i+1 < len(c.header); i += 2 {
			if c.header[i] == "as" {
				token = c.header[i+1]
			} else {
				header = append(header, c.header[i], c.header[i+1])
			}
		}
		status, body, _ := rv.post(token, c.path, c.form, header...)
		if status != c.status || !strings.Contains(body, c.want) || strings.Contains(body, "<b>") {
			t.Errorf("%s: %d, want %d with %q\n%.2000s", c.name, status, c.status, c.want, body)
		}
	}
	// None of it changed the memory.
	if _, body := rv.get("olivia-token", "/ui/memories/"+orig); !strings.Contains(body, "<h2>active") {
		t.Errorf("the memory after the attempts:\n%s", body)
	}
}
