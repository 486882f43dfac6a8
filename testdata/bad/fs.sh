#!/usr/bin/env bash
# File-system failures, where the machine lets us mount a small tmpfs (root;
# otherwise a read-only store is made with chmod and ENOSPC is left to the
# injected-writer unit test): a read-only store and a full disk must give one
# clear line, exit 1, and no partial record. Run by bad_fs.txtar.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mnt="$PWD/mnt"
mkdir -p "$mnt"
fail() { echo "FAIL: $*"; cleanup; exit 1; }
cleanup() { mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; }
one_line() { [ "$(grep -cv '^hint: ' "$1")" = 1 ] && grep -q '^loop-record: ' "$1"; }

if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=256k tmpfs "$mnt" 2>/dev/null; then
  echo "no tmpfs here: read-only store by chmod only"
  export LOOP_STORE="$PWD/ro-store"
  loop-record --run r <"$here/ok.jsonl" >/dev/null || fail "setup"
  chmod -R a-w "$LOOP_STORE"
  if loop-record --run r <"$here/ok.jsonl" >out 2>err; then fail "a read-only store took a record"; fi
  chmod -R u+w "$LOOP_STORE"
  one_line err || fail "read-only store: $(cat err)"
  echo "fs: read-only store ok"
  exit 0
fi
trap cleanup EXIT

# a full disk: the store on a 256 KiB tmpfs, filled up
export LOOP_STORE="$mnt/store"
loop-record --run r <"$here/ok.jsonl" >/dev/null || fail "setup"
before=$(wc -c <"$LOOP_STORE/runs/r/iterations.jsonl")
head -c 1000000 /dev/zero >"$mnt/filler" 2>/dev/null
big=$(head -c 20000 /dev/zero | tr '\0' x)
printf '{"type":"validation","exit_code":1,"stdout":"%s"}\n' "$big" >big.jsonl
if loop-record --run r <big.jsonl >out 2>err; then fail "a record was taken on a full disk"; fi
one_line err || fail "full disk: not one line: $(cat err)"
grep -q 'no space left on device' err || fail "full disk: error does not say so: $(cat err)"
after=$(wc -c <"$LOOP_STORE/runs/r/iterations.jsonl")
[ "$before" = "$after" ] || fail "iterations.jsonl changed on a full disk ($before -> $after bytes)"
[ "$(tail -c 1 "$LOOP_STORE/runs/r/iterations.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "partial line left"
rm -f "$mnt/filler"
loop-record --run r <big.jsonl >/dev/null 2>err || fail "no record once space is back: $(cat err)"
[ "$(loop-view logs r --json --jq .iteration -r | tr '\n' ' ')" = "1 2 " ] || fail "iterations after recovery"
echo "fs: full disk ok"

# a read-only store
mount -o remount,ro "$mnt" || fail "remount ro"
snap=$(find "$LOOP_STORE" -type f -exec cksum {} + | sort)
if loop-record --run r <"$here/ok.jsonl" >out 2>err; then fail "a read-only store took a record"; fi
one_line err || fail "read-only store: not one line: $(cat err)"
[ "$snap" = "$(find "$LOOP_STORE" -type f -exec cksum {} + | sort)" ] || fail "read-only store changed"
echo "fs: read-only store ok"
