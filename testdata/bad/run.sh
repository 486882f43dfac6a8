#!/usr/bin/env bash
# Runs every case of cases.tsv against the loop-* commands on PATH: each must
# exit with the documented status, say one line (plus an optional hint:) on
# stderr that names the command, and leave the store byte-identical.
# Run by testdata/script/bad_input.txtar from a scratch directory.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LOOP_STORE="$PWD/store" LOOP_LOG_LEVEL=error
loop-validate --run r -- sh -c 'echo hi' | loop-record --run r >/dev/null || { echo "setup failed" >&2; exit 1; }
F="$PWD/plain-file"
echo "not a store" > "$F"
cp "$here"/*.jsonl "$here"/*.txt "$here"/*.json "$here"/*.bin .
# a 32 MB line of garbage (twice the readers' 16 MiB line limit), made
# here rather than committed
head -c 32000000 /dev/zero | tr '\0' 'x' > huge-line.txt
echo >> huge-line.txt

# snapshot FILE: every file of the store (locks aside) with its mode, size
# and checksum, in find's order (a directory's order changes only when it
# does); two processes, no subshell: the 45 cases run it twice each.
snapshot() { find "$LOOP_STORE" -type f ! -name '*.lock' -printf '%P %m\n' -exec cksum {} + >"$1"; }
failed=0 n=0
while IFS=$'\t' read -r want input cmdline; do
  case "$want" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  cmdline=${cmdline//\$F/$F}
  read -ra argv <<<"$cmdline"
  snapshot before.txt
  "${argv[@]}" <"$input" >out.txt 2>err.txt
  got=$?
  snapshot after.txt
  IFS= read -r -d '' before <before.txt
  IFS= read -r -d '' after <after.txt
  # stderr's lines, hint: lines aside, and whether one names the command
  lines=0 named=""
  while IFS= read -r line || [ -n "$line" ]; do
    [[ $line == "hint: "* ]] || lines=$((lines + 1))
    [[ $line == "${argv[0]}: "* ]] && named=1
  done <err.txt
  problem=""
  [ "$got" = "$want" ] || problem="exit $got, want $want"
  [ "$lines" = 1 ] || problem="$problem; $lines lines on stderr"
  [ -n "$named" ] || problem="$problem; stderr does not start with '${argv[0]}: '"
  [ "$before" = "$after" ] || problem="$problem; the store changed"
  if [ -n "$problem" ]; then
    failed=$((failed + 1))
    printf 'FAIL %s < %s: %s\n  stderr: %s\n' "$cmdline" "$input" "$problem" "$(head -c 300 err.txt)"
  fi
done <"$here/cases.tsv"
echo "bad input: $n cases, $failed failed"
[ "$failed" = 0 ]
