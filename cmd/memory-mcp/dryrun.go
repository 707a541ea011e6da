package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// dryRunPrefix names the folders in a data directory that hold the copy of
// its store a merge import's dry run works on: dry-run-<pid>-<random>.
const dryRunPrefix = "dry-run-"

// makeDryRunDir makes the folder for a dry run's copy of the store in the
// data directory dataDir, named for this process, so that a copy its
// process left (killed before it could remove it) is found and removed by
// the next command that opens the data directory (cleanDryRuns).
func makeDryRunDir(dataDir string) (string, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(dataDir, fmt.Sprintf("%s%d-", dryRunPrefix, os.Getpid()))
}

// cleanDryRuns removes the dry-run copies in dataDir whose process no
// longer runs: what a dry run killed (SIGKILL, a power cut) left behind.
// A copy of a running dry run is left alone.
func cleanDryRuns(dataDir string) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dryRunPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || running(pid) {
			continue
		}
		path := filepath.Join(dataDir, e.Name())
		if err := os.RemoveAll(path); err != nil {
			slog.Warn("could not remove the copy a stopped dry run left", "path", path, "err", err)
		}
	}
}

// running reports whether process pid runs. On Windows, finding a process
// fails when it does not.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	if runtime.GOOS == "windows" {
		return true
	}
	return p.Signal(syscall.Signal(0)) == nil
}
