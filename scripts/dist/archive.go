package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memory-mcp/memory-mcp/internal/mdlinks"
)

// docs are the files every archive and the bundle carry beside the binary,
// at their places in the repository: what it is (the README and every page
// it links, and they link, so that no link is broken in an unpacked
// archive), its licence, and the licences and attributions of everything
// linked into it (the word vectors' included). Sorted, slash-separated.
func docs(root string) ([]string, error) {
	return mdlinks.Closure(os.DirFS(root), "README.md", "LICENSE", "THIRD_PARTY_NOTICES.md")
}

// fileVersion is the version as artifact names carry it: v1.2.3 -> 1.2.3.
func fileVersion(v string) string { return strings.TrimPrefix(v, "v") }

// stem is the name of p's archive without its extension, and the directory
// the archive unpacks into.
func stem(version string, p platform) string {
	return fmt.Sprintf("memory-mcp_%s_%s_%s", fileVersion(version), p.OS, p.Arch)
}

// archiveName is p's archive: a zip for Windows, a gzipped tar elsewhere.
func archiveName(version string, p platform) string {
	if p.OS == "windows" {
		return stem(version, p) + ".zip"
	}
	return stem(version, p) + ".tar.gz"
}

func checksumsName(version string) string {
	return fmt.Sprintf("memory-mcp_%s_checksums.txt", fileVersion(version))
}

// entry is one file of an archive.
type entry struct {
	name string // slash-separated, inside the archive
	mode os.FileMode
	data []byte
}

// makeArchives builds every platform in o.only and writes its archive and
// the checksums file to o.out; it returns the archives' paths.
func makeArchives(o options) ([]string, error) {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	if err := removeArtifacts(o.out); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "memory-mcp-dist")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var made []string
	for _, p := range o.only {
		bin, err := build(o, p, filepath.Join(tmp, p.OS+"_"+p.Arch))
		if err != nil {
			return nil, err
		}
		entries, err := archiveEntries(o, p, bin)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if p.OS == "windows" {
			err = writeZip(&buf, entries, o.epoch)
		} else {
			err = writeTarGz(&buf, entries, o.epoch)
		}
		if err != nil {
			return nil, err
		}
		path := filepath.Join(o.out, archiveName(o.version, p))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		fmt.Printf("%s (%d MB)\n", path, buf.Len()>>20)
		made = append(made, path)
	}
	return made, writeChecksums(o.out, o.version)
}

// removeArtifacts deletes what an earlier run left in dir, and nothing else.
func removeArtifacts(dir string) error {
	old, err := filepath.Glob(filepath.Join(dir, "memory-mcp_*"))
	if err != nil {
		return err
	}
	old = append(old, filepath.Join(dir, "server.json"))
	for _, f := range old {
		if err := os.RemoveAll(f); err != nil {
			return err
		}
	}
	return nil
}

// archiveEntries are p's archive's files under one top directory.
func archiveEntries(o options, p platform, bin string) ([]entry, error) {
	top := stem(o.version, p) + "/"
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	out := []entry{{name: top, mode: os.ModeDir | 0o755}, {name: top + p.exe(), mode: 0o755, data: data}}
	ds, err := docs(o.root)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, d := range ds {
		data, err := os.ReadFile(filepath.Join(o.root, filepath.FromSlash(d)))
		if err != nil {
			return nil, err
		}
		out = append(out, entry{name: top + d, mode: 0o644, data: data})
		// Each directory its own entry, as the top one: its mode and time
		// are then the archive's, not the unpacking machine's.
		for dir := path.Dir(d); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
			out = append(out, entry{name: top + dir + "/", mode: os.ModeDir | 0o755})
		}
	}
	return sorted(out), nil
}

func sorted(es []entry) []entry {
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return es
}

// writeTarGz writes es as a gzipped tar: owner 0, fixed modes, every
// time the epoch, no gzip name or time, so the same files give the same bytes.
func writeTarGz(w io.Writer, es []entry, epoch time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Mode: int64(e.mode.Perm()), ModTime: epoch, Format: tar.FormatUSTAR}
		if e.mode.IsDir() {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes es as a zip with the same guarantees as writeTarGz.
func writeZip(w io.Writer, es []entry, epoch time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: epoch}
		if e.mode.IsDir() {
			h.Method = zip.Store
		}
		h.SetMode(e.mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeChecksums writes dir's checksums file for version: the SHA-256 of
// every artifact of that version in dir, by name, as sha256sum prints them
// (so "sha256sum -c" checks them).
func writeChecksums(dir, version string) error {
	names, err := artifacts(dir, version)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, n := range names {
		sum, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(dir, checksumsName(version)), []byte(b.String()), 0o644)
}

// artifacts lists the names of version's archives and bundle in dir, sorted.
func artifacts(dir, version string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "memory-mcp_"+fileVersion(version)+"_*"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range all {
		if n := filepath.Base(f); strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".zip") {
			names = append(names, n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, bundleName(version))); err == nil {
		names = append(names, bundleName(version))
	}
	slices.Sort(names)
	return names, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
