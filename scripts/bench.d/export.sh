#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-export: a 10,000-iteration run (two tool calls an iteration) sent to
# a local OTLP/HTTP receiver that decodes every request with the Collector's
# pdata, as iterations per second and the command's peak RSS; beside it,
# jq reading the same log once. Writes docs/bench/export.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
out=$(cd "$BENCH_ROOT" && go test -run XXX -bench 'Export10k$' -benchtime 5x ./internal/command/loopexport)
# figure SUB UNIT: the value reported before UNIT by sub-benchmark SUB.
figure() {
  grep "^BenchmarkExport10k/$1" <<<"$out" |
    awk -v u="$2" '{ for (i = 1; i < NF; i++) if ($(i+1) == u) print $i }'
}
its=$(figure decoding iterations/s); rss=$(figure decoding peak-RSS-MiB)
its_own=$(figure draining iterations/s); rss_own=$(figure draining peak-RSS-MiB)
{
  echo "## loop-export"
  echo
  machine_line
  echo
  echo "A 10,000-iteration run (each iteration: the iteration, agent, validation"
  echo "and two tool spans) sent by the real command to an OTLP/HTTP receiver on"
  echo "127.0.0.1 that decodes every request with pdata, in the same benchmark"
  echo "process (\`go test -bench Export10k ./internal/command/loopexport\`, 5 runs):"
  echo
  echo "| what | figure | target |"
  echo "|---|---|---|"
  echo "| iterations per second, receiver decoding with pdata | $its | ≥ 5,000 |"
  echo "| iterations per second, receiver draining the bytes | $its_own | ≥ 5,000 |"
  echo "| peak RSS of loop-export | $rss MiB ($rss_own MiB) | < 64 MiB |"
  echo
  echo "loop-export delivers as it reads (every 2,048 spans, then the checkpoint"
  echo "moves), so its memory does not grow with the run. The decoding receiver"
  echo "shares the two cores with the exporter; the draining one shows the"
  echo "exporter's own rate."
} > "$BENCH_ROOT/docs/bench/export.md"
cat "$BENCH_ROOT/docs/bench/export.md"
