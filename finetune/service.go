package finetune

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
)

// Service implements memory.FineTuneService: the five stages over the
// store, an adapter deployed only when it beats the embedder in force.
type Service struct {
	DB *store.DB
	// Dir is the data directory; checkpoints are kept in its adapters folder.
	Dir string
	// Base is the configured embedder, which adapters are trained over.
	Base memory.Embedder
	// WordKey hashes the words of word weights (see wordvec.WordHash).
	WordKey []byte
	// Chat, when set, writes synthetic questions (stage 1) besides the
	// offline pairs; nil is offline.
	Chat      llm.ChatFunc
	Questions QuestionConfig
	// Offline are the sources of offline pairs.
	Offline []Source
	Config  Config
	// Retrieval and Words are the search's settings, as the server runs
	// it, for the fused figures of stage 4.
	Retrieval store.RetrievalConfig
	Words     *store.WordVectors
	// Batch is how many memories are embedded per call in stage 5.
	Batch    int
	Progress Progress
	Log      *slog.Logger
}

var _ memory.FineTuneService = (*Service)(nil)

// New returns a service over db in data directory dir with the default
// settings, offline.
func New(db *store.DB, dir string, base memory.Embedder, wordKey []byte) *Service {
	return &Service{DB: db, Dir: dir, Base: base, WordKey: wordKey, Questions: DefaultQuestions(),
		Offline: []Source{SourceICT}, Config: DefaultConfig(), Retrieval: store.DefaultRetrieval(), Batch: 256,
		Log: slog.Default()}
}

// minPairs is the fewest pairs a run learns from: fewer make an adapter
// that the held-out pairs cannot judge.
const minPairs = 20

// FineTune runs the pipeline as r asks, for a human caller: a run changes
// the vectors of every agent's memories, and learns from any agent's.
func (s *Service) FineTune(ctx context.Context, r memory.FineTuneRequest) (memory.FineTuneReport, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.FineTuneReport{}, err
	}
	if !who.Human {
		return memory.FineTuneReport{}, memory.Errorf(memory.EFORBIDDEN,
			"fine-tuning changes the vectors of every agent's memories and learns from any agent's, which only a human may ask for; you are agent %q", who.AgentID)
	}
	if err := r.Validate(); err != nil {
		return memory.FineTuneReport{}, err
	}
	ctx, release, err := s.hold(ctx)
	if err != nil {
		return memory.FineTuneReport{}, err
	}
	defer release()
	rep := memory.FineTuneReport{Base: s.Base.ID, By: who.AgentID, Started: s.DB.Now.Now(), GateZ: s.Config.GateZ, Pairs: map[string]int{}}
	if r.Rollback {
		// A rollback needs no checkpoint but the one it returns to: it
		// is the way out when the one in force is damaged.
		return s.rollback(ctx, rep)
	}
	rec, inForce, err := s.inForce(ctx)
	if err != nil {
		return rep, err
	}
	rep.Before, rep.After = memory.AdaptedEmbedderID(s.Base.ID, rec.Version), memory.AdaptedEmbedderID(s.Base.ID, rec.Version)
	memories, err := s.DB.ActiveMemories(ctx)
	if err != nil {
		return rep, err
	}
	docs, err := s.documents(ctx, r)
	if err != nil {
		return rep, err
	}
	rep.Documents = len(docs)
	pairs, err := s.pairs(ctx, docs, &rep)
	if err != nil {
		return rep, err
	}
	if len(pairs) < minPairs {
		rep.Outcome = memory.FineTuneNoPairs
		rep.Gate = fmt.Sprintf("%d training pairs from %d documents; at least %d are needed", len(pairs), len(docs), minPairs)
		return rep, s.record(ctx, &rep, memories)
	}
	version := 0
	if !r.EvalOnly {
		if version, err = s.DB.NextAdapterVersion(ctx, s.Base.ID); err != nil {
			return rep, err
		}
	}
	tuned, err := Tune(ctx, Input{Base: s.Base, InForce: inForce, Docs: docs, Pairs: pairs, Version: version, WordKey: s.WordKey},
		s.Config, !r.EvalOnly, s.Progress)
	if err != nil {
		return rep, err
	}
	if err := s.measure(ctx, r, docs, tuned, inForce, &rep); err != nil {
		return rep, err
	}
	return s.decide(ctx, r, tuned, rec.Version, memories, rep)
}

// decide applies the gate and deploys, or records why not.
func (s *Service) decide(ctx context.Context, r memory.FineTuneRequest, t *Tuned, from, memories int, rep memory.FineTuneReport) (memory.FineTuneReport, error) {
	if r.EvalOnly {
		rep.Outcome = memory.FineTuneEvaluated
		return rep, s.record(ctx, &rep, memories)
	}
	rep.Version = t.Adapter.Version
	passed := s.gate(t, &rep)
	switch {
	case r.DryRun:
		rep.Outcome = memory.FineTuneDryRun
	case !passed:
		rep.Outcome = memory.FineTuneKeptOut
	default:
		return s.deploy(ctx, t.Adapter, from, memories, rep)
	}
	return rep, s.record(ctx, &rep, memories)
}

// documents reads the texts r names.
func (s *Service) documents(ctx context.Context, r memory.FineTuneRequest) ([]Doc, error) {
	sel := store.TuningSelection{Facts: r.Source != memory.FineTuneMemories, Memories: r.Source != memory.FineTuneFacts,
		Agent: r.AgentID, Namespace: r.Namespace}
	texts, err := s.DB.TuningTexts(ctx, sel)
	if err != nil {
		return nil, err
	}
	docs := make([]Doc, len(texts))
	for i, t := range texts {
		docs[i] = Doc{ID: t.ID, Fact: t.Fact, Agent: t.Agent, Namespace: t.Namespace, Text: t.Content, At: t.At}
	}
	return docs, nil
}

// pairs runs stage 1: the offline pairs, and the model's questions when
// one is configured. The model failing is said in the report and the run
// goes on with the offline pairs.
func (s *Service) pairs(ctx context.Context, docs []Doc, rep *memory.FineTuneReport) ([]Pair, error) {
	var out []Pair
	for _, src := range s.Offline {
		var ps []Pair
		switch src {
		case SourceICT:
			ps = ICTPairs(docs, rand.New(rand.NewPCG(s.Config.Train.Seed, 0x1c7)))
		case SourceNeighbour:
			ps = NeighbourPairs(docs)
		default:
			return nil, fmt.Errorf("unknown source of offline pairs %q: use ict or neighbour", src)
		}
		out = append(out, ps...)
		rep.Pairs[string(src)] = len(ps)
	}
	if s.Chat == nil {
		return out, nil
	}
	qs, err := QuestionPairs(ctx, s.Chat, docs, s.Questions, s.Config.Train.Seed)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep.Pairs[string(SourceLLM)] = len(qs)
	if err != nil {
		rep.LLM = fmt.Sprintf("the model failed, so the run learns from the offline pairs and the %d questions it wrote before: %v", len(qs), err)
		s.Log.Warn("fine-tuning: the model's questions failed; going on with the offline pairs", "questions", len(qs), "err", err)
	}
	return append(out, qs...), nil
}

// measure fills the report's stage 4: the vectors alone and the fused
// search, for the base, the adapter in force and the candidate.
func (s *Service) measure(ctx context.Context, r memory.FineTuneRequest, docs []Doc, t *Tuned, inForce *Adapter, rep *memory.FineTuneReport) error {
	rep.Trained, rep.HeldOut = counts(t.Trained), counts(t.HeldOut)
	rep.TruncatedDocuments, rep.TruncatedQueries = t.TruncatedDocs, t.TruncatedQueries
	if t.TruncatedDocs+t.TruncatedQueries > 0 {
		s.Log.Warn("fine-tuning: texts were cut to the token caps, so what is past the cap was not learned from",
			"documents", t.TruncatedDocs, "document_cap", DocTokens, "queries", t.TruncatedQueries, "query_cap", QueryTokens)
	}
	type role struct {
		name    string
		adapter *Adapter
		vectors Scores
	}
	roles := []role{{"base", nil, t.Base}}
	if inForce != nil {
		roles = append(roles, role{"in_force", inForce, t.InForce})
	}
	if t.Adapter != nil {
		roles = append(roles, role{"candidate", t.Adapter, t.Adapted})
	}
	for _, ro := range roles {
		id := s.Base.ID
		if ro.adapter != nil {
			id = ro.adapter.ID()
		}
		rep.Vectors = append(rep.Vectors, figures(id, ro.name, ro.vectors.All))
		fused, err := s.fused(ctx, r, docs, t, ro.adapter)
		if err != nil {
			return err
		}
		rep.Fused = append(rep.Fused, figures(id, ro.name, fused))
	}
	return nil
}

func figures(id, role string, f Figures) memory.FineTuneFigures {
	return memory.FineTuneFigures{Embedder: id, Role: role, Pairs: f.Pairs, R10: f.R10, NDCG10: f.NDCG}
}

func counts(m map[Source]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

// gate decides whether the candidate is deployed (see Config.GateZ): of
// the held-out pairs, significantly more ranked higher than lower by its
// vectors than by the embedder in force's, and the fused search's
// Recall@10 not lower by more than Config.FusedDrop. It writes why in the
// report.
func (s *Service) gate(t *Tuned, rep *memory.FineTuneReport) bool {
	ref := rep.Vectors[len(rep.Vectors)-2]
	fref, fcand := rep.Fused[len(rep.Fused)-2], rep.Fused[len(rep.Fused)-1]
	rep.Wins, rep.Losses = t.Wins, t.Losses
	z := 0.0
	if n := t.Wins + t.Losses; n > 0 {
		z = float64(t.Wins-t.Losses) / math.Sqrt(float64(n))
	}
	ranked := fmt.Sprintf("of %d held-out pairs the candidate ranks the answer higher than %s for %d, lower for %d (z %.2f",
		rep.Vectors[len(rep.Vectors)-1].Pairs, ref.Role, t.Wins, t.Losses, z)
	switch {
	case rep.Vectors[len(rep.Vectors)-1].Pairs == 0:
		rep.Gate = "no held-out pairs to measure the adapter on"
		return false
	case !t.Passed:
		rep.Gate = fmt.Sprintf("%s, under %.3f): not better", ranked, s.Config.GateZ)
		return false
	case fcand.Pairs > 0 && fcand.R10 < fref.R10-s.Config.FusedDrop:
		rep.Gate = fmt.Sprintf("%s), but the fused search's held-out Recall@10 is %.3f against %.3f: more than %.3f worse", ranked,
			fcand.R10, fref.R10, s.Config.FusedDrop)
		return false
	}
	rep.Gate = fmt.Sprintf("%s, at least %.3f): better", ranked, s.Config.GateZ)
	return true
}

// inForce returns the record of the adapter in force and the adapter,
// read from its checkpoint (nil when the base embedder is in force).
func (s *Service) inForce(ctx context.Context) (store.AdapterRecord, *Adapter, error) {
	rec, err := s.DB.InForce(ctx, s.Base.ID)
	if err != nil || rec.Version == 0 {
		return rec, nil, err
	}
	a, err := ReadCheckpoint(filepath.Join(s.Dir, AdapterDir, rec.File), rec.SHA256, s.Base, rec.Version)
	return rec, a, err
}

// InForce returns the embedder in force over base in the data directory
// dir: base itself, or base through the adapter deployed over it. A
// checkpoint that fails its checks is an error, never a silent fallback to
// base, whose vectors are not the ones stored.
func InForce(ctx context.Context, db *store.DB, dir string, base memory.Embedder, wordKey []byte) (memory.Embedder, error) {
	s := &Service{DB: db, Dir: dir, Base: base}
	_, a, err := s.inForce(ctx)
	if err != nil || a == nil {
		return base, err
	}
	return a.Embedder(base, wordKey)
}

// deploy runs stage 5: the checkpoint written, the memories re-embedded
// into the staging table and the deployment landed at once.
func (s *Service) deploy(ctx context.Context, a *Adapter, from, memories int, rep memory.FineTuneReport) (memory.FineTuneReport, error) {
	data, err := a.MarshalBinary()
	if err != nil {
		return rep, err
	}
	name := CheckpointName(a.Base, a.Version, data)
	if err := WriteCheckpoint(filepath.Join(s.Dir, AdapterDir, name), data); err != nil {
		return rep, err
	}
	emb, err := a.Embedder(s.Base, s.WordKey)
	if err != nil {
		return rep, err
	}
	rep.Outcome = memory.FineTuneDeployed
	d := store.EmbedderDeployment{Base: s.Base.ID, Version: a.Version, From: from, File: name,
		SHA256: fmt.Sprintf("%x", sha256.Sum256(data)), By: rep.By}
	return s.land(ctx, emb, d, memories, rep)
}

// rollback returns to the adapter in force before the current one.
func (s *Service) rollback(ctx context.Context, rep memory.FineTuneReport) (memory.FineTuneReport, error) {
	stack, err := s.DB.AdapterStack(ctx, s.Base.ID)
	if err != nil {
		return rep, err
	}
	if len(stack) == 0 {
		return rep, memory.Errorf(memory.EINVALID, "no adapter is in force over %s: there is nothing to roll back", s.Base.ID)
	}
	emb, target := s.Base, store.AdapterRecord{}
	if len(stack) > 1 {
		target = stack[len(stack)-2]
		a, err := ReadCheckpoint(filepath.Join(s.Dir, AdapterDir, target.File), target.SHA256, s.Base, target.Version)
		if err != nil {
			return rep, fmt.Errorf("roll back to version %d: %w", target.Version, err)
		}
		if emb, err = a.Embedder(s.Base, s.WordKey); err != nil {
			return rep, err
		}
	}
	memories, err := s.DB.ActiveMemories(ctx)
	if err != nil {
		return rep, err
	}
	cur := stack[len(stack)-1].Version
	rep.Before, rep.After = memory.AdaptedEmbedderID(s.Base.ID, cur), memory.AdaptedEmbedderID(s.Base.ID, cur)
	rep.Outcome, rep.Version = memory.FineTuneRolledBack, target.Version
	d := store.EmbedderDeployment{Base: s.Base.ID, Version: target.Version, Rollback: true, From: cur, By: rep.By}
	return s.land(ctx, emb, d, memories, rep)
}

// land re-embeds every memory with emb into the staging table and lands
// the deployment, which swaps them in at once; then it re-embeds the
// memories stored meanwhile. Stopped or failed before the deployment, it
// leaves every stored vector and the embedder in force as they were.
func (s *Service) land(ctx context.Context, emb memory.Embedder, d store.EmbedderDeployment, memories int, rep memory.FineTuneReport) (memory.FineTuneReport, error) {
	if err := s.DB.ClearStagedVectors(ctx, fence(ctx)); err != nil {
		return rep, err
	}
	_, err := store.Reindex(store.WithoutCall(ctx), s.DB, emb, store.ReindexOptions{Batch: s.Batch, Stage: true, Progress: s.Progress.of(StageIndex), Fence: fence(ctx)})
	if err == nil {
		rep.After, rep.Finished = emb.ID, s.DB.Now.Now()
		d.Run, err = s.run(rep, memories)
		if err == nil {
			d.Fence = fence(ctx)
			rep.Reembedded, err = s.DB.DeployEmbedder(ctx, d)
		}
	}
	if err != nil {
		// Leave nothing staged; ctx may be what stopped the run.
		if cerr := s.DB.ClearStagedVectors(context.WithoutCancel(ctx), fence(ctx)); cerr != nil {
			s.Log.Warn("fine-tuning: staged vectors left behind; the next run clears them", "err", cerr)
		}
		rep.After = rep.Before
		return rep, fmt.Errorf("nothing was deployed, every stored vector is as it was: %w", err)
	}
	n, err := store.Reindex(store.WithoutCall(ctx), s.DB, emb, store.ReindexOptions{Batch: s.Batch, StaleOnly: true})
	if err != nil {
		return rep, fmt.Errorf("%s is in force; %d memories stored during the run keep other vectors (found by keyword) until `memory-mcp reindex --missing`: %w",
			emb.ID, n, err)
	}
	rep.Reembedded += n
	return rep, nil
}

// run is the store's record of a run.
func (s *Service) run(rep memory.FineTuneReport, memories int) (store.TuningRun, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return store.TuningRun{}, fmt.Errorf("encode report: %w", err)
	}
	return store.TuningRun{Base: s.Base.ID, Outcome: rep.Outcome, Version: rep.Version, Started: rep.Started, Finished: rep.Finished,
		By: rep.By, Memories: memories, Report: string(b)}, nil
}

// record stores the record of a run that deployed nothing.
func (s *Service) record(ctx context.Context, rep *memory.FineTuneReport, memories int) error {
	rep.Finished = s.DB.Now.Now()
	r, err := s.run(*rep, memories)
	if err != nil {
		return err
	}
	return s.DB.RecordTuningRun(ctx, fence(ctx), r)
}

// LastFineTune returns the newest run's report over the base embedder.
func (s *Service) LastFineTune(ctx context.Context) (memory.FineTuneReport, bool, error) {
	who, err := memory.RequireIdentity(ctx)
	if err != nil {
		return memory.FineTuneReport{}, false, err
	}
	if !who.Human {
		// A report names the humans who ran the pipeline and what it learned
		// from; the pipeline is a human's to run, and its record too.
		return memory.FineTuneReport{}, false, memory.Errorf(memory.EFORBIDDEN,
			"fine-tuning reports are for the human operators who run it; you are agent %q", who.AgentID)
	}
	r, ok, err := s.DB.LastTuningRun(ctx, s.Base.ID)
	if err != nil || !ok {
		return memory.FineTuneReport{}, ok, err
	}
	var rep memory.FineTuneReport
	if err := json.Unmarshal([]byte(r.Report), &rep); err != nil {
		return rep, false, fmt.Errorf("decode the report of run %d: %w", r.Seq, err)
	}
	return rep, true, nil
}

// Due reports whether every memories have arrived since the last run
// (since the first memory, when there was none): the scheduled retrain.
func (s *Service) Due(ctx context.Context, every int) (bool, error) {
	if every <= 0 {
		return false, nil
	}
	n, err := s.DB.ActiveMemories(ctx)
	if err != nil {
		return false, err
	}
	last, ok, err := s.DB.LastTuningRun(ctx, s.Base.ID)
	if err != nil {
		return false, err
	}
	if !ok {
		return n >= every, nil
	}
	return n-last.Memories >= every, nil
}

// maxFusedQueries bounds the held-out pairs the fused search is measured
// on: a search of a large store takes milliseconds, and a few hundred
// queries judge it as well as thousands.
const maxFusedQueries = 500

// fused measures the search as it runs, with the memories' vectors made by
// adapter a (nil: the base embedder), on the held-out pairs whose answer
// is a memory: each query searched as the memory's agent, the answer's
// rank among the first 10 (the memory the query came from, when another,
// left out). Inverse-cloze pairs are left out: their query is a sentence
// of the stored memory, which keywords find verbatim (on LoCoMo the fused
// search ranked it in the top 10 for 99% of them, whatever the vectors).
func (s *Service) fused(ctx context.Context, r memory.FineTuneRequest, docs []Doc, t *Tuned, a *Adapter) (Figures, error) {
	var held []Pair
	for _, p := range t.Held {
		if !docs[p.Doc].Fact && p.Source != SourceICT && len(held) < maxFusedQueries {
			held = append(held, p)
		}
	}
	if len(held) == 0 {
		return Figures{}, nil
	}
	svc, err := s.searchWith(ctx, docs, t, a)
	if err != nil {
		return Figures{}, err
	}
	var f Figures
	for i, p := range held {
		if s.Progress != nil {
			s.Progress(StageMeasure, i, len(held))
		}
		d := docs[p.Doc]
		q := memory.Query{Text: p.Query, Scope: memory.ScopePersonal, Limit: 11}
		if r.Namespace != "" {
			q.Namespaces = []string{r.Namespace}
		}
		hits, err := svc.Search(memory.WithIdentity(ctx, memory.Identity{AgentID: d.Agent}), q)
		if memory.ErrorCode(err) == memory.EINVALID {
			continue // a query the search refuses (no searchable word): not a search anyone makes
		}
		if err != nil {
			return f, err
		}
		rank, k := 0, 0
		for _, h := range hits {
			if p.From != p.Doc && h.ID == docs[p.From].ID {
				continue
			}
			if k++; h.ID == d.ID {
				rank = k
				break
			}
		}
		f.add(rank)
	}
	return f.mean(), nil
}

// searchWith is a memory service over the store whose index holds the
// documents' vectors made by adapter a (nil: the base embedder).
func (s *Service) searchWith(ctx context.Context, docs []Doc, t *Tuned, a *Adapter) (*store.MemoryService, error) {
	emb, vecs := s.Base, t.base
	if a != nil {
		var err error
		if emb, err = a.Embedder(s.Base, s.WordKey); err != nil {
			return nil, err
		}
		if vecs, err = t.c.through(ctx, a, Input{Base: s.Base, WordKey: s.WordKey}, t.base, nil); err != nil {
			return nil, err
		}
	}
	byID := make(map[string][]float32, len(docs))
	for i, d := range docs {
		if !d.Fact {
			byID[d.ID] = vecs.docs[i]
		}
	}
	svc := store.NewMemoryService(s.DB, &emb)
	svc.Retrieval, svc.Words, svc.Log = s.Retrieval, s.Words, s.Log
	svc.Index.Log = s.Log
	if _, err := svc.Index.LoadVectors(ctx, func(id string) []float32 { return byID[id] }); err != nil {
		return nil, err
	}
	return svc, nil
}
