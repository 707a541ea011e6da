package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
)

// adaptedEmbedder stands for base's fine-tuned adapter of a version: base's
// vectors with their halves swapped, as different as another embedder's.
func adaptedEmbedder(base memory.Embedder, version int) memory.Embedder {
	return memory.Embedder{ID: memory.AdaptedEmbedderID(base.ID, version), Dim: base.Dim,
		Embed: func(ctx context.Context, texts []string) ([][]float32, error) {
			vecs, err := base.Embed(ctx, texts)
			for _, v := range vecs {
				h := len(v) / 2
				for i := range h {
					v[i], v[h+i] = v[h+i], v[i]
				}
			}
			return vecs, err
		}}
}

// embedders lists the embedder of every memory, in order of storage.
func embedders(t *testing.T, db *store.DB) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT coalesce(embedder, '') FROM memories ORDER BY pk`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

func staged(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM memory_vectors_next`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func stage(t *testing.T, db *store.DB, emb memory.Embedder) {
	t.Helper()
	if _, err := store.Reindex(context.Background(), db, emb, store.ReindexOptions{Stage: true}); err != nil {
		t.Fatal(err)
	}
}

// TestDeployEmbedder: staged vectors change nothing until the deployment,
// which swaps them all at once; another process follows the deployment and
// embeds with the adapter from then on; deploys and rollbacks are a stack,
// and one that does not follow from the stack in force is refused.
func TestDeployEmbedder(t *testing.T) {
	base := hashEmbedder("hash-32", 32)
	path := filepath.Join(t.TempDir(), store.FileName)
	open := func() (*store.MemoryService, *store.DB) {
		db, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s := store.NewMemoryService(db, &base)
		s.Retrieval = configs()["vector"]
		if _, err := s.Index.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s, db
	}
	a, db := open()
	b, _ := open() // another process on the same file
	v1 := adaptedEmbedder(base, 1)
	b.Index.Follow = func(ctx context.Context) (memory.Embedder, error) {
		rec, err := db.InForce(ctx, base.ID)
		if rec.Version == 0 {
			return base, err
		}
		return adaptedEmbedder(base, rec.Version), err
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, remember(t, a, ann, memory.EntryWrite{Content: fmt.Sprintf("deploy fixture %d about kites", i)}).ID)
	}
	stage(t, db, v1)
	if got := embedders(t, db); !slices.Equal(got, []string{"hash-32", "hash-32", "hash-32"}) || staged(t, db) != 3 {
		t.Fatalf("after staging: embedders %v, %d staged; want the stored vectors untouched and 3 staged", got, staged(t, db))
	}
	late := remember(t, a, ann, memory.EntryWrite{Content: "written after staging, about kites"})
	run := store.TuningRun{Base: base.ID, Outcome: "deployed", Version: 1, By: "op", Report: "{}"}
	n, err := db.DeployEmbedder(context.Background(), store.EmbedderDeployment{Base: base.ID, Version: 1, From: 0,
		File: "hash-32-ft1.adapter", SHA256: "ab", By: "op", Run: run})
	if err != nil || n != 3 {
		t.Fatalf("deploy = %d, %v; want 3 vectors swapped", n, err)
	}
	if got := embedders(t, db); !slices.Equal(got, []string{"hash-32+ft1", "hash-32+ft1", "hash-32+ft1", "hash-32"}) || staged(t, db) != 0 {
		t.Fatalf("after deploying: embedders %v, %d staged; want the staged swapped in, the late one as it was", got, staged(t, db))
	}

	// The other process switches on its next search, finds by the
	// adapter's vectors, and stores new vectors with it.
	if got := search(t, b, ann, memory.Query{Text: "kites"}); len(got) != 3 || !slices.Contains(got, ids[0]) || slices.Contains(got, late.ID) {
		t.Errorf("other process after the deployment found %v, want the 3 re-embedded memories", got)
	}
	if id := b.CurrentEmbedder().ID; id != "hash-32+ft1" {
		t.Errorf("other process embeds with %s after the deployment, want hash-32+ft1", id)
	}
	remember(t, b, ann, memory.EntryWrite{Content: "written by the process that followed"})
	if got := embedders(t, db); got[4] != "hash-32+ft1" {
		t.Errorf("memory written after following stored with %q", got[4])
	}

	if rec, err := db.InForce(context.Background(), base.ID); err != nil || rec.Version != 1 || rec.File != "hash-32-ft1.adapter" || rec.SHA256 != "ab" {
		t.Errorf("InForce = %+v, %v", rec, err)
	}
	if v, err := db.NextAdapterVersion(context.Background(), base.ID); err != nil || v != 2 {
		t.Errorf("NextAdapterVersion = %d, %v; want 2", v, err)
	}
	if r, ok, err := db.LastTuningRun(context.Background(), base.ID); err != nil || !ok || r.Outcome != "deployed" || r.Version != 1 {
		t.Errorf("LastTuningRun = %+v, %v, %v", r, ok, err)
	}

	_, err = db.DeployEmbedder(context.Background(), store.EmbedderDeployment{Base: base.ID, Version: 2, From: 0, Run: run})
	wantCode(t, err, memory.ECONFLICT, "adapter version 1 is in force over hash-32 now, not 0")
	_, err = db.DeployEmbedder(context.Background(), store.EmbedderDeployment{Base: base.ID, Version: 1, From: 1, Rollback: true, Run: run})
	wantCode(t, err, memory.ECONFLICT, "returns to version 0, not 1")

	// Rolling back to the base embedder alone.
	stage(t, db, base)
	if _, err := db.DeployEmbedder(context.Background(), store.EmbedderDeployment{Base: base.ID, Version: 0, From: 1, Rollback: true, Run: run}); err != nil {
		t.Fatal(err)
	}
	if stack, err := db.AdapterStack(context.Background(), base.ID); err != nil || len(stack) != 0 {
		t.Errorf("stack after rolling back = %+v, %v; want empty", stack, err)
	}
	search(t, b, ann, memory.Query{Text: "kites"})
	if id := b.CurrentEmbedder().ID; id != "hash-32" {
		t.Errorf("other process embeds with %s after the rollback, want hash-32", id)
	}
	_, err = db.DeployEmbedder(context.Background(), store.EmbedderDeployment{Base: base.ID, Version: 0, From: 0, Rollback: true, Run: run})
	wantCode(t, err, memory.ECONFLICT, "nothing to roll back")
}

// TestAdapterStack: deploys push, rollbacks pop.
func TestAdapterStack(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		ctx := context.Background()
		step := func(version, from int, rollback bool) {
			t.Helper()
			_, err := db.DeployEmbedder(ctx, store.EmbedderDeployment{Base: "b", Version: version, From: from, Rollback: rollback,
				File: fmt.Sprintf("b-ft%d.adapter", version), SHA256: "x", Run: store.TuningRun{Base: "b", Outcome: "test", Report: "{}"}})
			if err != nil {
				t.Fatal(err)
			}
		}
		versions := func() []int {
			stack, err := db.AdapterStack(ctx, "b")
			if err != nil {
				t.Fatal(err)
			}
			var out []int
			for _, r := range stack {
				out = append(out, r.Version)
			}
			return out
		}
		step(1, 0, false)
		step(2, 1, false)
		step(1, 2, true)
		if got := versions(); !slices.Equal(got, []int{1}) {
			t.Fatalf("deploy 1, deploy 2, roll back: %v, want [1]", got)
		}
		step(3, 1, false)
		if got := versions(); !slices.Equal(got, []int{1, 3}) {
			t.Fatalf("then deploy 3: %v, want [1 3]", got)
		}
		if v, _ := db.NextAdapterVersion(ctx, "b"); v != 4 {
			t.Errorf("next version %d, want 4: a version names one adapter for good", v)
		}
		if stack, _ := db.AdapterStack(ctx, "other"); len(stack) != 0 {
			t.Errorf("another base's stack %v, want empty", stack)
		}
	})
}

// TestEraseTakesStagedVectors: a vector staged for a memory that is then
// erased does not outlive it.
func TestEraseTakesStagedVectors(t *testing.T) {
	emb := hashEmbedder("hash-32", 32)
	s, db, _ := memories(t, &emb)
	keep := remember(t, s, ann, memory.EntryWrite{Content: "a memory that stays"})
	gone := remember(t, s, ann, memory.EntryWrite{Content: "a memory to erase"})
	stage(t, db, adaptedEmbedder(emb, 1))
	if _, err := s.Erase(as(human), memory.ErasureRequest{IDs: []string{gone.ID}, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if n := staged(t, db); n != 1 {
		t.Errorf("%d staged vectors after erasing one of two memories, want 1 (of %s)", n, keep.ID)
	}
}

func TestTuningTexts(t *testing.T) {
	emb := hashEmbedder("hash-32", 32)
	s, db, _ := memories(t, &emb)
	facts := store.NewFactService(db)
	if _, err := facts.Publish(as(human), memory.FactWrite{FactID: "policy-a", Content: "Deploys need two approvals.", Category: memory.FactProcedure}); err != nil {
		t.Fatal(err)
	}
	a1 := remember(t, s, ann, memory.EntryWrite{Content: "ann at work", Namespace: "work"})
	a2 := remember(t, s, ann, memory.EntryWrite{Content: "ann at home"})
	b1 := remember(t, s, bob, memory.EntryWrite{Content: "bob at home"})
	forgotten := remember(t, s, ann, memory.EntryWrite{Content: "ann forgot this"})
	if _, err := s.Forget(as(ann), forgotten.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(as(ann), a2.ID); err != nil { // its shared copy repeats it
		t.Fatal(err)
	}
	ids := func(sel store.TuningSelection) []string {
		texts, err := db.TuningTexts(context.Background(), sel)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range texts {
			out = append(out, x.ID)
		}
		return out
	}
	for _, tt := range []struct {
		sel  store.TuningSelection
		want []string
	}{
		{store.TuningSelection{Facts: true}, []string{"policy-a"}},
		{store.TuningSelection{Memories: true}, []string{a1.ID, a2.ID, b1.ID}},
		{store.TuningSelection{Facts: true, Memories: true, Agent: "ann"}, []string{"policy-a", a1.ID, a2.ID}},
		{store.TuningSelection{Memories: true, Agent: "ann", Namespace: "work"}, []string{a1.ID}},
	} {
		if got := ids(tt.sel); !slices.Equal(got, tt.want) {
			t.Errorf("TuningTexts(%+v) = %v, want %v", tt.sel, got, tt.want)
		}
	}
}

// TestEraseWhileStagingLeavesNoVector: a memory erased while its batch is
// being embedded (another process's erase) leaves no staged vector, nor
// hands its vector to the next memory, which SQLite gives its freed row
// number; and the same for a reindex that writes into the memories.
func TestEraseWhileStagingLeavesNoVector(t *testing.T) {
	for _, staging := range []bool{true, false} {
		emb := hashEmbedder("hash-32", 32)
		s, db, _ := memories(t, &emb)
		remember(t, s, ann, memory.EntryWrite{Content: "a memory that stays"})
		gone := remember(t, s, ann, memory.EntryWrite{Content: "a memory to erase while it is embedded"})
		adapted := adaptedEmbedder(emb, 1)
		embed := adapted.Embed
		var next memory.Entry
		adapted.Embed = func(ctx context.Context, texts []string) ([][]float32, error) {
			vecs, err := embed(ctx, texts)
			if next.ID == "" { // once, between the batch's read and its write
				if _, err := s.Erase(as(human), memory.ErasureRequest{IDs: []string{gone.ID}, Reason: "test"}); err != nil {
					t.Fatal(err)
				}
				next = remember(t, s, ann, memory.EntryWrite{Content: "a new memory in the freed row"})
			}
			return vecs, err
		}
		if _, err := store.Reindex(context.Background(), db, adapted, store.ReindexOptions{Stage: staging}); err != nil {
			t.Fatal(err)
		}
		var stagedForNew, adaptedNew int
		db.SQL().QueryRow(`SELECT count(*) FROM memory_vectors_next n JOIN memories m ON m.pk = n.pk WHERE m.id = ?`, next.ID).Scan(&stagedForNew)
		db.SQL().QueryRow(`SELECT count(*) FROM memories WHERE id = ? AND embedder = ?`, next.ID, adapted.ID).Scan(&adaptedNew)
		if staging && staged(t, db) != 1 {
			t.Errorf("%d staged vectors, want 1: the erased memory's vector was staged", staged(t, db))
		}
		if stagedForNew != 0 || adaptedNew != 0 {
			t.Errorf("staging %v: the memory in the freed row got the erased memory's vector (staged %d, stored %d)", staging, stagedForNew, adaptedNew)
		}
	}
}

// TestFineTuneWritesFenced: a fine-tuning run whose lease expired and was
// taken over by a second run stages, clears, records and deploys nothing:
// each write checks the run's token in its own transaction. The second
// run's writes, under the current token, go through.
func TestFineTuneWritesFenced(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		a, b, clk, _ := twoHolders(t, openDB)
		ctx := context.Background()
		take := func(db *store.DB, holder string) store.Lease {
			t.Helper()
			var l store.Lease
			var ok bool
			if err := db.Update(ctx, func(tx *store.Tx) (err error) {
				l, ok, err = tx.AcquireLease(ctx, "finetune", holder, time.Minute)
				return err
			}); err != nil || !ok {
				t.Fatalf("acquire for %s: %+v %v %v", holder, l, ok, err)
			}
			return l
		}
		base := hashEmbedder("hash-32", 32)
		v1 := adaptedEmbedder(base, 1)
		stale := take(a, "stalled run")
		clk.Advance(2 * time.Minute)
		current := take(b, "second run")
		if current.Token != stale.Token+1 {
			t.Fatalf("tokens %d then %d", stale.Token, current.Token)
		}
		lost := func(what string, err error) {
			t.Helper()
			var l *store.LeaseLostError
			if !errors.As(err, &l) || memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), "second run") {
				t.Errorf("%s under the stale token: %v, want the lease lost to the second run", what, err)
			}
		}
		_, err := store.Reindex(ctx, a, v1, store.ReindexOptions{Stage: true, Fence: stale})
		lost("staging", err)
		if staged(t, a) != 0 {
			t.Fatalf("%d vectors staged under the stale token", staged(t, a))
		}
		stage(t, b, v1) // the second run's staging, unfenced here: the stale run must not clear it
		lost("clearing", a.ClearStagedVectors(ctx, stale))
		run := store.TuningRun{Base: base.ID, Outcome: "deployed", Version: 1, By: "op", Report: "{}"}
		lost("recording", a.RecordTuningRun(ctx, stale, run))
		_, err = a.DeployEmbedder(ctx, store.EmbedderDeployment{Base: base.ID, Version: 1, File: "f", SHA256: "ab", Run: run, Fence: stale})
		lost("deploying", err)
		if got := embedders(t, a); !slices.Equal(got, []string{"", "", "", ""}) || staged(t, a) != 4 {
			t.Fatalf("after the stale run's writes: embedders %v, %d staged; want nothing changed", got, staged(t, a))
		}
		if _, ok, err := a.LastTuningRun(ctx, ""); ok || err != nil {
			t.Fatalf("the stale run recorded a run (%v)", err)
		}
		n, err := b.DeployEmbedder(ctx, store.EmbedderDeployment{Base: base.ID, Version: 1, File: "f", SHA256: "ab", Run: run, Fence: current})
		if err != nil || n != 4 {
			t.Fatalf("the current run's deploy = %d, %v", n, err)
		}
	})
}

// TestTuningTextsOnBothEngines: what a fine-tuning run learns from, read
// on either engine: the facts in force (not a retracted one), then the
// active personal memories in storage order (not the sources a summary
// archived, but the summary), narrowed by agent and namespace.
func TestTuningTextsOnBothEngines(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, db, _ := memoriesOn(t, openDB, &emb)
		facts := store.NewFactService(db)
		for _, id := range []string{"policy-a", "policy-b"} {
			if _, err := facts.Publish(as(human), memory.FactWrite{FactID: id, Content: "Deploys need " + id + ".", Category: memory.FactProcedure}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := facts.Retract(as(human), memory.FactRetract{FactID: "policy-b", Reason: "replaced"}); err != nil {
			t.Fatal(err)
		}
		a1 := remember(t, s, ann, memory.EntryWrite{Content: "ann at work", Namespace: "work"})
		a2 := remember(t, s, ann, memory.EntryWrite{Content: "ann at home"})
		b1 := remember(t, s, bob, memory.EntryWrite{Content: "bob at home"})
		a3 := remember(t, s, ann, memory.EntryWrite{Content: "ann planted beans"})
		a4 := remember(t, s, ann, memory.EntryWrite{Content: "ann watered beans"})
		sum, err := consolidate(t, db, ann, "ann grows beans", a3.ID, a4.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			sel  store.TuningSelection
			want []string
		}{
			{store.TuningSelection{Facts: true}, []string{"policy-a"}},
			{store.TuningSelection{Memories: true}, []string{a1.ID, a2.ID, b1.ID, sum.ID}},
			{store.TuningSelection{Facts: true, Memories: true, Agent: "ann"}, []string{"policy-a", a1.ID, a2.ID, sum.ID}},
			{store.TuningSelection{Memories: true, Agent: "ann", Namespace: "work"}, []string{a1.ID}},
		} {
			texts, err := db.TuningTexts(context.Background(), tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range texts {
				got = append(got, x.ID)
				if x.Content == "" || x.At.IsZero() {
					t.Errorf("text %+v has no content or time", x)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("TuningTexts(%+v) = %v, want %v", tt.sel, got, tt.want)
			}
		}
	})
}
