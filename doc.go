// Package memory is the domain of memory-mcp: the types every other package
// speaks (facts, memories, notes, the shared team state, blocks), the
// caller's identity, the service interfaces the MCP surface calls, coded
// errors, validation, and the fence that marks stored text as data. It does
// no I/O. Packages mirror its files: fact.go here, store/fact.go,
// tools/fact.go, resources/fact.go.
package memory
