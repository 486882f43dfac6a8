#!/usr/bin/env bash
# The driver on a store whose file system runs out of inodes, not bytes
# (root and a tmpfs only; elsewhere it says skipped): the hint names
# inodes and df -i, never "free space", which df shows there is; once
# there are inodes, `loop resume` finishes the run and the run's git is
# whole. Run by loop_disk_inodes.txtar.
set -uo pipefail
out="$PWD"
ws="$PWD/ws"
fail() { echo "FAIL: $*"; exit 1; }
{ mkdir "$ws" && cp -r "$LOOPKIT_ROOT/testdata/demo/." "$ws" && cd "$ws"; } || fail "setup"
{ git init -q && git add -A && git commit -qm init; } || fail "git"
mkdir .loop
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=8m,nr_inodes=48 tmpfs .loop 2>/dev/null; then
  echo "driver out of inodes skipped: no tmpfs here"
  exit 0
fi
trap 'cd / && { umount "$ws/.loop" || umount -l "$ws/.loop"; }' EXIT
"$LOOPKIT_ROOT/scripts/loop" run --prompt TASK.md --validate "sh $LOOPKIT_ROOT/testdata/loop/check.sh" --max-iterations 5 -- "$LOOPKIT_ROOT/scripts/demo-agent" >"$out/out" 2>"$out/err"
rc=$?
run=$(head -n 1 "$out/out")
[ "$rc" = 70 ] || fail "exit $rc out of inodes, want 70: $(cat "$out/err")"
grep -q "^hint: the file system of $ws/.loop has no free inodes left (df -i $ws/.loop): " "$out/err" || fail "no hint naming inodes: $(cat "$out/err")"
grep -q 'free space' "$out/err" && fail "a hint to free space df shows is there: $(cat "$out/err")"
mount -o remount,nr_inodes=100000 .loop || fail "remount"
[ -n "$run" ] || exit 0 # out of inodes before the run was made: nothing to resume
"$LOOPKIT_ROOT/scripts/loop" resume "$run" >"$out/rout" 2>"$out/rerr" || fail "resume once there are inodes: $(cat "$out/rerr")"
grep -q '^completed$' "$out/rout" || fail "resumed run not completed: $(cat "$out/rout")"
git -C ".loop/runs/$run/git" fsck --no-progress >"$out/fsck" 2>&1 || fail "the run's git: $(cat "$out/fsck")"
[ -z "$(ls .loop/spool)" ] || fail "left in the spool: $(ls .loop/spool)"
echo "driver out of inodes ok"
