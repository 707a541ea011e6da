package memory

import (
	"strings"
	"testing"
	"time"
)

func TestParseRateLimits(t *testing.T) {
	tools := []string{"publish_fact", "remember"}
	got, err := ParseRateLimits(" *=600/m, remember=120/m ,publish_fact=20/90s", tools)
	if err != nil {
		t.Fatal(err)
	}
	want := RateLimits{"*": {600, time.Minute}, "remember": {120, time.Minute}, "publish_fact": {20, 90 * time.Second}}
	if got.String() != want.String() || len(got) != 3 || got["publish_fact"] != want["publish_fact"] {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := got.String(); s != "*=600/m,publish_fact=20/1m30s,remember=120/m" {
		t.Fatalf("String() = %q", s)
	}
	for _, off := range []string{"", "off", "  "} {
		if l, err := ParseRateLimits(off, tools); err != nil || len(l) != 0 {
			t.Errorf("%q: %v %v, want no limits", off, l, err)
		}
	}
	for in, msg := range map[string]string{
		"remember":                  "tool=count/unit",
		"remember=ten/m":            "whole count",
		"remember=-1/m":             "whole count",
		"remember=5/fortnight":      "unit must be",
		"remember=5/0s":             "unit must be",
		"search_memory=5/m":         "not a tool that writes",
		"remember=5/m,remember=6/m": "given twice",
		"=5/m":                      "tool=count/unit",
	} {
		_, err := ParseRateLimits(in, tools)
		if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want EINVALID saying %q", in, err, msg)
		}
	}
}

func TestCheckIdempotencyKey(t *testing.T) {
	for _, k := range []string{"", strings.Repeat("x", MaxIdempotencyKeyLen+1), "a\nb", "a\tb"} {
		if ErrorCode(CheckIdempotencyKey(k)) != EINVALID {
			t.Errorf("%q accepted", k)
		}
	}
	if err := CheckIdempotencyKey("3f2a9c1e-7b4d-4e8a-9f00-1c2d3e4f5a6b"); err != nil {
		t.Error(err)
	}
}
