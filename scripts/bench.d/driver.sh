#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The whole demo loop: the driver's own cost per iteration beyond the agent
# and the validation, against a bare bash loop running the same agent and
# validation. Writes docs/bench/driver.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-driver.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-10}
[ -n "${BENCH_QUICK:-}" ] && runs=3
check="$BENCH_ROOT/testdata/loop/check.sh"
agent="$BENCH_ROOT/scripts/demo-agent"

fresh() { rm -rf "$work/ws" && mkdir -p "$work/ws" && cp -R "$BENCH_ROOT/testdata/demo/." "$work/ws/" &&
  (cd "$work/ws" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init); }

now_ms() { date +%s%3N; }
loop_ms=() bare_ms=() inner_ms=()
for ((i = 0; i < runs; i++)); do
  fresh
  cd "$work/ws"
  export LOOP_STORE="$work/ws/.loop"
  t0=$(now_ms)
  LOOP_BIN="$BIN" "$BENCH_ROOT/scripts/loop" run --prompt TASK.md --validate "sh $check" -- "$agent" >/dev/null 2>&1
  t1=$(now_ms)
  run=$(find .loop/runs -mindepth 1 -maxdepth 1 -printf '%f\n')
  # time the agent and the validation took, as recorded
  inner=$("$BIN/loop-view" logs "$run" --json --jq '.duration_ms + .agent.duration_ms' -r | awk '{ s += $1 } END { print s }')
  loop_ms+=($((t1 - t0))); inner_ms+=("$inner")

  fresh
  cd "$work/ws"
  t0=$(now_ms)
  for _ in 1 2 3; do "$agent" <TASK.md >/dev/null; sh "$check" >/dev/null 2>&1 || true; done
  t1=$(now_ms)
  bare_ms+=($((t1 - t0)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
lm=$(median "${loop_ms[@]}"); bm=$(median "${bare_ms[@]}"); im=$(median "${inner_ms[@]}")

cat > "$BENCH_ROOT/docs/bench/driver.md" <<MD
## The whole loop (scripts/loop)

Machine: $(machine_line). The demo (3 iterations: \`scripts/demo-agent\`,
validation \`sh testdata/loop/check.sh\`), medians of $runs runs.

| what | median |
|---|---|
| \`scripts/loop run\` end to end (3 iterations) | $lm ms |
| agent + validation time as recorded by loop-step and loop-validate | $im ms |
| the same agent and validation in a bare bash loop (no capture, no record) | $bm ms |
| **driver overhead per iteration** beyond the agent and validation time recorded | $(awk -v l="$lm" -v i="$im" 'BEGIN { printf "%.0f", (l - i) / 3 }') ms |
| overhead per iteration over the bare bash loop | $(awk -v l="$lm" -v b="$bm" 'BEGIN { printf "%.0f", (l - b) / 3 }') ms |

The overhead buys: a run created with its settings, a context snapshot at the
start and at the end, the prompt rendered with the progress block, both
streams spooled byte-exact, the agent's stream parsed, files_changed and
changes.patch from git, an fsynced commit of the iteration, the summary line,
and the retention check at the end. It is paid once per iteration, while a
real agent step takes minutes.
MD
echo "wrote docs/bench/driver.md" >&2
