package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
	"github.com/memory-mcp/memory-mcp/consolidation"
)

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	os.WriteFile(file, []byte(`{"agent-id": "from-file", "seniority": "lead", "human": true, "write-access": ["adr=mid", "procedure=human"], "max-content-bytes": 1000000}`), 0o600)
	env := map[string]string{"MEMORY_MCP_SENIORITY": "junior", "MEMORY_MCP_DATA_DIR": "/env/dir"}
	cfg, err := LoadConfig([]string{"--config", file, "--data-dir", "/flag/dir"}, mapEnv(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/flag/dir" || cfg.sources["data-dir"] != "flag --data-dir" {
		t.Errorf("flag must beat env: %q from %s", cfg.DataDir, cfg.sources["data-dir"])
	}
	if cfg.Identity.Seniority != memory.SeniorityJunior || cfg.sources["seniority"] != "env MEMORY_MCP_SENIORITY" {
		t.Errorf("env must beat file: %v from %s", cfg.Identity.Seniority, cfg.sources["seniority"])
	}
	if cfg.Identity.AgentID != "from-file" || !cfg.Identity.Human || cfg.WriteAccess.String() != "adr=mid,core_policy=senior,procedure=human" || cfg.MaxContentBytes != 1000000 {
		t.Errorf("file values not applied: %+v, %s, max %d", cfg.Identity, cfg.WriteAccess, cfg.MaxContentBytes)
	}
	if cfg.Identity.Autonomy != memory.AutonomySemi || cfg.sources["autonomy"] != "default" {
		t.Errorf("default not applied: %v from %s", cfg.Identity.Autonomy, cfg.sources["autonomy"])
	}
	var b strings.Builder
	cfg.Describe(&b)
	if !strings.Contains(b.String(), "seniority") || !strings.Contains(b.String(), "(env MEMORY_MCP_SENIORITY)") {
		t.Errorf("describe = %s", b.String())
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"agent-idd": "x"}`), 0o600)
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--seniority", "intern"}, nil, `seniority (from flag --seniority): unknown seniority "intern"`},
		{nil, map[string]string{"MEMORY_MCP_HUMAN": "maybe"}, `human (from env MEMORY_MCP_HUMAN): "maybe" is not true or false`},
		{[]string{"--config", bad}, nil, `unknown setting "agent-idd"`},
		{[]string{"--config", filepath.Join(dir, "missing.json")}, nil, "no such file"},
		{[]string{"--write-access", "core_policy=boss"}, nil, `"boss" is not a seniority, agents:<seniority>, human, any or none`},
		{[]string{"--write-access", "adr=agents:boss"}, nil, `"agents:boss" is not a seniority`},
		{[]string{"--agent-id", "has space"}, nil, "agent-id"},
		{[]string{"stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--max-content-bytes", "-1"}, nil, "not a positive integer"},
		{[]string{"--consolidation-strategy", "llm"}, nil, "consolidation-strategy llm: https://api.openai.com/v1 needs an API key: set llm-api-key"},
		{[]string{"--consolidation-strategy", "llm", "--llm-base-url", "http://localhost:11434/v1", "--llm-model", ""}, nil,
			"consolidation-strategy llm: no model is set: set llm-model"},
		{[]string{"--consolidation-summarizer", "gpt"}, nil, `consolidation-summarizer (from flag --consolidation-summarizer): unknown summarizer "gpt": use offline or llm`},
		{[]string{"--consolidation-summarizer", "llm"}, nil, "consolidation-summarizer llm: https://api.openai.com/v1 needs an API key"},
	}
	for _, tt := range tests {
		_, err := LoadConfig(tt.args, mapEnv(tt.env), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadConfig(%v, %v) = %v, want error containing %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestLLMConsolidationConfig: the llm strategy as the default needs an
// endpoint that can serve a call; a local server needs no key.
func TestLLMConsolidationConfig(t *testing.T) {
	cfg, err := LoadConfig([]string{"--consolidation-strategy", "llm", "--llm-base-url", "http://localhost:11434/v1", "--llm-model", "llama3"},
		mapEnv(nil), io.Discard)
	if err != nil || cfg.llmUnusable() != "" || cfg.Consolidation.Strategy != memory.ConsolidateLLM {
		t.Fatalf("a local endpoint: %v, %q", err, cfg.llmUnusable())
	}
	cfg, err = LoadConfig([]string{"--consolidation-strategy", "llm"}, mapEnv(map[string]string{"OPENAI_API_KEY": "sk-x"}), io.Discard)
	if err != nil || cfg.llmUnusable() != "" {
		t.Fatalf("OpenAI with a key: %v, %q", err, cfg.llmUnusable())
	}
	if cfg, err = LoadConfig(nil, mapEnv(nil), io.Discard); err != nil || !strings.Contains(cfg.llmUnusable(), "needs an API key") {
		t.Fatalf("the default, offline: %v, %q", err, cfg.llmUnusable())
	}
}

func TestConsolidationSummarizer(t *testing.T) {
	cfg, err := LoadConfig(nil, mapEnv(nil), io.Discard)
	if err != nil || cfg.Consolidation.DualMode.Abstractive != consolidation.AbstractiveOffline {
		t.Fatalf("default summarizer: %v %v", cfg.Consolidation.DualMode.Abstractive, err)
	}
	cfg, err = LoadConfig(nil, mapEnv(map[string]string{"MEMORY_MCP_CONSOLIDATION_SUMMARIZER": "LLM", "OPENAI_API_KEY": "k"}), io.Discard)
	if err != nil || cfg.Consolidation.DualMode.Abstractive != consolidation.AbstractiveLLM {
		t.Fatalf("summarizer from the environment: %v %v", cfg.Consolidation.DualMode.Abstractive, err)
	}
}

func TestDefaultConfigFileIsOptional(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := LoadConfig(nil, mapEnv(nil), io.Discard); err != nil {
		t.Fatalf("a missing default config file must not be an error: %v", err)
	}
}

// mapEnv is an environment of m's variables and a HOME (where no config file
// exists) unless m sets one.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := m[k]; ok || k != "HOME" {
			return v
		}
		return "/nonexistent/home"
	}
}

func TestNoHomeNeedsADataDir(t *testing.T) {
	_, err := LoadConfig(nil, mapEnv(map[string]string{"HOME": ""}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "set --data-dir or MEMORY_MCP_DATA_DIR") {
		t.Fatalf("no home and no data dir: %v", err)
	}
	cfg, err := LoadConfig(nil, mapEnv(map[string]string{"HOME": "/home/sam"}), io.Discard)
	if err != nil || cfg.DataDir != filepath.Join("/home/sam", ".local", "share", "memory-mcp") {
		t.Fatalf("default data dir = %q, %v", cfg.DataDir, err)
	}
}

// LoadConfig resolves, for tests, the configuration from args (flags, every setting
// accepted as one), the environment and the config file.
func LoadConfig(args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet("memory-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := defineSettings(fs, getenv, nil)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return flags.resolve(getenv)
}

// The database setting never shows a password: not in config's listing of
// a URL, and not in the error for a value that is not a URL, where it may
// sit anywhere (a key=value connection string).
func TestDatabasePasswordIsNeverShown(t *testing.T) {
	cfg, err := LoadConfig([]string{"--database", "postgres://ann:S3cretPW@db:5432/team?sslmode=require&password=S3cretPW"}, mapEnv(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cfg.Describe(&b)
	if strings.Contains(b.String(), "S3cretPW") || !strings.Contains(b.String(), "postgres://ann:xxxxx@db:5432/team") {
		t.Errorf("config shows:\n%s", b.String())
	}
	// a raw @ or / in the password: no part of it is shown
	for _, v := range []string{"postgres://ann:S3c@retPW/x@db:5432/team", "postgres://ann:12/S3cretPW@db/team"} {
		cfg, err := LoadConfig([]string{"--database", v}, mapEnv(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		cfg.Describe(&b)
		if strings.Contains(b.String(), "retPW") || !strings.Contains(b.String(), "password needs percent-encoding") {
			t.Errorf("config shows:\n%s", b.String())
		}
	}
	for _, v := range []string{"user=postgres password=S3cretPW host=127.0.0.1 dbname=team", "mysql://ann:S3cretPW@db/team"} {
		_, err := LoadConfig(nil, mapEnv(map[string]string{"MEMORY_MCP_DATABASE": v}), io.Discard)
		if err == nil || strings.Contains(err.Error(), "S3cretPW") || !strings.Contains(err.Error(), "is not a PostgreSQL URL") {
			t.Errorf("MEMORY_MCP_DATABASE=%q: %v", v, err)
		}
	}
}
