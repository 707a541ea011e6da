package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// surface is what a model reads of a tool list on every turn: each tool's
// name, description and input schema (as JSON), counted in tools and in
// memory.EstimateTokens (four ASCII bytes a token), over the tools an agent
// with the default strategy is offered.
func surface(b *testing.B, tools map[string]*server.ServerTool, keep func(string) bool) (n, tokens int) {
	for name, st := range tools {
		if !keep(name) {
			continue
		}
		schema, err := json.Marshal(st.Tool.InputSchema)
		if len(st.Tool.RawInputSchema) > 0 {
			schema, err = st.Tool.RawInputSchema, nil
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
		tokens += memory.EstimateTokens(name + st.Tool.Description + string(schema))
	}
	return n, tokens
}

// BenchmarkBlockSurface reports what the memory tool costs a model against
// the ten memory_block_* tools it stands for, and the whole default list
// with each (without the idempotency_key the write gates add).
func BenchmarkBlockSurface(b *testing.B) {
	with, without := registeredWith(true), registeredWith(false)
	blockTools := func(name string) bool { return strings.HasPrefix(name, "memory_block_") }
	memoryTool := func(name string) bool { return name == "memory" }
	all := func(string) bool { return true }
	before := func(name string) bool { return name != "memory" } // the list as it was: the block tools, no memory tool
	for range b.N {
		n, tok := surface(b, with, blockTools)
		b.ReportMetric(float64(n), "block-tools")
		b.ReportMetric(float64(tok), "block-tokens")
		n, tok = surface(b, without, memoryTool)
		b.ReportMetric(float64(n), "memory-tools")
		b.ReportMetric(float64(tok), "memory-tokens")
		n, tok = surface(b, with, before)
		b.ReportMetric(float64(n), "list-before-tools")
		b.ReportMetric(float64(tok), "list-before-tokens")
		n, tok = surface(b, without, all)
		b.ReportMetric(float64(n), "list-after-tools")
		b.ReportMetric(float64(tok), "list-after-tokens")
	}
}
