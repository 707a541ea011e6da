// Package consolidation keeps memory small and true (seeds 001 and 004,
// "Consolidation and Retention"): it groups an agent's related memories —
// the same namespace and category, close in time, about the same thing —
// and replaces each group with one summary, archiving the originals whole
// so that any of them can be restored exactly. Each group is one store
// transaction, so a run stopped at any point leaves every memory either in
// search or archived into a summary that lists it.
package consolidation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
)

// Config tunes what a run consolidates and how.
type Config struct {
	// Strategy is how a group becomes a summary when a request names none.
	Strategy memory.ConsolidationStrategy
	// OlderThan: only memories written longer ago are consolidated, when a
	// request does not say.
	OlderThan time.Duration
	// Grouping decides which memories form a group.
	Grouping Grouping
	// TruncateAt is how many characters of each memory the simple strategy
	// (and every fallback to concatenation) keeps.
	TruncateAt int
	// Parallel is how many groups the llm strategy summarises at once (the
	// stores are one at a time); the offline strategies run one at a time.
	Parallel int
	// Retention archives memories older than their category's period.
	Retention memory.Retention
	// MaxMemories caps an agent's active memories: beyond it, the least
	// valuable are archived (0: no cap).
	MaxMemories int
	// LLM tunes the llm strategy.
	LLM LLMConfig
	// Lease is how long a run holds the data directory's maintenance lease
	// without renewing it; it renews it at every write. A crashed run's
	// lease is free again this long after its last write.
	Lease time.Duration
	// Interval is how often the scheduler (Schedule) maintains each agent;
	// 0 turns it off.
	Interval time.Duration
	// DualMode tunes the dual_mode strategy.
	DualMode DualModeConfig
	// GCGrace is how long a forgotten, retracted or expired memory is kept
	// before gc purges it for good; the scheduler purges with each look
	// while it is positive (0: the scheduler never purges).
	GCGrace time.Duration
}

// DefaultConfig is the offline default: dual_mode over memories a day old,
// each agent once a day (the seed's daily interval), under a lease of two
// minutes, which a run renews every third of it while it lasts (however
// long a model keeps it waiting): a crashed run's work is taken up by the
// next run soon after. Forgotten, retracted and expired memories are
// purged 30 days after (the seed's grace period, long enough to notice a
// mistaken forget and restore nothing lost).
func DefaultConfig() Config {
	return Config{Strategy: memory.ConsolidateDualMode, OlderThan: 24 * time.Hour, Grouping: DefaultGrouping(), TruncateAt: 200, Parallel: 4,
		LLM: DefaultLLMConfig(), DualMode: DefaultDualMode(), Lease: 2 * time.Minute, Interval: 24 * time.Hour,
		GCGrace: 30 * 24 * time.Hour}
}

// Service implements memory.ConsolidationService over the store.
type Service struct {
	DB *store.DB
	// Embedder makes the summaries' vectors (nil: none; they are found by
	// keyword).
	Embedder *memory.Embedder
	// Current, if set, returns the embedder in force in place of Embedder
	// (a fine-tuned adapter deployed while the process runs changes it).
	Current func() *memory.Embedder
	// Chat is the model behind the llm strategy and dual_mode's abstractive
	// summaries; nil: offline.
	Chat   llm.ChatFunc
	Config Config
	Log    *slog.Logger
	// Progress, when set, hears how far a run is: groups done of all.
	Progress func(done, total int)
	// ChatHint says what to configure for a model, in the error a run
	// asking for the llm strategy gets while Chat is nil.
	ChatHint string
	// Holder names this process in the maintenance lease, for the messages
	// of the runs that wait for it (e.g. "memory-mcp stdio, pid 42 on host").
	Holder string
}

var _ memory.ConsolidationService = (*Service)(nil)

// embedder is the embedder summaries' vectors are made with.
func (s *Service) embedder() *memory.Embedder {
	if s.Current != nil {
		return s.Current()
	}
	return s.Embedder
}

// New returns a service over db with the default configuration.
func New(db *store.DB, emb *memory.Embedder) *Service {
	return &Service{DB: db, Embedder: emb, Config: DefaultConfig(), Log: slog.Default()}
}

// Draft is the summary a strategy made of a group, before it is stored.
type Draft struct {
	Content string
	// Mode says how it was made: concatenation, extractive, abstractive,
	// llm, or a fallback (concat-fallback, truncation).
	Mode string
	// Tags are added to the union of the sources' tags (llm-synthesized,
	// concat-fallback).
	Tags []string
	// Sources are the members the summary replaces: every member, except
	// where a strategy left some out (the llm strategy's prompt cap), which
	// stay as they are for the next run.
	Sources []memory.Entry
}

// How a summary was made (Draft.Mode, GroupReport.Mode).
const (
	ModeConcatenation  = "concatenation"   // simple
	ModeExtractive     = "extractive"      // dual_mode, a dense group: key facts and anchors
	ModeAbstractive    = "abstractive"     // dual_mode, a sparse group: a summary
	ModeTruncation     = "truncation"      // dual_mode, when the model failed in a way retrying could fix
	ModeLLM            = "llm"             // llm: the model's synthesis
	ModeConcatFallback = "concat-fallback" // llm, when the model failed in a way retrying could fix
)

// summarizer makes the summary of one group. An error is the seed's
// propagating path: no summary, nothing archived, and the run stops.
type summarizer func(ctx context.Context, g Group) (Draft, error)

// strategy returns the summarizer for st.
// A dry run never calls a model: it says which groups a run would make and
// what they would replace, not what a model would write.
func (s *Service) strategy(st memory.ConsolidationStrategy, dry bool) (summarizer, error) {
	switch st {
	case memory.ConsolidateSimple:
		return s.simple, nil
	case memory.ConsolidateLLM:
		return s.llm(dry)
	case memory.ConsolidateDualMode:
		if s.Config.DualMode.Abstractive == AbstractiveLLM && s.Chat == nil {
			return nil, memory.Errorf(memory.EINVALID, "dual_mode is configured to summarise with the LLM (consolidation-summarizer llm), and %s; "+
				"or set consolidation-summarizer to offline", cmp.Or(s.ChatHint, "no LLM endpoint is configured"))
		}
		return s.dualMode(dry), nil
	}
	return nil, memory.Errorf(memory.EINVALID, "consolidation strategy %q is not available", st)
}

// Consolidate runs maintenance over an agent's personal memories, in the
// seed's order: retention (expired memories and those older than their
// category's period are archived), consolidation (what is older than the
// threshold is grouped, and each group is replaced with one summary), then
// the cap (the least valuable memories beyond it are archived). Nothing is
// deleted. A dry run reads the same and writes nothing. A run that writes
// holds the data directory's maintenance lease; while another run holds
// it, it does nothing and says so in Skipped.
func (s *Service) Consolidate(ctx context.Context, r memory.ConsolidationRequest) (_ memory.ConsolidationReport, err error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.ConsolidationReport{}, err
	}
	agent, err := memory.TargetAgent(who, r.AgentID, "consolidate the memories of")
	if err != nil {
		return memory.ConsolidationReport{}, err
	}
	if agent != who.AgentID {
		if err := s.DB.View(ctx, func(tx *store.Tx) error { return tx.CheckAgent(ctx, agent) }); err != nil {
			return memory.ConsolidationReport{}, err
		}
	}
	st := cmp.Or(r.Strategy, s.Config.Strategy)
	sum, err := s.strategy(st, r.DryRun)
	if err != nil {
		return memory.ConsolidationReport{}, err
	}
	older := s.Config.OlderThan
	if r.OlderThan != nil {
		older = *r.OlderThan
	}
	if older < 0 {
		return memory.ConsolidationReport{}, memory.Errorf(memory.EINVALID, "older_than %s is negative", older)
	}
	rep := memory.ConsolidationReport{AgentID: agent, Strategy: st, DryRun: r.DryRun, Groups: []memory.GroupReport{}}
	var h *hold
	if !r.DryRun {
		if h, rep.Skipped, err = s.acquire(ctx); h == nil {
			return rep, err
		}
		// A run that saw at least what a scheduled one would counts as the
		// agent's maintenance for the scheduler.
		whole := len(r.Namespaces) == 0 && len(r.Categories) == 0 && older <= s.Config.OlderThan
		defer func() { h.release(ctx, agent, err == nil && whole) }()
		defer h.keepAlive(ctx)() // stops before the release above runs
	}
	if rep.ActiveBefore, rep.TokensBefore, err = s.active(ctx, agent); err != nil {
		return rep, err
	}
	rep.ActiveAfter, rep.TokensAfter = rep.ActiveBefore, rep.TokensBefore
	gone, err := s.retain(ctx, h, agent, &rep)
	if err != nil {
		return rep, err
	}

	var cands []memory.Entry
	q := store.CandidateQuery{Agent: agent, Namespaces: r.Namespaces, Categories: r.Categories}
	if older > 0 {
		q.WrittenBefore = s.DB.Now.Now().Add(-older)
	}
	if err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
		cands, err = tx.Candidates(ctx, q)
		return err
	}); err != nil {
		return rep, err
	}
	cands = slices.DeleteFunc(cands, func(c memory.Entry) bool { return gone[c.ID] }) // a dry run's retention
	groups := s.Config.Grouping.Groups(cands)
	// A summary is the agent's own memory, merged: its author is the agent
	// (as it is, when it runs it itself), never the operator who ran it,
	// whose authority must not pass to what the agent wrote. Who ran it is
	// in the source.
	author := memory.Author{AgentID: agent}
	if agent == who.AgentID {
		author = memory.AuthorOf(who)
	}
	done := 0
	progress := func() {
		if s.Progress != nil {
			s.Progress(done, len(groups))
		}
	}
	progress()
	err = s.summarizeAll(ctx, groups, s.parallel(st), sum, func(i int, d Draft) error {
		g := groups[i]
		done++
		gr, held, err := s.store(ctx, h, agent, author, fmt.Sprintf("consolidation (%s, %s) by %s", st, d.Mode, who.Describe()), g, d)
		rep.LongestWrite = max(rep.LongestWrite, held)
		var coded *memory.Error
		var lost *store.LeaseLostError
		switch {
		case errors.As(err, &coded) && coded.Code == memory.ECONFLICT && !errors.As(err, &lost) && !errors.Is(err, store.ErrKeyTaken):
			// A source changed while the run summarised it (the agent
			// forgot or restored it): the group waits for the next run.
			s.log().Info("consolidation group skipped", "agent", agent, "err", err)
			progress()
			return nil
		case err != nil:
			return err
		}
		rep.Groups = append(rep.Groups, gr)
		rep.Consolidated += len(gr.Sources)
		rep.ActiveAfter += 1 - len(gr.Sources)
		rep.TokensAfter += gr.Tokens - gr.TokensIn
		progress()
		return nil
	})
	if err != nil {
		return rep, err
	}
	return rep, s.enforceCap(ctx, h, agent, &rep)
}

// summarizeAll summarises groups, parallel at a time, and hands each
// draft to keep, one at a time, in the order the drafts are ready. The
// first error (a summarizer's, which is the seed's propagating path, or
// keep's) stops the run: drafts not yet kept are dropped, and what was
// kept stays kept.
func (s *Service) summarizeAll(ctx context.Context, groups []Group, parallel int, sum summarizer, keep func(i int, d Draft) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		d   Draft
		err error
	}
	next := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range max(1, min(parallel, len(groups))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d, err := sum(ctx, groups[i])
				if err != nil {
					g := groups[i]
					err = fmt.Errorf("consolidate group %d of %d (%s/%s): %w", i+1, len(groups), g.Namespace, g.Category, err)
				}
				select {
				case results <- result{i, d, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range groups {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	for r := range results {
		err := r.err
		if err == nil {
			err = keep(r.i, r.d)
		}
		if err != nil {
			cancel()
			for range results { // let the workers finish
			}
			return err
		}
	}
	return ctx.Err()
}

// store turns draft d of group g into a stored summary under h (a dry run
// has none, and stores nothing) and reports it, with how long its
// transaction held the write lock.
func (s *Service) store(ctx context.Context, h *hold, agent string, author memory.Author, source string, g Group, d Draft) (memory.GroupReport, time.Duration, error) {
	gr := memory.GroupReport{Namespace: g.Namespace, Category: g.Category, Kept: g.Kept.ID, Mode: d.Mode, Summary: d.Content,
		Tokens: memory.EstimateTokens(d.Content)}
	sum := store.Summary{Agent: agent, Author: author, Namespace: g.Namespace, Category: g.Category, Content: d.Content,
		Confidence: 1, Source: source, Tags: d.Tags}
	for i, m := range d.Sources {
		gr.Sources = append(gr.Sources, m.ID)
		gr.TokensIn += memory.EstimateTokens(m.Content)
		sum.Sources = append(sum.Sources, m.ID)
		sum.Confidence = min(sum.Confidence, m.Confidence)
		if i == 0 || m.OccurredAt.Before(sum.OccurredAt) {
			sum.OccurredAt = m.OccurredAt
		}
		for _, t := range m.Tags {
			if !slices.Contains(sum.Tags, t) {
				sum.Tags = append(sum.Tags, t)
			}
		}
	}
	if len(sum.Sources) == 0 {
		return gr, 0, memory.Errorf(memory.ECONFLICT, "the summary of group %s/%s replaces nothing", g.Namespace, g.Category)
	}
	if len(sum.Tags) > memory.MaxTags {
		sum.Tags = sum.Tags[:memory.MaxTags]
	}
	if err := memory.CheckText("summary", d.Content, memory.DefaultMaxContentBytes); err != nil {
		return gr, 0, fmt.Errorf("%s made an unusable summary: %w", d.Mode, err)
	}
	if h == nil {
		return gr, 0, nil
	}
	if emb := s.embedder(); emb != nil {
		// Embed before the write transaction: a slow embedder must not
		// hold the lock. A failed embedding stores the summary without a
		// vector (found by keyword; reindex embeds it later).
		vecs, err := emb.Embed(ctx, []string{d.Content})
		if err == nil && len(vecs) == 1 && len(vecs[0]) == emb.Dim {
			sum.Vector, sum.Embedder = vecs[0], emb.ID
		} else {
			s.log().Warn("summary stored without a vector", "err", err)
		}
	}
	held, err := h.write(ctx, func(tx *store.Tx, l store.Lease) error {
		sum.Lease = l
		e, err := tx.Consolidate(ctx, sum)
		gr.SummaryID = e.ID
		return err
	})
	return gr, held, err
}

// active counts the agent's active personal memories and their tokens.
func (s *Service) active(ctx context.Context, agent string) (n, tokens int, err error) {
	err = s.DB.View(ctx, func(tx *store.Tx) error {
		return tx.EachActive(ctx, agent, func(content string) {
			n++
			tokens += memory.EstimateTokens(content)
		})
	})
	return n, tokens, err
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}
