package mdlinks

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestSlug(t *testing.T) {
	for text, want := range map[string]string{
		"Backup and upgrade":                            "backup-and-upgrade",
		"Adapting retrieval to your data (fine-tuning)": "adapting-retrieval-to-your-data-fine-tuning",
		"Review page (humans)":                          "review-page-humans",
		"memory_block_* tools":                          "memory_block_-tools",
		"What's new? v1.2":                              "whats-new-v12",
		"Über Straße":                                   "über-straße",
	} {
		if got := Slug(text); got != want {
			t.Errorf("Slug(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestAnchors(t *testing.T) {
	md := "# Title\n\n## Set up\n\n```sh\n# not a heading\n```\n\n## Set up\n\n### The `memory` tool ###\n\n" +
		"## See [Write gates](write-gates.md)\n\n<a id=\"custom\"></a>\n"
	got := Anchors([]byte(md))
	for _, want := range []string{"title", "set-up", "set-up-1", "the-memory-tool", "see-write-gates", "custom"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] || len(got) != 6 {
		t.Errorf("anchors %v, want exactly six", got)
	}
}

func TestLinks(t *testing.T) {
	md := "See [install](docs/install.md#add-it) and ![logo](img/logo.png \"Logo\"),\n" +
		"[the site](https://example.com/x.md), [mail](mailto:a@b.c), [here](#upgrade).\n" +
		"`[code](not/a/link.md)` and\n```\n[fenced](not/either.md)\n```\n" +
		"[ref]: <ref/target.md>\n"
	want := []string{"docs/install.md#add-it", "img/logo.png", "#upgrade", "ref/target.md"}
	if got := Links([]byte(md)); !slices.Equal(got, want) {
		t.Errorf("Links = %q, want %q", got, want)
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ from, target, file, anchor string }{
		{"README.md", "docs/install.md#set-up", "docs/install.md", "set-up"},
		{"docs/install.md", "../packaging/README.md", "packaging/README.md", ""},
		{"docs/install.md", "#upgrade", "docs/install.md", "upgrade"},
		{"docs/a.md", "./b.md", "docs/b.md", ""},
	} {
		file, anchor, ok := Split(c.from, c.target)
		if !ok || file != c.file || anchor != c.anchor {
			t.Errorf("Split(%q, %q) = %q %q %v", c.from, c.target, file, anchor, ok)
		}
	}
	if _, _, ok := Split("docs/a.md", "../../etc/passwd"); ok {
		t.Error("a link out of the tree resolved")
	}
}

func tree() fstest.MapFS {
	return fstest.MapFS{
		"README.md":           {Data: []byte("[Install](docs/install.md#set-up), [Design](docs/DESIGN.md)\n")},
		"docs/install.md":     {Data: []byte("# Install\n\n## Set up\n\n[packaging](../packaging/README.md), [top](#install)\n")},
		"docs/DESIGN.md":      {Data: []byte("# Design\n\n![diagram](layers.svg)\n")},
		"docs/layers.svg":     {Data: []byte("<svg/>")},
		"packaging/README.md": {Data: []byte("# Packaging\n\n[back](../README.md)\n")},
		"docs/unlinked.md":    {Data: []byte("# Not linked\n")},
	}
}

func TestBroken(t *testing.T) {
	fsys := tree()
	pages := []string{"README.md", "docs/install.md", "docs/DESIGN.md", "packaging/README.md"}
	if got := Broken(fsys, pages); len(got) != 0 {
		t.Fatalf("a sound tree has broken links: %v", got)
	}
	fsys["docs/install.md"] = &fstest.MapFile{Data: []byte("# Install\n\n## Set up\n\n[gone](gone.md), [no](#nowhere), [svg](layers.svg#x), [up](../../x.md)\n")}
	got := Broken(fsys, pages)
	for i, want := range []string{"no file docs/gone.md", "no heading with anchor #nowhere", "is not a Markdown page", "leaves the tree"} {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("problem %d: %q, want one saying %q", i, got, want)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d problems, want 4: %q", len(got), got)
	}
}

func TestClosure(t *testing.T) {
	got, err := Closure(tree(), "README.md", "LICENSE-not-markdown")
	if err == nil {
		t.Fatalf("a missing start page gave %v", got)
	}
	fsys := tree()
	fsys["LICENSE"] = &fstest.MapFile{Data: []byte("MIT [not a link](nowhere.md)")}
	got, err = Closure(fsys, "README.md", "LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"LICENSE", "README.md", "docs/DESIGN.md", "docs/install.md", "docs/layers.svg", "packaging/README.md"}
	if !slices.Equal(got, want) {
		t.Errorf("Closure = %q, want %q", got, want)
	}
	fsys["docs/DESIGN.md"] = &fstest.MapFile{Data: []byte("[missing](missing.md)")}
	if _, err := Closure(fsys, "README.md"); err == nil || !strings.Contains(err.Error(), "missing.md") {
		t.Errorf("a link to a missing page: %v", err)
	}
	fsys["docs/DESIGN.md"] = &fstest.MapFile{Data: []byte("[the docs](../docs)")}
	if _, err := Closure(fsys, "README.md"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a link to a directory: %v", err)
	}
}
