package finetune_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/finetune"
	"github.com/memory-mcp/memory-mcp/llm"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

var testKey = []byte("test word key")

// notes are memories an agent might keep: two sentences each, about one
// of a few subjects, so that inverse-cloze pairs have something to learn.
func notes(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	who := []string{"Caroline", "Melanie", "the build bot", "our lead", "the on-call engineer"}
	did := []string{"went hiking near the lake", "fixed the flaky deploy pipeline", "painted a sunrise over the harbour",
		"moved the database to a bigger disk", "adopted a puppy from the shelter", "wrote the postmortem for the outage",
		"planted tomatoes in the garden", "renewed the TLS certificates"}
	why := []string{"It took most of the afternoon.", "Everyone agreed it was worth the effort.", "The kids loved every minute of it.",
		"The alerts stopped firing after that.", "Nobody expected it to go so smoothly.", "We should do it again next spring."}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %s on day %d. %s", pick(who), pick(did), i, pick(why))
	}
	return out
}

type fixture struct {
	dir string
	db  *store.DB
	mem *store.MemoryService
	svc *finetune.Service
}

// newFixture is a data directory with n memories of one agent, embedded
// by the offline embedder, and a fine-tuning service over it whose gate
// passes any adapter unless a test says otherwise.
func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	base := wordvec.New()
	mem := store.NewMemoryService(db, &base)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann"})
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, text := range notes(n, 1) {
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: text, OccurredAt: start.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	svc := finetune.New(db, dir, base, testKey)
	svc.Config.GateZ, svc.Config.FusedDrop = -1e6, 1
	svc.Log = discard()
	return &fixture{dir: dir, db: db, mem: mem, svc: svc}
}

// embedders counts the memories by the embedder of their vector.
func (f *fixture) embedders(t *testing.T) map[string]int {
	t.Helper()
	out, staged, err := f.db.VectorCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if staged != 0 {
		t.Errorf("%d vectors left staged", staged)
	}
	return out
}

// operator is the human the tests run the pipeline as.
var operator = memory.WithIdentity(context.Background(), memory.Identity{AgentID: "olivia", Human: true})

func (f *fixture) run(t *testing.T, r memory.FineTuneRequest) memory.FineTuneReport {
	t.Helper()
	rep, err := f.svc.FineTune(operator, r)
	if err != nil {
		t.Fatalf("FineTune(%+v): %v", r, err)
	}
	return rep
}

// checkpoint is the path of the checkpoint in force.
func (f *fixture) checkpoint(t *testing.T) string {
	t.Helper()
	rec, err := f.db.InForce(context.Background(), wordvec.ID)
	if err != nil || rec.File == "" {
		t.Fatalf("no checkpoint in force: %+v, %v", rec, err)
	}
	return filepath.Join(f.dir, finetune.AdapterDir, rec.File)
}

func (f *fixture) inForce(t *testing.T) string {
	t.Helper()
	emb, err := finetune.InForce(context.Background(), f.db, f.dir, wordvec.New(), testKey)
	if err != nil {
		t.Fatal(err)
	}
	return emb.ID
}

// TestFineTuneDeploysAndRollsBack: a deployed adapter re-embeds every
// memory and is the embedder in force; deploys stack, and rollbacks return
// through them to the base embedder.
func TestFineTuneDeploysAndRollsBack(t *testing.T) {
	f := newFixture(t, 200)
	const n = 200
	rep := f.run(t, memory.FineTuneRequest{})
	if rep.Outcome != memory.FineTuneDeployed || rep.Version != 1 || rep.After != wordvec.ID+"+ft1" || rep.Before != wordvec.ID {
		t.Fatalf("first run: %+v", rep)
	}
	if rep.Pairs["ict"] == 0 || rep.Trained["ict"] == 0 || rep.HeldOut["ict"] == 0 || rep.Documents != n {
		t.Errorf("pairs %v, trained %v, held out %v of %d documents", rep.Pairs, rep.Trained, rep.HeldOut, rep.Documents)
	}
	if len(rep.Vectors) != 2 || rep.Vectors[0].Role != "base" || rep.Vectors[1].Role != "candidate" || rep.Vectors[1].Pairs == 0 {
		t.Errorf("vector figures %+v: want the base's and the candidate's", rep.Vectors)
	}
	if got := f.embedders(t); got[wordvec.ID+"+ft1"] != n || rep.Reembedded != n {
		t.Fatalf("after deploying: embedders %v, %d re-embedded; want all %d on +ft1", got, rep.Reembedded, n)
	}
	if _, err := os.Stat(f.checkpoint(t)); err != nil {
		t.Errorf("checkpoint of version 1: %v", err)
	}
	if id := f.inForce(t); id != wordvec.ID+"+ft1" {
		t.Errorf("in force %s, want +ft1", id)
	}
	if last, ok, err := f.svc.LastFineTune(operator); err != nil || !ok || last.Outcome != memory.FineTuneDeployed || last.Version != 1 {
		t.Errorf("LastFineTune = %+v, %v, %v", last, ok, err)
	}

	rep = f.run(t, memory.FineTuneRequest{})
	if rep.Version != 2 || rep.Before != wordvec.ID+"+ft1" || len(rep.Vectors) != 3 || rep.Vectors[1].Role != "in_force" {
		t.Fatalf("second run: %+v", rep)
	}
	for _, want := range []string{"+ft1", ""} {
		rep = f.run(t, memory.FineTuneRequest{Rollback: true})
		if rep.Outcome != memory.FineTuneRolledBack || rep.After != wordvec.ID+want {
			t.Fatalf("rollback: %+v, want %s in force", rep, wordvec.ID+want)
		}
		if got := f.embedders(t); got[wordvec.ID+want] != n {
			t.Fatalf("after rolling back to %q: embedders %v", want, got)
		}
	}
	_, err := f.svc.FineTune(operator, memory.FineTuneRequest{Rollback: true})
	if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "nothing to roll back") {
		t.Errorf("rollback past the base: %v", err)
	}
	agent := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann", Seniority: memory.SeniorityPrincipal})
	if _, err := f.svc.FineTune(agent, memory.FineTuneRequest{DryRun: true}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Errorf("an agent asking for a run: %v, want EFORBIDDEN", err)
	}
	if last, _, _ := f.svc.LastFineTune(operator); last.By != "olivia" {
		t.Errorf("the last run's report names %q as who ran it, want olivia", last.By)
	}
	if _, _, err := f.svc.LastFineTune(agent); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Errorf("an agent asking for the last report: %v, want EFORBIDDEN", err)
	}
}

// TestFineTuneGate: an adapter that does not beat the embedder in force by
// the margin is kept out, and so is everything a dry run or an evaluation
// makes: no checkpoint, no vector changed, the report kept.
func TestFineTuneGate(t *testing.T) {
	f := newFixture(t, 120)
	f.svc.Config.GateZ = 1e6 // no adapter is better by a million standard deviations
	rep := f.run(t, memory.FineTuneRequest{})
	if rep.Outcome != memory.FineTuneKeptOut || !strings.Contains(rep.Gate, "under 1000000.000): not better") {
		t.Fatalf("run under an impossible margin: %+v", rep)
	}
	if rep := f.run(t, memory.FineTuneRequest{DryRun: true}); rep.Outcome != memory.FineTuneDryRun || rep.After != wordvec.ID ||
		!strings.Contains(rep.Gate, "not better") {
		t.Fatalf("dry run: %+v", rep)
	}
	if rep := f.run(t, memory.FineTuneRequest{EvalOnly: true}); rep.Outcome != memory.FineTuneEvaluated || len(rep.Vectors) != 1 {
		t.Fatalf("evaluation with no adapter in force: %+v", rep)
	}
	if got := f.embedders(t); got[wordvec.ID] != 120 || len(got) != 1 {
		t.Errorf("embedders %v: want every vector as it was", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.dir, finetune.AdapterDir)); len(entries) != 0 {
		t.Errorf("%d checkpoint files after runs that deployed nothing", len(entries))
	}
	if last, ok, _ := f.svc.LastFineTune(operator); !ok || last.Outcome != memory.FineTuneEvaluated {
		t.Errorf("last report %+v, want the evaluation's", last)
	}
}

// TestFineTuneRefusesABadCheckpoint: a damaged or replaced checkpoint in
// force is refused with a clear error, never read as an adapter; a
// rollback to the base embedder does not need it.
func TestFineTuneRefusesABadCheckpoint(t *testing.T) {
	f := newFixture(t, 100)
	f.run(t, memory.FineTuneRequest{})
	path := f.checkpoint(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"damaged":   append(append([]byte{}, data[:100]...), append([]byte{data[100] ^ 0xff}, data[101:]...)...),
		"truncated": data[:len(data)/2],
		"foreign":   []byte("some other file entirely"),
	} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := finetune.InForce(context.Background(), f.db, f.dir, wordvec.New(), testKey)
		if !errors.Is(err, finetune.ErrCheckpoint) || !strings.Contains(err.Error(), "not the file that was deployed") {
			t.Errorf("%s checkpoint: InForce = %v, want it refused", name, err)
		}
		if _, err := f.svc.FineTune(operator, memory.FineTuneRequest{}); !errors.Is(err, finetune.ErrCheckpoint) {
			t.Errorf("%s checkpoint: FineTune = %v, want it refused", name, err)
		}
	}
	if rep := f.run(t, memory.FineTuneRequest{Rollback: true}); rep.After != wordvec.ID {
		t.Errorf("rollback with a bad checkpoint in force: %+v", rep)
	}
}

// TestFineTuneStoppedDeploysNothing: a run stopped while it re-embeds the
// memories leaves the embedder in force and every vector as they were.
func TestFineTuneStoppedDeploysNothing(t *testing.T) {
	f := newFixture(t, 300)
	ctx, cancel := context.WithCancel(operator)
	f.svc.Batch = 50
	f.svc.Progress = func(stage finetune.Stage, done, total int) {
		if stage == finetune.StageIndex && done >= 100 {
			cancel()
		}
	}
	_, err := f.svc.FineTune(ctx, memory.FineTuneRequest{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing was deployed") {
		t.Fatalf("stopped run: %v", err)
	}
	if got := f.embedders(t); got[wordvec.ID] != 300 || len(got) != 1 {
		t.Errorf("embedders after the stopped run %v: want every vector as it was", got)
	}
	if id := f.inForce(t); id != wordvec.ID {
		t.Errorf("in force after the stopped run: %s", id)
	}
}

// TestFineTuneNeedsPairs: too little text is said, not trained on.
func TestFineTuneNeedsPairs(t *testing.T) {
	f := newFixture(t, 5)
	if rep := f.run(t, memory.FineTuneRequest{}); rep.Outcome != memory.FineTuneNoPairs || !strings.Contains(rep.Gate, "at least 20") {
		t.Errorf("run over 5 memories: %+v", rep)
	}
}

// fakeModel is an OpenAI-compatible chat endpoint: it answers each request
// with questions about the document fenced in it, or fails with status
// once failAfter requests were answered (-1: never).
func fakeModel(t *testing.T, failAfter int32, status int) (*llm.Client, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if i := n.Add(1); failAfter >= 0 && i > failAfter {
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"model unavailable","type":"server_error"}}`)
			return
		}
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		day := "0"
		if user := req.Messages[len(req.Messages)-1].Content; strings.Contains(user, "on day ") {
			day = strings.Fields(user[strings.Index(user, "on day ")+7:])[0]
		}
		content, _ := json.Marshal(map[string]any{"questions": []string{"What happened on day " + strings.TrimSuffix(day, ".") + "?", "day " + day}})
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": string(content)}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", Retries: -1}), &n
}

// TestFineTuneQuestionsFromAModel: with a model, its questions are pairs
// too; when it fails, the run goes on with the offline pairs and says so.
func TestFineTuneQuestionsFromAModel(t *testing.T) {
	f := newFixture(t, 60)
	f.svc.Questions = finetune.QuestionConfig{Docs: 40, PerDoc: 2, Parallel: 2}
	model, calls := fakeModel(t, -1, 0)
	f.svc.Chat = model.ChatJSON
	rep := f.run(t, memory.FineTuneRequest{DryRun: true})
	if rep.Pairs["llm"] != 80 || rep.LLM != "" || calls.Load() != 40 {
		t.Errorf("with a working model: pairs %v, llm note %q, %d calls; want 80 questions from 40 calls", rep.Pairs, rep.LLM, calls.Load())
	}

	failing, _ := fakeModel(t, 10, http.StatusInternalServerError)
	f.svc.Chat = failing.ChatJSON
	rep = f.run(t, memory.FineTuneRequest{DryRun: true})
	if rep.Outcome != memory.FineTuneDryRun || rep.Pairs["ict"] == 0 || !strings.Contains(rep.LLM, "the model failed") ||
		!strings.Contains(rep.LLM, "500") {
		t.Errorf("with a model failing after 10 calls: %+v", rep)
	}
	if rep.Pairs["llm"] > 20 {
		t.Errorf("%d questions from a model that answered 10 calls", rep.Pairs["llm"])
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fakeEmbeddings is an OpenAI-compatible /v1/embeddings endpoint: each
// text's vector is the sum of its words' fixed pseudo-random directions in
// 16 dimensions, so texts that share words point alike.
func fakeEmbeddings(t *testing.T) *llm.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, text := range req.Input {
			v := make([]float64, 16)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				rng := rand.New(rand.NewPCG(uint64(len(word)), uint64(word[0])<<8|uint64(word[len(word)-1])))
				for k := range v {
					v[k] += rng.NormFloat64()
				}
			}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
	}))
	t.Cleanup(srv.Close)
	return llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", Retries: -1})
}

// TestFineTuneOverAnAPIEmbedder: an OpenAI-compatible embedder is adapted
// the same way, by the map alone (it has no words to weigh), and its id
// names the version.
func TestFineTuneOverAnAPIEmbedder(t *testing.T) {
	base, err := llm.NewEmbedder(context.Background(), fakeEmbeddings(t), llm.EmbedConfig{Dimensions: 16})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem := store.NewMemoryService(db, &base)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: "ann"})
	for _, text := range notes(150, 3) {
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	svc := finetune.New(db, dir, base, testKey)
	svc.Config.GateZ, svc.Log = -1e6, discard()
	rep, err := svc.FineTune(operator, memory.FineTuneRequest{})
	if err != nil || rep.Outcome != memory.FineTuneDeployed || rep.After != "openai:m:16+ft1" {
		t.Fatalf("run over the API embedder: %+v, %v", rep, err)
	}
	emb, err := finetune.InForce(context.Background(), db, dir, base, testKey)
	if err != nil || emb.ID != "openai:m:16+ft1" || emb.Dim != 16 {
		t.Fatalf("in force: %+v, %v", emb, err)
	}
	rec, err := db.InForce(context.Background(), base.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, err := finetune.ReadCheckpoint(filepath.Join(dir, finetune.AdapterDir, rec.File), rec.SHA256, base, 1)
	if err != nil || len(a.Words) != 0 {
		t.Errorf("checkpoint over the API embedder: %d word weights, %v; want none", len(a.Words), err)
	}
	counts, _, err := db.VectorCounts(context.Background())
	if err != nil || counts["openai:m:16+ft1"] != 150 {
		t.Errorf("vectors %v, %v", counts, err)
	}
}

// TestOneRunAtATime: while another process's run holds the data
// directory's fine-tuning lease, a run is refused (EBUSY, naming it) and
// changes nothing; once released, it runs, and releases the lease itself.
func TestOneRunAtATime(t *testing.T) {
	f := newFixture(t, 60)
	var other store.Lease
	if err := f.db.Update(context.Background(), func(tx *store.Tx) (err error) {
		other, _, err = tx.AcquireLease(context.Background(), "finetune", "another process's run", time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.FineTune(operator, memory.FineTuneRequest{DryRun: true})
	if memory.ErrorCode(err) != memory.EBUSY || !strings.Contains(err.Error(), "another process's run") {
		t.Fatalf("a run while another holds the lease: %v, want EBUSY naming it", err)
	}
	if _, ok, _ := f.svc.LastFineTune(operator); ok {
		t.Fatal("the refused run recorded a report")
	}
	if err := f.db.Update(context.Background(), func(tx *store.Tx) error { return tx.ReleaseLease(context.Background(), other) }); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the first run releases the lease it took
		if _, err := f.svc.FineTune(operator, memory.FineTuneRequest{DryRun: true}); err != nil {
			t.Fatalf("a run once the lease is free: %v", err)
		}
	}
}
