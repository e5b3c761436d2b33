# Clawboo Desktop. The two commands a new machine needs:
#   make run    build and open the app (no display: serve the UI headless)
#   make test   everything CI runs
# Both install missing system packages (apt, as root or via sudo) or print
# the exact command. See README.md.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

GO        ?= go
BIN       := build/bin
TAGS      := desktop,production,webkit2_41
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
GOLANGCI_VERSION := v2.15.0
XVFB      := xvfb-run -a -s "-screen 0 1280x800x24"

FRONTEND_SRC := $(shell find frontend/src frontend/public frontend/index.html frontend/package.json frontend/tsconfig.json frontend/*.config.* -type f 2>/dev/null)

.PHONY: run serve build build-headless host-builds test lint test-go test-keyring test-frontend test-browser test-desktop bench clean deps-serve deps-desktop deps-test

## ---- setup ---------------------------------------------------------------

deps-serve:
	@build/deps.sh serve
deps-desktop:
	@build/deps.sh desktop
deps-test:
	@build/deps.sh test

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(FRONTEND_SRC)
	cd frontend && npm run build

## ---- build and run ---------------------------------------------------------

# The desktop app (also understands `clawboo serve`).
build: deps-desktop frontend/dist/index.html
	$(GO) build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN)/clawboo .

# The cgo-free headless binary: `clawboo serve` only.
build-headless: deps-serve frontend/dist/index.html
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/clawboo-headless .

run:
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  $(MAKE) --no-print-directory build && exec $(BIN)/clawboo; \
	else \
	  echo "No display found: serving the Clawboo UI headless (open the URL below in a browser)."; \
	  $(MAKE) --no-print-directory build-headless && exec $(BIN)/clawboo-headless serve; \
	fi

serve: build-headless
	exec $(BIN)/clawboo-headless serve

## ---- tests ---------------------------------------------------------------

# Each step is timed (build/steps.sh prints the table at the end, pass or fail).
TEST_STEPS := lint test-go test-keyring test-frontend test-browser test-desktop test-package test-cross
test: deps-test
	@build/steps.sh $(TEST_STEPS)
	@echo "make test: all green"

# golangci-lint (.golangci.yml): vet's and staticcheck's checks, unused,
# ineffassign, dupl, funlen and gofumpt in one pass per build-tag set. It is
# built once per machine into build/tools (a cold build takes a few minutes;
# later runs start at once).
GOLANGCI_LINT := $(CURDIR)/build/tools/golangci-lint-$(GOLANGCI_VERSION)
$(GOLANGCI_LINT):
	@mkdir -p build/tools
	GOBIN=$(CURDIR)/build/tools $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv build/tools/golangci-lint $@

lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...
	$(GOLANGCI_LINT) run --build-tags $(TAGS),e2e,desktopsmoke ./app/... .
	$(GOLANGCI_LINT) run --build-tags desktopbench ./app/...
	$(GO) test -count=1 -run '^TestArch' ./backend/

# The real runtime CLIs the Go tests drive offline, pinned in
# test/clis/package.json (their tests fail, not skip, when CLAWBOO_TEST_CLIS
# is set and the binary is missing).
CLIS := test/clis/node_modules
$(CLIS)/.installed: test/clis/package.json test/clis/package-lock.json
	cd test/clis && npm ci --no-audit --no-fund
	touch $@

# The real ACP agents the Go tests drive offline (Claude Code through its
# ACP adapter, OpenCode), pinned in test/acp/package.json; their tests fail,
# not skip, when CLAWBOO_TEST_ACP is set and a program is missing. `npm
# install --no-save` installs the lockfile's versions like `npm ci`, but
# tolerates what `npm ci` refuses: OpenCode's binaries for other platforms
# (optional dependencies) that the registry here does not serve, so the
# lockfile cannot name them.
ACPS := test/acp/node_modules
$(ACPS)/.installed: test/acp/package.json test/acp/package-lock.json
	cd test/acp && npm install --no-audit --no-fund --no-save
	touch $@

# The real OpenClaw Gateway and the Node 24 it needs (test/openclaw/install.sh;
# cached until the lockfile changes).
OPENCLAW := test/openclaw/node_modules
$(OPENCLAW)/.installed: test/openclaw/package.json test/openclaw/package-lock.json test/openclaw/install.sh
	test/openclaw/install.sh

# The backend root package's test binary was the longest pole of test-go:
# most of its time is three end-to-end tests on the real OpenClaw Gateway and
# the real CLIs. They run as a second process of the same compiled binary,
# beside `go test ./...` (which skips them), so the two halves share the
# machine's cores instead of running one after the other.
# The remote-host tests add a second Unix user and start sshd: as root they
# must run (CLAWBOO_TEST_SSHD); as another user they skip, saying why.
SSHD_ENV  := $(if $(filter 0,$(shell id -u)),CLAWBOO_TEST_SSHD=1)
TEST_ENV  := $(SSHD_ENV) CLAWBOO_TEST_CLIS=$(CURDIR)/test/clis CLAWBOO_TEST_OPENCLAW=$(CURDIR)/test/openclaw CLAWBOO_TEST_ACP=$(CURDIR)/test/acp
ROOT_SLOW := ^(TestOpenClawOnTheRealGateway|TestRoutineOpenClawOnTheRealGateway|TestTeamMixedRealCLIs)$$
test-go: $(CLIS)/.installed $(OPENCLAW)/.installed $(ACPS)/.installed
	@mkdir -p $(BIN)
	$(GO) test -race -c -o $(BIN)/backend-slow.test ./backend/
	@(start=$$(date +%s); cd backend && $(TEST_ENV) ../$(BIN)/backend-slow.test -test.run '$(ROOT_SLOW)' -test.count 1 -test.timeout 15m \
	    > ../$(BIN)/backend-slow.log 2>&1; rc=$$?; echo $$(( $$(date +%s) - start )) > ../$(BIN)/backend-slow.secs; exit $$rc) & slow=$$!; \
	  rest=0; $(TEST_ENV) $(GO) test -race -skip '$(ROOT_SLOW)' ./... || rest=$$?; \
	  s=0; wait $$slow || s=$$?; \
	  if [ $$s -eq 0 ]; then echo "ok  	backend (its real-Gateway and real-CLI tests, run beside)	$$(cat $(BIN)/backend-slow.secs)s"; \
	  else cat $(BIN)/backend-slow.log; echo "FAIL	backend (its real-Gateway and real-CLI tests)"; fi; \
	  [ $$rest -eq 0 ] && [ $$s -eq 0 ]

# The vault against the real Secret Service on a private bus (plus the
# no-bus fallback). XDG_DATA_HOME keeps the throwaway login keyring (password
# "pw") out of ~/.local/share/keyrings, where a real one may live.
test-keyring:
	d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	  XDG_DATA_HOME=$$d dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; $(GO) test -tags keyring_it -count=1 -run Keyring ./backend/vault/'

test-frontend: frontend/node_modules/.installed
	cd frontend && npm run check && npm test

test-browser: build-headless
	cd frontend && CLAWBOO_BIN=$(CURDIR)/$(BIN)/clawboo-headless npm run test:e2e

test-desktop: build
	NO_AT_BRIDGE=1 $(XVFB) dbus-run-session -- $(GO) test -tags desktopsmoke -count=1 -v ./app/

## ---- packages --------------------------------------------------------------

.PHONY: package test-package test-cross test-cross-desktop

# build/package (its own Go module, so nfpm stays out of the app's go.mod)
# packages the `make build` binary: $(BIN)/clawboo_<version>_<arch>.deb and
# $(BIN)/clawboo_<version>_linux_<arch>.tar.gz. The version is the binary's
# own (`clawboo version`, from git describe) made a Debian version.
PACKAGER := $(GO) -C build/package run . -root $(CURDIR) -bin $(CURDIR)/$(BIN)/clawboo -out $(CURDIR)/$(BIN) -hostbuilds $(CURDIR)/$(BIN)/host

# The headless builds another machine gets (backend/hosts installs the one
# for its architecture), each with its SHA-256, shipped in the package
# under /usr/lib/clawboo/host.
host-builds: frontend/dist/index.html
	@mkdir -p $(BIN)/host
	for arch in amd64 arm64; do \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/host/clawboo-linux-$$arch . && \
	  (cd $(BIN)/host && sha256sum clawboo-linux-$$arch >clawboo-linux-$$arch.sha256) || exit 1; \
	done

package: build host-builds
	$(PACKAGER)

# Installs the .deb on this machine (root), checks it, launches it through its
# desktop entry under Xvfb, removes it; see test/package/test.sh.
test-package: deps-test package
	$(GO) -C build/package vet .
	$(GO) -C build/package test -count=1 .
	XVFB='$(XVFB)' test/package/test.sh "$$($(PACKAGER) -print deb)" "$$($(PACKAGER) -print tar)"

# The headless binary for macOS and Windows (make test). test-cross-desktop
# also builds the Windows desktop app (its WebView2 binding is pure Go; the
# macOS desktop app needs cgo and Xcode); it is left out of make test because
# compiling Wails and its dependencies for a third platform costs a fresh CI
# machine minutes for a build the headless one already type-checks in part.
test-cross:
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o /dev/null .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null .

test-cross-desktop: test-cross
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -tags desktop,production -ldflags -H=windowsgui -o /dev/null .

## ---- benchmarks ------------------------------------------------------------

bench: deps-test build build-headless $(CLIS)/.installed $(ACPS)/.installed
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./backend/perf/ -clawboo $(CURDIR)/$(BIN)/clawboo-headless
	CLAWBOO_TEST_CLIS=$(CURDIR)/test/clis CLAWBOO_TEST_ACP=$(CURDIR)/test/acp $(GO) test -run '^$$' -bench . ./backend/store/ ./backend/executor/ ./backend/board/ ./backend/mcp/ ./backend/adapters/...
	$(GO) test -run '^$$' -bench 'Team|Quota' -benchtime 40x ./backend/
	# Runs on other machines (a real sshd, second Unix users; root only): a run and a task there
	# beside here, a flood's events/s, and three hosts taking 60 queued tasks at 4 at once each.
	$(SSHD_ENV) $(GO) test -run '^$$' -bench 'HostRun|HostChat|HostFlood' -benchtime 5x ./backend/
	$(SSHD_ENV) $(GO) test -run '^$$' -bench 'ThreeHosts' -benchtime 1x -timeout 30m ./backend/
	# A paired phone (issue 30): an approval shown on its page beside the desktop's page, and
	# the server's idle CPU with its page open.
	cd frontend && CLAWBOO_BIN=$(CURDIR)/$(BIN)/clawboo-headless node e2e/phone-bench.mjs
	# The board at 10,000 tasks in Chromium: first render of #/board (printed), paging, search.
	cd frontend && CLAWBOO_BIN=$(CURDIR)/$(BIN)/clawboo-headless node --test e2e/board-scale.test.mjs
	# The desktop app beside WebKitGTK's MiniBrowser showing the same page, in
	# the same run: launch -> window+page and idle PSS with the WebKit processes.
	NO_AT_BRIDGE=1 $(XVFB) dbus-run-session -- env CLAWBOO_BENCH_BIN=$(CURDIR)/$(BIN)/clawboo \
	  $(GO) test -tags desktopbench -run '^$$' -bench Desktop -benchtime 1x -count 1 ./app/

clean:
	rm -rf $(BIN)
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete 2>/dev/null || true
