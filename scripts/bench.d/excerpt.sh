#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The failures excerpt of a big `go test -v` output against the default
# tail cut, in process (Go benchmark). Writes docs/bench/excerpt.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
count=5; [ -n "${BENCH_QUICK:-}" ] && count=2
load0=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(gobench ./internal/failure '^BenchmarkExcerpt$' "$count" 30x)
line() { grep "/$1	" <<<"$out"; }
ex=$(line failures) tail=$(line tail) xt=$(line extract)
{
  echo "## The failures excerpt"
  echo
  measured ./internal/failure
  echo
  echo "Machine: $(machine_line); commit $BENCH_COMMIT; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "\`go test -bench Excerpt ./internal/failure\`, $count runs of 30 operations (in"
  echo "process): \`go test -v\` output of 5,000 tests, two failing (450 KB), cut to"
  echo "500 characters; per operation, CPU time and wall-clock time."
  echo
  echo "| what | figure | CPU ratio to the tail cut |"
  echo "|---|---|---|"
  echo "| \`Excerpt\` (strip, find the failure blocks, fill) | ${ex#*	} | $(ratio "$(cpu_us "$ex")" "$(cpu_us "$tail")") |"
  echo "| \`Extract\` (the failing tests, as loop-record stores them) | ${xt#*	} | $(ratio "$(cpu_us "$xt")" "$(cpu_us "$tail")") |"
  echo "| the default tail cut of the same lines (baseline) | ${tail#*	} | 1.00 |"
  echo
  echo "Each line is first checked with plain substring tests; a regexp runs only"
  echo "on lines that could be a failure mark. A typical validation output (25 KB)"
  echo "costs a few milliseconds; the block of five entries is rebuilt once per"
  echo "iteration."
} >"$BENCH_ROOT/docs/bench/excerpt.md"
echo "wrote docs/bench/excerpt.md" >&2
