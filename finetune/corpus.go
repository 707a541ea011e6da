package finetune

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	memory "github.com/memory-mcp/memory-mcp"

	"github.com/memory-mcp/memory-mcp/internal/score"
)

// corpus is a run's documents and pairs, split and cut to the seed's token
// caps: what stages 2 to 4 work on.
type corpus struct {
	docs  []Doc
	texts []string // the documents' texts, capped
	train []Pair   // the pairs trained on
	held  []Pair   // the pairs held out for evaluation, never trained on
	// heldDoc marks the documents whose pairs are held out: their words
	// are not counted for the word weights either.
	heldDoc []bool
	// truncatedDocs and truncatedQueries count texts cut to the caps.
	truncatedDocs, truncatedQueries int
}

// newCorpus splits the pairs: those whose query came from a held-out
// document (chosen by the seed, holdOut of them) are held out, and of the
// rest at most maxPairs are trained on. Every text is cut to the caps.
func newCorpus(docs []Doc, pairs []Pair, cfg Config) *corpus {
	c := &corpus{docs: docs, texts: make([]string, len(docs)), heldDoc: make([]bool, len(docs))}
	for i, d := range docs {
		var cut bool
		if c.texts[i], cut = capTokens(d.Text, DocTokens); cut {
			c.truncatedDocs++
		}
		c.heldDoc[i] = heldOut(cfg.Train.Seed, d.ID, cfg.HoldOut)
	}
	for _, p := range pairs {
		var cut bool
		if p.Query, cut = capTokens(p.Query, QueryTokens); cut {
			c.truncatedQueries++
		}
		if p.Positive != "" {
			p.Positive, _ = capTokens(p.Positive, DocTokens)
		}
		if c.heldDoc[p.From] {
			c.held = append(c.held, p)
		} else {
			c.train = append(c.train, p)
		}
	}
	c.train = sample(c.train, cfg.MaxPairs, cfg.Train.Seed, 0x5a3b1e)
	c.held = sample(c.held, cfg.MaxHeldOut, cfg.Train.Seed, 0x4e1d)
	return c
}

// sample keeps at most n of pairs, chosen by seed, in their order.
func sample(pairs []Pair, n int, seed, stream uint64) []Pair {
	if len(pairs) <= n {
		return pairs
	}
	keep := rand.New(rand.NewPCG(seed, stream)).Perm(len(pairs))[:n]
	slices.Sort(keep)
	out := make([]Pair, len(keep))
	for i, k := range keep {
		out[i] = pairs[k]
	}
	return out
}

// heldOut decides by a hash of the seed and a document's id whether the
// pairs whose query came from it are held out. A document stays on its
// side from run to run while the seed stays.
func heldOut(seed uint64, id string, share float64) bool {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(id))
	return float64(h.Sum64()%10000) < share*10000
}

// trainingTexts are the texts of the documents not held out.
func (c *corpus) trainingTexts() []string {
	var out []string
	for i, t := range c.texts {
		if !c.heldDoc[i] {
			out = append(out, t)
		}
	}
	return out
}

// vectors are one embedder's unit vectors of a corpus: the documents', and
// each pair's query and positive.
type vectors struct {
	docs                          [][]float32
	trainQ, trainPos, heldQ, held [][]float32
}

// embed makes the vectors of the corpus with emb.
func (c *corpus) embed(ctx context.Context, emb memory.Embedder, progress func(done, total int)) (*vectors, error) {
	total := len(c.docs) + len(c.train) + len(c.held)
	for _, p := range append(c.train[:len(c.train):len(c.train)], c.held...) {
		if p.Positive != "" {
			total++
		}
	}
	e := &embedder{emb: emb, total: total, progress: progress}
	v := &vectors{}
	var err error
	if v.docs, err = e.all(ctx, c.texts); err != nil {
		return nil, err
	}
	if v.trainQ, v.trainPos, err = c.pairVectors(ctx, e, c.train, v.docs); err != nil {
		return nil, err
	}
	if v.heldQ, v.held, err = c.pairVectors(ctx, e, c.held, v.docs); err != nil {
		return nil, err
	}
	return v, nil
}

// pairVectors embeds the queries of pairs and those positives that are not
// a document as it stands.
func (c *corpus) pairVectors(ctx context.Context, e *embedder, pairs []Pair, docs [][]float32) (qs, pos [][]float32, err error) {
	queries := make([]string, len(pairs))
	var own []string
	for i, p := range pairs {
		queries[i] = p.Query
		if p.Positive != "" {
			own = append(own, p.Positive)
		}
	}
	if qs, err = e.all(ctx, queries); err != nil {
		return nil, nil, err
	}
	ov, err := e.all(ctx, own)
	if err != nil {
		return nil, nil, err
	}
	pos = make([][]float32, len(pairs))
	for i, p := range pairs {
		if p.Positive != "" {
			pos[i], ov = ov[0], ov[1:]
		} else {
			pos[i] = docs[p.Doc]
		}
	}
	return qs, pos, nil
}

// mapped is v through the adapter's map (its word weights are the
// embedder's business: v must come from its weighted embedder).
func (v *vectors) mapped(a *Adapter) *vectors {
	m := func(in [][]float32) [][]float32 {
		out := make([][]float32, len(in))
		parallel(len(in), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = a.Apply(nil, in[i])
			}
		})
		return out
	}
	return &vectors{docs: m(v.docs), trainQ: m(v.trainQ), trainPos: m(v.trainPos), heldQ: m(v.heldQ), held: m(v.held)}
}

// embedder embeds texts a batch at a time, telling progress.
type embedder struct {
	emb         memory.Embedder
	done, total int
	progress    func(done, total int)
}

// embedBatch is how many texts go to the embedder at once, so that a long
// run can be stopped and its progress told between calls.
const embedBatch = 512

func (e *embedder) all(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for chunk := range slices.Chunk(texts, embedBatch) {
		vecs, err := e.emb.Embed(ctx, chunk)
		if err != nil {
			return nil, fmt.Errorf("embed with %s: %w", e.emb.ID, err)
		}
		if len(vecs) != len(chunk) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.emb.ID, len(vecs), len(chunk))
		}
		for _, v := range vecs {
			if len(v) != e.emb.Dim {
				return nil, fmt.Errorf("embedder %s returned a vector of dimension %d, want %d", e.emb.ID, len(v), e.emb.Dim)
			}
			out = append(out, score.Unit(v))
		}
		e.done += len(chunk)
		if e.progress != nil {
			e.progress(e.done, e.total)
		}
	}
	return out, nil
}

// mine runs stage 2 over the training pairs with the vectors training
// starts from.
func (c *corpus) mine(v *vectors, n int, seed uint64) {
	mine(c.train, c.texts, mineSample(v.docs, seed), v.trainQ, n)
}

// maxMined bounds the documents the vectors look among for hard negatives:
// each pair's query is compared with every one of them, so past it the
// cost grows with pairs times documents (at 100k memories, 8k pairs took
// a minute of two cores). A random sample of this many, chosen by the
// seed, still holds near misses; BM25 looks through every document.
const maxMined = 20_000

// mineSample is docs with all but maxMined of them (chosen by seed) nil,
// which nearest passes over.
func mineSample(docs [][]float32, seed uint64) [][]float32 {
	if len(docs) <= maxMined {
		return docs
	}
	out := make([][]float32, len(docs))
	for _, i := range rand.New(rand.NewPCG(seed, 0x313e)).Perm(len(docs))[:maxMined] {
		out[i] = docs[i]
	}
	return out
}

// examples are the training pairs as the trainer takes them.
func (c *corpus) examples(v *vectors) []example {
	out := make([]example, len(c.train))
	for i, p := range c.train {
		out[i] = example{q: v.trainQ[i], pos: v.trainPos[i], doc: p.Doc, from: p.From, negs: p.Negatives}
	}
	return out
}

// evaluate scores the held-out pairs by cosine with v, per source and
// overall.
func (c *corpus) evaluate(v *vectors) Scores {
	ranks := make([]int, len(c.held))
	parallel(len(c.held), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := c.held[i]
			ranks[i] = vectorRank(v.heldQ[i], v.held[i], v.docs, p.Doc, p.From)
		}
	})
	s := Scores{BySource: map[Source]Figures{}, ranks: ranks}
	for i, p := range c.held {
		s.All.add(ranks[i])
		f := s.BySource[p.Source]
		f.add(ranks[i])
		s.BySource[p.Source] = f
	}
	s.All = s.All.mean()
	for k, f := range s.BySource {
		s.BySource[k] = f.mean()
	}
	return s
}
