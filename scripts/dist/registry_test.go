package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaSHA256 is the vendored schema's (packaging/registry/README.md).
const schemaSHA256 = "2e1e2dc758185bfc91023df4e5ace0e1c1bdb7b7b3d6614bb9ac6b9e9a9c2f68"

func registryValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testRoot(t), "packaging", "registry", "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256Hex(raw); sum != schemaSHA256 {
		t.Fatalf("packaging/registry/server.schema.json has sha256 %s, not the vendored schema's %s", sum, schemaSHA256)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if id := doc.(map[string]any)["$id"]; id != registrySchema {
		t.Fatalf("vendored schema is %v, server.json names %s", id, registrySchema)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(registrySchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(registrySchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkServerJSON validates raw against the registry's schema and the rules
// its validator adds for MCP bundles.
func checkServerJSON(t *testing.T, s *jsonschema.Schema, raw []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("server.json does not match the registry's schema: %v", err)
	}
	var e struct {
		Schema   string `json:"$schema"`
		Packages []struct {
			RegistryType    string `json:"registryType"`
			Identifier      string `json:"identifier"`
			FileSHA256      string `json:"fileSha256"`
			RegistryBaseURL string `json:"registryBaseUrl"`
		} `json:"packages"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if e.Schema != registrySchema {
		t.Errorf("$schema %s", e.Schema)
	}
	if len(e.Packages) != 1 || e.Packages[0].RegistryType != "mcpb" {
		t.Fatalf("packages: %+v", e.Packages)
	}
	p := e.Packages[0]
	u, err := url.Parse(p.Identifier)
	switch {
	case err != nil || u.Scheme != "https" || u.Host != "github.com":
		t.Errorf("bundle URL %s is not an https GitHub URL", p.Identifier)
	case !githubRelease.MatchString(u.Path):
		t.Errorf("bundle URL %s is not a GitHub release asset", p.Identifier)
	case !strings.Contains(strings.ToLower(p.Identifier), "mcp"):
		t.Errorf("bundle URL %s does not contain mcp", p.Identifier)
	}
	if p.RegistryBaseURL != "" || !regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(p.FileSHA256) {
		t.Errorf("bundle package: registryBaseUrl %q, fileSha256 %q", p.RegistryBaseURL, p.FileSHA256)
	}
	if pub := e.Meta[publisherKey]; len(pub) == 0 || len(pub) > 4096 {
		t.Errorf("publisher metadata is %d bytes (the registry keeps 1 to 4096)", len(pub))
	}
}

// githubRelease is the registry's pattern of a GitHub release asset's path.
var githubRelease = regexp.MustCompile(`^/([a-zA-Z0-9]([a-zA-Z0-9\-]{0,37}[a-zA-Z0-9])?)/([a-zA-Z0-9._\-]+)/releases/download/([^/]+)/([^/]+)$`)

func TestServerJSONMatchesRegistrySchema(t *testing.T) {
	s := registryValidator(t)
	archives := map[platform]string{}
	for _, p := range platforms {
		archives[p] = strings.Repeat("ab", 32)
	}
	for _, v := range []string{"v1.2.3", "v1.2.3-4-gabcdef0-dirty", "3d90782"} {
		raw, err := marshalIndent(registryEntry(v, strings.Repeat("0f", 32), archives))
		if err != nil {
			t.Fatal(err)
		}
		checkServerJSON(t, s, raw)
	}
	// The schema is really applied: a description over 100 characters fails.
	bad := registryEntry("v1.2.3", strings.Repeat("0f", 32), archives)
	bad.Description = strings.Repeat("x", 101)
	raw, _ := json.Marshal(bad)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if s.Validate(inst) == nil {
		t.Error("the schema accepted a description of 101 characters")
	}
}
