#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The watchdog's signals after an iteration (read the log's end, evaluate)
# on a run of 5 iterations and on one of 10,000, in process (Go benchmark).
# Writes docs/bench/watchdog.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
count=5; [ -n "${BENCH_QUICK:-}" ] && count=2
load0=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(gobench ./internal/watchdog '^BenchmarkSignals$' "$count" 2000x)
small=$(grep 'iterations=5	' <<<"$out") big=$(grep 'iterations=10000	' <<<"$out")
{
  echo "## The watchdog's signals"
  echo
  measured ./internal/watchdog
  echo
  echo "Machine: $(machine_line); commit $BENCH_COMMIT; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "\`go test -bench BenchmarkSignals ./internal/watchdog\`, $count runs of 2000"
  echo "operations (in process, one size after the other), per operation: the"
  echo "process's CPU time (benchrun.CPUPerOp) and Go's wall-clock ns/op."
  echo
  echo "| what | 5 iterations | 10,000 iterations | CPU ratio | target |"
  echo "|---|---|---|---|---|"
  echo "| read the last K+1 = 3 iterations from the log's end and evaluate every signal | ${small#*	} | ${big#*	} | $(ratio "$(cpu_us "$big")" "$(cpu_us "$small")") | within 2× |"
  echo
  echo "The log of the long run is 10,000 recorded-looking lines (a failing go test,"
  echo "tool calls, a diff digest): the watchdog reads a fixed window from the end"
  echo "of iterations.jsonl, so its cost does not grow with the run."
} >"$BENCH_ROOT/docs/bench/watchdog.md"
echo "wrote docs/bench/watchdog.md" >&2
