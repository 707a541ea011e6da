package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/internal/locomo"
	rules "github.com/memory-mcp/memory-mcp/internal/text"
	"github.com/memory-mcp/memory-mcp/store"
)

// A million memories written one remember at a time take hours on two
// shared cores, so BenchmarkNodesScale can instead fill its database the way
// an operator moving a memory in would: `memory-mcp import` of an export
// (MEMORY_MCP_BENCH_NODES_FILL=import). The export is generated here, in
// the documented format (docs/export.md), one memory record per LoCoMo turn
// grown past its end, with the columns the store derives from the content
// (dedup keys, claims, filter tokens, length) worked out by the same rules
// the store uses. checkGenerated holds the generator to the store: it
// remembers the first memories through a real store, exports them with the
// binary, and fails the benchmark if a derived column differs.

// benchAgent is the one agent the scale benchmark's memories belong to.
const benchAgent = "bench"

// genMemory is the export record of the i-th generated memory and its
// claim records.
func genMemory(texts []string, i int, base int64) (mem string, claims []string) {
	content := locomo.Grown(texts, i)
	exact, words := rules.DedupKeys(content)
	meaning := rules.MeaningKey(content)
	pk := i + 1
	at := base + int64(i)*int64(time.Millisecond)
	filters := strings.Join([]string{genToken("p", benchAgent), genToken("n", "default"), genToken("c", string(memory.CategoryEpisodic))}, " ")
	length := len(strings.FieldsFunc(content, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	m := "null"
	if meaning != "" {
		m = js(meaning)
	}
	mem = fmt.Sprintf(`{"kind":"memory","row":{"pk":%d,"id":"mem-%012x","agent_id":%s,"namespace":"default","category":"episodic","content":%s,"tags":"[]","confidence":1.0,"source":null,"shared":0,"created_at":%d,"updated_at":%d,"occurred_at":%d,"expires_at":null,"author_seniority":"mid","author_autonomy":null,"author_is_human":0,"published_from":null,"published_at":null,"forgotten_at":null,"forgotten_by":null,"forget_reason":null,"filters":%s,"length":%d,"forgotten_autonomy":null,"published_autonomy":null,"archived_at":null,"archive_reason":null,"archived_by":null,"consolidated_into":null,"restored_at":null,"exact_key":%s,"words_key":%s,"seen_count":1,"last_seen_at":null,"superseded_by":null,"meaning_key":%s}}`,
		pk, 0xb0000000000+i, js(benchAgent), js(content), at, at, at, js(filters), length, js(exact), js(words), m)
	seen := map[rules.Claim]bool{}
	for _, c := range rules.ClaimKeys(content) {
		if seen[c] {
			continue
		}
		seen[c] = true
		claims = append(claims, fmt.Sprintf(`{"kind":"memory_claim","row":{"agent_id":%s,"claim":%d,"value":%d,"memory_pk":%d}}`, js(benchAgent), c.Key, c.Value, pk))
	}
	return mem, claims
}

// genToken is a filter token as the store writes one (store/filter.go).
func genToken(kind, value string) string { return "z" + kind + hex.EncodeToString([]byte(value)) + "0" }

// writeGenerated writes an export of n generated memories to path: header,
// the memories, their claims, and the trailer with the count and checksum.
func writeGenerated(b *testing.B, path string, texts []string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sum := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<20)
	claims, err := os.CreateTemp(filepath.Dir(path), "claims")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(claims.Name())
	cw := bufio.NewWriterSize(claims, 1<<20)
	fmt.Fprintln(w, `{"format":"memory-mcp","version":1,"filter":{}}`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	// The text rules are the cost: chunks are made on every core and
	// written in order.
	type chunk struct{ mems, claims []string }
	const size = 2_000
	jobs := make(chan int)
	done := make([]chan chunk, (n+size-1)/size)
	for i := range done {
		done[i] = make(chan chunk, 1)
	}
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for start := range jobs {
				var ch chunk
				for i := start; i < min(n, start+size); i++ {
					mem, cs := genMemory(texts, i, base)
					ch.mems, ch.claims = append(ch.mems, mem), append(ch.claims, cs...)
				}
				done[start/size] <- ch
			}
		}()
	}
	go func() {
		for start := 0; start < n; start += size {
			jobs <- start
		}
		close(jobs)
	}()
	nclaims := 0
	for _, d := range done {
		ch := <-d
		for _, m := range ch.mems {
			fmt.Fprintln(w, m)
		}
		for _, c := range ch.claims {
			fmt.Fprintln(cw, c)
		}
		nclaims += len(ch.claims)
	}
	if err := cw.Flush(); err != nil {
		b.Fatal(err)
	}
	if _, err := claims.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(w, claims); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	kinds := `"memory":` + fmt.Sprint(n)
	if nclaims > 0 {
		kinds += `,"memory_claim":` + fmt.Sprint(nclaims)
	}
	fmt.Fprintf(f, `{"end":true,"records":%d,"kinds":{%s},"sha256":"%s"}`+"\n", n+nclaims, kinds, hex.EncodeToString(sum.Sum(nil)))
}

// checkGenerated remembers the first k memories through a real SQLite
// store, as the scale benchmark's agent, exports them with the binary, and
// compares every column the store derives with the generator's.
func checkGenerated(b *testing.B, texts []string, k int) {
	dir := b.TempDir()
	emb, err := newEmbedder(context.Background(), &Config{Embedder: "offline"})
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, store.FileName))
	if err != nil {
		b.Fatal(err)
	}
	mem := store.NewMemoryService(db, emb)
	ctx := memory.WithIdentity(context.Background(), memory.Identity{AgentID: benchAgent, Seniority: memory.SeniorityMid})
	for i := range k {
		if _, err := mem.Remember(ctx, memory.EntryWrite{Content: locomo.Grown(texts, i), Category: memory.CategoryEpisodic}); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	cmd := exec.Command(binary(b), "export", "--human", "--data-dir", dir)
	cmd.Env = homeEnv(dir)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("export: %v", err)
	}
	type record struct {
		Kind string         `json:"kind"`
		Row  map[string]any `json:"row"`
	}
	parse := func(line string) record {
		var r record
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			b.Fatalf("%v: %s", err, line)
		}
		return r
	}
	real := map[string]record{}
	realClaims := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		r := parse(line)
		switch r.Kind {
		case "memory":
			real[r.Row["content"].(string)] = r
		case "memory_claim":
			pk := fmt.Sprint(r.Row["memory_pk"])
			realClaims[pk] = append(realClaims[pk], fmt.Sprint(r.Row["claim"], "=", r.Row["value"]))
		}
	}
	derived := []string{"agent_id", "namespace", "category", "content", "tags", "confidence", "source", "shared",
		"author_seniority", "author_autonomy", "author_is_human", "filters", "length", "exact_key", "words_key", "meaning_key", "seen_count"}
	for i := range k {
		gm, gcs := genMemory(texts, i, 0)
		g := parse(gm)
		r, ok := real[g.Row["content"].(string)]
		if !ok {
			b.Fatalf("generated memory %d (%q) is not in the store's export", i, g.Row["content"])
		}
		for _, col := range derived {
			if fmt.Sprint(g.Row[col]) != fmt.Sprint(r.Row[col]) {
				b.Fatalf("generated memory %d: %s is %v, the store wrote %v", i, col, g.Row[col], r.Row[col])
			}
		}
		var gc []string
		for _, c := range gcs {
			cr := parse(c)
			gc = append(gc, fmt.Sprint(cr.Row["claim"], "=", cr.Row["value"]))
		}
		rc := realClaims[fmt.Sprint(r.Row["pk"])]
		slices.Sort(gc)
		slices.Sort(rc)
		if !slices.Equal(gc, rc) {
			b.Fatalf("generated memory %d: claims %v, the store wrote %v", i, gc, rc)
		}
	}
	b.Logf("generator checked against the store: %d memories, every derived column and claim the same", k)
}

// importFill fills c's empty database with n generated memories through
// `memory-mcp import`, and returns how long the import took.
func importFill(b *testing.B, c *cluster, texts []string, n int) time.Duration {
	checkGenerated(b, texts, 400)
	// MEMORY_MCP_BENCH_NODES_EXPORT names a file to keep the generated
	// export in, and to take it from when it is there already (the
	// generator's output depends on n alone).
	path, keep := os.Getenv("MEMORY_MCP_BENCH_NODES_EXPORT"), true
	if path == "" {
		path, keep = filepath.Join(c.home, "fill.jsonl"), false
	}
	t0 := time.Now()
	if _, err := os.Stat(path); err != nil || !keep {
		writeGenerated(b, path, texts, n)
	}
	st, _ := os.Stat(path)
	msg := fmt.Sprintf("an export of %d memories (%.0f MB), generated or found in %s", n, float64(st.Size())/1e6, time.Since(t0).Round(time.Second))
	fmt.Fprintln(os.Stderr, msg)
	b.Log(msg)
	t0 = time.Now()
	out, err := c.cli("import", "--human", path)
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(t0)
	if !keep {
		os.Remove(path)
	}
	msg = fmt.Sprintf("import: %d memories in %s (%.0f/s, exact into an empty database, stamped and embedded): %s", n, took.Round(time.Second), float64(n)/took.Seconds(), strings.TrimSpace(out))
	fmt.Fprintln(os.Stderr, msg)
	b.Log(msg)
	return took
}
