# The project's interface: make run, make test, make check, make bench, make compat.
GO      ?= go
BIN     ?= bin/memory-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build run test check race bench compat conformance fuzz wordvec clean

build: ## build bin/memory-mcp
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/memory-mcp

# run keeps stdout for JSON-RPC alone: make's echo of the build and of the
# command would otherwise reach the client ahead of the protocol. (make -C
# prints "Entering directory" on stdout before it reads this file: run it
# from the clone, or give a client the binary.)
run: ## build and serve MCP over stdio on the default data directory (stdout carries only the protocol)
	@$(MAKE) --no-print-directory -s build >&2
	@exec $(abspath $(BIN)) stdio

test: chromium haproxy ## unit, storage, end-to-end and multi-process tests (the review page's browser test needs Chromium, installed first if missing; the store's tests also run on a throwaway PostgreSQL, see `make postgres`; the multi-node fault test runs three nodes behind HAProxy, installed first if missing), then the end-to-end tests again with every server's memory in PostgreSQL (those that choose their databases themselves run once)
	MEMORY_MCP_REQUIRE_POSTGRES=1 scripts/postgres.sh run sh -c \
		'$(GO) test -timeout 30m ./... && MEMORY_MCP_TEST_ENGINE=postgres $(GO) test -timeout 30m -skip "$(ENGINES_CHOSEN)" ./cmd/memory-mcp/'

# The end-to-end tests that choose their databases themselves (several nodes
# on one PostgreSQL, a SQLite directory copied into one): the PostgreSQL
# pass leaves them out, as they ran on the first.
ENGINES_CHOSEN = ^(TestNodesSurviveFaults|TestNodesServeOneMemory|TestSessionsStickBehindHAProxy|TestCopyIntoPostgres|TestPostgresOutageThroughTheServer|TestPostgresMisconfigurationRefusedAtStart)$$

.PHONY: postgres haproxy

postgres: ## start a throwaway PostgreSQL 15 (Debian's, installed first if missing) and print its URL: `export MEMORY_MCP_TEST_POSTGRES=$$(make -s postgres)` runs the store's tests on it too; `scripts/postgres.sh stop URL` ends it
	@scripts/postgres.sh start

haproxy: ## install Debian's HAProxy, the balancer in front of the multi-node fault test's nodes, unless it is on PATH (apt, as root or through sudo)
	@scripts/haproxy.sh install

.PHONY: chromium screenshots

chromium: ## install Debian's Chromium, which the review page's browser test drives, unless one is on PATH (apt, as root or through sudo)
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
		{ sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); $$sudo apt-get update && \
		  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

screenshots: chromium ## run the review page's browser test and keep a screenshot of every page in bin/screenshots
	UI_SCREENSHOTS=$(CURDIR)/bin/screenshots $(GO) test -count=1 -run '^TestReviewPageInABrowser$$' ./cmd/memory-mcp

check: ## formatting, vet and staticcheck
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# The end-to-end suite under the race detector takes close to go test's
# default 10 minutes on two cores (589 s of the 600 in one run): a longer
# timeout, so that a slow machine is not a failure.
race: ## the race detector over the packages that hold concurrency: the store (vector index, caches), subscriptions, and the server run in process
	MEMORY_MCP_REQUIRE_POSTGRES=1 scripts/postgres.sh run $(GO) test -race -timeout 30m ./store/... ./resources/ ./cmd/memory-mcp/

bench: haproxy ## print throughput, latency and quality figures (each benchmark runs a fixed workload once; the multi-node ones start their own PostgreSQL; BenchmarkEngines compares SQLite with a throwaway PostgreSQL)
	MEMORY_MCP_REQUIRE_POSTGRES=1 scripts/postgres.sh run $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 90m ./...

compat: compat-sqlite compat-postgres ## run the official MCP TypeScript SDK client, the MCP Inspector CLI and the conformance suite against the binary, with the memory in SQLite, then in PostgreSQL (needs node and npm)

.PHONY: compat-deps compat-sqlite compat-postgres

compat-deps:
	cd compat && npm ci --ignore-scripts --no-audit --no-fund
	cd compat/conformance && npm ci --ignore-scripts --no-audit --no-fund

compat-sqlite: build compat-deps ## the SDK client, the Inspector and conformance on the data directory's SQLite file
	node compat/client.mjs $(BIN)
	compat/inspector.sh
	compat/conformance/run.sh $(BIN)

compat-postgres: build compat-deps ## the same with --database on a throwaway PostgreSQL (scripts/postgres.sh; MEMORY_MCP_TEST_POSTGRES names a server of your own)
	scripts/postgres.sh run sh -c 'export COMPAT_POSTGRES=$$MEMORY_MCP_TEST_POSTGRES; rc=0; \
		node compat/client.mjs $(BIN) || rc=1; compat/inspector.sh || rc=1; compat/conformance/run.sh $(BIN) || rc=1; exit $$rc'

conformance: build ## run the official MCP conformance suite's general server scenarios against `memory-mcp serve` (needs node and npm)
	cd compat/conformance && npm ci --ignore-scripts --no-audit --no-fund
	compat/conformance/run.sh $(BIN)

fuzz: ## run each fuzz target for a short while
	$(GO) test -run '^$$' -fuzz FuzzDecodeArgs -fuzztime 30s ./tools
	$(GO) test -run '^$$' -fuzz FuzzNotText -fuzztime 30s ./cmd/memory-mcp
	$(GO) test -run '^$$' -fuzz FuzzParseWriteAccess -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzBlockEdit -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzContradicts -fuzztime 30s ./internal/text
	$(GO) test -run '^$$' -fuzz FuzzRestates -fuzztime 30s -fuzzminimizetime 5s ./internal/text
	$(GO) test -run '^$$' -fuzz FuzzDedupKeys -fuzztime 30s -fuzzminimizetime 5s ./internal/text
	$(GO) test -run '^$$' -fuzz FuzzPromoteNote -fuzztime 30s -fuzzminimizetime 10s ./promotion
	$(GO) test -run '^$$' -fuzz FuzzLLMOutput -fuzztime 30s ./promotion
	$(GO) test -run '^$$' -fuzz FuzzSearch -fuzztime 30s ./store
	$(GO) test -run '^$$' -fuzz FuzzEmbed -fuzztime 30s ./store/wordvec
	$(GO) test -run '^$$' -fuzz FuzzParseJWKS -fuzztime 30s ./auth
	$(GO) test -run '^$$' -fuzz FuzzCheckpoint -fuzztime 30s ./finetune

wordvec: ## regenerate store/wordvec/glove100.bin from the pinned npm package (needs npm; see scripts/wordvec/README.md)
	cd scripts/wordvec && npm ci --ignore-scripts --no-audit --no-fund
	$(GO) run ./scripts/wordvec
	sha256sum store/wordvec/glove100.bin

clean:
	rm -rf bin $(DIST)

# Release artifacts; packaging/README.md says what each holds. The same commit
# with the same Go release gives the same bytes: every archive entry carries
# the commit's time (SOURCE_DATE_EPOCH).
DIST ?= dist
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 946684800)
DISTENV = SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH)

.PHONY: dist mcpb dist-check notices docker

dist: ## release archives (linux, darwin, windows on amd64 and arm64) and their SHA-256 checksums in dist/
	$(DISTENV) $(GO) run ./scripts/dist -version $(VERSION) -out $(DIST) archives

mcpb: dist ## the Claude Desktop bundle (.mcpb) and the MCP registry entry (server.json) in dist/ (needs node and npm)
	cd packaging/mcpb && npm ci --ignore-scripts --no-audit --no-fund
	$(DISTENV) $(GO) run ./scripts/dist -version $(VERSION) -out $(DIST) mcpb

dist-check: mcpb ## check the artifacts: checksums, the host's archive run, the bundle started as Claude Desktop starts it, the same bytes again, server.json against the registry's schema
	$(DISTENV) MEMORY_MCP_DIST=$(abspath $(DIST)) MEMORY_MCP_VERSION=$(VERSION) $(GO) test -count=1 -timeout 30m ./scripts/dist/

notices: ## regenerate THIRD_PARTY_NOTICES.md from the modules linked into the binary
	$(GO) run ./scripts/dist notices

docker: ## build the container image memory-mcp:$(VERSION) (needs a Docker engine)
	docker build --build-arg VERSION=$(VERSION) -t memory-mcp:$(VERSION) .
