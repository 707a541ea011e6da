package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/macho"
	"encoding/binary"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/memory-mcp/memory-mcp/internal/mdlinks"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var testEpoch = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func testEntries() []entry {
	return sorted([]entry{
		{name: "top/", mode: os.ModeDir | 0o755},
		{name: "top/memory-mcp", mode: 0o755, data: bytes.Repeat([]byte("binary "), 1000)},
		{name: "top/README.md", mode: 0o644, data: []byte("# memory-mcp\n")},
	})
}

// The same files give the same bytes, whatever the time or the machine's
// owner, and every entry has owner 0, its fixed mode and the epoch.
func TestTarGzIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := writeTarGz(&a, testEntries(), testEpoch); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if err := writeTarGz(&b, testEntries(), testEpoch); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two writes of the same files differ")
	}
	gz, err := gzip.NewReader(&a)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header carries a time or name: %v %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(testEpoch) {
			t.Errorf("%s: uid %d gid %d time %v", h.Name, h.Uid, h.Gid, h.ModTime)
		}
		if h.Name == "top/memory-mcp" && h.Mode != 0o755 || h.Name == "top/README.md" && h.Mode != 0o644 {
			t.Errorf("%s: mode %o", h.Name, h.Mode)
		}
	}
	if want := []string{"top/", "top/README.md", "top/memory-mcp"}; !slices.Equal(names, want) {
		t.Errorf("entries %v, want %v", names, want)
	}
}

func TestZipIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := writeZip(&a, testEntries(), testEpoch); err != nil {
		t.Fatal(err)
	}
	if err := writeZip(&b, testEntries(), testEpoch); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two writes of the same files differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if !f.Modified.Equal(testEpoch) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
	}
	if m := zr.File[2].Mode(); zr.File[2].Name != "top/memory-mcp" || m != 0o755 {
		t.Errorf("%s: mode %v", zr.File[2].Name, m)
	}
}

// setZipClock changes the two clock fields of every entry and nothing else.
func TestSetZipClock(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"manifest.json", "server/linux/memory-mcp"} {
		// No Modified: no extended-time field, as mcpb pack writes them.
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("content of " + name))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "b.mcpb")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := setZipClock(path, testEpoch); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != buf.Len() {
		t.Fatalf("size changed: %d -> %d", buf.Len(), len(got))
	}
	diff := 0
	for i := range got {
		if got[i] != buf.Bytes()[i] {
			diff++
		}
	}
	if diff == 0 || diff > 2*2*4 { // two entries, two headers each, four bytes of clock
		t.Errorf("%d bytes changed", diff)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if !f.Modified.Equal(testEpoch.Truncate(2 * time.Second)) {
			t.Errorf("%s: %v", f.Name, f.Modified)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil || string(b) != "content of "+f.Name {
			t.Errorf("%s: %q %v", f.Name, b, err)
		}
	}
}

// thinMachO is the header of a 64-bit Mach-O executable for cpu with no
// load commands, which debug/macho reads.
func thinMachO(cpu macho.Cpu, body string) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, macho.FileHeader{Magic: macho.Magic64, Cpu: cpu, SubCpu: 3, Type: macho.TypeExec})
	b.Write(make([]byte, 4)) // the 64-bit header's reserved word
	b.WriteString(body)
	return b.Bytes()
}

func TestUniversal(t *testing.T) {
	amd, arm := thinMachO(macho.CpuAmd64, "intel"), thinMachO(macho.CpuArm64, "apple silicon")
	fat, err := universal(amd, arm)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := macho.NewFatFile(bytes.NewReader(fat))
	if err != nil {
		t.Fatal(err)
	}
	if len(ff.Arches) != 2 {
		t.Fatalf("%d slices", len(ff.Arches))
	}
	for i, want := range [][]byte{amd, arm} {
		a := ff.Arches[i]
		if a.Offset%(1<<a.Align) != 0 || a.Offset < 4096 {
			t.Errorf("slice %d at %d, align 2^%d", i, a.Offset, a.Align)
		}
		if got := fat[a.Offset : a.Offset+a.Size]; !bytes.Equal(got, want) {
			t.Errorf("slice %d is not the thin file", i)
		}
	}
	if ff.Arches[0].Cpu != macho.CpuAmd64 || ff.Arches[1].Cpu != macho.CpuArm64 || ff.Arches[1].Align != 14 {
		t.Errorf("slices %v/%v, arm64 align %d", ff.Arches[0].Cpu, ff.Arches[1].Cpu, ff.Arches[1].Align)
	}
	if _, err := universal([]byte("not mach-o")); err == nil {
		t.Error("universal took a file that is not Mach-O")
	}
}

func TestSemver(t *testing.T) {
	for v, want := range map[string]string{
		"v1.2.3":                  "1.2.3",
		"1.2.3":                   "1.2.3",
		"v1.2.3-rc.1":             "1.2.3-rc.1",
		"v1.2.3-4-gabcdef0-dirty": "1.2.3-4-gabcdef0-dirty",
		"3d90782":                 "0.0.0-g3d90782",
		"3d90782-dirty":           "0.0.0-g3d90782-dirty",
		"devel":                   "0.0.0-gdevel",
		"v01.2.3":                 "0.0.0-gv01-2-3",
	} {
		if got := semver(v); got != want {
			t.Errorf("semver(%q) = %q, want %q", v, got, want)
		}
	}
}

// The container image is built with the release build's flags and settings.
func TestDockerfileBuildsAsTheRelease(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	flags := buildFlags("${VERSION}")
	want := []string{strings.Join(flags[:len(flags)-1], " ") + ` "` + flags[len(flags)-1] + `"`, "VOLUME /data", "ENV MEMORY_MCP_DATA_DIR=/data"}
	for _, kv := range pinnedEnv(platform{"$TARGETOS", "$TARGETARCH"}) {
		if !strings.HasPrefix(kv, "GOFLAGS=") { // -mod=readonly is go build's default
			want = append(want, kv)
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("Dockerfile lacks %s", w)
		}
	}
}

// unpackedFS is an archive's files under top as a file system, with the
// directories the archive lists.
func unpackedFS(files map[string][]byte, top string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		rel, ok := strings.CutPrefix(name, top)
		if !ok || rel == "" {
			continue
		}
		if strings.HasSuffix(rel, "/") {
			fsys[strings.TrimSuffix(rel, "/")] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		fsys[rel] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}

// brokenLinks lists the links of every Markdown page in fsys (the README
// first among them) that reach no file of fsys or no heading of their page.
func brokenLinks(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var pages []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ".md" {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pages, "README.md") {
		t.Fatalf("no README.md among %v", pages)
	}
	return mdlinks.Broken(fsys, pages)
}

// An archive carries the README and every page it links, and they link,
// at their places, so that no link is broken once it is unpacked; each
// directory is an entry of its own with a fixed mode.
func TestArchiveCarriesLinkedDocs(t *testing.T) {
	root := testRoot(t)
	bin := filepath.Join(t.TempDir(), "memory-mcp")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := platform{"linux", "amd64"}
	es, err := archiveEntries(options{version: "v1.2.3", root: root}, p, bin)
	if err != nil {
		t.Fatal(err)
	}
	top := stem("v1.2.3", p) + "/"
	files := map[string][]byte{}
	for _, e := range es {
		files[e.name] = e.data
		if e.mode.IsDir() != strings.HasSuffix(e.name, "/") {
			t.Errorf("%s: mode %v", e.name, e.mode)
		}
	}
	for _, want := range []string{"README.md", "LICENSE", "THIRD_PARTY_NOTICES.md", "docs/", "docs/install.md", "docs/configuration.md"} {
		if _, ok := files[top+want]; !ok {
			t.Errorf("the archive lacks %s", want)
		}
	}
	for _, problem := range brokenLinks(t, unpackedFS(files, top)) {
		t.Errorf("in the archive: %s", problem)
	}

	// A README linking a page that is not there fails the build, and the
	// check sees a page the archive lacks.
	bad := t.TempDir()
	for name, text := range map[string]string{"README.md": "[Install](docs/install.md)\n", "LICENSE": "MIT\n", "THIRD_PARTY_NOTICES.md": "none\n"} {
		if err := os.WriteFile(filepath.Join(bad, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := archiveEntries(options{version: "v1.2.3", root: bad}, p, bin); err == nil || !strings.Contains(err.Error(), "docs/install.md") {
		t.Errorf("a README linking a missing page: %v", err)
	}
	delete(files, top+"docs/install.md")
	if got := brokenLinks(t, unpackedFS(files, top)); !slices.ContainsFunc(got, func(s string) bool {
		return strings.HasPrefix(s, "README.md: ") && strings.Contains(s, "docs/install.md")
	}) {
		t.Errorf("an archive without docs/install.md: problems %q, want one for the README's link", got)
	}
}
