#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The driver's own cost: runs of 2 and 20 iterations (the validation fails
# until the last), by scripts/loop with the watchdog on and by a bare bash
# loop running the same agent and validation, alternated run by run. Per
# round, the difference of the two slopes is the overhead of one more
# iteration; of the intercepts, the run's fixed cost. CPU (user+sys, every
# process of the run) beside wall time. Writes docs/bench/driver.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-driver.XXXXXX") shm=""
cleanup() {
  rm -rf "$work" ${shm:+"$shm"}
}
EXIT_HOOK=cleanup
rounds=${BENCH_RUNS:-15} short=2 long=20
if [ -n "${BENCH_QUICK:-}" ]; then rounds=5 long=8; fi

# harness DIR: writes DIR's agent, check.sh, loop, bare and fresh.
harness() {
local work=$1
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
# loop N: the driver, its own store in the fresh workspace.
cat >"$work/loop" <<SH
#!/usr/bin/env bash
cd "$work/ws" && echo "\$1" >"$work/want"
ITERS=\$1 LOOP_STORE="$work/ws/.loop" LOOP_BIN="$BIN" exec "$BENCH_ROOT/scripts/loop" run --prompt TASK.md \\
  --validate "sh $work/check.sh" --max-iterations "\$1" -- "$work/agent" >/dev/null
SH
# bare N: the same agent and validation, nothing captured or recorded.
cat >"$work/bare" <<SH
#!/usr/bin/env bash
cd "$work/ws" && export ITERS=\$1 && rm -f "$work/want"
while :; do "$work/agent" <TASK.md >/dev/null; sh "$work/check.sh" >/dev/null 2>&1 && break; done
SH
# fresh (untimed, before each run): checks the driver run before it (its
# iterations, the watchdog on, no wait for a slot), then a new workspace.
cat >"$work/fresh" <<SH
#!/usr/bin/env bash
set -euo pipefail
if [ -e "$work/want" ]; then
  d=\$(echo "$work"/ws/.loop/runs/*) run=\${d##*/}
  n=\$(jq -r .iteration "\$d/run.json") wd=\$(jq -r '.settings.watchdog // "on"' "\$d/run.json")
  [ "\$n" = "\$(cat "$work/want")" ] && [ "\$wd" = on ] || { echo "bench: run \$run: \$n iterations, watchdog \$wd" >&2; exit 1; }
  ! grep -q RUN_QUEUED "\$d/events.jsonl" || { echo "bench: run \$run waited for a slot" >&2; exit 1; }
  rm -f "$work/want"
fi
# the last workspace is moved aside, not removed (all go at exit): on ext4
# without a journal each new file scans past the inodes freed in the last
# 30 s, so the harness's own removal would slow the driver's next run
[ ! -e "$work/ws" ] || mv "$work/ws" "\$(mktemp -u "$work/old.XXXXXX")"
rm -f "$work/counter" && mkdir -p "$work/ws" && cp -R "$BENCH_ROOT/testdata/demo/." "$work/ws/"
cd "$work/ws" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init
SH
chmod +x "$work/agent" "$work/loop" "$work/bare" "$work/fresh"
}
harness "$work"
export COUNTER="$work/counter"

measure "$work/d.json" -r "$rounds" -w 1 --prepare "$work/fresh" \
  "$work/loop $short" "$work/bare $short" "$work/loop $long" "$work/bare $long"
# one more driver run, untimed: what its agent and validation took
"$work/fresh" && "$work/loop" "$long" 2>/dev/null
rec_ms=$(cd "$work/ws" && LOOP_STORE=.loop "$BIN/loop-view" logs "$(basename "$work"/ws/.loop/runs/*)" --json --jq '.duration_ms + .agent.duration_ms' -r | awk '{ s += $1 } END { printf "%.1f", s / NR }')
"$work/fresh" # checks it
# the files an iteration creates, frees and fsyncs, from ext4's trace
# points (perf stat, when this machine lets us read them)
fs_count() { # N: "allocated freed synced" of a run of N iterations
  "$work/fresh" && perf stat -x, -e ext4:ext4_allocate_inode,ext4:ext4_free_inode,ext4:ext4_sync_file_enter \
    -o "$work/fs.txt" "$work/loop" "$1" 2>/dev/null &&
    awk -F, '/ext4:/ { printf "%s ", $1 }' "$work/fs.txt"
}
files="not counted here (perf cannot read ext4's trace points)"
if command -v perf >/dev/null 2>&1 && a=$(fs_count "$short") && b=$(fs_count "$long") && [ "$(wc -w <<<"$a $b")" -eq 6 ]; then
  files=$(awk -v a="$a" -v b="$b" -v n=$((long - short)) 'BEGIN { split(a, x, " "); split(b, y, " ");
    printf "an iteration creates %.0f files and folders, frees %.0f and fsyncs %.0f", (y[1] - x[1]) / n, (y[2] - x[2]) / n, (y[3] - x[3]) / n }')
fi
"$work/fresh"

# Per round: (loop long - loop short) - (bare long - bare short), over the
# extra iterations; the fixed cost is what is left at 0 iterations.
per_round() { # FILE KIND: the rounds' overheads and fixed costs, in ms
  jq -r --arg k "$2" --argjson s "$short" --argjson l "$long" '
    [.results[].samples] as $x | range(0; $x[0] | length) as $i |
    [$x[0][$i][$k], $x[1][$i][$k], $x[2][$i][$k], $x[3][$i][$k]] as [$ls, $bs, $ll, $bl] |
    ((($ll - $ls) - ($bl - $bs)) / ($l - $s)) as $o |
    "\($o * 1000) \((($ls - $bs) - $s * $o) * 1000)"' "$1"
}
median() { # DIGITS: "median (min–max)" in ms of the numbers on stdin
  sort -g | awk -v d="$1" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    f = "%." d "f"; printf f " ms (" f "–" f ")", m, v[1], v[NR] }'
}
spread() { # FILE COLUMN KIND: "median (min–max)" of the rounds' figures
  per_round "$1" "$3" | awk -v c="$2" '{ print $c }' | median 1
}
over_cpu=$(spread "$work/d.json" 1 cpu) over_wall=$(spread "$work/d.json" 1 wall)
fixed_cpu=$(spread "$work/d.json" 2 cpu) fixed_wall=$(spread "$work/d.json" 2 wall)

# The same on tmpfs (the store, the workspace, the temporary and runtime
# folders), where creating and syncing a file costs little: the difference
# is this machine's file system's share of the cost.
on_tmpfs="not measured here (no tmpfs at /dev/shm)"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && shm=$(mktemp -d /dev/shm/loopkit-bench-driver.XXXXXX); then
  harness "$shm" && mkdir -m 700 "$shm/run"
  COUNTER="$shm/counter" TMPDIR="$shm" XDG_RUNTIME_DIR="$shm/run" measure "$shm/d.json" -r "$rounds" -w 1 \
    --prepare "$shm/fresh" "$shm/loop $short" "$shm/bare $short" "$shm/loop $long" "$shm/bare $long"
  "$shm/fresh" # checks the last driver run
  on_tmpfs="CPU $(spread "$shm/d.json" 1 cpu), wall time $(spread "$shm/d.json" 1 wall) ($(when "$shm/d.json"))"
fi
over_med=${over_cpu%% ms*}
# the bare loop's own CPU per iteration: this machine's speed in the rounds
bare_cpu=$(jq -r --argjson s "$short" --argjson l "$long" '[.results[].samples] as $x |
  range(0; $x[0] | length) as $i | ($x[3][$i].cpu - $x[1][$i].cpu) / ($l - $s) * 1000' "$work/d.json" | median 2)

cat >"$BENCH_ROOT/docs/bench/driver.md" <<MD
## The driver (scripts/loop)

$(measured ./cmd/loop-drive ./cmd/loop-step ./cmd/loop-validate ./cmd/loop-record ./cmd/loop-view -- scripts/loop scripts/loop.d testdata/demo)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/d.json").
Runs of $short and $long iterations whose validation fails until the last,
by \`scripts/loop run\` (watchdog on, as by default; its own store and
slots, never waiting) and by a bare bash loop running the same agent and
validation (\`agent < TASK.md; sh check.sh\`, nothing captured or
recorded), the four runs alternated in each round. CPU is user+sys of every
process of the run (the kernel's rusage of the run and of all its
descendants).

| what | scripts/loop | bare bash loop |
|---|---|---|
| $short iterations | $(fig "$work/d.json" 0) | $(fig "$work/d.json" 1) |
| $long iterations | $(fig "$work/d.json" 2) | $(fig "$work/d.json" 3) |

<!-- summary:driver -->
The driver's own cost per iteration: **$over_cpu of CPU**, $over_wall of wall time; per run, $fixed_cpu of CPU ($fixed_wall wall); measured at $BENCH_COMMIT by \`make bench\` (docs/benchmarks.md).
<!-- /summary -->

- **Overhead per iteration** (target: at most 25 ms of CPU): in each round,
  the driver's slope between $short and $long iterations minus the bare
  loop's; median over the rounds, and their range. In CPU $over_cpu,
  in wall time $over_wall. An iteration's agent and validation take
  $rec_ms ms (wall) as loop-step and loop-validate record them.
- **Fixed cost of a run**, over the bare loop: $fixed_cpu of CPU,
  $fixed_wall of wall time: the settings checked and the run created
  (\`loop-drive --new\`), the context snapshots at the start and the end,
  the final status and the retention check.
- **The same on tmpfs** (the store, the workspace and the temporary and
  runtime folders in /dev/shm, measured the same way right after): an
  iteration's overhead is $on_tmpfs. The difference from the first figure
  is this machine's file system's share.
- **This machine's speed in the same rounds**: the bare loop itself takes
  $bare_cpu of CPU an iteration (its own slope). This VM's speed varies
  from hour to hour; figures of two \`make bench\` runs compare only as
  far as this one does.

An iteration's overhead buys: the prompt rendered with the progress block,
the work tree's tree after the iteration (kept in the run's private git
directory, and the next step's base), both streams spooled byte-exact, the agent's
stream parsed, files_changed and changes.patch, an fsynced commit of the
iteration, the watchdog's look at it, the next action decided, and the
summary line. A real agent step takes minutes.

Where it goes: an iteration starts two loopkit processes (loop-step and
loop-validate) and two git processes (\`add\` and \`diff\`, recording); the
iteration is recorded and the next action decided by the holder, the
\`loop-drive\` that keeps the run's locks for the whole run (its CPU is
counted here too: the harness reaps it). Most of the cost is the
kernel's, starting processes and creating
files ($files, by ext4's trace points), less the Go code's. The
store's file system here: $(df -T "$work" | awk 'NR == 2 { print $2 }').
On ext4 without a journal, each file created scans past the inodes freed
in the last 30 s (\`recently_deleted\` in a perf profile), so the cost of a
file grows with the files removed around it; the harness moves each
finished workspace aside and removes them all at the end.
MD
echo "wrote docs/bench/driver.md (overhead $over_med ms CPU)" >&2
