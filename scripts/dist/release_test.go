package main

// The tests here check the artifacts "make dist" and "make mcpb" wrote:
// "make dist-check" runs them with MEMORY_MCP_DIST naming the directory,
// MEMORY_MCP_VERSION the version stamped and SOURCE_DATE_EPOCH the epoch.
// Without MEMORY_MCP_DIST they skip, so "make test" needs neither the six
// builds nor node.

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/macho"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// release is the artifacts directory and the version under test.
func release(t *testing.T) (string, string) {
	t.Helper()
	dir, version := os.Getenv("MEMORY_MCP_DIST"), os.Getenv("MEMORY_MCP_VERSION")
	if dir == "" {
		t.Skip("MEMORY_MCP_DIST is not set: make dist-check runs this test on the artifacts")
	}
	if version == "" {
		t.Fatal("MEMORY_MCP_DIST is set but MEMORY_MCP_VERSION is not")
	}
	return dir, version
}

// unpack reads a .tar.gz or .zip archive into memory: name -> contents,
// and name -> mode.
func unpack(t *testing.T, path string) (map[string][]byte, map[string]os.FileMode) {
	t.Helper()
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name], modes[f.Name] = b, f.Mode()
		}
		return files, modes
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], modes[h.Name] = b, h.FileInfo().Mode()
	}
	return files, modes
}

// archivedBinary is p's binary as its release archive holds it.
func archivedBinary(t *testing.T, dir, version string, p platform) []byte {
	t.Helper()
	files, _ := unpack(t, filepath.Join(dir, archiveName(version, p)))
	b, ok := files[stem(version, p)+"/"+p.exe()]
	if !ok {
		t.Fatalf("%s holds no %s", archiveName(version, p), p.exe())
	}
	return b
}

// cleanEnv is a bare environment with home as the home directory: no
// MEMORY_MCP_* setting and no config file of the machine's user gets in.
func cleanEnv(home string) []string {
	return []string{"HOME=" + home, "USERPROFILE=" + home, "PATH=" + os.Getenv("PATH")}
}

// The checksums file lists every archive and the bundle, and each matches.
func TestReleaseChecksums(t *testing.T) {
	dir, version := release(t)
	f, err := os.Open(filepath.Join(dir, checksumsName(version)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums line %q is not as sha256sum prints it", sc.Text())
		}
		got, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got != sum {
			t.Errorf("%s: sha256 %s, the checksums file says %s", name, got, sum)
		}
		listed = append(listed, name)
	}
	want := []string{bundleName(version)}
	for _, p := range platforms {
		want = append(want, archiveName(version, p))
	}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("the checksums file lists %v, want %v", listed, want)
	}
}

// A person without Go unpacks the archive for their machine and runs it.
func TestHostArchive(t *testing.T) {
	dir, version := release(t)
	h := host()
	if !slices.Contains(platforms, h) {
		t.Skipf("no release archive for %s", h)
	}
	files, modes := unpack(t, filepath.Join(dir, archiveName(version, h)))
	top := stem(version, h) + "/"
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	ds, err := docs(testRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{top, top + h.exe()}
	for _, d := range ds {
		want = append(want, top+d)
		for dir := path.Dir(d); dir != "."; dir = path.Dir(dir) {
			if !slices.Contains(want, top+dir+"/") {
				want = append(want, top+dir+"/")
			}
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("archive holds %v, want %v", names, want)
	}
	for _, d := range ds {
		if b, _ := os.ReadFile(filepath.Join(testRoot(t), filepath.FromSlash(d))); !bytes.Equal(files[top+d], b) {
			t.Errorf("the archive's %s is not the repository's", d)
		}
	}
	// Every link of the README, and of the pages it links, reaches a file
	// of the unpacked archive and a heading of its page.
	for _, problem := range brokenLinks(t, unpackedFS(files, top)) {
		t.Errorf("in %s: %s", archiveName(version, h), problem)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, h.exe())
	if err := os.WriteFile(bin, files[top+h.exe()], modes[top+h.exe()].Perm()); err != nil {
		t.Fatal(err)
	}
	if modes[top+h.exe()].Perm()&0o111 == 0 {
		t.Errorf("the binary is not executable: %v", modes[top+h.exe()])
	}

	cmd := exec.Command(bin, "--version")
	cmd.Env = cleanEnv(tmp)
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "memory-mcp "+version+"\n" {
		t.Errorf("memory-mcp --version: %q, %v; want %q", out, err, "memory-mcp "+version+"\n")
	}

	data := filepath.Join(tmp, "data")
	cmd = exec.Command(bin, "stdio", "--data-dir", data)
	cmd.Env = cleanEnv(tmp)
	init, tools, err := handshake(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo.Name != "memory-mcp" || init.ServerInfo.Version != version {
		t.Errorf("server says it is %s %s", init.ServerInfo.Name, init.ServerInfo.Version)
	}
	if len(tools) < 10 {
		t.Errorf("only %d tools", len(tools))
	}
	if _, err := os.Stat(filepath.Join(data, "memory.db")); err != nil {
		t.Errorf("no memory.db in the data directory: %v", err)
	}
}

// The same commit gives the same bytes: the host's archive and the bundle,
// made again here, match those make dist and make mcpb wrote.
func TestReleaseIsReproducible(t *testing.T) {
	dir, version := release(t)
	h := host()
	if !slices.Contains(platforms, h) {
		t.Skipf("no release archive for %s", h)
	}
	o := options{version: version, out: t.TempDir(), epoch: time.Unix(envEpoch(), 0).UTC(), only: []platform{h}, root: testRoot(t)}
	if _, err := makeArchives(o); err != nil {
		t.Fatal(err)
	}
	names := []string{archiveName(version, h)}
	if _, err := os.Stat(filepath.Join(dir, bundleName(version))); err == nil {
		if _, err := makeBundle(o); err != nil {
			t.Fatal(err)
		}
		names = append(names, bundleName(version))
	}
	for _, n := range names {
		a, err1 := fileSHA256(filepath.Join(dir, n))
		b, err2 := fileSHA256(filepath.Join(o.out, n))
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%s: made again it has sha256 %s, the release's %s (%v %v)", n, b, a, err1, err2)
		}
	}
}

// Claude Desktop unpacks the bundle and starts the command its manifest
// gives for the platform, with the user's settings substituted. This test
// does the same with the official MCPB library (packaging/mcpb/resolve.mjs)
// and completes the MCP handshake with what it starts, with the settings
// left at their defaults and with each one set.
func TestBundleStartsAsClaudeDesktopStartsIt(t *testing.T) {
	dir, version := release(t)
	root := testRoot(t)
	bundle := filepath.Join(dir, bundleName(version))
	if _, err := os.Stat(bundle); err != nil {
		t.Fatalf("no bundle: %v (make mcpb)", err)
	}
	tmp := t.TempDir()
	unpacked := filepath.Join(tmp, "extension")
	cmd := exec.Command(mcpbCLI(root), "unpack", bundle, unpacked)
	cmd.Dir = mcpbDir(root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpb unpack: %v\n%s", err, out)
	}

	// The bundle's binaries are the archives' own.
	for _, b := range bundleBinaries {
		got, err := os.ReadFile(filepath.Join(unpacked, filepath.FromSlash(b.path)))
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(filepath.Join(unpacked, filepath.FromSlash(b.path))); fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable after unpacking: %v", b.path, fi.Mode())
		}
		if len(b.parts) == 1 {
			if !bytes.Equal(got, archivedBinary(t, dir, version, b.parts[0])) {
				t.Errorf("%s is not the %s archive's binary", b.path, b.parts[0])
			}
			continue
		}
		ff, err := macho.NewFatFile(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s is not a universal binary: %v", b.path, err)
		}
		for i, p := range b.parts {
			a := ff.Arches[i]
			if !bytes.Equal(got[a.Offset:a.Offset+a.Size], archivedBinary(t, dir, version, p)) {
				t.Errorf("%s's %v slice is not the %s archive's binary", b.path, a.Cpu, p)
			}
		}
	}

	// The bundle carries the archives' documents, and their links hold in it.
	ds, err := docs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		got, err := os.ReadFile(filepath.Join(unpacked, filepath.FromSlash(d)))
		if want, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(d))); err != nil || !bytes.Equal(got, want) {
			t.Errorf("the bundle's %s is not the repository's (%v)", d, err)
		}
	}
	for _, problem := range brokenLinks(t, os.DirFS(unpacked)) {
		t.Errorf("in the bundle: %s", problem)
	}

	var manifest struct {
		Version string `json:"version"`
		Tools   []struct{ Name string }
	}
	raw, err := os.ReadFile(filepath.Join(unpacked, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Version != semver(version) {
		t.Errorf("manifest version %s, want %s", manifest.Version, semver(version))
	}

	home := filepath.Join(tmp, "home")
	defaultData := filepath.Join(home, ".local", "share", "memory-mcp")
	if runtime.GOOS == "darwin" {
		defaultData = filepath.Join(home, "Library", "Application Support", "memory-mcp")
	}
	chosen := filepath.Join(tmp, "my memory")
	for _, c := range []struct {
		name, user       string
		data, dataSource string
		agent, seniority string
	}{
		{"defaults", `{}`, defaultData, "(default)", "claude-desktop", "mid"},
		{"chosen", fmt.Sprintf(`{"data_dir": %q, "agent_id": "desk-7", "seniority": "senior"}`, chosen),
			chosen, "(env MEMORY_MCP_DATA_DIR)", "desk-7", "senior"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// What Claude Desktop would start, from the official resolver.
			cmd := exec.Command("node", "resolve.mjs", unpacked, c.user)
			cmd.Dir = mcpbDir(root)
			cmd.Env = cleanEnv(home)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("resolve.mjs: %v", err)
			}
			var cfg struct {
				Command string
				Args    []string
				Env     map[string]string
			}
			if err := json.Unmarshal(out, &cfg); err != nil {
				t.Fatalf("resolve.mjs printed %s: %v", out, err)
			}
			if !strings.HasPrefix(cfg.Command, unpacked+string(filepath.Separator)) {
				t.Fatalf("the manifest starts %s, outside the bundle", cfg.Command)
			}
			env := cleanEnv(home)
			for k, v := range cfg.Env {
				if strings.Contains(v, "${") {
					t.Errorf("env %s=%s: a variable was not substituted", k, v)
				}
				env = append(env, k+"="+v)
			}

			start := exec.Command(cfg.Command, cfg.Args...)
			start.Env = env
			init, tools, err := handshake(start)
			if err != nil {
				t.Fatal(err)
			}
			if init.ServerInfo.Version != version {
				t.Errorf("server version %s, want %s", init.ServerInfo.Version, version)
			}
			var got, want []string
			for _, tl := range tools {
				got = append(got, tl.Name)
			}
			for _, tl := range manifest.Tools {
				want = append(want, tl.Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("the server offers %v, the manifest lists %v", got, want)
			}
			if _, err := os.Stat(filepath.Join(c.data, "memory.db")); err != nil {
				t.Errorf("no memory.db in %s: %v", c.data, err)
			}

			// The settings reach the binary as the environment variables it reads.
			show := exec.Command(cfg.Command, "config")
			show.Env = env
			text, err := show.Output()
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			for _, w := range [][2]string{
				{"data-dir", c.data + " " + c.dataSource},
				{"agent-id", c.agent + " (env MEMORY_MCP_AGENT_ID)"},
				{"seniority", c.seniority + " (env MEMORY_MCP_SENIORITY)"},
			} {
				if line := configLine(string(text), w[0]); line != w[1] {
					t.Errorf("config says %s is %q, want %q", w[0], line, w[1])
				}
			}
		})
	}
}

// configLine is the value and source "memory-mcp config" prints for a
// setting, with the padding squeezed out.
func configLine(text, name string) string {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == name {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}

// The release's server.json matches the registry's schema and describes
// the bundle and archives beside it.
func TestReleaseServerJSON(t *testing.T) {
	dir, version := release(t)
	raw, err := os.ReadFile(filepath.Join(dir, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkServerJSON(t, registryValidator(t), raw)
	var e serverJSON
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	bundleSHA, err := fileSHA256(filepath.Join(dir, bundleName(version)))
	if err != nil {
		t.Fatal(err)
	}
	if e.Version != semver(version) || e.Packages[0].FileSHA256 != bundleSHA ||
		!strings.HasSuffix(e.Packages[0].Identifier, "/"+version+"/"+bundleName(version)) {
		t.Errorf("server.json: version %s, bundle %s sha256 %s; want %s, %s", e.Version,
			e.Packages[0].Identifier, e.Packages[0].FileSHA256, semver(version), bundleSHA)
	}
	var meta struct {
		Archives []archiveRef `json:"archives"`
	}
	pub, _ := json.Marshal(e.Meta[publisherKey])
	if err := json.Unmarshal(pub, &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Archives) != len(platforms) {
		t.Errorf("server.json lists %d archives", len(meta.Archives))
	}
	for _, a := range meta.Archives {
		sum, err := fileSHA256(filepath.Join(dir, filepath.Base(a.URL)))
		if err != nil || sum != a.SHA256 {
			t.Errorf("%s: sha256 %s, server.json says %s (%v)", a.URL, sum, a.SHA256, err)
		}
	}
}
