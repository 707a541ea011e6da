package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memory "github.com/memory-mcp/memory-mcp"
)

func TestConfigStrategyAndBlocks(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg, err := LoadConfig(nil, mapEnv(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Strategy != memory.StrategyAll || len(cfg.Blocks) != 3 || cfg.Blocks[0].Label != "persona" {
		t.Fatalf("defaults: strategy %q, blocks %+v", cfg.Strategy, cfg.Blocks)
	}

	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte(`{"strategy": "context", "blocks": [{"label": "goals", "description": "Goals.", "limit": 99}]}`), 0o600)
	cfg, err = LoadConfig([]string{"--config", file}, mapEnv(map[string]string{"MEMORY_MCP_STRATEGY": "self_editing"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Strategy != memory.StrategySelfEditing || len(cfg.Blocks) != 1 || cfg.Blocks[0].Limit != 99 {
		t.Fatalf("env strategy over file, file blocks: %q, %+v", cfg.Strategy, cfg.Blocks)
	}
	cfg, err = LoadConfig([]string{"--blocks", "[]"}, mapEnv(nil), io.Discard)
	if err != nil || len(cfg.Blocks) != 0 || cfg.Blocks == nil {
		t.Fatalf("--blocks []: %+v, %v", cfg.Blocks, err)
	}

	for args, want := range map[string]string{
		"--strategy=psychic": `strategy (from flag --strategy): unknown strategy "psychic"`,
		"--blocks=persona":   "blocks (from flag --blocks): blocks must be a JSON array",
		`--blocks=[{"label": "a b", "description": "d"}]`: `label "a b" may contain only`,
	} {
		if _, err := LoadConfig([]string{args}, mapEnv(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadConfig(%s) = %v, want %q", args, err, want)
		}
	}
}
