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
	"slices"
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
	// Consolidation registers consolidate_memory; the listing, counting
	// and restoring tools come with Memories.
	Consolidation memory.ConsolidationService
	// Erasure registers erase (humans only; the service refuses agents).
	Erasure memory.ErasureService
	// Gates, if set, stand in front of every tool that writes: each then
	// takes an idempotency_key, and its calls are rate limited and logged.
	Gates memory.WriteGates
	// Approvals registers list_approvals and decide_approval.
	Approvals memory.ApprovalService
	// FineTune registers finetune and finetune_report (humans only; the
	// service refuses agents).
	FineTune memory.FineTuneService
	// Portability registers export_memory.
	Portability memory.PortabilityService
	Log         *slog.Logger
	// BlockTools offers the ten memory_block_* tools besides the memory
	// tool, which does all they do: for clients written against them.
	BlockTools bool

	// bodies are the registered tools' bodies by name, without the gates:
	// what decide_approval applies an approved held write through.
	bodies map[string]func(ctx context.Context, args []byte) (any, string, error)
}

// run is the memory.ToolRunner over the registered tools.
func (svc Services) run(ctx context.Context, tool string, args []byte) (any, string, error) {
	body := svc.bodies[tool]
	if body == nil {
		return nil, "", fmt.Errorf("run %s: no such tool is registered", tool)
	}
	return body(ctx, args)
}

// Register adds every tool whose service is configured to s, and returns
// the registered tools' bodies as a memory.ToolRunner (without the gates):
// what applies an approved held write, for decide_approval and for any
// other surface where a human decides one (the review page).
func Register(s *server.MCPServer, svc Services) memory.ToolRunner {
	if svc.Log == nil {
		svc.Log = slog.Default()
	}
	svc.bodies = map[string]func(context.Context, []byte) (any, string, error){}
	if svc.Approvals != nil {
		registerApprovals(s, svc)
	}
	if svc.Facts != nil {
		registerFacts(s, svc)
	}
	if svc.Memories != nil {
		registerMemories(s, svc)
		registerConflicts(s, svc)
		registerMaintenance(s, svc)
		registerDistillation(s, svc)
	}
	if svc.Blocks != nil {
		registerMemoryFiles(s, svc)
		if svc.BlockTools {
			registerBlocks(s, svc)
		} else {
			// Not offered, but their bodies stay known: a write held for
			// approval before they were turned off is still applied.
			registerBlocks(server.NewMCPServer("unoffered", ""), svc)
		}
	}
	if svc.Approvals != nil || svc.Promotion != nil {
		registerReviews(s, svc)
	}
	if svc.FineTune != nil {
		registerFineTune(s, svc)
	}
	if svc.Portability != nil {
		registerExport(s, svc)
	}
	if svc.Erasure != nil {
		registerErase(s, svc)
	}
	if svc.Promotion != nil {
		registerNotes(s, svc)
		registerState(s, svc)
	}
	return svc.run
}

// Filter offers only the tools strategy st offers (the annotations table
// says which). It is applied to tools/list and tools/call alike, so a tool
// the strategy does not offer can be neither seen nor called.
func Filter(st memory.Strategy) server.ToolFilterFunc {
	return func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		out := tools[:0:0]
		for _, t := range tools {
			if st.Offers(annotations[t.Name].only) {
				out = append(out, t)
			}
		}
		return out
	}
}

// FitCaller makes every tools/list answer the caller's: a tool for human
// operators only, and the arguments only a human may give, are left out for
// an agent (on stdio the process's identity, on serve each request's). It
// hooks the listing, not the tool filter, which mcp-go also applies to
// tools/call and answers there with "tool not found": a call to a tool not
// listed reaches its handler, which refuses an agent with EFORBIDDEN.
func FitCaller(hooks *server.Hooks) {
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		if res != nil {
			res.Tools = ForCaller(ctx, res.Tools)
		}
	})
}

// ForCaller returns the tools the caller in ctx may use, as it may use them:
// for a human every tool; for an agent (or no identity) neither a tool for
// humans only nor an argument only a human may give. A retired tool is
// listed to no one: it stays callable, for clients written against it.
func ForCaller(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	who, _ := memory.IdentityFrom(ctx)
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		a := annotations[t.Name]
		if a.retired != "" || (a.humans && !who.Human) {
			continue
		}
		if len(a.humanArgs) > 0 && !who.Human {
			t.RawInputSchema = withoutArgs(t.RawInputSchema, a.humanArgs)
		}
		out = append(out, t)
	}
	return out
}

// withoutArgs returns a copy of an input schema without the named properties.
func withoutArgs(schema json.RawMessage, names []string) json.RawMessage {
	if len(schema) == 0 {
		return schema
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic("tool input schema: " + err.Error())
	}
	props, _ := m["properties"].(map[string]any)
	for _, n := range names {
		delete(props, n)
	}
	if req, ok := m["required"].([]any); ok {
		m["required"] = slices.DeleteFunc(req, func(r any) bool { s, _ := r.(string); return slices.Contains(names, s) })
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic("tool input schema: " + err.Error())
	}
	return b
}

// humansOnly refuses an agent's call of a tool for human operators only.
func humansOnly(ctx context.Context, tool string) error {
	who, _ := memory.IdentityFrom(ctx)
	if who.Human {
		return nil
	}
	return memory.Errorf(memory.EFORBIDDEN, "%s is for human operators only, and is not offered to agents; you are %s", tool, who.Describe())
}

// annotation is what a tool tells clients about its effect on the store, so
// that they can tell a user what it does, confirm what is not purely
// additive, and retry what is safe to repeat. Every tool has one in
// annotations, and add refuses to register a tool without one.
type annotation struct {
	title    string
	readOnly bool // reads and changes nothing (a test holds every read-only tool to the change feed)
	// destructive: besides adding, it may replace, close or hide what is
	// there, as MCP defines the hint ("false: only additive updates").
	// Nothing but erase removes anything: old versions, retracted facts
	// and forgotten memories stay on record, but a client may want the
	// user to confirm.
	destructive bool
	idempotent  bool // a repeat with the same arguments is harmless: it changes nothing more
	// only is the injection strategy that offers the tool ("" for every
	// strategy; see memory.Strategy.Offers).
	only memory.Strategy
	// humans: the tool is for human operators only. An agent's tools/list
	// leaves it out and a call from an agent is refused (EFORBIDDEN).
	humans bool
	// humanArgs are arguments only a human may give (naming another
	// agent): an agent's tools/list leaves them out of the input schema,
	// and the service refuses an agent's call that gives one.
	humanArgs []string
	// readsWhen, for a tool that writes, tells the calls that only read
	// (the memory tool's view), which run without the write gates: they are
	// neither rate limited as writes nor logged as writes.
	readsWhen func(args map[string]any) bool
	// retired names the call that replaces a tool merged into another
	// ("query_facts with id"): the tool is listed to no one but stays
	// callable for a release, its description saying what to use instead.
	retired string
}

// retiredFor returns a, a tool retired in favour of use.
func (a annotation) retiredFor(use string) annotation {
	a.retired = use
	return a
}

// Retired returns the retired tools (see annotation.retired), each with the
// call that replaces it.
func Retired() map[string]string {
	out := map[string]string{}
	for name, a := range annotations {
		if a.retired != "" {
			out[name] = a.retired
		}
	}
	return out
}

// forHumans returns a, a tool for human operators only.
func (a annotation) forHumans() annotation {
	a.humans = true
	return a
}

// humansGive returns a, whose arguments names only a human may give.
func (a annotation) humansGive(names ...string) annotation {
	a.humanArgs = names
	return a
}

// in returns a, offered only by strategy st.
func (a annotation) in(st memory.Strategy) annotation {
	a.only = st
	return a
}

// reads is a read-only tool; adds only adds data; changes may also replace,
// close or hide what is there.
func reads(title string) annotation {
	return annotation{title: title, readOnly: true, idempotent: true}
}
func adds(title string, idempotent bool) annotation {
	return annotation{title: title, idempotent: idempotent}
}
func changes(title string, idempotent bool) annotation {
	return annotation{title: title, destructive: true, idempotent: idempotent}
}

// annotations declares every tool's effect, and which injection strategy
// offers it: search and recall are the tool_based strategy's way to read
// memory, the block tools the self_editing strategy's; everything else is
// offered by every strategy. A repeat that fails because the first call
// already did its work (retracting a retracted fact, creating a block that
// exists) is harmless, so those tools are idempotent; a repeat that adds
// again (remember, append, a new fact version) is not.
var annotations = map[string]annotation{
	"publish_fact": changes("Publish an organisational fact", false), // republishing an id replaces its content
	"retract_fact": changes("Retract an organisational fact", true),
	"query_facts":  reads("Search, list or read organisational facts"),
	"get_fact":     reads("Read an organisational fact").retiredFor("query_facts with id"),
	"list_facts":   reads("List organisational facts by category").retiredFor("query_facts with category"),

	"remember":       changes("Remember something", false), // a memory it contradicts may be superseded
	"search_memory":  reads("Search memories").in(memory.StrategyToolBased),
	"recall_memory":  reads("Recall memories by id").in(memory.StrategyToolBased).retiredFor("search_memory with ids"),
	"forget":         changes("Forget a memory", true),
	"publish_memory": adds("Share a memory with every agent", true),
	"retract_memory": changes("Withdraw a shared memory", true),

	"list_conflicts":   reads("List contradictions between memories or facts").humansGive("agent_id"),
	"resolve_conflict": changes("Decide a conflict between memories or facts", true),

	"consolidate_memory": changes("Consolidate related memories into summaries", false).humansGive("agent_id"), // later runs find newly old memories
	"restore_memory":     adds("Restore an archived memory", true).humansGive("agent_id"),
	// list_memories is offered by every strategy since it counts too (what
	// memory_stats did, which every strategy offered).
	"list_memories": reads("List and count memories").humansGive("agent_id"),
	"memory_stats":  reads("Count memories by category and state").humansGive("agent_id").retiredFor("list_memories with counts: true"),

	// A repeat of an erase by ids finds them gone (ENOTFOUND); one by
	// contains erases what was written since: not idempotent.
	"erase": changes("Erase content for good", false).forHumans(),

	// A run replaces the adapter in force and every vector; a repeat trains
	// again on what is there then.
	"finetune":        changes("Fine-tune retrieval on this memory's text", false).forHumans(),
	"finetune_report": reads("Read the last fine-tuning report").forHumans(),

	"record_distillation": adds("Record how a finished task went", false), // each call is one more record

	"export_memory": reads("Export your own memory"),

	// One tool in the shape of Claude's memory tool over the blocks: its
	// view and history commands only read, and bypass the write gates.
	"memory": annotation{title: "Read and edit your memory files", destructive: true, only: memory.StrategySelfEditing, readsWhen: memoryReads}.humansGive("read_only"),

	"memory_block_list":    reads("List core memory blocks").in(memory.StrategySelfEditing),
	"memory_block_read":    reads("Read a core memory block").in(memory.StrategySelfEditing),
	"memory_block_create":  adds("Create a core memory block", true).in(memory.StrategySelfEditing).humansGive("read_only"),
	"memory_block_append":  adds("Append to a core memory block", false).in(memory.StrategySelfEditing),
	"memory_block_insert":  adds("Insert text into a core memory block", false).in(memory.StrategySelfEditing),
	"memory_block_replace": changes("Replace text in a core memory block", false).in(memory.StrategySelfEditing),
	"memory_block_rethink": changes("Rewrite a core memory block", true).in(memory.StrategySelfEditing), // expected_version is required: a repeat is stale
	"memory_block_restore": changes("Restore an earlier block version", false).in(memory.StrategySelfEditing),
	"memory_block_delete":  changes("Delete a core memory block", true).in(memory.StrategySelfEditing),
	"memory_block_history": reads("Core memory block history").in(memory.StrategySelfEditing),

	"write_note":      changes("Write a note to working memory", false), // with promote: true it may close or supersede rows
	"promote_notes":   changes("Promote notes into shared state", true),
	"shared_state":    reads("Read the shared team state"),
	"list_pending":    reads("List writes waiting for review").retiredFor("list_reviews"),
	"resolve_pending": changes("Bind or drop a pending write", true).forHumans(),

	// One listing of what waits for a human: held and queued writes, and
	// notes in the pending queue.
	"list_reviews":    reads("List what waits for a human: held writes, writes under review, pending notes"),
	"list_approvals":  reads("List writes held for or queued for a human's approval").retiredFor("list_reviews"),
	"decide_approval": changes("Approve or reject a held or queued write", true).forHumans(), // approving applies a held write; deciding twice is refused
}

// WriteTools are the tools that write, in name order: the ones the write
// gates stand in front of.
func WriteTools() []string {
	var out []string
	for name, a := range annotations {
		if !a.readOnly {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// annotate sets t's title and annotations from the table. A local store is
// a closed world: no tool reaches anything outside it.
func annotate(t *mcp.Tool) {
	a, ok := annotations[t.Name]
	if !ok {
		panic("tool " + t.Name + " has no entry in the annotations table (tools/tools.go)")
	}
	t.Title = a.title
	if a.retired != "" {
		t.Description = "Deprecated, listed no more and kept for a release: use " + a.retired + ". " + t.Description
	}
	t.Annotations = mcp.ToolAnnotation{Title: a.title, ReadOnlyHint: &a.readOnly, DestructiveHint: &a.destructive,
		IdempotentHint: &a.idempotent, OpenWorldHint: new(false)}
}

// call is a tool body: typed arguments in, a structured result and its
// readable rendering out.
type call[A, R any] func(ctx context.Context, args A) (R, string, error)

// add registers tool t with a handler that decodes arguments strictly into A,
// runs fn, and turns domain errors into tool errors a model can act on. A
// tool that writes runs through the write gates, when there are some, and
// takes an idempotency_key besides its own arguments.
func add[A, R any](s *server.MCPServer, svc Services, t mcp.Tool, fn call[A, R]) {
	annotate(&t)
	name := t.Name
	gated := svc.Gates != nil && !annotations[name].readOnly
	if gated {
		t.RawInputSchema = withKey(t.RawInputSchema)
	}
	log := svc.Log
	if svc.bodies != nil {
		svc.bodies[name] = func(ctx context.Context, raw []byte) (any, string, error) {
			var args A
			named, err := newNames(name, json.RawMessage(raw))
			if err != nil {
				return nil, "", err
			}
			if err := DecodeArgs(named, &args); err != nil {
				return nil, "", err
			}
			return fn(ctx, args)
		}
	}
	s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if annotations[name].humans {
			if err := humansOnly(ctx, name); err != nil {
				return toolError(ctx, log, name, err), nil
			}
		}
		raw, err := newNames(name, req.GetRawArguments())
		if err != nil {
			return toolError(ctx, log, name, err), nil
		}
		var wc memory.WriteCall
		if gated {
			if raw, wc, err = splitKey(name, raw); err != nil {
				return toolError(ctx, log, name, err), nil
			}
		}
		var args A
		if err := DecodeArgs(raw, &args); err != nil {
			if gated && strings.Contains(err.Error(), "unknown argument") {
				err = memory.Errorf(memory.EINVALID, "%s, %s", memory.ErrorMessage(err), keyArg)
			}
			return toolError(ctx, log, name, err), nil
		}
		// A call that has started runs to the end even if the client goes away
		// (stdin closing cancels every in-flight request): a write is either
		// committed whole or not started, never cut off half way.
		ctx = context.WithoutCancel(ctx)
		run := func(ctx context.Context) (any, string, error) { return fn(ctx, args) }
		var res any
		var text string
		if gated && !readCall(name, wc.Args) {
			res, text, err = svc.Gates.Run(ctx, wc, run)
		} else {
			res, text, err = run(ctx)
		}
		if err != nil {
			return toolError(ctx, log, name, err), nil
		}
		return mcp.NewToolResultStructured(res, text), nil
	})
}

// oldName is an argument's name before a rename, accepted for a release and
// listed in no schema.
type oldName struct {
	name, now string
	list      bool // the new argument is a list: one value becomes a list of one
}

// renamed are the arguments that were renamed so that one thing has one
// name in every tool (stored text is content, memory ids are ids), by tool.
var renamed = map[string][]oldName{
	"write_note":           {{name: "text", now: "content"}},
	"forget":               {{name: "id", now: "ids", list: true}},
	"memory_block_create":  {{name: "value", now: "content"}},
	"memory_block_append":  {{name: "text", now: "content"}},
	"memory_block_insert":  {{name: "text", now: "content"}},
	"memory_block_rethink": {{name: "value", now: "content"}},
}

// newNames rewrites a call's arguments under their old names to the new
// ones; giving both is refused, since they could disagree.
func newNames(tool string, raw any) (any, error) {
	olds := renamed[tool]
	if len(olds) == 0 || raw == nil {
		return raw, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return raw, nil // DecodeArgs says what is wrong
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return raw, nil
	}
	changed := false
	for _, o := range olds {
		v, ok := m[o.name]
		if !ok {
			continue
		}
		if _, both := m[o.now]; both {
			return nil, memory.Errorf(memory.EINVALID, "give %s only: %s is its old name", o.now, o.name)
		}
		if o.list {
			v = append(append(json.RawMessage{'['}, v...), ']')
		}
		delete(m, o.name)
		m[o.now], changed = v, true
	}
	if !changed {
		return raw, nil
	}
	return m, nil
}

// KeyRule is what idempotency_key does, said once in the server's
// instructions (KeyInstructions) rather than in every tool that writes.
const KeyRule = "see the instructions"

// KeyInstructions explain idempotency_key, for the server's instructions.
const KeyInstructions = `Every tool that writes takes an optional idempotency_key: a unique id you make for one intended
write (a UUID) and send again with every retry of it. A repeat with the same key and arguments changes nothing and
returns the first call's result; the same key with other arguments is refused.`

// readCall reports whether a call of tool with args (JSON, without the
// idempotency key) only reads (annotation.readsWhen).
func readCall(tool string, args []byte) bool {
	when := annotations[tool].readsWhen
	if when == nil {
		return false
	}
	var m map[string]any
	return json.Unmarshal(args, &m) == nil && when(m)
}

// keyArg is the argument every tool that writes takes besides its own.
const keyArg = "idempotency_key"

// withKey adds the idempotency_key argument to a tool's input schema.
func withKey(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic("tool input schema: " + err.Error())
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props[keyArg] = map[string]any{"type": "string", "maxLength": memory.MaxIdempotencyKeyLen,
		"description": "Optional retry key (" + KeyRule + ")."}
	b, err := json.Marshal(m)
	if err != nil {
		panic("tool input schema: " + err.Error())
	}
	return b
}

// splitKey takes the idempotency key out of a gated tool's arguments and
// returns the rest, and the call as the gates see it.
func splitKey(tool string, raw any) (any, memory.WriteCall, error) {
	wc := memory.WriteCall{Tool: tool}
	b, err := json.Marshal(raw)
	if err != nil {
		return raw, wc, nil // DecodeArgs says what is wrong
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers as sent, not as float64
	if dec.Decode(&m) != nil || m == nil {
		return raw, wc, nil
	}
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != keyArg {
			rest[k] = v
			continue
		}
		key, ok := v.(string)
		if !ok {
			return nil, wc, memory.Errorf(memory.EINVALID, "argument %q must be a string", keyArg)
		}
		if err := memory.CheckIdempotencyKey(key); err != nil { // "" too: leave the argument out for no key
			return nil, wc, err
		}
		wc.Key = key
	}
	if wc.Args, err = json.Marshal(rest); err != nil { // map keys sorted: one form for the same arguments
		return nil, wc, memory.Errorf(memory.EINVALID, "arguments are not JSON")
	}
	return rest, wc, nil
}

// toolError renders err for the calling model: domain errors keep their code
// and message; anything else is logged here, once, and reported as internal.
func toolError(ctx context.Context, log *slog.Logger, tool string, err error) *mcp.CallToolResult {
	public, internal := memory.Public(err)
	if internal {
		log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	}
	return mcp.NewToolResultError(public.Error())
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
	// encoding/json matches names whatever their case; an argument is its
	// exact name, or a gate reading the arguments by name ("category") and
	// the tool reading them by field ("Category") would disagree.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err == nil {
		names := argNames(dst)
		for name := range top {
			if !slices.Contains(names, name) {
				return memory.Errorf(memory.EINVALID, "unknown argument %q; this tool takes: %s", name, strings.Join(names, ", "))
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if path, want, got, ok := mistyped(b, reflect.TypeOf(dst).Elem(), ""); ok {
			return memory.Errorf(memory.EINVALID, "argument %q must be %s, not %s", path, jsonKind(want), got)
		}
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

// count reads an optional count argument (a limit): absent is 0, which the
// services read as their default; an explicit 0 is out of range, not a
// request for the default, in every tool alike.
func count(name string, p *int) (int, error) {
	switch {
	case p == nil:
		return 0, nil
	case *p == 0:
		return 0, memory.Errorf(memory.EINVALID, "%s 0 is out of range: give at least 1, or leave %s out for the default", name, name)
	}
	return *p, nil
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
