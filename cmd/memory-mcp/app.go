package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/prompts"
	"github.com/memory-mcp/memory-mcp/resources"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// app is one running memory-mcp: the database, the services over it and the
// MCP server exposing them.
type app struct {
	cfg      *Config
	log      *slog.Logger
	db       *store.DB
	facts    *store.FactService
	memories *store.MemoryService
	server   *server.MCPServer
}

func newLogger(cfg *Config, stderr io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// openApp opens the database in cfg.DataDir and wires the services and the MCP surface.
func openApp(ctx context.Context, cfg *Config, log *slog.Logger) (*app, error) {
	db, err := store.Open(ctx, filepath.Join(cfg.DataDir, store.FileName))
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, db: db}
	a.facts = store.NewFactService(db)
	a.facts.Access = cfg.WriteAccess
	a.facts.MaxContentBytes = cfg.MaxContentBytes
	if a.memories, err = openMemories(ctx, cfg, db, log); err != nil {
		db.Close()
		return nil, err
	}

	a.server = server.NewMCPServer("memory-mcp", buildVersion(),
		server.WithInstructions(instructions),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithPromptCapabilities(false),
		server.WithRecovery(),
	)
	tools.Register(a.server, tools.Services{Facts: a.facts, Memories: a.memories, Log: log})
	resources.Register(a.server, resources.Services{Facts: a.facts, Log: log})
	prompts.Register(a.server, prompts.Services{Facts: a.facts, Memories: a.memories, Log: log})
	return a, nil
}

func (a *app) Close() error { return a.db.Close() }

// context returns ctx carrying the configured caller identity.
func (a *app) context(ctx context.Context) context.Context {
	return memory.WithIdentity(ctx, a.cfg.Identity)
}

// watch tails the change feed, which records writes from this process and from
// every other process on the same data directory, and tells subscribed clients
// which resources changed.
func (a *app) watch(ctx context.Context, every time.Duration) {
	seq, err := a.db.LastChange(ctx)
	if err != nil {
		a.log.Warn("change feed unavailable", "err", err)
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		changes, err := a.db.ChangesSince(ctx, seq, 1000)
		if err != nil {
			if ctx.Err() == nil {
				a.log.Warn("read change feed", "err", err)
			}
			continue
		}
		for _, c := range changes {
			resources.Notify(a.server, c.Kind, c.Ref)
			seq = c.Seq
		}
	}
}

const instructions = `memory-mcp is persistent, governed memory shared across sessions and agents.
- Agent memory: search_memory at the start of a task and whenever the user refers to earlier
  work; remember what you will need again (preferences, decisions and their reasons, facts,
  procedures); forget what turned out wrong; publish_memory what every agent should know.
  The memory_context prompt packs the memories relevant to a query into a token budget.
- Organisational facts (policies, ADRs, procedures, conventions): query_facts before acting on
  org-wide rules; publish_fact only for knowledge that should bind every agent. Read the
  memory://policies/core resource (or the org_policies prompt) for the policies in force.
Errors start with a code (EINVALID, ENOTFOUND, ECONFLICT, EFORBIDDEN) and say how to fix the call.`
