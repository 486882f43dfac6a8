#!/usr/bin/env bash
# The driver on a store whose disk fills up mid-run (root and a tmpfs
# only; elsewhere it says skipped): the validation of iteration 2 fills
# the disk. The driver stops with exit 70 and a hint naming the fix; once
# there is room, `loop resume` finishes the run, each iteration recorded
# once (the agent call the full disk cut is kept as an attempt), nothing left in the spool or half-written in the store. Run by
# loop_disk_full.txtar.
set -uo pipefail
out="$PWD"
mnt="$PWD/mnt"
mkdir -p "$mnt"
fail() { echo "FAIL: $*"; exit 1; }
rt="$PWD/rt"
mkdir -p "$rt"
cleanup() {
  cd / || return
  for m in "$mnt" "$rt"; do mountpoint -q "$m" 2>/dev/null && { umount "$m" || umount -l "$m"; }; done
}
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=4m tmpfs "$mnt" 2>/dev/null; then
  echo "driver full disk skipped: no tmpfs here"
  exit 0
fi
trap cleanup EXIT
ws="$mnt/ws"
{ mkdir "$ws" && cp -r "$LOOPKIT_ROOT/testdata/demo/." "$ws" && cd "$ws"; } || fail "setup"
{ git init -q && git add -A && git commit -qm init; } || fail "git"
cat >"$mnt/check.sh" <<'SH'
n=$(cat "$0.calls" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$0.calls"
sh "$LOOPKIT_ROOT/testdata/loop/check.sh"; rc=$?
[ "$n" != 2 ] || dd if=/dev/zero of="${0%/*}/filler" bs=64k 2>/dev/null
exit $rc
SH
"$LOOPKIT_ROOT/scripts/loop" run --prompt TASK.md --validate "sh $mnt/check.sh" --max-iterations 5 -- "$LOOPKIT_ROOT/scripts/demo-agent" >"$out/out" 2>"$out/err"
rc=$?
run=$(head -n 1 "$out/out")
[ "$rc" = 70 ] || fail "exit $rc on a full disk, want 70: $(cat "$out/err")"
grep -q "^hint: .*free space.*resume $run" "$out/err" || fail "no hint naming the fix: $(cat "$out/err")"
grep -q 'goroutine\|panic' "$out/err" && fail "a Go dump: $(cat "$out/err")"
rm -f "$mnt/filler"
# failed, or (when even that could not be written) interrupted: never running
status=$(loop-view describe "$run" --json --jq 'if .interrupted then "interrupted" else .status end' -r) ||
  fail "describe after the full disk"
case $status in failed | interrupted) ;; *) fail "the run is left $status" ;; esac
"$LOOPKIT_ROOT/scripts/loop" resume "$run" >"$out/rout" 2>"$out/rerr" || fail "resume once there is room: $(cat "$out/rerr")"
grep -q '^completed$' "$out/rout" || fail "resumed run not completed: $(cat "$out/rout")"
[ "$(loop-view logs "$run" --json --jq .iteration -r | tr '\n' ' ')" = "1 2 " ] || fail "iterations: $(loop-view logs "$run")"
[ -z "$(ls .loop/spool)" ] || fail "left in the spool: $(ls .loop/spool)"
left=$(find .loop -name '*.tmp*' -o -name '*tmp-*')
[ -z "$left" ] || fail "temporary files left: $left"
echo "driver full disk ok"

# loopkit's runtime directory on a full disk: exit 70 with the fix, the
# run it made marked failed (never left running)
mount -t tmpfs -o size=64k,mode=0700 tmpfs "$rt" || fail "mount the runtime tmpfs"
dd if=/dev/zero of="$rt/filler" bs=4k 2>/dev/null
git checkout -q calc.go
XDG_RUNTIME_DIR=$rt "$LOOPKIT_ROOT/scripts/loop" run --prompt TASK.md --validate true -- "$LOOPKIT_ROOT/scripts/demo-agent" >"$out/out" 2>"$out/err"
rc=$?
[ "$rc" = 70 ] || fail "exit $rc on a full runtime directory, want 70: $(cat "$out/err")"
grep -q '^hint: the disk is full: free space on it' "$out/err" || fail "no hint naming the fix: $(cat "$out/err")"
run=$(head -n 1 "$out/out")
[ -z "$run" ] || [ "$(loop-view describe "$run" --json --jq .status -r)" = failed ] || fail "run $run not failed"
echo "driver full runtime directory ok"

# a folder of the store made read-only mid-run (the agent's chmod; the
# driver without root's override of modes): exit 70, the fix named, and a
# resume once the mode is back finishes the run
if ! command -v capsh >/dev/null; then echo "driver read-only folder skipped: no capsh"; exit 0; fi
{ cd "$ws" && git checkout -q calc.go; } || fail "reset calc.go"
cat >"$mnt/agent.sh" <<'SH'
#!/usr/bin/env bash
prompt=$(cat)
printf '%s' "$prompt" | "$LOOPKIT_ROOT/scripts/demo-agent"; rc=$?
grep -q '^## Iteration 1' <<<"$prompt" && chmod 500 .loop/runs/*/iterations
exit $rc
SH
chmod 755 "$mnt/agent.sh"
# shellcheck disable=SC2016 # expanded by the shell capsh starts
capsh --drop=cap_dac_override,cap_dac_read_search,cap_fowner -- -c \
  '"$LOOPKIT_ROOT/scripts/loop" run --prompt TASK.md --validate "sh $LOOPKIT_ROOT/testdata/loop/check.sh" --name modes -- "$0"' "$mnt/agent.sh" >"$out/out" 2>"$out/err"
rc=$?
chmod -R u+rwX .loop
run=$(head -n 1 "$out/out")
[ "$rc" = 70 ] || fail "exit $rc on a read-only folder, want 70: $(cat "$out/err")"
grep -q "^hint: .*chmod u+rwX.*resume $run" "$out/err" || fail "no hint naming the fix: $(cat "$out/err")"
"$LOOPKIT_ROOT/scripts/loop" resume "$run" >"$out/rout" 2>"$out/rerr" || fail "resume once the mode is back: $(cat "$out/rerr")"
[ "$(loop-view logs "$run" --json --jq .iteration -r | tr '\n' ' ')" = "1 2 " ] || fail "iterations: $(loop-view logs "$run")"
echo "driver read-only folder ok"
