package memory

import (
	"context"
	"strings"
	"time"
)

// Fine-tuning adapts retrieval to a user's own memories and documents (seed
// 001's pipeline, run on a CPU, offline by default): training pairs made
// from the stored texts, hard negatives mined by the current retrieval, an
// adapter over the embedder trained by contrastive learning, measured on
// held-out pairs against the embedder in force, and deployed only when it
// does better. The adapter's version is part of the embedder's ID, so
// vectors of different versions are never compared.

// FineTuneSource says which stored texts a run learns from.
type FineTuneSource string

// The sources a run can learn from.
const (
	FineTuneFacts    FineTuneSource = "facts"    // the org facts in force
	FineTuneMemories FineTuneSource = "memories" // active memories
	FineTuneAll      FineTuneSource = "all"      // both
)

// ParseFineTuneSource validates a source name; "" is all.
func ParseFineTuneSource(s string) (FineTuneSource, error) {
	switch src := FineTuneSource(strings.ToLower(strings.TrimSpace(s))); src {
	case "":
		return FineTuneAll, nil
	case FineTuneFacts, FineTuneMemories, FineTuneAll:
		return src, nil
	}
	return "", Errorf(EINVALID, "unknown source %q: use facts, memories or all", s)
}

// FineTuneRequest asks for one run of the pipeline.
type FineTuneRequest struct {
	Source FineTuneSource
	// AgentID and Namespace narrow the memories learned from ("" for all).
	AgentID, Namespace string
	// DryRun runs stages 1 to 4 and deploys nothing.
	DryRun bool
	// EvalOnly measures the adapter in force against the base embedder on
	// held-out pairs, and trains nothing.
	EvalOnly bool
	// Rollback returns to the adapter in force before the current one (or
	// to the base embedder alone), and does nothing else.
	Rollback bool
}

// Validate checks that the request asks for one thing.
func (r *FineTuneRequest) Validate() error {
	var err error
	if r.Source, err = ParseFineTuneSource(string(r.Source)); err != nil {
		return err
	}
	if r.Rollback && (r.DryRun || r.EvalOnly) {
		return Errorf(EINVALID, "rollback cannot be combined with dry_run or eval_only: a rollback trains and measures nothing")
	}
	if r.AgentID != "" {
		if err := CheckID("agent_id", r.AgentID); err != nil {
			return err
		}
	}
	return nil
}

// Outcomes of a fine-tuning run (FineTuneReport.Outcome).
const (
	FineTuneDeployed   = "deployed"    // the new adapter is in force
	FineTuneKeptOut    = "kept_out"    // the gate refused it: not better by the margin
	FineTuneDryRun     = "dry_run"     // measured, nothing deployed
	FineTuneEvaluated  = "evaluated"   // the adapter in force measured, nothing trained
	FineTuneRolledBack = "rolled_back" // the previous adapter is in force again
	FineTuneNoPairs    = "no_pairs"    // too little text to learn from
)

// FineTuneFigures are one retriever's figures on a run's held-out pairs:
// each pair's query against the documents, its positive the one answer.
type FineTuneFigures struct {
	Embedder string  `json:"embedder"`
	Role     string  `json:"role"` // base, in_force or candidate
	Pairs    int     `json:"pairs,omitempty"`
	R10      float64 `json:"recall_at_10"`
	NDCG10   float64 `json:"ndcg_at_10"`
}

// FineTuneReport is what a run found and did.
type FineTuneReport struct {
	Outcome  string    `json:"outcome"`
	Base     string    `json:"base_embedder"`
	Before   string    `json:"embedder_before"` // in force when the run started
	After    string    `json:"embedder_after"`  // in force when it ended
	Version  int       `json:"version,omitempty"`
	By       string    `json:"by"` // the human who ran it
	Started  time.Time `json:"started_at"`
	Finished time.Time `json:"finished_at"`
	// Documents counts the texts learned from; Pairs the training pairs
	// each source gave (stage 1), Trained and HeldOut how they were split.
	Documents int            `json:"documents"`
	Pairs     map[string]int `json:"pairs,omitempty"`
	Trained   map[string]int `json:"trained,omitempty"`
	HeldOut   map[string]int `json:"held_out,omitempty"`
	// LLM says why no (or only some) questions came from the model when one
	// is configured: the offline pairs were used.
	LLM string `json:"llm,omitempty"`
	// Truncated counts texts cut to the token caps (documents 512, queries
	// 128), which lose what is past them.
	TruncatedDocuments int `json:"truncated_documents,omitempty"`
	TruncatedQueries   int `json:"truncated_queries,omitempty"`
	// Vectors are the vectors alone on the held-out pairs, Fused the
	// search as it runs (BM25, vectors, time and soft matching fused) on
	// the held-out pairs whose answer is a memory.
	Vectors []FineTuneFigures `json:"vectors,omitempty"`
	Fused   []FineTuneFigures `json:"fused,omitempty"`
	// Wins and Losses count the held-out pairs whose answer the candidate
	// ranks higher, and lower, than the embedder in force; the gate asks
	// for wins - losses >= GateZ * sqrt(wins + losses) (a sign test).
	Wins   int     `json:"wins,omitempty"`
	Losses int     `json:"losses,omitempty"`
	GateZ  float64 `json:"gate_z"`
	// Gate says what the gate decided and why.
	Gate string `json:"gate,omitempty"`
	// Reembedded counts the memories given the new embedder's vectors.
	Reembedded int `json:"reembedded,omitempty"`
}

// FineTuneService runs the fine-tuning pipeline.
type FineTuneService interface {
	FineTune(ctx context.Context, r FineTuneRequest) (FineTuneReport, error)
	// LastFineTune returns the newest run's report, and false when no run
	// has been made.
	LastFineTune(ctx context.Context) (FineTuneReport, bool, error)
}
