# loopkit: `make demo` runs a real loop on the bundled demo, `make test` runs the tests.
GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X github.com/loopkit/loopkit/internal/cli.Version=$(VERSION)
CMDS    := loop-validate loop-record loop-progress loop-view loop-clean loop-step loop-drive
PREFIX  ?= $(HOME)/.local

.PHONY: all build tui export test install lint demo bench fuzz crash clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))

# The full-screen view (loop-view tui) is its own binary: build and demo stay
# free of the terminal UI libraries.
tui:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/loop-tui

# loop-export carries the OpenTelemetry SDK: its own target, like tui, so
# that build and demo stay light.
export:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/loop-export

# The tests CI runs: unit tests, testscript specs, fuzz seed corpora, short
# crash and concurrency runs. Long runs live in crash, fuzz and bench.
test: build lint
	$(GO) test -count=1 -timeout 15m ./...

install: build tui export
	@mkdir -p $(PREFIX)/bin $(PREFIX)/share/loopkit/loop.d
	install -m 0755 $(addprefix $(BIN)/,$(CMDS) loop-tui loop-export) $(PREFIX)/bin/
	install -m 0644 scripts/loop.d/*.sh $(PREFIX)/share/loopkit/loop.d/
	install -m 0755 scripts/loop $(PREFIX)/bin/loop

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would rewrite:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

demo: build
	bash scripts/demo

bench: build
	bash scripts/bench

fuzz:
	bash scripts/fuzz

# SIGKILL writers, cleaners and the driver at random moments, many rounds.
crash: build
	LOOPKIT_CRASH_ROUNDS=$${LOOPKIT_CRASH_ROUNDS:-200} LOOPKIT_STRESS_SECONDS=$${LOOPKIT_STRESS_SECONDS:-180} $(GO) test -count=1 -timeout 60m -run 'Kill|Crash|TestScripts/loop_crash' ./...

clean:
	rm -rf $(BIN)
