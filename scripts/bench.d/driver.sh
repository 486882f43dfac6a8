#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The driver's own cost: runs of N and M iterations (the validation fails
# until the last), by scripts/loop with the watchdog on and by a bare bash
# loop running the same agent and validation. The difference of the slopes
# is the overhead of one more iteration; the difference of the intercepts,
# the run's fixed cost. Writes docs/bench/driver.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-driver.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=${BENCH_RUNS:-11} short=2 long=20
if [ -n "${BENCH_QUICK:-}" ]; then runs=5 long=6; fi

# The agent makes one distinct edit per call and says so in Claude Code's
# stream-json, claiming completion on its last call; the validation fails
# with a distinct message until then. Nothing repeats, so the watchdog,
# which looks at every iteration, has no reason to end the run early.
cat >"$work/agent" <<'SH'
#!/usr/bin/env bash
while IFS= read -r _; do :; done
n=0; [ -e "$COUNTER" ] && read -r n <"$COUNTER"
n=$((n + 1)); echo "$n" >"$COUNTER"; echo "step $n" >>notes.txt
end=""; [ "$n" -lt "$ITERS" ] || end='\n<promise>COMPLETE</promise>'
s='"session_id":"bench"' u='"usage":{"input_tokens":100,"output_tokens":10}'
echo '{"type":"system","subtype":"init",'"$s"',"tools":["Edit"],"model":"bench"}'
echo '{"type":"assistant","message":{"id":"a'$n'","type":"message","role":"assistant","model":"bench","content":[{"type":"tool_use","id":"t'$n'","name":"Edit","input":{"file_path":"notes.txt","new_string":"step '$n'"}}],'"$u"'},'"$s"'}'
echo '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t'$n'","type":"tool_result","content":"ok","is_error":false}]},'"$s"'}'
echo '{"type":"assistant","message":{"id":"b'$n'","type":"message","role":"assistant","model":"bench","content":[{"type":"text","text":"Added step '$n'.'"$end"'"}],'"$u"'},'"$s"'}'
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Added step '$n'.'"$end"'",'"$s"',"total_cost_usd":0.001,'"$u"'}'
SH
cat >"$work/check.sh" <<'SH'
n=0; [ -e "$COUNTER" ] && read -r n <"$COUNTER"
[ "$n" -ge "$ITERS" ] && exit 0
echo "--- FAIL: TestStep$n: want $ITERS steps, got $n"; exit 1
SH
chmod +x "$work/agent"
export COUNTER="$work/counter"

fresh() {
  rm -rf "$work/ws" "$COUNTER" && mkdir -p "$work/ws" && cp -R "$BENCH_ROOT/testdata/demo/." "$work/ws/" &&
    (cd "$work/ws" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init)
  cd "$work/ws"
}
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# loop_run N: one driver run of N iterations; sets WALL (us) and REC, the
# agent and validation time its log records (ms).
loop_run() {
  fresh
  export ITERS=$1 LOOP_STORE="$work/ws/.loop"
  local t0 t1 run n wd
  t0=$(now_us)
  LOOP_BIN="$BIN" "$BENCH_ROOT/scripts/loop" run --prompt TASK.md --validate "sh $work/check.sh" \
    --max-iterations "$1" -- "$work/agent" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  t1=$(now_us)
  run=$(find .loop/runs -mindepth 1 -maxdepth 1 -printf '%f\n')
  n=$("$BIN/loop-view" describe "$run" --json --jq '.iteration' -r)
  wd=$("$BIN/loop-view" describe "$run" --json --jq '.settings.watchdog // "on"' -r)
  if [ "$n" != "$1" ] || [ "$wd" != on ]; then
    echo "bench: run $run: $n iterations (want $1), watchdog $wd" >&2
    exit 1
  fi
  WALL=$((t1 - t0))
  REC=$("$BIN/loop-view" logs "$run" --json --jq '.duration_ms + .agent.duration_ms' -r | awk '{ s += $1 } END { print s }')
}

# bare_run N: the same agent and validation in a bare bash loop (no capture,
# no record), until the validation passes; sets WALL (us).
bare_run() {
  fresh
  export ITERS=$1
  local t0 t1
  t0=$(now_us)
  while :; do "$work/agent" <TASK.md >/dev/null; sh "$work/check.sh" >/dev/null 2>&1 && break; done
  t1=$(now_us)
  WALL=$((t1 - t0))
}

# Each round runs both lengths both ways, one after the other: its own
# overhead figure; the host's drift between rounds shows as their spread.
declare -A T=() R=()
O=""
for ((i = 0; i < runs; i++)); do
  round=0 # the driver's runs count up, the bare loop's down
  for n in "$short" "$long"; do
    sign=1; [ "$n" = "$short" ] && sign=-1
    loop_run "$n"; T[loop$n]+=" $WALL" R[$n]+=" $REC" round=$((round + sign * WALL))
    bare_run "$n"; T[bare$n]+=" $WALL" round=$((round - sign * WALL))
  done
  O+=" $((round / (long - short)))"
done
cd "$BENCH_ROOT"
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# shellcheck disable=SC2086 # word splitting of the sample lists is meant
{
  ls=$(median ${T[loop$short]}) ll=$(median ${T[loop$long]})
  bs=$(median ${T[bare$short]}) bl=$(median ${T[bare$long]})
  rs=$(median ${R[$short]}) rl=$(median ${R[$long]})
  over=$(median $O)
  lo=$(printf '%s\n' $O | sort -n | head -1) hi=$(printf '%s\n' $O | sort -n | tail -1)
}
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
d=$((long - short))
slope_loop=$(calc "($ll - $ls) / $d / 1000") slope_bare=$(calc "($bl - $bs) / $d / 1000")
over=$(calc "$over / 1000") lo=$(calc "$lo / 1000") hi=$(calc "$hi / 1000")
fixed=$(calc "(($ls - $short * $slope_loop * 1000) - ($bs - $short * $slope_bare * 1000)) / 1000")
recorded=$(calc "($rl - $rs) / $d")

cat >"$BENCH_ROOT/docs/bench/driver.md" <<MD
## The driver (scripts/loop)

Machine: $(machine_line), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end.
Runs of $short and $long iterations whose validation fails until the last,
by \`scripts/loop run\` (watchdog on, as by default) and by a bare bash
loop running the same agent and validation (\`agent < TASK.md; sh
check.sh\`, nothing captured or recorded); medians of $runs rounds,
measured in the same run. The slope between the two lengths is the cost of
one more iteration; the intercept, what a run costs once.

| what | scripts/loop | bare bash loop |
|---|---|---|
| $short iterations | $(calc "$ls / 1000") ms | $(calc "$bs / 1000") ms |
| $long iterations | $(calc "$ll / 1000") ms | $(calc "$bl / 1000") ms |
| one more iteration (slope) | $slope_loop ms | $slope_bare ms |

- **Overhead per iteration: $over ms** (target: 60 ms at most): the
  median over the $runs rounds of the driver's slope minus the bare loop's,
  each round measuring all four runs one after the other; the rounds gave
  $lo to $hi ms. Of the driver's slope, the agent and the validation took
  $recorded ms as loop-step and loop-validate record them.
- **Fixed cost of a run: $fixed ms** over the bare loop: the settings
  checked and the run created (\`loop-drive --new\`), the context
  snapshots at the start and the end, the final status and the retention
  check.

An iteration's overhead buys: the prompt rendered with the progress block,
the work tree's tree after the iteration (kept in the run's private git
directory, and the next step's base), both streams spooled byte-exact, the agent's
stream parsed, files_changed and changes.patch, an fsynced commit of the
iteration, the watchdog's look at it, the next action decided, and the
summary line. A real agent step takes minutes.
MD
echo "wrote docs/bench/driver.md" >&2
