package main

import (
	"bytes"
	"context"
	"testing"
)

// The release archives are checked with "memory-mcp --version" (scripts/dist),
// the form most installers and package managers try first.
func TestVersionForms(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v9.8.7"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, func(string) string { return "" }, nil, &out, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got := out.String(); got != "memory-mcp v9.8.7\n" {
			t.Errorf("%v printed %q", args, got)
		}
	}
}
