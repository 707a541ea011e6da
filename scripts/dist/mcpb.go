package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// bundleName is the Claude Desktop bundle's file name.
func bundleName(version string) string {
	return fmt.Sprintf("memory-mcp_%s.mcpb", fileVersion(version))
}

// mcpbDir holds the pinned MCPB CLI (package.json, package-lock.json),
// the manifest template and the resolver the bundle test uses.
func mcpbDir(root string) string { return filepath.Join(root, "packaging", "mcpb") }

// mcpbCLI is the pinned CLI, installed by "npm ci" in mcpbDir.
func mcpbCLI(root string) string {
	return filepath.Join(mcpbDir(root), "node_modules", ".bin", "mcpb")
}

// bundleBinaries are the binaries the bundle carries: the manifest chooses
// one per OS (darwin, win32, linux, as Node names them), not per CPU, so
// macOS gets a universal binary of both CPUs, Windows the amd64 one (which
// Windows on Arm runs too) and Linux the amd64 one. The archives have
// every platform's own.
var bundleBinaries = []struct {
	path  string // in the bundle
	parts []platform
}{
	{"server/darwin/memory-mcp", []platform{{"darwin", "amd64"}, {"darwin", "arm64"}}},
	{"server/linux/memory-mcp", []platform{{"linux", "amd64"}}},
	{"server/win32/memory-mcp.exe", []platform{{"windows", "amd64"}}},
}

// semver is the version as a manifest and server.json want it (SemVer 2.0):
// v1.2.3 and git describe's v1.2.3-4-gabcdef(-dirty) lose the v; anything
// else, a bare commit hash in a clone without tags, becomes 0.0.0-g<hash>.
func semver(v string) string {
	if m := semverPattern.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return "0.0.0-g" + regexp.MustCompile(`[^0-9A-Za-z-]+`).ReplaceAllString(v, "-")
}

var semverPattern = regexp.MustCompile(`^v?((0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?)$`)

// makeBundle writes the bundle, server.json and the checksums (again, now
// with the bundle) to o.out, and returns the bundle's path.
func makeBundle(o options) (string, error) {
	if _, err := os.Stat(mcpbCLI(o.root)); err != nil {
		return "", fmt.Errorf("the MCPB CLI is not installed: run npm ci in packaging/mcpb (make mcpb does)")
	}
	tmp, err := os.MkdirTemp("", "memory-mcp-mcpb")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	stage := filepath.Join(tmp, "memory-mcp")
	built := map[platform]string{}
	buildOnce := func(p platform) (string, error) {
		if bin, ok := built[p]; ok {
			return bin, nil
		}
		bin, err := build(o, p, filepath.Join(tmp, "build", p.OS+"_"+p.Arch))
		built[p] = bin
		return bin, err
	}
	for _, b := range bundleBinaries {
		var thin [][]byte
		for _, p := range b.parts {
			bin, err := buildOnce(p)
			if err != nil {
				return "", err
			}
			data, err := os.ReadFile(bin)
			if err != nil {
				return "", err
			}
			thin = append(thin, data)
		}
		data := thin[0]
		if len(thin) > 1 {
			if data, err = universal(thin...); err != nil {
				return "", err
			}
		}
		if err := writeStaged(stage, b.path, data, 0o755); err != nil {
			return "", err
		}
	}
	for _, d := range docs {
		data, err := os.ReadFile(filepath.Join(o.root, d))
		if err != nil {
			return "", err
		}
		if err := writeStaged(stage, d, data, 0o644); err != nil {
			return "", err
		}
	}
	// The manifest lists the tools, as this version's binary declares them.
	hostBin, err := buildOnce(host())
	if err != nil {
		return "", err
	}
	manifest, err := bundleManifest(o, hostBin, tmp)
	if err != nil {
		return "", err
	}
	if err := writeStaged(stage, "manifest.json", manifest, 0o644); err != nil {
		return "", err
	}

	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(o.out, bundleName(o.version)))
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{{"validate", filepath.Join(stage, "manifest.json")}, {"pack", stage, out}} {
		cmd := exec.Command(mcpbCLI(o.root), args...)
		cmd.Dir = stage // where pack's listing of the files is relative to
		// pack's report names and sums the bundle before its clock is set
		// below, which changes its bytes: it is shown only on failure, and
		// the bundle's own sum printed after.
		var said bytes.Buffer
		cmd.Stdout, cmd.Stderr = &said, os.Stderr
		if err := cmd.Run(); err != nil {
			os.Stderr.Write(said.Bytes())
			return "", fmt.Errorf("mcpb %s: %v", args[0], err)
		}
	}
	// mcpb pack stamps every entry with the time of packing; set them to the
	// epoch so that the same commit packs to the same bytes.
	if err := setZipClock(out, o.epoch); err != nil {
		return "", fmt.Errorf("%s: %v", out, err)
	}
	packed, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	fmt.Printf("%x  %s\n", sha256.Sum256(packed), filepath.Join(o.out, bundleName(o.version)))
	if err := writeServerJSON(o, out); err != nil {
		return "", err
	}
	return out, writeChecksums(o.out, o.version)
}

func writeStaged(stage, name string, data []byte, mode os.FileMode) error {
	path := filepath.Join(stage, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode) // whatever the umask
}

// bundleManifest is packaging/mcpb/manifest.json with the version set and
// the tools listed as bin (a build of this version for this machine)
// declares them to a client of the default identity.
func bundleManifest(o options, bin, tmp string) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(mcpbDir(o.root), "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("packaging/mcpb/manifest.json: %v", err)
	}
	home := filepath.Join(tmp, "home")
	cmd := exec.Command(bin, "stdio")
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "MEMORY_MCP_AGENT_ID=claude-desktop"}
	_, tools, err := handshake(cmd)
	if err != nil {
		return nil, err
	}
	var list []map[string]string
	for _, t := range tools {
		// The first paragraph: what Claude Desktop shows before installing.
		summary, _, _ := strings.Cut(t.Description, "\n\n")
		list = append(list, map[string]string{"name": t.Name, "description": summary})
	}
	m["version"] = semver(o.version)
	m["tools"] = list
	return marshalIndent(m)
}

// setZipClock sets the modification time of every entry of the zip file at
// path to t, in its local header and its central directory entry, and
// changes nothing else. It reads the central directory as the zip format
// (APPNOTE 4.3) lays it out; zip64 and extra time fields are refused, as
// mcpb pack writes neither.
func setZipClock(path string, t time.Time) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	const eocdSig, cenSig, locSig = 0x06054b50, 0x02014b50, 0x04034b50
	le := binary.LittleEndian
	eocd := -1
	for i := len(b) - 22; i >= 0 && i >= len(b)-22-65535; i-- {
		if le.Uint32(b[i:]) == eocdSig {
			eocd = i
			break
		}
	}
	if eocd < 0 {
		return fmt.Errorf("no end of central directory")
	}
	n := int(le.Uint16(b[eocd+10:]))
	off := int(le.Uint32(b[eocd+16:]))
	if n == 0xffff || off == 0xffffffff {
		return fmt.Errorf("zip64 is not handled")
	}
	dosTime, dosDate := dosClock(t)
	for range n {
		if off+46 > len(b) || le.Uint32(b[off:]) != cenSig {
			return fmt.Errorf("bad central directory entry at %d", off)
		}
		nameLen, extraLen, commentLen := int(le.Uint16(b[off+28:])), int(le.Uint16(b[off+30:])), int(le.Uint16(b[off+32:]))
		loc := int(le.Uint32(b[off+42:]))
		if extraLen != 0 || loc+30 > len(b) || le.Uint32(b[loc:]) != locSig || le.Uint16(b[loc+28:]) != 0 {
			return fmt.Errorf("entry %q has extra fields or no local header", b[off+46:off+46+nameLen])
		}
		le.PutUint16(b[off+12:], dosTime)
		le.PutUint16(b[off+14:], dosDate)
		le.PutUint16(b[loc+10:], dosTime)
		le.PutUint16(b[loc+12:], dosDate)
		off += 46 + nameLen + extraLen + commentLen
	}
	return os.WriteFile(path, b, 0o644)
}

// dosClock is t in MS-DOS form (two-second resolution), as zip stores it.
func dosClock(t time.Time) (uint16, uint16) {
	t = t.UTC()
	return uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2),
		uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
}
