package main

import (
	"context"
	"io"
	"log"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// serveStdio serves MCP on stdin/stdout until stdin closes or ctx ends. Only
// protocol messages go to stdout; logs go to stderr.
func serveStdio(ctx context.Context, cfg *Config, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := newLogger(cfg, stderr)
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	logger.Info("serving MCP on stdio", "data_dir", cfg.DataDir, "agent_id", cfg.Identity.AgentID, "version", buildVersion())

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go a.watch(ctx, 500*time.Millisecond)

	s := server.NewStdioServer(a.server)
	s.SetErrorLogger(log.New(stderr, "mcp: ", 0))
	s.SetContextFunc(a.context)
	return s.Listen(ctx, stdin, stdout)
}
