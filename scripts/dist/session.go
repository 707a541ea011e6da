package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handshake starts cmd as an MCP server over stdio with the official Go
// SDK's client, completes the handshake, lists every tool, and stops the
// server by closing its input. It returns what the server said of itself and
// its tools.
func handshake(cmd *exec.Cmd) (*mcp.InitializeResult, []*mcp.Tool, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "memory-mcp-dist", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %v\nstderr:\n%s", cmd.Path, err, stderr.String())
	}
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			cs.Close()
			return nil, nil, fmt.Errorf("tools/list: %v\nstderr:\n%s", err, stderr.String())
		}
		tools = append(tools, t)
	}
	init := cs.InitializeResult()
	if err := cs.Close(); err != nil {
		return nil, nil, fmt.Errorf("close: %v\nstderr:\n%s", err, stderr.String())
	}
	return init, tools, nil
}
