#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-clean: deciding 10,000 runs (dry run) against the jq a user would
# write to list the runs beyond the 20 newest; deleting 100 runs against
# rm -rf. Writes docs/bench/clean.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
quick=${BENCH_QUICK:-}
n=10000; [ -n "$quick" ] && n=2000
runs=10; [ -n "$quick" ] && runs=3
now=$(date +%s%3N)

# mkruns DIR COUNT FILES: COUNT runs (run.json, live.lock, FILES log files
# each) updated one minute apart, written by one awk process.
mkruns() {
  mkdir -p "$1/runs" "$1/spool"
  seq -f "$1/runs/run-%05g/iterations/001" "$2" | xargs mkdir -p
  seq -f 'run-%05g' "$2" | awk -v d="$1/runs" -v now="$now" -v files="$3" '{
    dir = d "/" $1; f = dir "/run.json"; t = now - NR * 60000
    printf "{\"schema_version\":1,\"run_id\":\"%s\",\"status\":\"%s\",\"settings\":{},\"created_at\":%d,\"updated_at\":%d}\n", \
      $1, (NR % 50 ? "completed" : "stuck"), t, t > f; close(f)
    f = dir "/live.lock"; printf "" > f; close(f)
    for (i = 0; i < files; i++) { f = dir "/iterations/001/log" i; print "iteration output " i > f; close(f) }
  }'
}

# 1. deciding: loop-clean --dry-run vs jq over every run.json
mkruns "$work/big" "$n" 1
cd "$work/big"
hyperfine -N -w 2 -r "$runs" --export-json "$work/decide.json" \
  "$BIN/loop-clean --store $work/big --dry-run" \
  "$BIN/loop-clean --store $work/big --dry-run --keep-last 0 --keep-days 0" \
  "sh -c \"jq -s -r 'sort_by(-.updated_at) | .[20:] | .[].run_id' runs/*/run.json\"" >/dev/null 2>&1
dry=$(hf_median "$work/decide.json" 0); dry0=$(hf_median "$work/decide.json" 1); jqs=$(hf_median "$work/decide.json" 2)

# 2. deleting 100 runs of 20 files: loop-clean (tombstone, fsync, os.Root) vs rm -rf
mkruns "$work/tmpl" 120 20
hyperfine -w 1 -r "$runs" --export-json "$work/delete.json" \
  --prepare "rm -rf $work/del && cp -a $work/tmpl $work/del" \
  "$BIN/loop-clean --store $work/del" \
  "sh -c 'cd $work/del/runs && ls | sort | tail -n 100 | xargs rm -rf'" >/dev/null 2>&1
del=$(hf_median "$work/delete.json" 0); rmrf=$(hf_median "$work/delete.json" 1)

# 3. the same in process: Go benchmarks over a 10,000-run store
gobench="(skipped with BENCH_QUICK)"
if [ -z "$quick" ]; then
  gobench=$(cd "$BENCH_ROOT" && go test -run XXX -bench 'DryRun10k|DecideStore10k|Decide10k' -benchtime 5x ./internal/retention |
    awk '/^Benchmark/ { printf "%s%s %.1f ms", sep, $1, $3 / 1e6; sep = "; " }')
fi

cat > "$BENCH_ROOT/docs/bench/clean.md" <<MD
## loop-clean 

Machine: $(machine_line). hyperfine medians.

| what | loopkit | baseline | ratio | target |
|---|---|---|---|---|
| decide $n runs, \`loop-clean --dry-run\` (20 kept, the rest sized with their bytes) vs \`jq -s 'sort_by(-.updated_at) \| .[20:]' runs/*/run.json\` | $(ms "$dry") ms | $(ms "$jqs") ms | $(ratio "$dry" "$jqs") | under 1 s for 10,000 |
| decide $n runs, limits off (nothing to size) | $(ms "$dry0") ms | $(ms "$jqs") ms | $(ratio "$dry0" "$jqs") | |
| delete 100 runs of 20 files, \`loop-clean\` (lock check, tombstone rename, fsync, \`os.Root\` removal) vs \`rm -rf\` of the same directories | $(ms "$del") ms | $(ms "$rmrf") ms | $(ratio "$del" "$rmrf") | |

Deciding reads only each run's \`run.json\` and tries its \`live.lock\`. In
process (\`go test -bench . ./internal/retention\`, per operation): $gobench.
\`DryRun10k\` is a whole dry run (deciding and sizing 9,980 would-be deletions),
\`DecideStore10k\` deciding alone, \`Decide10k\` the pure policy over summaries.
MD
echo "wrote $BENCH_ROOT/docs/bench/clean.md" >&2
