package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testRoot(t *testing.T) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Every module linked into the binary, on any release platform, has its
// section in THIRD_PARTY_NOTICES.md with its licence texts as the module
// cache has them: a new dependency, or a new version of one, fails here
// until "make notices" is run and the result reviewed.
func TestNoticesCoverEveryLinkedModule(t *testing.T) {
	root := testRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "THIRD_PARTY_NOTICES.md"))
	if err != nil {
		t.Fatal(err)
	}
	have := string(b)
	mods, err := linkedModules(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 5 {
		t.Fatalf("go list found only %d linked modules", len(mods))
	}
	for _, m := range mods {
		if !strings.Contains(have, "\n"+m.heading()+"\n") {
			t.Errorf("THIRD_PARTY_NOTICES.md has no section %q for a module linked into memory-mcp: run make notices", m.heading())
		}
	}
	want, err := notices(root)
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		t.Errorf("THIRD_PARTY_NOTICES.md is out of date (a licence text, version or the word vectors' attribution changed): run make notices")
	}
	for _, must := range []string{"## Go standard library and runtime", "## SQLite 3.", "## GloVe word vectors", "PDDL", "GRAYPE Systems"} {
		if !strings.Contains(have, must) {
			t.Errorf("THIRD_PARTY_NOTICES.md lacks %q", must)
		}
	}
}

func TestLicenceIsApache(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testRoot(t), "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256Hex(b); sum != apache2SHA256 {
		t.Errorf("LICENSE is not the Apache License 2.0 text as apache.org publishes it (sha256 %s)", sum)
	}
}

// apache2SHA256 is the sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt.
const apache2SHA256 = "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"

func TestClassify(t *testing.T) {
	for text, want := range map[string]string{
		"Apache License\nVersion 2.0, January 2004":                                "Apache-2.0",
		"MIT No Attribution License\nPermission is hereby granted, free of charge": "MIT-0",
		"Permission is hereby granted, free of charge, to any person":              "MIT",
		"Redistribution and use in source and binary forms ... Neither the name":   "BSD-3-Clause",
		"Redistribution and use in source and binary forms":                        "BSD-2-Clause",
		"whatever": "see text",
	} {
		if got := classify(text); got != want {
			t.Errorf("classify(%q) = %s, want %s", text, got, want)
		}
	}
	if got := sqliteVersion("v5.0.35304"); got != "3.53.4" {
		t.Errorf("sqliteVersion = %s", got)
	}
}
