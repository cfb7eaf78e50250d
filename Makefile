# FlowScript developer tasks. `make help` lists them.
GO ?= go
# The flags the container build uses too (deployments/docker/Dockerfile): static, trimmed.
BUILD_FLAGS ?= -trimpath -ldflags "-s -w"
export CGO_ENABLED ?= 0

.PHONY: help build test test-race test-ts lint bench run fmt

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build every binary into bin/
	$(GO) build $(BUILD_FLAGS) -o bin/ ./cmd/...

test: ## run the tests (the README's test command)
	$(GO) test ./...

test-race: ## run the tests with the race detector, services required (what CI runs)
	CGO_ENABLED=1 FLOWSCRIPT_REQUIRE_SERVICES=1 $(GO) test -race -skip '^TestCluster' ./...
	CGO_ENABLED=1 FLOWSCRIPT_REQUIRE_SERVICES=1 $(GO) test -race -run '^TestCluster' ./internal/executorapp/

test-ts: ## the TypeScript client's tests against a real executor (clients/typescript, as CI runs them)
	cd clients/typescript && npm ci --no-audit --no-fund && npm run build && npm test

lint: ## gofmt, go vet and golangci-lint (.golangci.yml)
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) vet ./...
	$(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0 run ./...

bench: ## run the benchmarks (medians: add -count=5 and use benchstat)
	$(GO) test -run '^$$' -bench . -benchmem ./...

run: ## run the executor end to end on embedded defaults
	$(GO) run ./cmd/executor

fmt: ## format the code
	gofmt -w .
