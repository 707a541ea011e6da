package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
	"github.com/memory-mcp/memory-mcp/gate"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/promotion"
	"github.com/memory-mcp/memory-mcp/prompts"
	"github.com/memory-mcp/memory-mcp/resources"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/tools"
)

// app is one running memory-mcp: the database, the services over it and the
// MCP server exposing them.
type app struct {
	cfg           *Config
	log           *slog.Logger
	db            *store.DB
	facts         *store.FactService
	memories      *store.MemoryService
	blocks        *store.BlockService
	promotion     *promotion.Pipeline
	consolidation *consolidation.Service
	gates         *gate.Gates
	run           memory.ToolRunner // the tools' bodies, which apply an approved held write
	server        *server.MCPServer
	subs          *resources.Subscriptions
}

func newLogger(cfg *Config, stderr io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// openApp opens the database in cfg.DataDir and wires the services and the
// MCP surface; opts add to the MCP server's options (serve's metrics).
func openApp(ctx context.Context, cfg *Config, log *slog.Logger, opts ...server.ServerOption) (*app, error) {
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// A scrub an erase or gc still owes (its own failed, or its process
	// stopped first) is finished before serving.
	if scrubbed, owed, err := db.ScrubOwed(ctx); err != nil || owed {
		log.Warn("a rewrite of the database file owed by an earlier erase or gc did not complete (another process reading?); the next erase, gc or start tries again", "err", err)
	} else if scrubbed {
		log.Info("rewrote the database file, as an earlier erase or gc still owed")
	}
	a := &app{cfg: cfg, log: log, db: db}
	a.facts = store.NewFactService(db)
	a.facts.Access = cfg.WriteAccess
	a.facts.MaxContentBytes = cfg.MaxContentBytes
	if a.memories, err = openMemories(ctx, cfg, db, log); err != nil {
		db.Close()
		return nil, err
	}
	a.memories.Dedup, a.memories.Contradictions = cfg.Gates.Dedup, cfg.Gates.Contradictions
	if cfg.Gates.Judge == "llm" {
		a.memories.Judge = llm.NewJudge(llm.New(cfg.LLM).ChatJSON, cfg.LLM.Timeout)
		a.facts.Judge = a.memories.Judge
	}
	a.facts.Log = log
	a.blocks = store.NewBlockService(db)
	a.blocks.Defaults = cfg.Blocks
	a.blocks.Log = log
	// Reads never write, so the caller's default blocks are made now; a
	// failure here only delays them to the caller's first block edit.
	if err := a.blocks.Seed(a.context(ctx)); err != nil {
		log.Warn("default core memory blocks not made yet", "err", err)
	}
	a.promotion = newPromotion(cfg, db, log)
	a.consolidation = newConsolidation(cfg, db, a.memories.Embedder, log, "stdio")
	a.consolidation.Current = a.memories.CurrentEmbedder

	hooks := &server.Hooks{}
	a.subs = resources.NewSubscriptions(hooks)
	tools.FitCaller(hooks)
	a.server = server.NewMCPServer("memory-mcp", buildVersion(), append([]server.ServerOption{
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithPromptCapabilities(false),
		server.WithRecovery(),
		// A client may set a log level (the conformance suite's general
		// scenarios ask it of every server); the server's logs go to stderr,
		// so no log notification follows.
		server.WithLogging(),
		// Completion requests are answered, with no suggestions yet.
		server.WithCompletions(),
		server.WithToolFilter(tools.Filter(cfg.Strategy)),
		server.WithPromptFilter(prompts.Filter(cfg.Strategy)),
	}, opts...)...)
	gates := newGates(cfg, a)
	a.gates = gates
	a.run = tools.Register(a.server, tools.Services{Facts: a.facts, Memories: a.memories, Blocks: a.blocks, BlockTools: cfg.BlockTools, Promotion: a.promotion,
		Consolidation: a.consolidation, Erasure: a.memories, Gates: gates, Approvals: gates, Log: log,
		FineTune: &lazyFineTune{cfg: cfg, db: db, log: log}, Portability: db})
	resources.Register(a.server, resources.Services{Facts: a.facts, Blocks: a.blocks, Promotion: a.promotion, Metrics: gates, Log: log})
	prompts.Register(a.server, prompts.Services{Facts: a.facts, Memories: a.memories, Blocks: a.blocks, Log: log})
	return a, nil
}

func (a *app) Close() error { return a.db.Close() }

// newPromotion wires the promotion pipeline: the rules interpreter, or the
// LLM one (which falls back to the rules) when configured.
func newPromotion(cfg *Config, db *store.DB, log *slog.Logger) *promotion.Pipeline {
	run := cfg.RunID
	if run == "" {
		var b [3]byte
		rand.Read(b[:])
		run = "run-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
	}
	p := promotion.New(db, run)
	p.MaxAttempts, p.MaxNoteBytes, p.Log = cfg.PendingMaxAttempts, cfg.MaxContentBytes, log
	if cfg.Interpreter == "llm" {
		li := &promotion.LLMInterpreter{Chat: llm.New(cfg.LLM).ChatJSON, Timeout: cfg.LLM.Timeout, Log: log}
		p.Interpret, p.InterpreterNeedsContext = li.Interpret, true
	}
	log.Info("promotion", "run_id", run, "interpreter", cfg.Interpreter)
	return p
}

// newConsolidation wires consolidation over the memories' embedder, with
// the LLM endpoint for the llm strategy (used only when a run asks for it)
// when the endpoint can serve a call, or else what to configure, which a
// run asking for the llm strategy is told; cmd names this process's
// command, for the maintenance lease.
func newConsolidation(cfg *Config, db *store.DB, emb *memory.Embedder, log *slog.Logger, cmd string) *consolidation.Service {
	c := consolidation.New(db, emb)
	c.Config, c.Log, c.Holder = cfg.Consolidation, log, holderName(cmd)
	if c.ChatHint = cfg.llmUnusable(); c.ChatHint == "" {
		c.Chat = llm.New(cfg.LLM).ChatJSON
	}
	return c
}

// context returns ctx carrying the configured caller identity.
func (a *app) context(ctx context.Context) context.Context {
	return memory.WithIdentity(ctx, a.cfg.Identity)
}

const instructions = `memory-mcp is persistent, governed memory shared across sessions and agents.
- Agent memory: search_memory at the start of a task and whenever the user refers to earlier
  work; remember what you will need again (preferences, decisions and their reasons, facts,
  procedures); forget what turned out wrong; publish_memory what every agent should know.
  The memory_context prompt packs the memories relevant to a query into a token budget.
- Organisational facts (policies, ADRs, procedures, conventions): query_facts before acting on
  org-wide rules; publish_fact only for knowledge that should bind every agent. Read the
  memory://policies/core resource (or the org_policies prompt) for the policies in force.
- Core memory (self_editing strategy): blocks (persona, human, project, ...) you keep
  current with the memory tool, as files under /memories; the core_memory prompt shows them.
- Shared team state (plan, issues, decisions, constraints, results, task states, learnings): read
  memory://shared or shared_state; change it by writing notes (write_note, e.g. "fixed: <issue_id>")
  and promoting them. Ambiguous notes wait in the pending queue rather than being guessed;
  list_reviews shows them, and your writes that wait for a human's approval.
Errors start with a code (EINVALID, ENOTFOUND, ECONFLICT, EFORBIDDEN) and say how to fix the call;
EBUSY means another program held the database too long: retry the call in a few seconds.
` + tools.KeyInstructions + `

Note grammar (write_note):
` + tools.NoteGrammar
