package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yosida95/uritemplate/v3"
)

// The end-to-end client checks, on the wire, what the official TypeScript SDK
// checks before a model sees a result, and a little more. Clients built on
// that SDK fail a tool call whose structuredContent does not match the tool's
// declared outputSchema; every desktop and IDE client is built on it. So
// every message the test client receives passes through wire, which learns
// what the server declares (tools/list, prompts/list, resources/list,
// resources/templates/list) and holds every later exchange to it:
//
//   - tools/list: every tool has a title and says, rather than leaves to
//     the client's default, whether it is read-only, destructive, idempotent
//     and open-world;
//   - tools/call: a result that is not an error carries structuredContent
//     that validates (JSON Schema 2020-12) against the tool's outputSchema;
//   - prompts/get: a prompt answers only arguments it declares, with every
//     required one given, and the result is a list of messages;
//   - resources/read: a URI is answered only when it is a listed resource or
//     expands a listed template, and the contents name that URI with the
//     declared MIME type.
//
// Requests themselves are not checked: a test may send bad input on purpose,
// and the server must then answer with an error, which is never checked.
//
// It sits below the SDK client, so no test can call around it: a new tool,
// prompt or template is checked by being called.

// surface is what a server declared, compiled for checking.
type surface struct {
	mu        sync.Mutex
	tools     map[string]*jsonschema.Schema // tool name -> output schema
	outputs   map[string]json.RawMessage    // tool name -> the output schema as declared
	readOnly  map[string]bool               // tool name -> it says it changes nothing
	seen      map[string]map[string]bool    // tool name -> paths of its structured results (see paths)
	prompts   map[string]*mcp.Prompt
	resources map[string]*mcp.Resource
	templates []declaredTemplate
	methods   []string // every request method the client sent, in order
}

type declaredTemplate struct {
	t   *uritemplate.Template
	def *mcp.ResourceTemplate
}

// wire is a client transport that checks every exchange against the surface.
type wire struct {
	inner mcp.Transport
	t     testing.TB
	spec  *surface
}

func (w *wire) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wireConn{Connection: c, w: w, sent: map[any]*jsonrpc.Request{}}, nil
}

type wireConn struct {
	mcp.Connection
	w    *wire
	mu   sync.Mutex
	sent map[any]*jsonrpc.Request // request id -> request
}

func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.w.spec.mu.Lock()
		c.w.spec.methods = append(c.w.spec.methods, req.Method)
		c.w.spec.mu.Unlock()
		c.mu.Lock()
		c.sent[req.ID.Raw()] = req
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	res, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || res.Error != nil {
		return msg, err
	}
	c.mu.Lock()
	req := c.sent[res.ID.Raw()]
	delete(c.sent, res.ID.Raw())
	c.mu.Unlock()
	if req != nil {
		if err := c.w.spec.checkResult(req, res.Result); err != nil {
			c.w.t.Errorf("server answered %s %s: %v", req.Method, brief(req.Params), err)
		}
	}
	return msg, err
}

func (s *surface) checkPromptArgs(p mcp.GetPromptParams) error {
	def := s.prompts[p.Name]
	if def == nil {
		return nil // not listed (hidden by the strategy): the server answers for itself
	}
	for name := range p.Arguments {
		if !slices.ContainsFunc(def.Arguments, func(a *mcp.PromptArgument) bool { return a.Name == name }) {
			return fmt.Errorf("prompt %s does not declare argument %q", p.Name, name)
		}
	}
	for _, a := range def.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return fmt.Errorf("prompt %s requires argument %q", p.Name, a.Name)
		}
	}
	return nil
}

// resourceFor returns the MIME type declared for uri, by a resource or a
// template it expands.
func (s *surface) resourceFor(uri string) (string, bool) {
	if r := s.resources[uri]; r != nil {
		return r.MIMEType, true
	}
	for _, d := range s.templates {
		if d.t.Match(uri) != nil {
			return d.def.MIMEType, true
		}
	}
	return "", false
}

// checkResult learns from list results and checks every other result.
func (s *surface) checkResult(req *jsonrpc.Request, raw json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch req.Method {
	case "tools/list":
		return s.learnTools(raw)
	case "prompts/list":
		var r mcp.ListPromptsResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		for _, p := range r.Prompts {
			s.prompts[p.Name] = p
		}
	case "resources/list":
		var r mcp.ListResourcesResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		for _, res := range r.Resources {
			s.resources[res.URI] = res
		}
	case "resources/templates/list":
		return s.learnTemplates(raw)
	case "tools/call":
		return s.checkToolResult(req, raw)
	case "prompts/get":
		var p mcp.GetPromptParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		if err := s.checkPromptArgs(p); err != nil {
			return err
		}
		return checkPromptResult(raw)
	case "resources/read":
		return s.checkReadResult(req, raw)
	}
	return nil
}

func (s *surface) learnTools(raw json.RawMessage) error {
	var r struct {
		Tools []struct {
			Name         string          `json:"name"`
			Title        string          `json:"title"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  map[string]any  `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	for _, tool := range r.Tools {
		if tool.Title == "" {
			return fmt.Errorf("tool %s has no title", tool.Name)
		}
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := tool.Annotations[hint].(bool); !ok {
				return fmt.Errorf("tool %s leaves %s to the client's default", tool.Name, hint)
			}
		}
		if _, err := compileSchema(tool.Name+"/input", tool.InputSchema); err != nil {
			return fmt.Errorf("tool %s: input schema: %v", tool.Name, err)
		}
		if len(tool.OutputSchema) == 0 {
			return fmt.Errorf("tool %s declares no output schema (mcp-go drops one it cannot generate)", tool.Name)
		}
		sch, err := compileSchema(tool.Name+"/output", tool.OutputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: output schema: %v", tool.Name, err)
		}
		s.tools[tool.Name], s.outputs[tool.Name] = sch, tool.OutputSchema
		s.readOnly[tool.Name] = tool.Annotations["readOnlyHint"] == true
	}
	return nil
}

func (s *surface) learnTemplates(raw json.RawMessage) error {
	var r mcp.ListResourceTemplatesResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	for _, def := range r.ResourceTemplates {
		t, err := uritemplate.New(def.URITemplate)
		if err != nil {
			return fmt.Errorf("template %s is not an RFC 6570 URI template: %v", def.URITemplate, err)
		}
		s.templates = append(s.templates, declaredTemplate{t: t, def: def})
	}
	return nil
}

// checkToolResult is the TypeScript SDK's check: a tool that declares an
// output schema must return structured content that matches it, unless the
// result is an error.
func (s *surface) checkToolResult(req *jsonrpc.Request, raw json.RawMessage) error {
	var p struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return err
	}
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	sch, listed := s.tools[p.Name]
	switch {
	case r.Content == nil:
		return fmt.Errorf("the result has no content array")
	case !listed && !r.IsError:
		return fmt.Errorf("tool %s answered, but tools/list does not list it: an unlisted tool may only refuse", p.Name)
	case r.IsError:
		return nil
	case len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null":
		return fmt.Errorf("tool %s declares an output schema but returned no structured content", p.Name)
	}
	if err := validate(sch, r.StructuredContent); err != nil {
		return err
	}
	var v any
	json.Unmarshal(r.StructuredContent, &v)
	if s.seen[p.Name] == nil {
		s.seen[p.Name] = map[string]bool{}
	}
	for _, path := range paths(v, "", nil) {
		s.seen[p.Name][path] = true
	}
	return nil
}

func checkPromptResult(raw json.RawMessage) error {
	var r struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Messages == nil {
		return fmt.Errorf("the result has no messages array")
	}
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("message %d has role %q", i, m.Role)
		}
		if m.Content.Type == "" {
			return fmt.Errorf("message %d has content without a type", i)
		}
	}
	return nil
}

func (s *surface) checkReadResult(req *jsonrpc.Request, raw json.RawMessage) error {
	var p mcp.ReadResourceParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return err
	}
	var r struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	mime, ok := s.resourceFor(p.URI)
	if !ok {
		return fmt.Errorf("%s is neither a listed resource nor an expansion of a listed template", p.URI)
	}
	if len(r.Contents) == 0 {
		return fmt.Errorf("no contents")
	}
	for _, c := range r.Contents {
		switch {
		case c.URI != p.URI:
			return fmt.Errorf("contents name %s, not the URI read", c.URI)
		case (c.Text == nil) == (c.Blob == nil):
			return fmt.Errorf("contents must carry text or blob")
		case mime != "" && c.MIMEType != mime:
			return fmt.Errorf("contents are %s, declared %s", c.MIMEType, mime)
		}
	}
	return nil
}

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "memory-mcp:///" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func validate(sch *jsonschema.Schema, raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("structured content does not match the output schema: %v\ncontent: %s", err, brief(raw))
	}
	return nil
}

// brief shortens a JSON text for a failure message.
func brief(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// declared lists every tool, prompt, resource and template through c, so
// that the wire below it learns the surface before any test call.
func declared(ctx context.Context, cs *mcp.ClientSession) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if _, err := cs.ListPrompts(ctx, nil); err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	if _, err := cs.ListResources(ctx, nil); err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
		return fmt.Errorf("resources/templates/list: %w", err)
	}
	return nil
}

func newSurface() *surface {
	return &surface{tools: map[string]*jsonschema.Schema{}, outputs: map[string]json.RawMessage{}, readOnly: map[string]bool{},
		seen: map[string]map[string]bool{}, prompts: map[string]*mcp.Prompt{}, resources: map[string]*mcp.Resource{}}
}

// paths lists where a JSON value has fields: "fact.author.seniority",
// "history[].content" (every element of an array is "[]").
func paths(v any, prefix string, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out = paths(e, p, append(out, p))
		}
	case []any:
		for _, e := range v {
			out = paths(e, prefix+"[]", out)
		}
	}
	return out
}

// schemaFields maps each field a schema declares (as paths names values)
// to what it is: its name and the properties of the object holding it. The
// same Go type is described by the same properties in every tool (whether a
// pointer makes it nullable or not), so one key stands for one Go field
// wherever it appears.
func schemaFields(schema any, prefix string, out map[string]string) map[string]string {
	m, _ := schema.(map[string]any)
	if props, ok := m["properties"].(map[string]any); ok {
		holder, _ := json.Marshal(props) // encoding/json sorts map keys: a canonical text
		for k, sub := range props {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = string(holder) + "#" + k
			schemaFields(sub, p, out)
		}
	}
	if items, ok := m["items"]; ok {
		schemaFields(items, prefix+"[]", out)
	}
	return out
}
