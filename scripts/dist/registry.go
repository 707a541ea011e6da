package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
)

// The MCP registry entry (server.json) describes this release. The schema
// it follows is vendored in packaging/registry (see its README); the tests
// validate every server.json written here against it.
const (
	registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	registryName   = "io.github.memory-mcp/memory-mcp"
	repoURL        = "https://github.com/memory-mcp/memory-mcp"
	// publisherKey is the one _meta key the official registry keeps.
	publisherKey = "io.modelcontextprotocol.registry/publisher-provided"
)

// releaseURL is where a release asset of version is downloaded from.
func releaseURL(version, name string) string {
	return repoURL + "/releases/download/" + version + "/" + name
}

type serverJSON struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl"`
	Repository  map[string]any `json:"repository"`
	Packages    []pkg          `json:"packages"`
	Meta        map[string]any `json:"_meta"`
}

type pkg struct {
	RegistryType string   `json:"registryType"`
	Identifier   string   `json:"identifier"`
	Version      string   `json:"version"`
	FileSHA256   string   `json:"fileSha256"`
	Transport    any      `json:"transport"`
	Env          []envVar `json:"environmentVariables"`
}

type envVar struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Format      string   `json:"format,omitempty"`
	Default     string   `json:"default,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// archiveRef is one release archive as server.json's publisher metadata
// lists it: the registry has no package type for a plain archive, so the
// archives ride there, beside the bundle, which is a package.
type archiveRef struct {
	Platform string `json:"platform"`
	URL      string `json:"url"`
	SHA256   string `json:"sha256"`
}

// registryEntry describes version's release: bundle is the packed bundle's
// SHA-256 and archives the SHA-256 of each platform's archive.
func registryEntry(version, bundleSHA string, archives map[platform]string) serverJSON {
	s := serverJSON{
		Schema:      registrySchema,
		Name:        registryName,
		Title:       "memory-mcp",
		Description: "Persistent, governed memory for agents in one local SQLite file; offline, no API key.",
		Version:     semver(version),
		WebsiteURL:  repoURL,
		Repository:  map[string]any{"url": repoURL, "source": "github"},
		Packages: []pkg{{
			RegistryType: "mcpb",
			Identifier:   releaseURL(version, bundleName(version)),
			Version:      semver(version),
			FileSHA256:   bundleSHA,
			Transport:    map[string]string{"type": "stdio"},
			Env: []envVar{
				{Name: "MEMORY_MCP_DATA_DIR", Format: "filepath",
					Description: "Directory holding memory.db; default: the user's data directory (~/Library/Application Support/memory-mcp, %LocalAppData%\\memory-mcp, ~/.local/share/memory-mcp)"},
				{Name: "MEMORY_MCP_AGENT_ID", Default: "claude-desktop",
					Description: "The client's agent id: whose memories, notes and audit entries these are"},
				{Name: "MEMORY_MCP_SENIORITY", Default: "mid", Choices: []string{"junior", "mid", "senior", "lead", "principal"},
					Description: "The agent's seniority, which decides the fact categories it may publish"},
			},
		}},
	}
	var refs []archiveRef
	for _, p := range platforms {
		if sum, ok := archives[p]; ok {
			refs = append(refs, archiveRef{p.String(), releaseURL(version, archiveName(version, p)), sum})
		}
	}
	s.Meta = map[string]any{publisherKey: map[string]any{
		"archives":  refs,
		"checksums": releaseURL(version, checksumsName(version)),
	}}
	return s
}

// writeServerJSON writes o.out/server.json for the bundle at bundlePath and
// the archives beside it.
func writeServerJSON(o options, bundlePath string) error {
	bundleSHA, err := fileSHA256(bundlePath)
	if err != nil {
		return err
	}
	archives := map[platform]string{}
	for _, p := range platforms {
		if sum, err := fileSHA256(filepath.Join(o.out, archiveName(o.version, p))); err == nil {
			archives[p] = sum
		}
	}
	b, err := marshalIndent(registryEntry(o.version, bundleSHA, archives))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "server.json"), b, 0o644)
}

func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}
