#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The watchdog's signals after an iteration (read the log's end, evaluate)
# on a run of 5 iterations and on one of 10,000, in one Go benchmark run.
# Writes docs/bench/watchdog.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
count=5; [ -n "${BENCH_QUICK:-}" ] && count=2
raw=$(cd "$here" && go test -run '^$' -bench '^BenchmarkSignals$' -benchtime 2000x -count "$count" ./internal/watchdog/)
# median ns/op of each size
med() { printf '%s\n' "$raw" | awk -v n="iterations=$1-" 'index($1, n) { print $3 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
small=$(med 5); big=$(med 10000)
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }
{
  echo "## The watchdog's signals"
  echo
  echo "Machine: $(machine_line). \`go test -bench BenchmarkSignals ./internal/watchdog\`, median of $count runs of 2000 operations."
  echo
  echo "| what | 5 iterations | 10,000 iterations | ratio | target |"
  echo "|---|---|---|---|---|"
  echo "| read the last K+1 = 3 iterations from the log's end and evaluate every signal | $(us "$small") µs | $(us "$big") µs | $(ratio "$big" "$small") | within 2× |"
  echo
  echo "The log of the long run is 10,000 recorded-looking lines (a failing go test,"
  echo "tool calls, a diff digest): the watchdog reads a fixed window from the end"
  echo "of iterations.jsonl, so its cost does not grow with the run."
} > "$here/docs/bench/watchdog.md"
