package finetune

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// TrainConfig tunes stage 3, contrastive training of the adapter.
type TrainConfig struct {
	// Rank is the adapter's rank (at most the embedder's dimension).
	Rank int
	// Tau is InfoNCE's temperature (the seed's 0.02).
	Tau float64
	// Epochs is how many times training goes through the pairs; 0 trains
	// nothing (the map stays the identity, the word weights alone count).
	Epochs int
	// LR is Adam's learning rate.
	LR float64
	// Batch is how many pairs a step takes: each pair's positive is a
	// negative of the others (in-batch negatives), beside the hard ones.
	Batch int
	// Decay pulls the adapter towards the identity (L2 on U and V).
	Decay float64
	// Seed makes the run repeatable: same seed, same pairs, same adapter.
	Seed uint64
}

// example is a training pair as vectors: the base vectors of the query and
// the positive, the documents that are never its negatives, and its hard
// negatives.
type example struct {
	q, pos    []float32
	doc, from int
	negs      []int
}

// trainer holds the adapter's parameters and Adam's moments, in float64;
// the adapter is rounded to float32 once trained.
type trainer struct {
	cfg    TrainConfig
	d, r   int
	u, v   []float64 // d × r
	mu, mv []float64 // Adam's first moments
	su, sv []float64 // Adam's second moments
	gu, gv []float64 // gradients of one step
	step   int
}

func newTrainer(cfg TrainConfig, d int) *trainer {
	r := min(cfg.Rank, d)
	t := &trainer{cfg: cfg, d: d, r: r}
	for _, p := range []*[]float64{&t.u, &t.v, &t.mu, &t.mv, &t.su, &t.sv, &t.gu, &t.gv} {
		*p = make([]float64, d*r)
	}
	// U starts at 0, so the adapter starts as the identity; V starts
	// random, so that U's first gradients point somewhere.
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	scale := 1 / math.Sqrt(float64(d))
	for i := range t.v {
		t.v[i] = rng.NormFloat64() * scale
	}
	return t
}

// encoded is one vector passed through the adapter, with what the
// backward pass needs.
type encoded struct {
	x    []float32
	h    []float64 // Vᵀx
	e    []float64 // (x + U h) / n
	n    float64
	grad []float64 // d loss / d e
}

func (t *trainer) encode(x []float32) *encoded {
	d, r := t.d, t.r
	enc := &encoded{x: x, h: make([]float64, r), e: make([]float64, d), grad: make([]float64, d)}
	for i := range d {
		xi := float64(x[i])
		row := t.v[i*r : (i+1)*r]
		for k := range r {
			enc.h[k] += row[k] * xi
		}
	}
	var n2 float64
	for i := range d {
		row := t.u[i*r : (i+1)*r]
		z := float64(x[i])
		for k := range r {
			z += row[k] * enc.h[k]
		}
		enc.e[i] = z
		n2 += z * z
	}
	enc.n = math.Sqrt(n2)
	if enc.n == 0 {
		enc.n = 1
	}
	for i := range enc.e {
		enc.e[i] /= enc.n
	}
	return enc
}

// backward adds enc's share of the gradient to gu and gv.
func (t *trainer) backward(enc *encoded) {
	d, r := t.d, t.r
	var eg float64
	for i := range d {
		eg += enc.e[i] * enc.grad[i]
	}
	gh := make([]float64, r)
	for i := range d {
		gz := (enc.grad[i] - enc.e[i]*eg) / enc.n
		if gz == 0 {
			continue
		}
		urow, grow := t.u[i*r:(i+1)*r], t.gu[i*r:(i+1)*r]
		for k := range r {
			grow[k] += gz * enc.h[k]
			gh[k] += urow[k] * gz
		}
	}
	for i := range d {
		xi := float64(enc.x[i])
		if xi == 0 {
			continue
		}
		grow := t.gv[i*r : (i+1)*r]
		for k := range r {
			grow[k] += xi * gh[k]
		}
	}
}

// batchStep runs one step of InfoNCE over batch: each query against every
// positive of the batch and every hard negative of the batch, except the
// documents it must not be pushed from. It returns the mean loss.
func (t *trainer) batchStep(batch []example, docVecs [][]float32) float64 {
	clear(t.gu)
	clear(t.gv)
	type entry struct {
		enc   *encoded
		label int
	}
	var ds []entry
	for _, ex := range batch {
		ds = append(ds, entry{t.encode(ex.pos), ex.doc})
	}
	for _, ex := range batch {
		for _, n := range ex.negs {
			ds = append(ds, entry{t.encode(docVecs[n]), n})
		}
	}
	inv := 1 / t.cfg.Tau
	logits := make([]float64, len(ds))
	var loss float64
	qs := make([]*encoded, len(batch))
	for i, ex := range batch {
		q := t.encode(ex.q)
		qs[i] = q
		best := math.Inf(-1)
		for j, de := range ds {
			if j != i && (de.label == ex.doc || de.label == ex.from) {
				logits[j] = math.Inf(-1)
				continue
			}
			logits[j] = dot64(q.e, de.enc.e) * inv
			best = math.Max(best, logits[j])
		}
		var sum float64
		for j := range logits {
			logits[j] = math.Exp(logits[j] - best)
			sum += logits[j]
		}
		loss += -math.Log(logits[i] / sum)
		scale := inv / float64(len(batch))
		for j, de := range ds {
			g := logits[j] / sum
			if j == i {
				g--
			}
			if g == 0 {
				continue
			}
			g *= scale
			for k := range q.grad {
				q.grad[k] += g * de.enc.e[k]
				de.enc.grad[k] += g * q.e[k]
			}
		}
	}
	for _, q := range qs {
		t.backward(q)
	}
	for _, de := range ds {
		t.backward(de.enc)
	}
	t.adam()
	return loss / float64(len(batch))
}

// adam applies one Adam step (with the decay towards the identity).
func (t *trainer) adam() {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	t.step++
	c1 := 1 - math.Pow(b1, float64(t.step))
	c2 := 1 - math.Pow(b2, float64(t.step))
	for _, p := range []struct{ w, g, m, s []float64 }{{t.u, t.gu, t.mu, t.su}, {t.v, t.gv, t.mv, t.sv}} {
		for i := range p.w {
			g := p.g[i] + t.cfg.Decay*p.w[i]
			p.m[i] = b1*p.m[i] + (1-b1)*g
			p.s[i] = b2*p.s[i] + (1-b2)*g*g
			p.w[i] -= t.cfg.LR * (p.m[i] / c1) / (math.Sqrt(p.s[i]/c2) + eps)
		}
	}
}

// adapter rounds the parameters into an Adapter.
func (t *trainer) adapter(base string, version int) *Adapter {
	a := &Adapter{Base: base, Version: version, Dim: t.d, Rank: t.r, U: make([]float32, len(t.u)), V: make([]float32, len(t.v))}
	for i := range t.u {
		a.U[i], a.V[i] = float32(t.u[i]), float32(t.v[i])
	}
	return a
}

// train fits an adapter to the examples: Epochs passes in an order shuffled
// by the seed, a batch at a time. progress hears of each step; ctx stops
// it between steps.
func train(ctx context.Context, cfg TrainConfig, d int, docVecs [][]float32, exs []example, progress func(done, total int)) (*trainer, error) {
	if cfg.Tau <= 0 || cfg.Batch < 2 || cfg.Epochs < 0 || cfg.Rank < 1 || cfg.LR <= 0 {
		return nil, fmt.Errorf("training settings out of range: tau %v, batch %d, epochs %d, rank %d, lr %v", cfg.Tau, cfg.Batch, cfg.Epochs, cfg.Rank, cfg.LR)
	}
	t := newTrainer(cfg, d)
	if len(exs) < 2 || cfg.Epochs == 0 {
		return t, nil
	}
	steps := cfg.Epochs * ((len(exs) + cfg.Batch - 1) / cfg.Batch)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7a1e))
	order := make([]int, len(exs))
	for i := range order {
		order[i] = i
	}
	done := 0
	for range cfg.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for start := 0; start < len(order); start += cfg.Batch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			idx := order[start:min(start+cfg.Batch, len(order))]
			if len(idx) < 2 {
				continue
			}
			batch := make([]example, len(idx))
			for i, k := range idx {
				batch[i] = exs[k]
			}
			t.batchStep(batch, docVecs)
			done++
			if progress != nil {
				progress(done, steps)
			}
		}
	}
	return t, nil
}

func dot64(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
