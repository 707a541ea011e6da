package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/memory-mcp/memory-mcp/internal/score"
	"github.com/memory-mcp/memory-mcp/internal/text"
)

// registerFTS registers FTS5 on a new connection together with memory_rank,
// the BM25 ranking memory search uses, and memory_length, which migration
// 0005 uses to count the tokens of the memories stored before it.
func registerFTS(c *sqlite3.Conn) error {
	err := c.CreateFunction("memory_length", 2, sqlite3.DETERMINISTIC, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		var tags []string
		if err := json.Unmarshal([]byte(arg[1].Text()), &tags); err != nil {
			ctx.ResultError(fmt.Errorf("memory_length: tags: %w", err))
			return
		}
		ctx.ResultInt(indexedLength(arg[0].Text(), tags))
	})
	if err != nil {
		return err
	}
	// memory_vector_ok(blob, dim) tells `reindex --missing` which stored
	// vectors the index cannot use.
	err = c.CreateFunction("memory_vector_ok", 2, sqlite3.DETERMINISTIC, func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		_, err := decodeVectorDim(nil, arg[0].RawBlob(), arg[1].Int())
		ctx.ResultBool(err == nil)
	})
	if err != nil {
		return err
	}
	return fts5.RegisterCustom(c, func(api *fts5.API) error {
		err := api.CreateTokenizer("memory", func([]string) (fts5.Tokenizer, error) { return termTokenizer{}, nil })
		if err != nil {
			return err
		}
		return api.CreateFunction("memory_rank", memoryRank)
	})
}

// termTokenizer is the full-text indexes' tokenizer (tokenize = 'memory'):
// a text's terms as internal/text makes them (text.Terms), for the rows it
// indexes and the phrases of a query alike. PostgreSQL's tsvector holds the
// same terms (postgresTerms), so the engines find the same rows.
type termTokenizer struct{}

func (termTokenizer) Tokenize(_ fts5.TokenizeFlag, s, _ string, token fts5.TokenCallback) error {
	for _, sp := range text.Terms(s) {
		if err := token(0, sp.Term, sp.Start, sp.End); err != nil {
			return err
		}
	}
	return nil
}

// bm25Params are the BM25 parameters the search ranks with (see
// score.Memories); a test may change them.
var bm25Params = score.Memories

// rankState is memory_rank's per-query data.
type rankState struct {
	idf   []float64 // by phrase, for the text phrases
	avgdl float64   // mean tokens of content and tags
	freq  []float64 // scratch: weighted frequency per phrase
}

// memoryRank is memory_rank(memory_fts, dfs[, rows, avgdl]): Okapi BM25 as
// FTS5's bm25() computes it (with bm25Params' k1 and b), over the content and tags
// columns only, for the first len(dfs) phrases of the query. dfs are those
// phrases' document frequencies, comma-separated, which the search has
// already counted to prune its terms; rows and avgdl are N and the mean
// length of the spaces it searches. Without them the whole table's are used,
// as bm25() does.
//
// Why not bm25(): it scores every phrase of the query, and to find each
// phrase's IDF it scans the phrase's whole document list. The search's filter
// phrases (its space, namespace, category, tags) match every memory of the
// space, so bm25() spent most of a search over a large store scanning them,
// only to give them no weight. And its statistics are the whole table's:
// they would let other agents' private memories move a search's scores.
func memoryRank(fts fts5.Context, ctx sqlite3.Context, args ...sqlite3.Value) {
	st, err := rankData(fts, args)
	if err != nil {
		ctx.ResultError(err)
		return
	}
	clear(st.freq)
	n, err := fts.InstCount()
	if err != nil {
		ctx.ResultError(err)
		return
	}
	for i := range n {
		phrase, col, _, err := fts.Inst(i)
		if err != nil {
			ctx.ResultError(err)
			return
		}
		if phrase < len(st.freq) && col < 2 && st.freq[phrase] < maxTermFrequency {
			st.freq[phrase]++
		}
	}
	if bm25Params.B == 0 {
		// No length normalisation: skip the per-row length lookup, which
		// was a fifth of a search's time.
		ctx.ResultFloat(bm25(st, st.avgdl))
		return
	}
	content, err1 := fts.ColumnSize(0)
	tags, err2 := fts.ColumnSize(1)
	if err1 != nil || err2 != nil {
		ctx.ResultError(cmpErr(err1, err2))
		return
	}
	ctx.ResultFloat(bm25(st, float64(content+tags)))
}

// bm25 scores one row from its phrase frequencies and length.
func bm25(st *rankState, dl float64) float64 {
	var sum float64
	for p, f := range st.freq {
		if f > 0 {
			sum += bm25Params.Term(st.idf[p], f, dl, st.avgdl)
		}
	}
	return sum
}

// rankData returns the query's IDFs and mean length, computing them on the
// first row.
func rankData(fts fts5.Context, args []sqlite3.Value) (*rankState, error) {
	if st, ok := fts.GetAuxdata(false).(*rankState); ok {
		return st, nil
	}
	rows, avgdl, err := collection(fts, args)
	if err != nil {
		return nil, err
	}
	st := &rankState{avgdl: avgdl}
	if len(args) > 0 && args[0].Text() != "" {
		for _, term := range strings.Split(args[0].Text(), ",") {
			df, err := strconv.ParseFloat(term, 64)
			if err != nil {
				return nil, fmt.Errorf("memory_rank: document frequency %q: %w", term, err)
			}
			st.idf = append(st.idf, score.IDF(rows, df))
		}
	}
	st.freq = make([]float64, len(st.idf))
	return st, fts.SetAuxdata(st)
}

// collection returns N and the mean document length: from the arguments
// when given, else over the whole table.
func collection(fts fts5.Context, args []sqlite3.Value) (rows, avgdl float64, err error) {
	if len(args) >= 3 {
		return float64(args[1].Int64()), max(1, args[2].Float()), nil
	}
	n, err := fts.RowCount()
	if err != nil {
		return 0, 0, err
	}
	content, err1 := fts.ColumnTotalSize(0)
	tags, err2 := fts.ColumnTotalSize(1)
	if err := cmpErr(err1, err2); err != nil {
		return 0, 0, err
	}
	return float64(n), max(1, float64(content+tags)/float64(max(n, 1))), nil
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
