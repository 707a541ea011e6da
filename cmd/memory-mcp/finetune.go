package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/finetune"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// finetuneFlags are the flags of `memory-mcp finetune`. Its --agent-id
// narrows the memories learned from, as erase's does; the operator's own
// agent id comes from the environment or the config file.
type finetuneFlags struct {
	source    string
	agent     string
	namespace string
	pairs     string
	evalOnly  bool
	rollback  bool
	dryRun    bool
	seed      uint64
	gateZ     float64
}

func (f *finetuneFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.source, "source", "all", "what to learn from: facts (the org facts in force), memories (active memories) or all")
	fs.StringVar(&f.agent, "agent-id", "", "learn from this agent's memories only (default: every agent's); "+
		"your own agent id comes from MEMORY_MCP_AGENT_ID or the config file here")
	fs.StringVar(&f.namespace, "namespace", "", "learn from the memories of this namespace only")
	fs.StringVar(&f.pairs, "pairs", "ict", "offline training pairs, comma-separated: ict (a sentence of a text and the rest of it), "+
		"neighbour (a memory and the next of its episode); with llm-model set, the model's questions are added")
	fs.BoolVar(&f.evalOnly, "eval-only", false, "measure the adapter in force against the base embedder on held-out pairs; train nothing")
	fs.BoolVar(&f.rollback, "rollback", false, "return to the adapter in force before the current one (or to the base embedder), re-embedding every memory")
	fs.BoolVar(&f.dryRun, "dry-run", false, "train and measure, print the report, deploy nothing")
	fs.Uint64Var(&f.seed, "seed", finetune.DefaultConfig().Train.Seed, "the seed of the held-out split, the sampling and the training: "+
		"the same seed and data make the same adapter")
	fs.Float64Var(&f.gateZ, "gate-z", finetune.DefaultConfig().GateZ, "deploy only when, of the held-out pairs, the new adapter ranks the answer "+
		"higher than the embedder in force for more than lower by this many standard deviations (a sign test; 1.645 is 5%)")
}

// fineTune runs the pipeline from the command line as a human operator: it
// changes the vectors of every agent's memories. The report goes to
// stdout, progress and logs to stderr. Interrupted (Ctrl-C) before the
// deployment lands, it leaves the embedder in force and every vector as
// they were.
func fineTune(ctx context.Context, cfg *Config, f *finetuneFlags, stdout, stderr io.Writer) error {
	if !cfg.Identity.Human {
		return fmt.Errorf("fine-tuning changes the vectors of every agent's memories, which only a human operator may: add --human")
	}
	req := memory.FineTuneRequest{Source: memory.FineTuneSource(f.source), AgentID: f.agent, Namespace: f.namespace,
		DryRun: f.dryRun, EvalOnly: f.evalOnly, Rollback: f.rollback}
	if err := req.Validate(); err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	log := newLogger(cfg, stderr)
	db, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	base, err := newEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	if base == nil {
		return fmt.Errorf("embedder is none: there are no vectors to adapt; choose --embedder offline or openai")
	}
	svc, err := newFineTune(cfg, db, *base, log, f)
	if err != nil {
		return err
	}
	bars := stageBars(stderr)
	svc.Progress = bars.progress
	rep, err := svc.FineTune(memory.WithIdentity(ctx, cfg.Identity), req)
	bars.done()
	if err != nil {
		return fmt.Errorf("%s", errorText(err))
	}
	printFineTune(stdout, rep)
	return nil
}

// newFineTune wires the pipeline: the base embedder, the word key, the
// model for questions when one is configured, and the search's settings
// for the fused figures. f, when set, carries the command's flags.
func newFineTune(cfg *Config, db *store.DB, base memory.Embedder, log *slog.Logger, f *finetuneFlags) (*finetune.Service, error) {
	svc := finetune.New(db, cfg.DataDir, base, db.AdapterWordKey())
	svc.Log, svc.Batch = log, cfg.EmbeddingBatchSize
	svc.Retrieval = cfg.Retrieval
	if cfg.EmbedderFloor {
		svc.Retrieval.VectorFloor = base.Floor
	}
	if cfg.Retrieval.SoftWeight > 0 {
		svc.Words = store.NewWordVectors(wordvec.New())
	}
	if cfg.llmUnusable() == "" {
		svc.Chat = llm.New(cfg.LLM).ChatJSON
	}
	if f == nil {
		return svc, nil
	}
	svc.Offline = nil
	for _, p := range strings.Split(f.pairs, ",") {
		src := finetune.Source(strings.TrimSpace(p))
		if src != finetune.SourceICT && src != finetune.SourceNeighbour {
			return nil, fmt.Errorf("--pairs: unknown source %q: use ict, neighbour or both (ict,neighbour)", p)
		}
		svc.Offline = append(svc.Offline, src)
	}
	if math.IsNaN(f.gateZ) || math.IsInf(f.gateZ, 0) {
		return nil, fmt.Errorf("--gate-z %v is not a number", f.gateZ)
	}
	svc.Config.Train.Seed, svc.Config.GateZ = f.seed, f.gateZ
	return svc, nil
}

// inForce is the embedder new vectors are made with: the configured one
// through the adapter deployed over it, if any. An adapter that cannot be
// loaded is logged and the configured embedder used: memory stays
// reachable by keyword, and the log says how out.
func inForce(ctx context.Context, cfg *Config, db *store.DB, base *memory.Embedder, log *slog.Logger) *memory.Embedder {
	if base == nil {
		return nil
	}
	emb, err := finetune.InForce(ctx, db, cfg.DataDir, *base, db.AdapterWordKey())
	if err != nil {
		log.Error("the fine-tuned adapter in force cannot be loaded: new vectors are made by the base embedder, and memories embedded "+
			"through the adapter are searched by keyword only, until `memory-mcp finetune --rollback --human`", "embedder", base.ID, "err", err)
		return base
	}
	return &emb
}

// follow makes the index switch to the embedder in force whenever a
// deployment lands, in any process.
func follow(cfg *Config, db *store.DB, base memory.Embedder, x *store.Index) {
	x.Follow = func(ctx context.Context) (memory.Embedder, error) {
		return finetune.InForce(ctx, db, cfg.DataDir, base, db.AdapterWordKey())
	}
}

// printFineTune writes a run's report: what it learned from, the figures
// side by side, what the gate decided and what is in force now.
func printFineTune(w io.Writer, r memory.FineTuneReport) {
	fmt.Fprintf(w, "fine-tuning over %s: %s in force before, %s now\n", r.Base, r.Before, r.After)
	if r.Outcome == memory.FineTuneRolledBack {
		fmt.Fprintf(w, "rolled back: %d memories re-embedded\n", r.Reembedded)
		return
	}
	fmt.Fprintf(w, "stage 1: %d documents; pairs %s; trained on %s, held out %s\n", r.Documents, sourceCounts(r.Pairs),
		sourceCounts(r.Trained), sourceCounts(r.HeldOut))
	if r.LLM != "" {
		fmt.Fprintf(w, "  %s\n", r.LLM)
	}
	if r.TruncatedDocuments+r.TruncatedQueries > 0 {
		fmt.Fprintf(w, "  cut to the token caps: %d documents (512), %d queries (128)\n", r.TruncatedDocuments, r.TruncatedQueries)
	}
	if len(r.Vectors) > 0 {
		fmt.Fprintln(w, "stage 4, on held-out pairs the training never saw:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "\tsearch\trole\tembedder\tpairs\tR@10\tNDCG@10\t")
		for _, part := range []struct {
			name string
			figs []memory.FineTuneFigures
		}{{"vectors alone", r.Vectors}, {"fused", r.Fused}} {
			for _, f := range part.figs {
				if f.Pairs == 0 {
					continue
				}
				fmt.Fprintf(tw, "\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t\n", part.name, f.Role, f.Embedder, f.Pairs, f.R10, f.NDCG10)
			}
		}
		tw.Flush()
		if len(r.Fused) > 0 && r.Fused[0].Pairs == 0 {
			fmt.Fprintln(w, "  fused: no held-out pair to measure it on (inverse-cloze queries are sentences of their answer, which keywords find verbatim; "+
				"--pairs ict,neighbour or a model's questions give some)")
		}
	}
	if r.Gate != "" {
		fmt.Fprintf(w, "gate: %s\n", r.Gate)
	}
	switch r.Outcome {
	case memory.FineTuneDeployed:
		fmt.Fprintf(w, "deployed %s: %d memories re-embedded\n", r.After, r.Reembedded)
	case memory.FineTuneKeptOut:
		fmt.Fprintf(w, "kept out: %s stays in force\n", r.After)
	case memory.FineTuneDryRun:
		fmt.Fprintln(w, "dry run: nothing deployed")
	case memory.FineTuneEvaluated:
		fmt.Fprintln(w, "evaluated: nothing trained or deployed")
	case memory.FineTuneNoPairs:
		fmt.Fprintln(w, "too little to learn from: nothing trained")
	}
}

func sourceCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// bars draws a progress bar per stage on stderr (plain lines when stderr
// is not a terminal), ending one when the next begins.
type bars struct {
	w        io.Writer
	terminal bool
	stage    finetune.Stage
	draw     func(done, total int)
}

// stageUnits are what each stage counts.
var stageUnits = map[finetune.Stage]string{finetune.StageEmbed: "texts", finetune.StageMine: "pairs", finetune.StageTrain: "steps",
	finetune.StageMeasure: "held-out pairs", finetune.StageIndex: "memories"}

func stageBars(w io.Writer) *bars { return &bars{w: w, terminal: isTerminal(w)} }

func (b *bars) progress(stage finetune.Stage, done, total int) {
	if stage != b.stage {
		b.done()
		b.stage = stage
		b.draw = progressLines(b.w, "finetune "+string(stage), stageUnits[stage])
		if b.terminal {
			b.draw = progressBar(b.w, "finetune "+fmt.Sprintf("%-7s", stage), time.Now())
		}
	}
	b.draw(done, total)
}

func (b *bars) done() {
	if b.terminal && b.stage != "" {
		fmt.Fprintln(b.w)
	}
	b.stage = ""
}

// lazyFineTune is the pipeline behind the finetune tools, made at their
// first call: making it needs the base embedder, and an OpenAI-compatible
// one is asked for its dimension, which a server must not wait on at start
// nor fail without.
type lazyFineTune struct {
	cfg *Config
	db  *store.DB
	log *slog.Logger
	mu  sync.Mutex
	svc *finetune.Service
}

func (l *lazyFineTune) get(ctx context.Context) (*finetune.Service, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.svc != nil {
		return l.svc, nil
	}
	base, err := newEmbedder(ctx, l.cfg)
	if err != nil {
		return nil, memory.Errorf(memory.EBUSY, "the embedder %s cannot be reached (retry when it can): %v", l.cfg.Embedder, err)
	}
	if base == nil {
		return nil, memory.Errorf(memory.EINVALID, "this server has no embedder (--embedder none): there are no vectors to fine-tune")
	}
	if l.svc, err = newFineTune(l.cfg, l.db, *base, l.log, nil); err != nil {
		return nil, err
	}
	return l.svc, nil
}

// FineTune runs the pipeline.
func (l *lazyFineTune) FineTune(ctx context.Context, r memory.FineTuneRequest) (memory.FineTuneReport, error) {
	if who, err := memory.RequireIdentity(ctx); err != nil || !who.Human {
		// The service says so too; saying it first spares an agent's call
		// the embedder's start.
		return memory.FineTuneReport{}, memory.Errorf(memory.EFORBIDDEN,
			"fine-tuning changes the vectors of every agent's memories and learns from any agent's, which only a human may ask for")
	}
	svc, err := l.get(ctx)
	if err != nil {
		return memory.FineTuneReport{}, err
	}
	return svc.FineTune(ctx, r) // one run at a time per data directory: the service's lease
}

// LastFineTune returns the newest run's report.
func (l *lazyFineTune) LastFineTune(ctx context.Context) (memory.FineTuneReport, bool, error) {
	if who, err := memory.RequireIdentity(ctx); err != nil || !who.Human {
		return memory.FineTuneReport{}, false, memory.Errorf(memory.EFORBIDDEN, "fine-tuning reports are for the human operators who run it")
	}
	svc, err := l.get(ctx)
	if err != nil {
		return memory.FineTuneReport{}, false, err
	}
	return svc.LastFineTune(ctx)
}

// scheduleFineTune retrains the adapter once finetune-every memories have
// arrived since the last run, as operator as: a human's stdio server, or
// the team server (a run re-embeds every agent's memories, so no agent's
// server schedules it).
func scheduleFineTune(ctx context.Context, cfg *Config, db *store.DB, log *slog.Logger, as memory.Identity) {
	base, err := newEmbedder(ctx, cfg)
	if err != nil || base == nil {
		log.Error("scheduled fine-tuning needs an embedder: not scheduled", "embedder", cfg.Embedder, "err", err)
		return
	}
	svc, err := newFineTune(cfg, db, *base, log, nil)
	if err != nil {
		log.Error("scheduled fine-tuning: not scheduled", "err", err)
		return
	}
	log.Info("fine-tuning scheduled", "every_memories", cfg.FineTune.Every, "check", cfg.FineTune.Check)
	svc.Schedule(ctx, as, cfg.FineTune.Every, cfg.FineTune.Check)
}
