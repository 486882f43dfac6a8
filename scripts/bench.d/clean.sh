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
cleanup() {
  rm -rf "$work"
}
EXIT_HOOK=cleanup
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
measure "$work/decide.json" -r "$runs" -w 1 --dir "$work/big" \
  "$BIN/loop-clean --store $work/big --dry-run" \
  "$BIN/loop-clean --store $work/big --dry-run --keep-last 0 --keep-days 0" \
  "sh -c \"jq -s -r 'sort_by(-.updated_at) | .[20:] | .[].run_id' runs/*/run.json\""

# 2. deleting 100 runs of 20 files: loop-clean (tombstone, fsync, os.Root) vs rm -rf
mkruns "$work/tmpl" 120 20
measure "$work/delete.json" -r "$runs" --dir "$work" \
  --prepare "sh -c 'rm -rf $work/del && cp -a $work/tmpl $work/del'" \
  "$BIN/loop-clean --store $work/del" \
  "sh -c 'cd $work/del/runs && ls | sort | tail -n 100 | xargs rm -rf'"
d=$work/decide.json x=$work/delete.json

cat > "$BENCH_ROOT/docs/bench/clean.md" <<MD
## loop-clean

$(measured ./cmd/loop-clean)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$d" "$x").

| what | loopkit | baseline | CPU ratio | target |
|---|---|---|---|---|
| decide $n runs, \`loop-clean --dry-run\` (20 kept, the rest sized with their bytes) vs \`jq -s 'sort_by(-.updated_at) \| .[20:]' runs/*/run.json\` | $(fig "$d" 0) | $(fig "$d" 2) | $(ratio "$(cpu "$d" 0)" "$(cpu "$d" 2)") | under 1 s for 10,000 |
| decide $n runs, limits off (nothing to size) | $(fig "$d" 1) | $(fig "$d" 2) | $(ratio "$(cpu "$d" 1)" "$(cpu "$d" 2)") | |
| delete 100 runs of 20 files, \`loop-clean\` (lock check, tombstone rename, fsync, \`os.Root\` removal) vs \`rm -rf\` of the same directories | $(fig "$x" 0) | $(fig "$x" 1) | $(ratio "$(cpu "$x" 0)" "$(cpu "$x" 1)") | |

Deciding reads only each run's \`run.json\` and tries its \`live.lock\`.
MD
echo "wrote docs/bench/clean.md" >&2
