# loopkit: `make demo` runs a real loop on the bundled demo, `make test` runs the tests.
GO      ?= go
BIN     := bin
# git speaks for this tree only at the top of its own work tree: a tarball
# unpacked inside another repository would take that one's tag and files.
GIT_TOP := $(shell p=$$(git rev-parse --show-prefix 2>/dev/null) && [ -z "$$p" ] && echo yes)
# A tarball git archive made (GitHub's downloads) has them in .archive-version.
ARCHIVED = $(shell sed -n 's/^$(1): \([^%$$]*\)$$/\1/p' .archive-version 2>/dev/null)
VERSION ?= $(or $(if $(GIT_TOP),$(shell git describe --tags --always --dirty 2>/dev/null),$(call ARCHIVED,describe)),devel)
COMMIT  ?= $(if $(GIT_TOP),$(shell git rev-parse --short=12 HEAD 2>/dev/null),$(shell echo $(call ARCHIVED,commit) | cut -c1-12))
LDFLAGS := -X github.com/loopkit/loopkit/internal/cli.Version=$(VERSION) -X github.com/loopkit/loopkit/internal/cli.Commit=$(COMMIT)
CMDS    := loop-validate loop-record loop-progress loop-view loop-clean loop-step loop-drive
# What `make demo` builds: the commands the driver runs, nothing heavier.
DEMO_CMDS := loop-validate loop-record loop-progress loop-view loop-clean loop-step loop-drive
PREFIX  ?= $(HOME)/.local
# q quotes a value for the shell: a PREFIX or HOME with a space in it ran
# the word after the space as the command.
q = '$(subst ','\'',$(1))'
STATICCHECK ?= v0.8.2
# GoReleaser makes the release files (make dist); installed once, pinned,
# into a cache like the other tools CI builds.
GORELEASER_VERSION ?= v2.15.1
GORELEASER ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/loopkit/goreleaser-$(GORELEASER_VERSION)/goreleaser

.PHONY: all build tui export export-grpc test test-agents test-load test-long install uninstall vet lint demo bench fuzz crash clean dist

# `make` builds all that make install installs: `make && sudo make install`.
all: build tui export

# Static (no cgo, as the release builds): each command starts about a
# millisecond sooner without the dynamic loader, and the driver runs three
# of them every iteration. A caller's CGO_ENABLED=1 is kept: go asks for it
# when GOFLAGS has -race.
CGO_ENABLED := $(or $(CGO_ENABLED),0)
build:
	@mkdir -p $(BIN)
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))

# The full-screen view (loop-view tui) is its own binary: build and demo stay
# free of the terminal UI libraries.
tui:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/loop-tui

# loop-export (OTLP data and an HTTP client, no tracing SDK) is its own
# target, like tui, so that build and demo stay light. export-grpc adds
# OTLP over gRPC (--protocol grpc), which doubles the binary. OTLP/HTTP
# goes over HTTP/1.1, which every OTLP receiver takes: net/http's HTTP/2
# (nethttpomithttp2 leaves it out, 0.5 MB) is not linked.
EXPORT_TAGS := nethttpomithttp2
export:
	@mkdir -p $(BIN)
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -tags $(EXPORT_TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/loop-export

export-grpc:
	@mkdir -p $(BIN)
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -tags grpc,$(EXPORT_TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/loop-export

# The everyday suite: unit tests, testscript specs, fuzz seed corpora, and
# -short crash and concurrency runs (under 3 minutes on an idle 2-core
# machine). The storms at full length are test-long and crash; CI runs
# test, test-load and test-long. The timeout is only a bound: no spec
# hangs, and at a load of 60 on 2 cores the specs alone took over 15m.
# Tests build static, as the release does: every loop-* a spec runs is
# the test binary, which starts faster so, and the ~60 test binaries link
# without the external linker (CPU: links 24 s -> 17 s, specs 59 s -> 55 s).
TEST_ENV := CGO_ENABLED=$(CGO_ENABLED)
# go test runs what it builds from GOTMPDIR (else TMPDIR), the tests run
# their stand-ins from TMPDIR: a noexec mount there is one line, not 60 FAILs.
TMPEXEC = @bash scripts/tmpexec "make $@" "$${GOTMPDIR:-$${TMPDIR:-/tmp}}"
test: build vet
	$(TMPEXEC) "$${TMPDIR:-/tmp}"
	$(TEST_ENV) $(GO) test -short -count=1 -p 4 -parallel 8 -timeout 30m ./...
	cd examples/fleet && $(TEST_ENV) $(GO) test -short -count=1 ./...

# make test beside eight CPU-bound processes per core (a busy shared CI
# machine): it must pass, within 9 minutes (scripts/test-load).
test-load: build
	bash scripts/test-load

# The tests -short cuts down, at their full length: the writer storms, the
# memory bounds, the browser check and loop-export's size. examples/fleet
# is its own module (its Kubernetes types stay out of the main go.mod):
# make test runs its quick tests, .ci/run all of them.
LONG_TESTS := TestConcurrentWriters|TestCrashStoreUnderClean|TestCleanKilledMidDelete|TestMemoryFollowsScreen|TestParserLiveHeap|TestDemoReportInBrowser|TestLoopExportSize
test-long: build
	$(TMPEXEC) "$${TMPDIR:-/tmp}"
	$(TEST_ENV) $(GO) test -count=1 -timeout 30m -run '^($(LONG_TESTS))$$' ./...

# The commands, the driver as `loop`, man pages and bash/zsh/fish completions,
# in PREFIX (absolute); DESTDIR=DIR stages them in DIR/PREFIX for a package.
# `make && sudo make install`: under sudo it installs what you built, for
# root's PATH often has no go, and a build as root would own bin/.
install: $(if $(and $(SUDO_USER),$(filter 0,$(shell id -u))),,build tui export)
	BIN=$(call q,$(BIN)) PREFIX=$(call q,$(PREFIX)) DESTDIR=$(call q,$(DESTDIR)) bash scripts/install $(CMDS) loop-tui loop-export

# What install put under the same PREFIX and DESTDIR (nothing else: a
# file of yours beside them stays).
uninstall:
	PREFIX=$(call q,$(PREFIX)) DESTDIR=$(call q,$(DESTDIR)) bash scripts/install --uninstall $(CMDS) loop-tui loop-export

# The real agent CLIs (Claude Code, Codex, Gemini CLI, opencode: pinned
# versions installed from npm into a cache by .ci/agent-clis) under the
# driver, against the scripted model API: success, max turns and every
# fault. Needs node and npm, so it is not part of test.
test-agents: build
	@clis=$$(bash .ci/agent-clis) || { echo "test-agents: needs node and npm to install the agent CLIs"; exit 1; }; \
	LOOPKIT_AGENT_CLIS=$$clis $(GO) test -count=1 -timeout 45m -parallel 4 -v -run TestAgentMatrix ./internal/testsupport/agentmatrix

# .goreleaser.yaml, as a snapshot: in dist/ the four archives
# (loopkit-VERSION-OS-ARCH.tar.gz, linux and darwin, amd64 and arm64), deb
# and rpm packages, SHA256SUMS and the Homebrew formula; the same commit
# gives the same bytes. A tagged release runs `goreleaser release --clean`.
# GoReleaser takes the commit, its date (every file's time) and the
# version from git, and gives up on all of them in a repository without a
# remote: one without is named after itself, for this command only.
# One build at a time: an archive lists its binaries in the order their
# builds ended, and two runs in parallel ended in different orders (the
# same files, other bytes: .ci/run's reproducibility check failed).
dist: $(GORELEASER)
	$(GORELEASER) check
	if [ -z "$$(git remote)" ]; then export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0="$(CURDIR)"; fi; \
	$(GORELEASER) release --snapshot --clean --parallelism 1

$(GORELEASER):
	GOBIN=$(dir $(GORELEASER)) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

# gofmt and go vet: quick, so make test runs them first. gofmt checks the
# tracked files in a clone, all of them elsewhere (given none, it reads stdin).
vet:
	@files=$(if $(GIT_TOP),$$(git ls-files '*.go')); out=$$(gofmt -l $${files:-.}); \
	if [ -n "$$out" ]; then echo "gofmt would rewrite:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd examples/fleet && $(GO) vet ./...

# vet, then staticcheck (pinned; staticcheck.conf says what it skips) and
# shellcheck (TestShellcheck, which -short leaves to this target): CI runs
# it after make test.
lint: vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...
	$(TEST_ENV) $(GO) test -count=1 -run '^TestShellcheck$$' .
	cd examples/fleet && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

# The demo runs the commands it built, whatever LOOP_BIN the caller exports.
demo:
	$(TMPEXEC)
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(DEMO_CMDS))
	LOOP_BIN="$$(cd $(call q,$(BIN)) && pwd)" bash scripts/demo

bench: build
	bash scripts/bench

fuzz:
	bash scripts/fuzz

# SIGKILL writers, cleaners and the driver at random moments, many rounds,
# and the concurrent writers' storm.
crash: build
	$(TMPEXEC) "$${TMPDIR:-/tmp}"
	LOOPKIT_CRASH_ROUNDS=$${LOOPKIT_CRASH_ROUNDS:-200} LOOPKIT_STRESS_SECONDS=$${LOOPKIT_STRESS_SECONDS:-180} $(TEST_ENV) $(GO) test -count=1 -timeout 60m -run 'Kill|Crash|Concurrent|TestScripts/loop_crash' ./...

clean:
	rm -rf $(BIN) dist gen
