package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

// surfaceSize is what a model reads of the tools a caller is offered, before
// the conversation starts: each tool's name, description and input schema
// (compact JSON, as a client passes them on), and the server's instructions.
// Tokens are memory.EstimateTokens (format.go): four ASCII bytes a token,
// every other character one, rounded up; the same measure the
// memory_context prompt packs by. Output schemas and annotations are left
// out: clients use them, models are not shown them.
type surfaceSize struct {
	tools, tokens, bytes int
	instructions         int // tokens of the instructions, sent once
	names                []string
}

// measureSurface lists the tools the server started with args offers and
// sizes them.
func measureSurface(t testing.TB, args ...string) surfaceSize {
	t.Helper()
	p := startIn(t, options{args: append([]string{"--log-level", "warn"}, args...)})
	defer p.stop()
	res, err := p.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var s surfaceSize
	for _, tool := range res.Tools {
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		read := tool.Name + "\n" + tool.Description + "\n" + string(schema)
		s.tools++
		s.tokens += memory.EstimateTokens(read)
		s.bytes += len(read)
		s.names = append(s.names, tool.Name)
	}
	s.instructions = memory.EstimateTokens(p.cs.InitializeResult().Instructions)
	return s
}

// surfaceIdentities are the callers the surface is measured for.
var surfaceIdentities = []struct{ name, flags string }{
	{"human", "--human"},
	{"agent junior", "--seniority junior"},
	{"agent mid (default)", "--seniority mid"},
	{"agent senior", "--seniority senior"},
	{"agent lead", "--seniority lead"},
	{"agent principal", "--seniority principal"},
}

// BenchmarkSurface prints, per identity and injection strategy, how many
// tools a caller is offered and the tokens a model reads of them (see
// surfaceSize). The aim for the default (an agent, strategy all): at most 20
// tools and 6,000 tokens.
func BenchmarkSurface(b *testing.B) {
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-22s %-13s %5s %7s %7s %s\n", "identity", "strategy", "tools", "tokens", "bytes", "instructions (tokens)")
	for _, id := range surfaceIdentities {
		for _, st := range memory.Strategies {
			args := append([]string{"--agent-id", "bench", "--strategy", string(st)}, strings.Fields(id.flags)...)
			s := measureSurface(b, args...)
			fmt.Fprintf(&table, "%-22s %-13s %5d %7d %7d %d\n", id.name, st, s.tools, s.tokens, s.bytes, s.instructions)
			if id.name == "agent mid (default)" && st == memory.StrategyAll {
				b.ReportMetric(float64(s.tools), "tools-default-agent")
				b.ReportMetric(float64(s.tokens), "tokens-default-agent")
			}
		}
	}
	// Printed whole: a benchmark's log is cut to its first lines.
	fmt.Print(table.String())
}
