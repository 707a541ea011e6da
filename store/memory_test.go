package store_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/store"
	"github.com/memory-mcp/memory-mcp/store/storetest"
	"github.com/memory-mcp/memory-mcp/store/wordvec"
)

// hashEmbedder is a deterministic stand-in for a real embedder: each word
// (as store.Words splits it) adds a fixed pseudo-random direction, so texts
// sharing words point the same way. It lets tests exercise the vector path
// without the word-vector table.
func hashEmbedder(id string, dim int) memory.Embedder {
	return memory.Embedder{ID: id, Dim: dim, Embed: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			v := make([]float32, dim)
			for _, w := range store.Words(t) {
				h := fnv.New64a()
				h.Write([]byte(w))
				x := h.Sum64()
				for j := range 4 {
					k := int(x>>(16*j)) % dim
					if k < 0 {
						k = -k
					}
					v[k] += float32(1 - 2*int((x>>(8+j))&1))
				}
			}
			out[i] = v
		}
		return out, nil
	}}
}

// memories opens a fresh database with a memory service over it. The clock
// advances one second per reading from 2026-01-01.
func memories(t testing.TB, emb *memory.Embedder) (*store.MemoryService, *store.DB, *storetest.Clock) {
	t.Helper()
	return memoriesOn(t, openDB, emb)
}

// memoriesOn is memories on the store open opens (see onEngines).
func memoriesOn(t testing.TB, open opener, emb *memory.Embedder) (*store.MemoryService, *store.DB, *storetest.Clock) {
	t.Helper()
	db, clk := open(t)
	s := store.NewMemoryService(db, emb)
	if s.Index != nil {
		if _, err := s.Index.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return s, db, clk
}

// ann and bob are declared with the block tests.

func remember(t testing.TB, s *store.MemoryService, who memory.Identity, w memory.EntryWrite) memory.Entry {
	t.Helper()
	e, err := s.Remember(as(who), w)
	if err != nil {
		t.Fatalf("remember %q: %v", w.Content, err)
	}
	return e.Entry
}

func search(t testing.TB, s *store.MemoryService, who memory.Identity, q memory.Query) []string {
	t.Helper()
	hits, err := s.Search(as(who), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func wantCode(t testing.TB, err error, code, substr string) {
	t.Helper()
	if memory.ErrorCode(err) != code || !strings.Contains(memory.ErrorMessage(err), substr) {
		t.Fatalf("err = %v, want %s containing %q", err, code, substr)
	}
}

func TestRememberStoresEveryFieldAndVector(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, db, _ := memoriesOn(t, openDB, &emb)
		conf := 0.7
		occurred := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		expires := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
		e := remember(t, s, ann, memory.EntryWrite{Namespace: "proj-x", Category: memory.CategoryEpisodic, Content: "Deployed v2 to staging",
			Tags: []string{"deploy", " deploy", "staging"}, Confidence: &conf, Source: "ci run 42", OccurredAt: occurred, ExpiresAt: expires})
		if !strings.HasPrefix(e.ID, "mem-") || e.AgentID != "ann" || e.Namespace != "proj-x" || e.Category != memory.CategoryEpisodic ||
			!slices.Equal(e.Tags, []string{"deploy", "staging"}) || e.Confidence != 0.7 || e.Source != "ci run 42" ||
			!e.OccurredAt.Equal(occurred) || !e.ExpiresAt.Equal(expires) || e.Shared || e.CreatedAt.IsZero() {
			t.Fatalf("entry = %+v", e)
		}
		if p := e.Provenance; p.Author.AgentID != "ann" || p.Author.Seniority != memory.SeniorityMid || p.Source != "ci run 42" {
			t.Fatalf("provenance = %+v", p)
		}
		var embedder string
		var n int
		err := db.SQL().QueryRow(rawSQL(db, `SELECT embedder, length(embedding) FROM memories WHERE id = ?`), e.ID).Scan(&embedder, &n)
		if err != nil || embedder != "hash-32" || n != 32*4 {
			t.Fatalf("stored vector: embedder %q, %d bytes, %v", embedder, n, err)
		}

		d := remember(t, s, ann, memory.EntryWrite{Content: "defaults"})
		if d.Namespace != memory.DefaultNamespace || d.Category != memory.DefaultCategory || d.Confidence != 1 ||
			!d.OccurredAt.Equal(d.CreatedAt) || d.ExpiresAt != nil || len(d.Tags) != 0 {
			t.Fatalf("defaults = %+v", d)
		}
	})
}

func TestRememberRejectsBadInput(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, clk := memoriesOn(t, openDB, nil)
		s.MaxContentBytes = 100
		neg, over := -0.1, 1.5
		past := clk.Peek().Add(-time.Hour)
		for _, tc := range []struct {
			name string
			w    memory.EntryWrite
			want string
		}{
			{"empty content", memory.EntryWrite{Content: "  \n"}, "content is empty"},
			{"oversize content", memory.EntryWrite{Content: strings.Repeat("x", 150)}, "content is 150 bytes; the limit is 100 bytes (50 over)"},
			{"invalid utf-8", memory.EntryWrite{Content: "a\xffb"}, "not valid UTF-8"},
			{"unknown category", memory.EntryWrite{Content: "x", Category: "dreams"}, `unknown category "dreams"`},
			{"bad namespace", memory.EntryWrite{Content: "x", Namespace: "a b"}, `namespace "a b" may contain only`},
			{"negative confidence", memory.EntryWrite{Content: "x", Confidence: &neg}, "confidence -0.1 is out of range"},
			{"confidence above 1", memory.EntryWrite{Content: "x", Confidence: &over}, "confidence 1.5 is out of range"},
			{"expiry in the past", memory.EntryWrite{Content: "x", ExpiresAt: past}, "is not in the future"},
			{"long tag", memory.EntryWrite{Content: "x", Tags: []string{strings.Repeat("t", 65)}}, "longer than 64 characters"},
			{"long source", memory.EntryWrite{Content: "x", Source: strings.Repeat("s", 600)}, "source is 600 bytes"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Remember(as(ann), tc.w)
				wantCode(t, err, memory.EINVALID, tc.want)
			})
		}
		if _, err := s.Remember(context.Background(), memory.EntryWrite{Content: "x"}); memory.ErrorCode(err) != memory.EFORBIDDEN {
			t.Fatalf("no identity: %v", err)
		}
		if ids := search(t, s, ann, memory.Query{Text: "x"}); len(ids) != 0 {
			t.Fatalf("a rejected write was stored: %v", ids)
		}
	})
}

// Another agent's personal memory must be indistinguishable from a memory
// that does not exist, for every operation that takes an id.
func TestForeignMemoryLooksUnknown(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		secret := remember(t, s, bob, memory.EntryWrite{Content: "bob's private note"})
		unknown := "mem-000000000000"
		ops := map[string]func(id string) error{
			"recall":  func(id string) error { _, err := s.Recall(as(ann), []string{id}); return err },
			"forget":  func(id string) error { _, err := s.Forget(as(ann), id, ""); return err },
			"publish": func(id string) error { _, err := s.Publish(as(ann), id); return err },
			"retract": func(id string) error { _, err := s.Retract(as(ann), id); return err },
		}
		for name, op := range ops {
			t.Run(name, func(t *testing.T) {
				foreign, missing := op(secret.ID), op(unknown)
				if memory.ErrorCode(foreign) != memory.ENOTFOUND {
					t.Fatalf("foreign id: %v", foreign)
				}
				if strings.ReplaceAll(foreign.Error(), secret.ID, "ID") != strings.ReplaceAll(missing.Error(), unknown, "ID") {
					t.Fatalf("foreign and unknown differ:\n%v\n%v", foreign, missing)
				}
			})
		}
		if ids := search(t, s, ann, memory.Query{Text: "private note"}); len(ids) != 0 {
			t.Fatalf("ann found bob's personal memory: %v", ids)
		}
	})
}

func TestForgetIsSoftAndRecorded(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, db, _ := memoriesOn(t, openDB, &emb)
		e := remember(t, s, ann, memory.EntryWrite{Content: "The staging password rotates monthly"})
		if ids := search(t, s, ann, memory.Query{Text: "staging password"}); !slices.Equal(ids, []string{e.ID}) {
			t.Fatalf("before forget: %v", ids)
		}
		f, err := s.Forget(as(ann), e.ID, "rotated to a vault")
		if err != nil || f.ForgottenAt == nil || f.ForgetReason != "rotated to a vault" {
			t.Fatalf("forget = %+v, %v", f, err)
		}
		if ids := search(t, s, ann, memory.Query{Text: "staging password"}); len(ids) != 0 {
			t.Fatalf("forgotten memory still found: %v", ids)
		}
		got, err := s.Recall(as(ann), []string{e.ID})
		if err != nil || got[0].ForgottenAt == nil || got[0].Content != e.Content {
			t.Fatalf("recall forgotten = %+v, %v", got, err)
		}
		_, err = s.Forget(as(ann), e.ID, "")
		wantCode(t, err, memory.ECONFLICT, "already forgotten")
		var by string
		if err := db.SQL().QueryRow(rawSQL(db, `SELECT forgotten_by FROM memories WHERE id = ?`), e.ID).Scan(&by); err != nil || by != "ann" {
			t.Fatalf("forgotten_by = %q, %v", by, err)
		}
		if _, err := db.SQL().Exec(rawSQL(db, `DELETE FROM memories WHERE id = ?`), e.ID); err == nil {
			t.Fatal("a memory row could be deleted")
		}
	})
}

func TestPublishSearchSharedAndRetract(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, _, _ := memoriesOn(t, openDB, &emb)
		orig := remember(t, s, ann, memory.EntryWrite{Content: "The build cache lives on the NFS share", Tags: []string{"infra"}})
		sh, err := s.Publish(as(ann), orig.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !sh.Shared || sh.ID == orig.ID || sh.Content != orig.Content || sh.Provenance.PublishedFrom != orig.ID ||
			sh.Provenance.PublishedBy != "ann" || sh.Provenance.PublishedAt == nil {
			t.Fatalf("shared copy = %+v %+v", sh, sh.Provenance)
		}
		_, err = s.Publish(as(ann), orig.ID)
		wantCode(t, err, memory.ECONFLICT, "already shared as "+sh.ID)
		_, err = s.Publish(as(ann), sh.ID)
		wantCode(t, err, memory.ECONFLICT, "already a shared memory")
		rec, _ := s.Recall(as(ann), []string{orig.ID})
		if rec[0].Provenance.SharedAs != sh.ID {
			t.Fatalf("original's provenance = %+v", rec[0].Provenance)
		}

		q := memory.Query{Text: "build cache NFS"}
		if ids := search(t, s, bob, withScope(q, memory.ScopeShared)); !slices.Equal(ids, []string{sh.ID}) {
			t.Fatalf("bob shared: %v", ids)
		}
		if ids := search(t, s, bob, withScope(q, memory.ScopePersonal)); len(ids) != 0 {
			t.Fatalf("bob personal: %v", ids)
		}
		// What ann published is in the shared space, for her as for everyone;
		// scope all shows her the personal memory it came from instead.
		if ids := search(t, s, ann, withScope(q, memory.ScopeShared)); !slices.Equal(ids, []string{sh.ID}) {
			t.Fatalf("ann's shared search leaves out what she published: %v", ids)
		}
		if ids := search(t, s, ann, q); !slices.Equal(ids, []string{orig.ID}) {
			t.Fatalf("ann all: %v", ids)
		}

		_, err = s.Forget(as(bob), sh.ID, "")
		wantCode(t, err, memory.EFORBIDDEN, `shared by agent "ann"; only its publisher can forget it`)
		_, err = s.Retract(as(bob), sh.ID)
		wantCode(t, err, memory.EFORBIDDEN, "only its publisher can retract it")
		r, err := s.Retract(as(ann), orig.ID) // by the original's id
		if err != nil || r.ID != sh.ID || r.ForgottenAt == nil {
			t.Fatalf("retract = %+v, %v", r, err)
		}
		if ids := search(t, s, bob, withScope(q, memory.ScopeShared)); len(ids) != 0 {
			t.Fatalf("retracted memory still shared: %v", ids)
		}
		_, err = s.Retract(as(ann), orig.ID)
		wantCode(t, err, memory.ECONFLICT, "is not shared")
		_, err = s.Retract(as(ann), sh.ID)
		wantCode(t, err, memory.ECONFLICT, "already forgotten")
		if _, err := s.Publish(as(ann), orig.ID); err != nil {
			t.Fatalf("republish after retract: %v", err)
		}
	})
}

func withScope(q memory.Query, sc memory.Scope) memory.Query { q.Scope = sc; return q }

// configs are the retrieval paths every filter must hold on: BM25 alone,
// vectors alone, and both fused.
func configs() map[string]store.RetrievalConfig {
	bm, vec, both := store.DefaultRetrieval(), store.DefaultRetrieval(), store.DefaultRetrieval()
	bm.VectorWeight = 0
	vec.BM25Weight = 0
	return map[string]store.RetrievalConfig{"bm25": bm, "vector": vec, "fused": both}
}

func TestSearchFilters(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-64", 64)
		s, _, clk := memoriesOn(t, openDB, &emb)
		day := func(d int) time.Time { return time.Date(2025, 3, d, 0, 0, 0, 0, time.UTC) }
		soon := clk.Peek().Add(time.Hour)
		mk := func(ns string, c memory.Category, tags []string, occurred time.Time, expires time.Time) string {
			return remember(t, s, ann, memory.EntryWrite{Namespace: ns, Category: c, Tags: tags, OccurredAt: occurred, ExpiresAt: expires,
				Content: "kafka consumer lag alert"}).ID
		}
		a := mk("ops", memory.CategoryEpisodic, []string{"kafka", "alert"}, day(1), time.Time{})
		b := mk("ops", memory.CategorySemantic, []string{"kafka"}, day(2), time.Time{})
		c := mk("dev", memory.CategoryEpisodic, []string{"alert"}, day(3), time.Time{})
		d := mk("dev", memory.CategoryProcedural, nil, day(4), soon)
		remember(t, s, bob, memory.EntryWrite{Namespace: "ops", Content: "kafka consumer lag alert"})
		all := []string{a, b, c, d}

		cases := []struct {
			name string
			q    memory.Query
			want []string
		}{
			{"no filter", memory.Query{}, all},
			{"one category", memory.Query{Categories: []memory.Category{memory.CategoryEpisodic}}, []string{a, c}},
			{"two categories", memory.Query{Categories: []memory.Category{memory.CategorySemantic, memory.CategoryProcedural}}, []string{b, d}},
			{"one tag", memory.Query{Tags: []string{"kafka"}}, []string{a, b}},
			{"tags are ANDed", memory.Query{Tags: []string{"kafka", "alert"}}, []string{a}},
			{"one namespace", memory.Query{Namespaces: []string{"dev"}}, []string{c, d}},
			{"two namespaces", memory.Query{Namespaces: []string{"dev", "ops"}}, all},
			{"namespace and category", memory.Query{Namespaces: []string{"ops"}, Categories: []memory.Category{memory.CategoryEpisodic}}, []string{a}},
			{"since is inclusive", memory.Query{Since: day(3)}, []string{c, d}},
			{"until is exclusive", memory.Query{Until: day(2)}, []string{a}},
			{"since and until", memory.Query{Since: day(2), Until: day(4)}, []string{b, c}},
			{"nothing matches", memory.Query{Tags: []string{"nope"}}, nil},
		}
		for name, cfg := range configs() {
			s.Retrieval = cfg
			// A period is ranked inside (limit 4000) or filtered after ranking (0).
			for _, limit := range []int{4000, 0} {
				undo := store.SetPeriodListLimit(limit)
				for _, tc := range cases {
					t.Run(fmt.Sprintf("%s/%s/period-limit-%d", name, tc.name, limit), func(t *testing.T) {
						tc.q.Text = "kafka lag"
						got := search(t, s, ann, tc.q)
						slices.Sort(got)
						want := slices.Clone(tc.want)
						slices.Sort(want)
						if !slices.Equal(got, want) {
							t.Fatalf("got %v, want %v", got, want)
						}
					})
				}
				undo()
			}
		}
		clk.Advance(time.Hour)
		for name, cfg := range configs() {
			s.Retrieval = cfg
			if got := search(t, s, ann, memory.Query{Text: "kafka lag"}); slices.Contains(got, d) || len(got) != 3 {
				t.Fatalf("%s: after expiry got %v", name, got)
			}
		}
	})
}

func TestSearchRejectsBadInput(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		neg := -0.5
		day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, tc := range []struct {
			name string
			q    memory.Query
			want string
		}{
			{"empty query", memory.Query{Text: " "}, "query is empty"},
			{"limit too high", memory.Query{Text: "x", Limit: 101}, "limit 101 is out of range: use 1 to 100"},
			{"negative limit", memory.Query{Text: "x", Limit: -1}, "limit -1 is out of range"},
			{"unknown scope", memory.Query{Text: "x", Scope: "team"}, `unknown scope "team"`},
			{"unknown category", memory.Query{Text: "x", Categories: []memory.Category{"dreams"}}, `unknown category "dreams"`},
			{"bad namespace", memory.Query{Text: "x", Namespaces: []string{"no/slash"}}, `namespace "no/slash"`},
			{"min_relevance", memory.Query{Text: "x", MinRelevance: &neg}, "min_relevance -0.5 is out of range"},
			{"empty range", memory.Query{Text: "x", Since: day, Until: day}, "is not before until"},
			{"oversize query", memory.Query{Text: strings.Repeat("q", 5000)}, "query is 5000 bytes; the limit is 4096 bytes (904 over): search with the key words"},
			{"no words", memory.Query{Text: "!!! ?"}, `query "!!! ?" has no searchable words`},
			{"punctuation only", memory.Query{Text: "-- ; */"}, "has no searchable words"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.Search(as(ann), tc.q)
				wantCode(t, err, memory.EINVALID, tc.want)
			})
		}
	})
}

func TestMinRelevanceDropsWeakHits(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Retrieval.RRFK, s.Retrieval.BM25Weight, s.Retrieval.VectorWeight = 60, 1, 1
		strong := remember(t, s, ann, memory.EntryWrite{Content: "postgres vacuum schedule"}).ID
		weak := remember(t, s, ann, memory.EntryWrite{Content: "the schedule of the team offsite"}).ID
		hits, err := s.Search(as(ann), memory.Query{Text: "postgres vacuum schedule"})
		if err != nil || len(hits) != 2 || hits[0].ID != strong || hits[1].ID != weak {
			t.Fatalf("unfiltered: %+v, %v", hits, err)
		}
		// No vector list ran (no embedder): BM25's first place scores 1 and its
		// second 61/62, whatever the vector weight.
		if hits[0].Score != 1 || math.Abs(hits[1].Score-61.0/62) > 1e-9 {
			t.Fatalf("scores %v, %v; want 1 and 61/62", hits[0].Score, hits[1].Score)
		}
		floor := 0.99
		if ids := search(t, s, ann, memory.Query{Text: "postgres vacuum schedule", MinRelevance: &floor}); !slices.Equal(ids, []string{strong}) {
			t.Fatalf("min_relevance 0.99: %v", ids)
		}
	})
}

// Two handles on one file stand for two processes: what one writes, the
// other's next search finds, through the change feed, without a reload.
func TestIndexFollowsWritesFromAnotherHandle(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		a, b := twoHandlesOn(t, openDB)
		for i := range 3 {
			e := remember(t, a, ann, memory.EntryWrite{Content: fmt.Sprintf("rollout step %d uses blue green deploys", i)})
			if ids := search(t, b, ann, memory.Query{Text: fmt.Sprintf("rollout step %d", i), Limit: 1}); !slices.Equal(ids, []string{e.ID}) {
				t.Fatalf("step %d: b found %v, want %s", i, ids, e.ID)
			}
			if _, err := a.Forget(as(ann), e.ID, ""); err != nil {
				t.Fatal(err)
			}
			if ids := search(t, b, ann, memory.Query{Text: fmt.Sprintf("rollout step %d", i)}); slices.Contains(ids, e.ID) {
				t.Fatalf("step %d: b still finds the forgotten %s", i, e.ID)
			}
		}
		if a.Index.Len() != 0 || b.Index.Len() != 0 {
			t.Fatalf("index sizes %d, %d after forgetting all", a.Index.Len(), b.Index.Len())
		}
	})
}

// Vectors from another embedder are never compared with the configured one's:
// those memories are counted at load and found by BM25 alone.
func TestIndexSkipsVectorsFromAnotherEmbedder(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		old, cur := hashEmbedder("old-32", 32), hashEmbedder("new-16", 16)
		s, db, _ := memoriesOn(t, openDB, &old)
		e := remember(t, s, ann, memory.EntryWrite{Content: "the cafeteria closes at three"})

		s2 := store.NewMemoryService(db, &cur)
		st, err := s2.Index.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Indexed != 0 || st.Foreign["old-32"] != 1 {
			t.Fatalf("stats = %+v", st)
		}
		s2.Retrieval = configs()["vector"]
		if ids := search(t, s2, ann, memory.Query{Text: "cafeteria"}); len(ids) != 0 {
			t.Fatalf("vector search used a foreign vector: %v", ids)
		}
		s2.Retrieval = store.DefaultRetrieval()
		if ids := search(t, s2, ann, memory.Query{Text: "cafeteria"}); !slices.Equal(ids, []string{e.ID}) {
			t.Fatalf("fused search lost the memory: %v", ids)
		}
	})
}

func TestEmbedderFailureKeepsTheMemory(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		broken := memory.Embedder{ID: "down", Dim: 8, Embed: func(context.Context, []string) ([][]float32, error) {
			return nil, fmt.Errorf("connection refused")
		}}
		s, _, _ := memoriesOn(t, openDB, &broken)
		e := remember(t, s, ann, memory.EntryWrite{Content: "kept despite the outage"})
		if ids := search(t, s, ann, memory.Query{Text: "outage"}); !slices.Equal(ids, []string{e.ID}) {
			t.Fatalf("search during outage: %v", ids)
		}
	})
}

func TestRecall(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		a := remember(t, s, ann, memory.EntryWrite{Content: "one"})
		b := remember(t, s, ann, memory.EntryWrite{Content: "two"})
		got, err := s.Recall(as(ann), []string{b.ID, a.ID})
		if err != nil || len(got) != 2 || got[0].ID != b.ID || got[1].ID != a.ID {
			t.Fatalf("recall = %+v, %v", got, err)
		}
		_, err = s.Recall(as(ann), nil)
		wantCode(t, err, memory.EINVALID, "ids is empty")
		_, err = s.Recall(as(ann), []string{a.ID, "bad id"})
		wantCode(t, err, memory.EINVALID, `id "bad id" may contain only`)
		_, err = s.Recall(as(ann), make([]string, 101))
		wantCode(t, err, memory.EINVALID, "101 ids given; the limit is 100")
	})
}

// When the range filters reject the best BM25 matches, the ranking goes
// deeper until it has enough candidates or none are left.
func TestBM25RankingWidensPastFilteredRows(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Retrieval.Pool, s.Retrieval.PoolMultiplier = 1, 1
		day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
		var last string
		for d := 1; d <= 12; d++ {
			// Earlier days repeat the word more, so they rank higher.
			text := strings.Repeat("meeting ", 13-d) + "notes"
			last = remember(t, s, ann, memory.EntryWrite{Content: text, OccurredAt: day(d)}).ID
		}
		got := search(t, s, ann, memory.Query{Text: "meeting", Since: day(12), Limit: 1})
		if !slices.Equal(got, []string{last}) {
			t.Fatalf("got %v, want the only memory since day 12, %s", got, last)
		}
	})
}

// Over the match budget the commonest terms are dropped; the rarest stays.
func TestCommonTermsArePrunedOverTheBudget(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		defer store.SetMatchBudget(5)()
		s, _, _ := memoriesOn(t, openDB, nil)
		for i := range 8 {
			remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("status update number %d", i)})
		}
		rare := remember(t, s, ann, memory.EntryWrite{Content: "status of the zeppelin"}).ID
		// "status" is in all 9 rows and would blow the budget of 5: only
		// "zeppelin" is searched for, so only the rare memory matches.
		if got := search(t, s, ann, memory.Query{Text: "status zeppelin"}); !slices.Equal(got, []string{rare}) {
			t.Fatalf("got %v, want only %s", got, rare)
		}
		// A single common term is kept even over the budget.
		if got := search(t, s, ann, memory.Query{Text: "status"}); len(got) != 9 {
			t.Fatalf("single term: %d hits, want 9", len(got))
		}
	})
}

// A query naming a period ranks the memories that occurred in it higher.
func TestSearchFavoursThePeriodTheQueryNames(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		at := func(y int) time.Time { return time.Date(y, 3, 10, 0, 0, 0, 0, time.UTC) }
		old := remember(t, s, ann, memory.EntryWrite{Content: "team offsite planning", OccurredAt: at(2024)}).ID
		recent := remember(t, s, ann, memory.EntryWrite{Content: "team offsite planning", OccurredAt: at(2025)}).ID
		for q, want := range map[string]string{
			"offsite in March 2024":  old,
			"offsite in March 2025":  recent,
			"offsite in March":       recent, // no year: the latest March among the memories
			"offsite on 10 Mar 2024": old,
		} {
			if got := search(t, s, ann, memory.Query{Text: q}); len(got) != 2 || got[0] != want {
				t.Errorf("%q: got %v, want %s first", q, got, want)
			}
		}
		s.Retrieval.TimeWeight = 0 // the period no longer matters
		a, b := search(t, s, ann, memory.Query{Text: "offsite in March 2024"}), search(t, s, ann, memory.Query{Text: "offsite in March 2025"})
		if !slices.Equal(a, b) {
			t.Errorf("time list off: %v and %v differ", a, b)
		}
	})
}

// Soft term matching lifts a memory whose words are near the query's
// ("painting" for "art") over one that only shares the exact words.
func TestSoftMatchingFavoursRelatedWords(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		s.Words = store.NewWordVectors(wordvec.New())
		s.Retrieval.SoftWeight = 1.5
		plain := remember(t, s, ann, memory.EntryWrite{Content: "Melanie, Melanie: I love cooking pasta."}).ID
		art := remember(t, s, ann, memory.EntryWrite{Content: "Melanie: I love painting landscapes."}).ID
		if got := search(t, s, ann, memory.Query{Text: "Melanie art"}); !slices.Equal(got, []string{art, plain}) {
			t.Fatalf("with soft matching: %v, want %s first", got, art)
		}
		s.Retrieval.SoftWeight = 0
		if got := search(t, s, ann, memory.Query{Text: "Melanie art"}); !slices.Equal(got, []string{plain, art}) {
			t.Fatalf("keywords alone: %v, want %s first", got, plain)
		}
	})
}

// A word no memory held when it was last searched for finds the memory
// written since, at once.
func TestNewWordIsFoundRightAfterItIsWritten(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		for i := range 50 {
			remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("filler memory %d", i)})
		}
		if got := search(t, s, ann, memory.Query{Text: "zeppelin"}); len(got) != 0 {
			t.Fatalf("before: %v", got)
		}
		z := remember(t, s, ann, memory.EntryWrite{Content: "the zeppelin hangar"}).ID
		if got := search(t, s, ann, memory.Query{Text: "zeppelin"}); !slices.Equal(got, []string{z}) {
			t.Fatalf("after: %v, want %s", got, z)
		}
	})
}

// Searches, writes and forgets at once on one service (run with -race).
func TestConcurrentSearchAndWrites(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		emb := hashEmbedder("hash-32", 32)
		s, _, _ := memoriesOn(t, openDB, &emb)
		s.Words = store.NewWordVectors(emb)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 15 {
					e := remember(t, s, ann, memory.EntryWrite{Content: fmt.Sprintf("writer %d note %d about caching", w, i)})
					if i%3 == 0 {
						if _, err := s.Forget(as(ann), e.ID, ""); err != nil {
							t.Error(err)
						}
					}
				}
			})
			wg.Go(func() {
				for range 15 {
					if _, err := s.Search(as(ann), memory.Query{Text: "caching note in March 2026"}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		got := search(t, s, ann, memory.Query{Text: "caching", Limit: 100})
		if len(got) != 40 || s.Index.Len() != 40 {
			t.Fatalf("%d found, %d indexed; want 40 of 60 (20 forgotten)", len(got), s.Index.Len())
		}
	})
}

// A period bounded on one side reaches back before 1970: occurred_at is
// signed, and an unset since is no bound at all.
func TestUntilReachesBefore1970(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		s, _, _ := memoriesOn(t, openDB, nil)
		old := remember(t, s, ann, memory.EntryWrite{Content: "the Wright brothers flew at Kitty Hawk",
			OccurredAt: time.Date(1903, 12, 17, 0, 0, 0, 0, time.UTC)})
		remember(t, s, ann, memory.EntryWrite{Content: "the Wright brothers museum reopened",
			OccurredAt: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)})
		defer store.SetPeriodListLimit(4000)() // ranked inside the period; the filter path is TestSearchFilters'
		for _, q := range []memory.Query{
			{Text: "wright brothers", Until: time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Text: "wright brothers", Since: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Text: "what did the wright brothers do in 1903"},
		} {
			if ids := search(t, s, ann, q); len(ids) == 0 || ids[0] != old.ID {
				t.Errorf("%+v found %v, want %s first", q, ids, old.ID)
			}
		}
	})
}

// twoHandlesOn opens one store twice on the engine open opens, each handle
// with the hash embedder and its vector index loaded: two processes, as far
// as the store can tell.
func twoHandlesOn(t *testing.T, open opener) (a, b *store.MemoryService) {
	t.Helper()
	emb := hashEmbedder("hash-32", 32)
	db, _ := open(t)
	service := func(db *store.DB) *store.MemoryService {
		s := store.NewMemoryService(db, &emb)
		s.Retrieval = configs()["vector"]
		if _, err := s.Index.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return service(db), service(reopen(t, db))
}

// Forgetting is private: a shared copy, which every agent reads, is
// withdrawn by retract_memory (held for a human when an agent asks), never
// by forget, which would slip past that hold.
func TestForgetRefusesASharedCopy(t *testing.T) {
	onEngines(t, func(t *testing.T, openDB opener) {
		db, _ := openDB(t)
		s := store.NewMemoryService(db, nil)
		mine, err := s.Remember(as(ann), memory.EntryWrite{Content: "The staging cluster is frozen until the audit ends."})
		if err != nil {
			t.Fatal(err)
		}
		shared, err := s.Publish(as(ann), mine.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Forget(as(ann), shared.ID, "")
		if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(fmt.Sprint(err), "retract_memory") {
			t.Fatalf("forget of a shared copy: %v, want EINVALID naming retract_memory", err)
		}
		if e, err := s.Recall(as(bob), []string{shared.ID}); err != nil || len(e) != 1 || !e[0].Active() {
			t.Fatalf("the shared copy after a refused forget: %+v, %v; want it active for every agent", e, err)
		}
		// Forgetting one's own memory stays private: the shared copy stays.
		if _, err := s.Forget(as(ann), mine.ID, ""); err != nil {
			t.Fatal(err)
		}
		if e, err := s.Recall(as(bob), []string{shared.ID}); err != nil || len(e) != 1 || !e[0].Active() {
			t.Fatalf("the shared copy after its original is forgotten: %+v, %v", e, err)
		}
	})
}
