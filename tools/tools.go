// Package tools is the MCP tool surface: each tool decodes its typed
// arguments, calls one domain service, and shapes the result as structured
// content plus readable text. There is no SQL and no business rule here.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	memory "github.com/memory-mcp/memory-mcp"
)

// Services are the domain services the tools call. A nil service leaves its
// tools unregistered.
type Services struct {
	Facts     memory.FactService
	Memories  memory.MemoryService
	Blocks    memory.BlockService
	Promotion memory.PromotionService
	Log       *slog.Logger
}

// Register adds every tool whose service is configured to s.
func Register(s *server.MCPServer, svc Services) {
	if svc.Log == nil {
		svc.Log = slog.Default()
	}
	if svc.Facts != nil {
		registerFacts(s, svc)
	}
	if svc.Memories != nil {
		registerMemories(s, svc)
	}
	if svc.Blocks != nil {
		registerBlocks(s, svc)
	}
	if svc.Promotion != nil {
		registerNotes(s, svc)
		registerShared(s, svc)
	}
}

// Filter offers only the tools strategy st offers (see memory.Strategy). It
// is applied to tools/list and tools/call alike, so a tool the strategy does
// not offer can be neither seen nor called.
func Filter(st memory.Strategy) server.ToolFilterFunc {
	return func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		out := tools[:0:0]
		for _, t := range tools {
			if st.Offers(t.Name) {
				out = append(out, t)
			}
		}
		return out
	}
}

// call is a tool body: typed arguments in, a structured result and its
// readable rendering out.
type call[A, R any] func(ctx context.Context, args A) (R, string, error)

// add registers tool t with a handler that decodes arguments strictly into A,
// runs fn, and turns domain errors into tool errors a model can act on.
func add[A, R any](s *server.MCPServer, log *slog.Logger, t mcp.Tool, fn call[A, R]) {
	name := t.Name
	s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args A
		if err := DecodeArgs(req.GetRawArguments(), &args); err != nil {
			return toolError(ctx, log, name, err), nil
		}
		// A call that has started runs to the end even if the client goes away
		// (stdin closing cancels every in-flight request): a write is either
		// committed whole or not started, never cut off half way.
		res, text, err := fn(context.WithoutCancel(ctx), args)
		if err != nil {
			return toolError(ctx, log, name, err), nil
		}
		return mcp.NewToolResultStructured(res, text), nil
	})
}

// toolError renders err for the calling model: domain errors keep their code
// and message; anything else is logged here, once, and reported as internal.
func toolError(ctx context.Context, log *slog.Logger, tool string, err error) *mcp.CallToolResult {
	code := memory.ErrorCode(err)
	if code == memory.EINTERNAL {
		log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	}
	return mcp.NewToolResultError(code + ": " + memory.ErrorMessage(err))
}

// DecodeArgs decodes tool arguments into dst (a pointer to a struct with json
// tags), rejecting unknown arguments and wrong types with messages that name
// the argument and what it should be.
func DecodeArgs(raw any, dst any) error {
	if raw == nil {
		raw = map[string]any{}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return memory.Errorf(memory.EINVALID, "arguments are not JSON")
	}
	if string(b) == "null" {
		b = []byte("{}")
	}
	if len(b) == 0 || b[0] != '{' {
		return memory.Errorf(memory.EINVALID, "arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return memory.Errorf(memory.EINVALID, "argument %q must be %s, not %s", argPath(dst, typeErr.Field), jsonKind(typeErr.Type), typeErr.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return memory.Errorf(memory.EINVALID, "unknown argument %s; this tool takes: %s", field, strings.Join(argNames(dst), ", "))
	}
	return memory.Errorf(memory.EINVALID, "arguments could not be read: %v", err)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// argPath drops from a decoding error's field path the names of embedded
// argument structs, which are not part of the arguments a model sends.
func argPath(dst any, field string) string {
	for _, f := range reflect.VisibleFields(reflect.TypeOf(dst).Elem()) {
		if f.Anonymous {
			field = strings.TrimPrefix(field, f.Name+".")
		}
	}
	return field
}

func argNames(dst any) []string {
	var names []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(dst).Elem()) { // with the fields of embedded structs
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// list renders items one per line with a heading, or a "none" line.
func list[T any](heading string, items []T, line func(T) string) string {
	if len(items) == 0 {
		return heading + ": none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n", heading, len(items))
	for _, it := range items {
		b.WriteString(line(it))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
