package consolidation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/llm/prompt"
	"github.com/memory-mcp/memory-mcp/store"
)

// The llm strategy (seed 001, "Consolidation Strategies"): the group's kept
// memory stays as it is and is not sent; the other members go to the model,
// each fenced as data, and its summary replaces those it was shown. The
// summary is stored before its sources are archived, in one transaction, so
// a failure at any point loses nothing.

// LLMConfig tunes the llm strategy (seed 001's LLMConsolidationConfig). The
// seed's group_threshold is Grouping.MinSize and its fallback_truncate_length
// is Config.TruncateAt, which every strategy shares.
type LLMConfig struct {
	Temperature      float64 // sampling temperature of the synthesis call
	MaxSummaryTokens int     // the longest reply, in tokens
	// IncludeDistillationContext shows the model the agent's most recent
	// task records (distillation memories) as context.
	IncludeDistillationContext bool
	MaxTrajectoryEntries       int // how many task records
	MaxTrajectoryChars         int // each cut to this many characters
	// MaxEntryChars cuts each memory sent; MaxTotalChars bounds all of them
	// together: the members past it are left out of the prompt, and out of
	// the summary's sources, and wait for the next run.
	MaxEntryChars int
	MaxTotalChars int
}

// DefaultLLMConfig is the seed's: temperature 0.3, 500 summary tokens, the
// 5 latest task records of 500 characters each, 2,000 characters per memory
// and 20,000 in all.
func DefaultLLMConfig() LLMConfig {
	return LLMConfig{Temperature: 0.3, MaxSummaryTokens: 500, IncludeDistillationContext: true, MaxTrajectoryEntries: 5,
		MaxTrajectoryChars: 500, MaxEntryChars: 2000, MaxTotalChars: 20000}
}

// Validate checks that c describes a call a server accepts and a prompt
// that can hold at least one memory.
func (c LLMConfig) Validate() error {
	switch {
	case math.IsNaN(c.Temperature) || c.Temperature < 0 || c.Temperature > 2:
		return fmt.Errorf("llm consolidation: temperature %v is outside 0..2", c.Temperature)
	case c.MaxSummaryTokens < 1:
		return fmt.Errorf("llm consolidation: max summary tokens %d is below 1", c.MaxSummaryTokens)
	case c.MaxTrajectoryEntries < 0 || c.MaxTrajectoryChars < 1:
		return fmt.Errorf("llm consolidation: %d task records of %d characters", c.MaxTrajectoryEntries, c.MaxTrajectoryChars)
	case c.MaxEntryChars < 1 || c.MaxTotalChars < c.MaxEntryChars:
		return fmt.Errorf("llm consolidation: %d characters per memory and %d in all: the total must hold one memory", c.MaxEntryChars, c.MaxTotalChars)
	}
	return nil
}

// The tags of an llm strategy summary, as the seed names them.
const (
	tagLLMSynthesized = "llm-synthesized"
	tagConcatFallback = "concat-fallback"
)

// synthesisSchema is the reply the model must give.
var synthesisSchema = llm.Schema{
	Name:        "consolidated_memory",
	Description: "One summary that replaces the memories shown.",
	JSON: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string",` +
		`"description":"the merged memory, in plain sentences"}},"required":["summary"],"additionalProperties":false}`),
}

// parallel is how many groups a run of strategy st summarises at once. The
// llm strategy waits on the network, so Config.Parallel of its calls are in
// flight together; the offline strategies use this process's CPU and run
// one group at a time.
func (s *Service) parallel(st memory.ConsolidationStrategy) int {
	if st == memory.ConsolidateLLM {
		return max(1, s.Config.Parallel)
	}
	return 1
}

// llm returns the llm strategy's summarizer for one run, or, when no model
// is configured, an error that says what to configure. A dry run's shows
// which members the model would be shown, and does not ask it.
func (s *Service) llm(dry bool) (summarizer, error) {
	if s.Chat == nil {
		hint := s.ChatHint
		if hint == "" {
			hint = "no LLM endpoint is configured (an OpenAI-compatible server, its model and API key)"
		}
		return nil, memory.Errorf(memory.EINVALID, "strategy llm needs a model: %s; or use strategy simple or dual_mode, which need none", hint)
	}
	if err := s.Config.LLM.Validate(); err != nil {
		return nil, err
	}
	sy := &synthesis{s: s, cfg: s.Config.LLM, dry: dry}
	return sy.summarize, nil
}

// synthesis is the llm strategy for one run. The agent's task records are
// read once, by the first group that needs them.
type synthesis struct {
	s            *Service
	cfg          LLMConfig
	dry          bool
	once         sync.Once
	trajectories []string
}

// summarize makes the summary of group g: the model's, or the seed's
// concatenation when the model could not give one. It fails (and the run
// stops, with nothing of g stored) only when the run is cancelled or the
// server refuses the request.
func (sy *synthesis) summarize(ctx context.Context, g Group) (Draft, error) {
	entries, shown := sy.entries(g)
	if sy.dry {
		return Draft{Content: fmt.Sprintf("(a dry run: the model would merge these %d memories)", len(shown)), Mode: ModeLLM,
			Tags: []string{tagLLMSynthesized}, Sources: shown}, nil
	}
	system, user, err := prompt.Synthesis(prompt.SynthesisData{Namespace: g.Namespace, Category: g.Category,
		Entries: entries, Trajectories: sy.context(ctx, g), MaxWords: max(1, sy.cfg.MaxSummaryTokens*3/5)})
	var summary string
	if err == nil {
		summary, err = sy.ask(ctx, system, user)
	}
	if err == nil {
		return Draft{Content: summary, Mode: ModeLLM, Tags: []string{tagLLMSynthesized}, Sources: shown}, nil
	}
	log := sy.s.log().With("agent", g.Kept.AgentID, "namespace", g.Namespace, "category", g.Category, "members", len(g.Members))
	switch {
	case ctx.Err() != nil:
		log.Error("consolidation synthesis cancelled; the group stays as it is", "err", err)
		return Draft{}, fmt.Errorf("synthesis: %w", err)
	case llm.Rejected(err):
		log.Error("consolidation synthesis refused by the LLM endpoint; the run stops and the group stays as it is", "err", err)
		return Draft{}, refused(memory.ConsolidateLLM, "synthesis", err)
	}
	log.Warn("consolidation synthesis fell back to concatenating the group", "reason", fallbackReason(err), "err", err)
	return Draft{Content: concatenate(g.Members, sy.s.Config.TruncateAt), Mode: ModeConcatFallback,
		Tags: []string{tagConcatFallback}, Sources: g.Members}, nil
}

// ask has the model merge the memories and returns its summary. A reply
// with no text, or with text no memory may hold, is an error.
func (sy *synthesis) ask(ctx context.Context, system, user string) (string, error) {
	schema := synthesisSchema
	schema.Temperature, schema.MaxTokens = sy.cfg.Temperature, sy.cfg.MaxSummaryTokens
	var out struct {
		Summary string `json:"summary"`
	}
	if err := sy.s.Chat(ctx, system, user, schema, &out); err != nil {
		return "", err
	}
	summary := strings.TrimSpace(out.Summary)
	if summary == "" {
		return "", errEmptyReply
	}
	if err := memory.CheckText("summary", summary, memory.DefaultMaxContentBytes); err != nil {
		return "", fmt.Errorf("unusable reply: %w", err)
	}
	return summary, nil
}

var errEmptyReply = errors.New("the model's summary is empty")

// entries fences the group's members (its kept memory is not sent), each
// cut to MaxEntryChars, until MaxTotalChars is reached, and returns them
// with the members they show. The first always goes in; those left out
// stay as they are until the next run.
func (sy *synthesis) entries(g Group) ([]prompt.SynthesisEntry, []memory.Entry) {
	var out []prompt.SynthesisEntry
	total := 0
	for i, m := range g.Members {
		e := prompt.SynthesisEntry{Label: fmt.Sprintf("entry %d, %s", i+1, m.OccurredAt.UTC().Format(time.DateOnly)),
			Text: truncate(m.Content, sy.cfg.MaxEntryChars)}
		n := utf8.RuneCountInString(e.Block()) + 2 // and the blank line before it
		if i > 0 && total+n > sy.cfg.MaxTotalChars {
			sy.s.log().Warn("consolidation prompt is full: the rest of the group waits for the next run", "agent", g.Kept.AgentID,
				"namespace", g.Namespace, "category", g.Category, "sent", i, "left_out", len(g.Members)-i, "chars", total)
			return out, g.Members[:i]
		}
		out, total = append(out, e), total+n
	}
	return out, g.Members
}

// context returns the agent's latest task records, each cut to
// MaxTrajectoryChars, when configured. They are context, not a
// requirement: a failure to read them is logged and the run goes on.
func (sy *synthesis) context(ctx context.Context, g Group) []string {
	if !sy.cfg.IncludeDistillationContext || sy.cfg.MaxTrajectoryEntries == 0 {
		return nil
	}
	sy.once.Do(func() {
		var recs []memory.Entry
		err := sy.s.DB.View(ctx, func(tx *store.Tx) (err error) {
			recs, err = tx.RecentDistillations(ctx, g.Kept.AgentID, sy.cfg.MaxTrajectoryEntries)
			return err
		})
		if err != nil {
			sy.s.log().Warn("consolidation without task records: reading them failed", "agent", g.Kept.AgentID, "err", err)
			return
		}
		for _, r := range recs {
			sy.trajectories = append(sy.trajectories, truncate(r.Content, sy.cfg.MaxTrajectoryChars))
		}
	})
	return sy.trajectories
}

// refused is the error a run stops with when the server refuses the
// request: what to fix, and what the run left as it was.
func refused(st memory.ConsolidationStrategy, what string, err error) error {
	return memory.Errorf(memory.EINVALID, "strategy %s stopped: the LLM endpoint refused the %s request (HTTP %d); "+
		"check the configured endpoint, model and API key, or use an offline strategy (simple, or dual_mode with the offline summarizer). "+
		"Groups consolidated before it stay consolidated; the others are as they were", st, what, llm.Status(err))
}

// fallbackReason names why the model gave no summary, for the log.
func fallbackReason(err error) string {
	var refusal *llm.RefusalError
	var decode *llm.DecodeError
	switch {
	case llm.Status(err) != 0:
		return fmt.Sprintf("HTTP %d after the retries", llm.Status(err))
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, errEmptyReply):
		return "empty reply"
	case errors.As(err, &refusal):
		return "refused"
	case errors.Is(err, llm.ErrTruncated):
		return "reply cut off at the token limit"
	case errors.As(err, &decode):
		return "malformed reply"
	}
	return "unexpected error"
}
