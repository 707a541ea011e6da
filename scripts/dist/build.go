package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repoRoot is the directory of the module's go.mod.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the memory-mcp module")
	}
	return filepath.Dir(mod), nil
}

// pinnedEnv is what a release build for p sets: pure Go, and every setting
// that changes the output pinned.
func pinnedEnv(p platform) []string {
	return []string{"GOOS=" + p.OS, "GOARCH=" + p.Arch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly", "GOAMD64=v1", "GOARM64=v8.0"}
}

// buildEnv is the environment of a release build for p: the caller's, with
// pinnedEnv in place of whatever it held that changes the output
// (GOAMD64=v3, GOFLAGS=-race, GOEXPERIMENT, ...).
func buildEnv(p platform) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GO386", "GOARM":
			continue
		}
		env = append(env, kv)
	}
	return append(env, pinnedEnv(p)...)
}

// buildFlags are the flags of a release build stamped with version.
func buildFlags(version string) []string {
	return []string{"-trimpath", "-buildvcs=false", "-ldflags", "-s -w -X main.version=" + version}
}

// build compiles memory-mcp for p into dir/p.exe() and returns its path.
func build(o options, p platform, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, p.exe())
	args := append([]string{"build"}, buildFlags(o.version)...)
	args = append(args, "-o", bin, "./cmd/memory-mcp")
	cmd := exec.Command("go", args...)
	cmd.Dir = o.root
	cmd.Env = buildEnv(p)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build for %s: %v\n%s", p, err, out)
	}
	return bin, nil
}
