# pixsandbox — a stateful sandbox of a PIX payment API.
#
#   make run    start the simulator on 127.0.0.1:8080 (embedded Badger in ./.pixsandbox)
#   make test   lint, every test under -race, the conformance suite in-process
#   make dist   static binaries for linux/darwin/windows on amd64/arm64 in dist/, with SHA256SUMS
#   make image  the container image (docker or podman; skipped when no engine runs)
#
# Variables: ARGS (extra serve flags), TARGET/CLIENT_ID/CLIENT_SECRET/CERT/TOKEN/TOKEN_COMMAND/AUTH/
# DICT_KEY/PIX_KEY/REFUND_E2E/REFUND_TRANSACTION_ID/LABELS
# (make conformance), FUZZTIME (make fuzz).

SHELL    := bash
GO       ?= go
BIN      := bin/pixsandbox
REPORTS  := $(CURDIR)/reports
FUZZTIME ?= 30s
LABELS   ?= spec && !sandbox && !sandbox-choice
ARGS     ?=

.PHONY: dist image collection explorer-vendor
.PHONY: all build run test test-e2e unit lint fmt vet deps-check openapi-lint conformance conformance-local fuzz bench fixtures golden checks soak clean help

all: build

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

build: ## build bin/pixsandbox, stamped with the version, commit and date (pixsandbox version)
	$(GO) build -ldflags '$(STAMP)' -o $(BIN) ./cmd/pixsandbox

run: build ## start the simulator with the fixture accounts (ARGS='--clock virtual' etc.)
	./$(BIN) serve $(ARGS)

test: lint ## lint, then every test under -race (conformance in-process, JUnit in reports/)
	@mkdir -p $(REPORTS)
	PIXSANDBOX_CONFORMANCE_JUNIT_REPORT=$(REPORTS)/conformance-junit.xml \
	PIXSANDBOX_CONFORMANCE_COVERAGE_REPORT=$(REPORTS)/conformance-coverage \
		$(GO) test -race -count=1 ./...

test-e2e: ## the end-to-end tests of the web console and the API explorer in headless Chromium (installs Debian's chromium when missing; failure screenshots in reports/e2e)
	@test -n "$$PIXSANDBOX_CHROMIUM" || command -v chromium >/dev/null || { if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update && $$SUDO apt-get install -y chromium; }
	@mkdir -p $(REPORTS)
	$(GO) vet -race -tags e2e ./cmd/pixsandbox/
	PIXSANDBOX_E2E_ARTIFACTS=$(REPORTS)/e2e $(GO) test -race -tags e2e -run 'TestConsoleE2E|TestExplorerE2E' -count=1 ./cmd/pixsandbox/

unit: ## every test without -race (quicker)
	$(GO) test -count=1 ./...

lint: fmt vet pixlint staticcheck openapi-lint ## gofmt, go vet, pixlint (dependency rules, wall clock, complexity, package size, fuzz list), staticcheck, docs/openapi.yaml against the OpenAPI 3.1 schema

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

openapi-lint: ## validate docs/openapi.yaml (OpenAPI 3.1 schema) and its agreement with the route tables
	$(GO) test -race -count=1 -run 'TestOpenAPI' ./simulator/httpapi/

# vet builds with -race, as make test does, so one build of the dependencies
# serves both (a cold build cache compiles them once, not twice). The e2e tag
# (chromedp) is vetted by test-e2e, which builds it anyway.
vet:
	$(GO) vet -race ./...
	$(GO) vet -race -tags faults ./simulator/... ./cmd/pixsandbox/

# The repository's own rules (cmd/pixlint): every package's dependency row (the
# table of docs/architecture.md, generated: go run ./cmd/pixlint -write-docs),
# time.Now only where allowed, cyclomatic complexity and package size limits,
# fuzz targets discovered rather than listed.
pixlint:
	$(GO) run ./cmd/pixlint

# staticcheck at the version go.mod pins (its tool directive: a fresh clone
# needs only Go), of ./... and, as vet, of the faults build; pixlint fails on
# its findings less the temporary exceptions of cmd/pixlint/exceptions.go.
staticcheck:
	$(GO) run ./cmd/pixlint -staticcheck

conformance: ## run the suite against TARGET (CLIENT_ID, CLIENT_SECRET, CERT or TOKEN, TOKEN_COMMAND, AUTH; DICT_KEY, PIX_KEY; LABELS filter)
	@test -n "$(TARGET)" || { echo "usage: make conformance TARGET=https://… {CLIENT_ID=… CLIENT_SECRET=… CERT=client.pem | TOKEN=… | TOKEN_COMMAND=… | AUTH=none} [LABELS='$(LABELS)']"; exit 2; }
	@mkdir -p $(REPORTS)
	$(GO) test -count=1 ./conformance -run TestConformance -args \
		-target='$(TARGET)' -client-id='$(CLIENT_ID)' -client-secret='$(CLIENT_SECRET)' -client-cert='$(CERT)' \
		-token='$(TOKEN)' -token-command='$(TOKEN_COMMAND)' -auth='$(AUTH)' \
		-dict-key='$(DICT_KEY)' -pix-key='$(PIX_KEY)' \
		-refund-e2e='$(REFUND_E2E)' -refund-transaction-id='$(REFUND_TRANSACTION_ID)' \
		-ginkgo.label-filter='$(LABELS)' -ginkgo.junit-report=$(REPORTS)/conformance-junit.xml -ginkgo.v \
		-coverage-report=$(REPORTS)/conformance-coverage -json=$(REPORTS)/conformance.json

conformance-local: ## the whole suite in-process against the simulator (what make test runs)
	@mkdir -p $(REPORTS)
	PIXSANDBOX_CONFORMANCE_JUNIT_REPORT=$(REPORTS)/conformance-junit.xml \
	PIXSANDBOX_CONFORMANCE_COVERAGE_REPORT=$(REPORTS)/conformance-coverage \
		$(GO) test -count=1 -race ./cmd/pixsandbox -run TestConformance -v

# A target that fails with "context deadline exceeded" and writes no failing
# input hit the Go fuzzing coordinator's race at the end of -fuzztime
# (golang/go#75804, fixed in Go 1.27): reported, not counted as a failure.
fuzz: ## run every fuzz target (found by go run ./cmd/pixlint -list-fuzz) for FUZZTIME each
	@set -e -o pipefail; targets=$$($(GO) run ./cmd/pixlint -list-fuzz); for t in $$targets; do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "== $$name ($$pkg, $(FUZZTIME))"; \
		corpus=./$$pkg/testdata/fuzz/$$name; before=$$(ls $$corpus 2>/dev/null | wc -l || true); log=$$(mktemp); \
		if $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg 2>&1 | tee $$log; then rm -f $$log; continue; fi; \
		if [ "$$(ls $$corpus 2>/dev/null | wc -l || true)" = "$$before" ] && grep -q 'context deadline exceeded' $$log; then \
			echo "== $$name: stopped by the fuzzing coordinator's deadline race (golang/go#75804), no failing input: not a failure"; \
			rm -f $$log; continue; fi; \
		rm -f $$log; exit 1; done

soak: ## crash test: SIGKILL the real server 25 times under load, then check nothing acknowledged was lost or duplicated
	$(GO) run ./cmd/pixsoak -kills 25

bench: ## Go benchmarks, then the wrk load run against a fresh simulator and a net/http ceiling (docs/performance.md; LOADARGS)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./simulator/... ./cmd/pixsandbox/
	@command -v wrk >/dev/null || { if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update && $$SUDO apt-get install -y wrk; }
	$(GO) build -ldflags '$(STAMP)' -o $(BIN) ./cmd/pixsandbox
	$(GO) build -o bin/pixload ./cmd/pixload
	./bin/pixload -bin $(BIN) $(LOADARGS)

fixtures: ## regenerate fixtures/ from the fixed seed (certificate keys change: review the diff)
	$(GO) run ./cmd/pixfixtures -out fixtures

golden: ## regenerate golden files (docs/scenarios.md, conformance/testdata/checks.txt, docs/conformance-coverage.md, the Postman collection)
	UPDATE_GOLDEN=1 $(GO) test -count=1 ./scenarios/ ./conformance/ ./docs/

checks: golden ## alias: refresh the golden list of conformance checks

clean:
	rm -rf bin reports dist

# Version stamped into bin/pixsandbox, dist/ and the image (pixsandbox version;
# cmd/pixsandbox/version.go). The date is the commit's, so two builds of one
# commit are byte-identical. Without git, or outside a clone (a source
# tarball), they fall back to dev, unknown and unknown; each can be given on
# the command line (make build VERSION=v1.2.3). Each is computed once.
ifeq ($(origin VERSION),undefined)
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
endif
ifeq ($(origin COMMIT),undefined)
COMMIT    := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
endif
ifeq ($(origin DATE),undefined)
DATE      := $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo unknown)
endif
STAMP     := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
LDFLAGS   := -s -w -buildid= $(STAMP)
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
IMAGE     ?= pixsandbox:$(VERSION)

dist: ## static binaries (CGO off) for linux, darwin and windows on amd64 and arm64 in dist/, with dist/SHA256SUMS
	@rm -rf dist && mkdir -p dist
	@set -e; for p in $(PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		out=dist/pixsandbox-$$os-$$arch$$ext; echo "  $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$out ./cmd/pixsandbox; done
	cd dist && sha256sum pixsandbox-* > SHA256SUMS && cat SHA256SUMS

# Builds cmd/pixsandbox/Dockerfile with the first engine that answers (docker, then podman).
# With no engine running it says so and succeeds: CI machines without one skip the image.
collection: ## regenerate docs/pixsandbox.postman_collection.json (Postman v2.1; Bruno and Insomnia import it) from docs/openapi.yaml
	UPDATE_GOLDEN=1 $(GO) test -count=1 -run TestPostmanCollection_UpToDate ./docs/

# The API explorer's Swagger UI (simulator/sandboxapi/explorer/swagger-ui) is
# vendored from the npm package its VENDOR file names. This target fetches that
# version again with npm pack and fails unless the tarball's sha512 is the
# integrity recorded there and the vendored files are the package's (SHA256SUMS);
# SWAGGER_UI=<version> moves to another version instead, rewriting the files,
# VENDOR and SHA256SUMS. make test needs none of it (no network): a test checks
# the embedded files against SHA256SUMS.
EXPLORER_VENDOR := simulator/sandboxapi/explorer/swagger-ui
explorer-vendor: ## re-fetch the API explorer's Swagger UI (npm pack swagger-ui-dist) and check its integrity and files; SWAGGER_UI=<version> moves to that version
	@set -euo pipefail; dir=$(EXPLORER_VENDOR); field() { awk -v k="$$1:" '$$1 == k { print $$2 }' $$dir/VENDOR; }; \
	pkg=$$(field package); old=$$(field version); version=$${SWAGGER_UI:-$$old}; files=$$(sed -n 's/^files: //p' $$dir/VENDOR); \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd $$tmp && npm pack --silent "$$pkg@$$version" >/dev/null); tgz=$$(ls $$tmp/*.tgz); \
	integrity=$$(node -e 'const c = require("crypto"), f = require("fs"); console.log("sha512-" + c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' $$tgz); \
	tar -xzf $$tgz -C $$tmp; license=$$(node -p 'require(process.argv[1]).license' $$tmp/package/package.json); \
	if [ "$$version" = "$$old" ]; then \
		[ "$$integrity" = "$$(field integrity)" ] || { echo "$$pkg@$$version: the tarball's integrity is $$integrity, VENDOR records $$(field integrity)"; exit 1; }; \
		[ "$$license" = "$$(field license)" ] || { echo "$$pkg@$$version: licence $$license, VENDOR records $$(field license)"; exit 1; }; \
		for f in $$files; do cmp -s $$tmp/package/$$f $$dir/$$f || { echo "$$dir/$$f differs from $$pkg@$$version's"; exit 1; }; done; \
		(cd $$dir && sha256sum --quiet -c SHA256SUMS); \
		echo "$$pkg@$$version ($$license): integrity $$integrity and the vendored files ($$files) check"; \
	else \
		for f in $$files; do cp $$tmp/package/$$f $$dir/$$f; done; \
		sed -i -e "s|^version: .*|version: $$version|" -e "s|^integrity: .*|integrity: $$integrity|" -e "s|^license: .*|license: $$license|" $$dir/VENDOR; \
		(cd $$dir && sha256sum $$files > SHA256SUMS); \
		echo "$$pkg moved from $$old to $$version ($$license, $$integrity): review the diff, then run the explorer's tests and make test-e2e"; \
	fi

image: ## build the container image $(IMAGE) with docker or podman (skipped, with a message, when no engine runs)
	@engine=; for e in docker podman; do if command -v $$e >/dev/null 2>&1 && $$e info >/dev/null 2>&1; then engine=$$e; break; fi; done; \
	if [ -z "$$engine" ]; then echo "make image: skipped: no container engine is running (docker or podman; 'docker info' fails or neither is installed)"; exit 0; fi; \
	echo "make image: building $(IMAGE) with $$engine"; \
	$$engine build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg DATE=$(DATE) -t $(IMAGE) -t pixsandbox:latest -f cmd/pixsandbox/Dockerfile .
