package consolidation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/llm/prompt"
)

// dual_mode (seed 004's Dual-Mode Archival): the density classifier votes
// on a group; a dense group keeps its key facts verbatim with anchors
// (extractive), a sparse one is summarised (abstractive) offline by
// extraction, or by the model when the configuration says so, falling back
// to truncated bullets when the model cannot answer.

// Abstractive says who writes dual_mode's abstractive summaries.
type Abstractive string

// Who writes abstractive summaries.
const (
	// AbstractiveOffline extracts the summary: deterministic, no model.
	AbstractiveOffline Abstractive = "offline"
	// AbstractiveLLM asks the configured model (Service.Chat).
	AbstractiveLLM Abstractive = "llm"
)

// ParseAbstractive validates who writes abstractive summaries.
func ParseAbstractive(s string) (Abstractive, error) {
	switch a := Abstractive(strings.ToLower(strings.TrimSpace(s))); a {
	case AbstractiveOffline, AbstractiveLLM:
		return a, nil
	}
	return "", memory.Errorf(memory.EINVALID, "unknown summarizer %q: use offline or llm", s)
}

// DualModeConfig tunes dual_mode (seed 004's DualModeConfig).
type DualModeConfig struct {
	// DenseThreshold is the density score at which a memory is dense
	// (0: all are, 1: almost none; DefaultDenseThreshold).
	DenseThreshold float64
	// MaxFacts bounds the key facts an extractive summary keeps (seed: 20).
	MaxFacts int
	// AnchorLength is the characters of each extractive anchor (seed: 150).
	AnchorLength int
	// Abstractive says who writes the abstractive summaries.
	Abstractive Abstractive
	// MaxSummaryWords bounds the model's summary (seed: 200 tokens).
	MaxSummaryWords int
	// The offline summary's length budget: SummaryRatio of what it
	// replaces, within SummaryMinChars and SummaryMaxChars; and at most
	// SummaryKeywords distinctive words of the sentences it leaves out.
	SummaryRatio    float64
	SummaryMinChars int
	SummaryMaxChars int
	SummaryKeywords int
}

// DefaultDualMode is the seed's dual mode with the offline summariser, whose
// budget (two fifths of what a summary replaces, and twelve words of what
// it leaves out) was chosen on LoCoMo conversations 1-5: at three tenths,
// or eight words, the evidence a summary keeps in its own words fell
// (0.70 and 0.71 of the questions' evidence against 0.75); at a half, or
// sixteen words, it cost more tokens and gained nothing
// (BenchmarkLoCoMoConsolidation).
func DefaultDualMode() DualModeConfig {
	return DualModeConfig{DenseThreshold: DefaultDenseThreshold, MaxFacts: 20, AnchorLength: 150, Abstractive: AbstractiveOffline, MaxSummaryWords: 150,
		SummaryRatio: 0.4, SummaryMinChars: 160, SummaryMaxChars: 1200, SummaryKeywords: 12}
}

// abstractiveSchema is the model's answer: the summary alone.
var abstractiveSchema = llm.Schema{Name: "abstractive_summary", Description: "A summary of a group of memories.",
	JSON: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`)}

// dualMode returns the summarizer that summarises a group by its density:
// extractive when most of the group (its kept memory included) is dense,
// abstractive otherwise. A dry run does not ask the model.
func (s *Service) dualMode(dry bool) summarizer {
	return func(ctx context.Context, g Group) (Draft, error) { return s.dualModeGroup(ctx, g, dry) }
}

func (s *Service) dualModeGroup(ctx context.Context, g Group, dry bool) (Draft, error) {
	c := s.Config.DualMode
	texts := make([]string, len(g.Members))
	for i, m := range g.Members {
		texts[i] = m.Content
	}
	if (DensityClassifier{Threshold: c.DenseThreshold}).Vote(append([]string{g.Kept.Content}, texts...)) == DensityDense {
		return Draft{Content: extractive(texts, c.MaxFacts, c.AnchorLength), Mode: ModeExtractive, Sources: g.Members}, nil
	}
	if c.Abstractive == AbstractiveLLM && dry {
		return Draft{Content: fmt.Sprintf("(a dry run: the model would summarise these %d memories)", len(g.Members)),
			Mode: ModeAbstractive, Sources: g.Members}, nil
	}
	if c.Abstractive == AbstractiveLLM {
		return s.abstractiveLLM(ctx, g.Members)
	}
	// The kept memory goes among the members in the order it occurred,
	// so that a member it updates is not summarised as if it held.
	kept := len(g.Members)
	for i, m := range g.Members {
		if g.Kept.OccurredAt.Before(m.OccurredAt) {
			kept = i
			break
		}
	}
	texts = slices.Insert(texts, kept, g.Kept.Content)
	return Draft{Content: summariseBeside(texts, kept, g.vocab, c), Mode: ModeAbstractive, Sources: g.Members}, nil
}

// abstractiveLLM has the model summarise members, with the seed's
// failure semantics: an empty or unusable reply, or an error retrying could
// fix (rate limits, server errors, a request that timed out, a refusal, a
// malformed reply), falls back to truncated bullets; any other error (the
// provider refused the request: authentication, an unknown model, a bad
// request; or the run was cancelled) is returned, and nothing of the
// group is stored or archived.
func (s *Service) abstractiveLLM(ctx context.Context, members []memory.Entry) (Draft, error) {
	system, user, err := prompt.Abstractive(prompt.AbstractiveData{Memories: members, MaxWords: s.Config.DualMode.MaxSummaryWords})
	if err != nil {
		return Draft{}, fmt.Errorf("render the abstractive prompt: %w", err)
	}
	var reply struct {
		Summary string `json:"summary"`
	}
	schema := abstractiveSchema
	schema.Temperature, schema.MaxTokens = s.Config.LLM.Temperature, 2*s.Config.DualMode.MaxSummaryWords // words to tokens, with room
	err = s.Chat(ctx, system, user, schema, &reply)
	summary := strings.TrimSpace(reply.Summary)
	switch {
	case err != nil && ctx.Err() != nil:
		return Draft{}, fmt.Errorf("abstractive summary: %w", err)
	case err != nil && !fallsBack(ctx, err):
		s.log().Error("abstractive summary refused by the LLM endpoint; the run stops and the group stays as it is", "err", err)
		return Draft{}, refused(memory.ConsolidateDualMode, "summary", err)
	case err == nil && summary == "":
		err = errors.New("the model's summary is empty")
	case err == nil:
		err = memory.CheckText("summary", summary, memory.DefaultMaxContentBytes)
	}
	if err != nil {
		s.log().Warn("abstractive summary fell back to truncation", "err", err)
		return Draft{Content: concatenate(members, s.Config.TruncateAt), Mode: ModeTruncation, Sources: members}, nil
	}
	return Draft{Content: summary, Mode: ModeAbstractive, Sources: members}, nil
}

// fallsBack reports whether err, from the model, takes the seed's
// truncation path: what retrying could fix (llm.Retryable, which also
// counts a refusal and a malformed reply), and one request running out of
// time while the run goes on. The provider refusing the request, or the
// run itself ending, does not.
func fallsBack(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return llm.Retryable(err) || errors.Is(err, context.DeadlineExceeded)
}
