package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdioStopsQuietlyOnSignal: a client ends a stdio server with SIGTERM
// (a terminal, with Ctrl-C); that is a normal stop, so the server exits 0
// and says nothing of a failure.
func TestStdioStopsQuietlyOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(binary(t), "stdio", "--data-dir", t.TempDir(), "--embedder", "none")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
			answered := make(chan bool, 1)
			go func() {
				line, _ := bufio.NewReader(stdout).ReadString('\n')
				answered <- strings.Contains(line, `"id":1`)
			}()
			select {
			case ok := <-answered:
				if !ok {
					t.Fatal("initialize got no answer on stdout")
				}
			case <-time.After(60 * time.Second):
				t.Fatal("no answer to initialize")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			if err != nil || strings.Contains(stderr.String(), "context canceled") || strings.Contains(stderr.String(), "memory-mcp:") {
				t.Fatalf("stopped by %v: exit %v\n%s", sig, err, stderr.String())
			}
		})
	}
}
