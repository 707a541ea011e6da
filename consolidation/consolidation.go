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
	// Parallel is how many groups are summarised at once (the stores are
	// one at a time); the offline strategies need no more than 1.
	Parallel int
	// DualMode tunes the dual_mode strategy.
	DualMode DualModeConfig
}

// DefaultConfig is the offline default: dual_mode over memories a day old.
func DefaultConfig() Config {
	return Config{Strategy: memory.ConsolidateDualMode, OlderThan: 24 * time.Hour, Grouping: DefaultGrouping(), TruncateAt: 200, Parallel: 1,
		DualMode: DefaultDualMode()}
}

// Service implements memory.ConsolidationService over the store.
type Service struct {
	DB *store.DB
	// Embedder makes the summaries' vectors (nil: none; they are found by
	// keyword), and its vectors group memories by topic.
	Embedder *memory.Embedder
	// Chat is the model behind the llm strategy and dual_mode's abstractive
	// summaries; nil: offline.
	Chat   llm.ChatFunc
	Config Config
	Log    *slog.Logger
	// Progress, when set, hears how far a run is: groups done of all.
	Progress func(done, total int)
}

var _ memory.ConsolidationService = (*Service)(nil)

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
	Sources []store.Candidate
}

// summarizer makes the summary of one group. An error is the seed's
// propagating path: no summary, nothing archived, and the run stops.
type summarizer func(ctx context.Context, g Group) (Draft, error)

// strategy returns the summarizer for st.
func (s *Service) strategy(st memory.ConsolidationStrategy) (summarizer, error) {
	switch st {
	case memory.ConsolidateSimple:
		return s.simple, nil
	case memory.ConsolidateDualMode:
		if s.Config.DualMode.Abstractive == AbstractiveLLM && s.Chat == nil {
			return nil, memory.Errorf(memory.EINVALID, "dual_mode is configured to summarise with the LLM, and no LLM is configured: set the summarizer to offline")
		}
		return s.dualMode, nil
	}
	return nil, memory.Errorf(memory.EINVALID, "consolidation strategy %q is not available", st)
}

// Consolidate runs one consolidation over an agent's personal memories:
// it retires the summaries whose sources were forgotten (bringing their
// remaining sources back), groups what is older than the threshold, and
// replaces each group with one summary. A dry run reads the same and
// writes nothing.
func (s *Service) Consolidate(ctx context.Context, r memory.ConsolidationRequest) (memory.ConsolidationReport, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.ConsolidationReport{}, err
	}
	agent, err := memory.TargetAgent(who, r.AgentID, "consolidate the memories of")
	if err != nil {
		return memory.ConsolidationReport{}, err
	}
	st := cmp.Or(r.Strategy, s.Config.Strategy)
	sum, err := s.strategy(st)
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
	if rep.ActiveBefore, rep.TokensBefore, err = s.active(ctx, agent); err != nil {
		return rep, err
	}
	rep.ActiveAfter, rep.TokensAfter = rep.ActiveBefore, rep.TokensBefore
	if err := s.redo(ctx, agent, &rep); err != nil {
		return rep, err
	}

	var cands []store.Candidate
	q := store.CandidateQuery{Agent: agent, Namespaces: r.Namespaces, Categories: r.Categories, Embedder: s.embedderID()}
	if older > 0 {
		q.WrittenBefore = s.DB.Now.Now().Add(-older)
	}
	if err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
		cands, err = tx.Candidates(ctx, q)
		return err
	}); err != nil {
		return rep, err
	}
	groups := s.Config.Grouping.Groups(cands)
	author := memory.AuthorOf(who)
	done := 0
	err = s.summarizeAll(ctx, groups, sum, func(i int, d Draft) error {
		g := groups[i]
		gr, err := s.store(ctx, agent, author, st, g, d, r.DryRun)
		if err != nil {
			var coded *memory.Error
			if errors.As(err, &coded) && coded.Code == memory.ECONFLICT {
				// A source changed while the run summarised it (the agent
				// forgot or restored it): the group waits for the next run.
				s.log().Info("consolidation group skipped", "agent", agent, "err", err)
				return nil
			}
			return err
		}
		rep.Groups = append(rep.Groups, gr)
		rep.Consolidated += len(gr.Sources)
		rep.ActiveAfter += 1 - len(gr.Sources)
		rep.TokensAfter += gr.Tokens - gr.TokensIn
		if done++; s.Progress != nil {
			s.Progress(done, len(groups))
		}
		return nil
	})
	return rep, err
}

// summarizeAll summarises groups, Config.Parallel at a time, and hands each
// draft to keep, one at a time, in the order the drafts are ready. The
// first error (a summarizer's, which is the seed's propagating path, or
// keep's) stops the run: drafts not yet kept are dropped, and what was
// kept stays kept.
func (s *Service) summarizeAll(ctx context.Context, groups []Group, sum summarizer, keep func(i int, d Draft) error) error {
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
	for range max(1, min(s.Config.Parallel, len(groups))) {
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

// store turns draft d of group g into a stored summary (unless dry) and
// reports it.
func (s *Service) store(ctx context.Context, agent string, author memory.Author, st memory.ConsolidationStrategy, g Group, d Draft, dry bool) (memory.GroupReport, error) {
	gr := memory.GroupReport{Namespace: g.Namespace, Category: g.Category, Kept: g.Kept.ID, Mode: d.Mode, Summary: d.Content,
		Tokens: memory.EstimateTokens(d.Content)}
	sum := store.Summary{Agent: agent, Author: author, Namespace: g.Namespace, Category: g.Category, Content: d.Content,
		Confidence: 1, Source: fmt.Sprintf("consolidation (%s, %s)", st, d.Mode), Tags: d.Tags}
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
		return gr, memory.Errorf(memory.ECONFLICT, "the summary of group %s/%s replaces nothing", g.Namespace, g.Category)
	}
	if len(sum.Tags) > memory.MaxTags {
		sum.Tags = sum.Tags[:memory.MaxTags]
	}
	if err := memory.CheckText("summary", d.Content, memory.DefaultMaxContentBytes); err != nil {
		return gr, fmt.Errorf("%s made an unusable summary: %w", d.Mode, err)
	}
	if dry {
		return gr, nil
	}
	if s.Embedder != nil {
		// Embed before the write transaction: a slow embedder must not
		// hold the lock. A failed embedding stores the summary without a
		// vector (found by keyword; reindex embeds it later).
		vecs, err := s.Embedder.Embed(ctx, []string{d.Content})
		if err == nil && len(vecs) == 1 && len(vecs[0]) == s.Embedder.Dim {
			sum.Vector, sum.Embedder = vecs[0], s.Embedder.ID
		} else {
			s.log().Warn("summary stored without a vector", "err", err)
		}
	}
	err := s.DB.Update(ctx, func(tx *store.Tx) error {
		e, err := tx.Consolidate(ctx, sum)
		gr.SummaryID = e.ID
		return err
	})
	return gr, err
}

// redo retires the agent's summaries marked stale (one of their sources
// was forgotten since), bringing their remaining sources back into search,
// where this run groups them again as they are now.
func (s *Service) redo(ctx context.Context, agent string, rep *memory.ConsolidationReport) error {
	var stale []string
	if err := s.DB.View(ctx, func(tx *store.Tx) (err error) {
		stale, err = tx.StaleSummaries(ctx, agent)
		return err
	}); err != nil || rep.DryRun {
		rep.Redone = len(stale)
		return err
	}
	for _, id := range stale {
		err := s.DB.Update(ctx, func(tx *store.Tx) error {
			_, err := tx.Retire(ctx, agent, id, "consolidation: a source was forgotten; its other sources are back in search to be consolidated again")
			return err
		})
		if err != nil {
			return err
		}
		rep.Redone++
	}
	if len(stale) > 0 {
		var err error
		rep.ActiveAfter, rep.TokensAfter, err = s.active(ctx, agent)
		return err
	}
	return nil
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

func (s *Service) embedderID() string {
	if s.Embedder == nil {
		return ""
	}
	return s.Embedder.ID
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}
