#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-record's append against the loop-record of commit 3b045ef (before the
# store's lock re-check, attempts, no-follow opens and folder fsyncs), both
# built here and run side by side, alternating, in one run. Writes
# docs/bench/store.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-store.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=60; [ -n "${BENCH_QUICK:-}" ] && runs=20
base=3b045ef

mkdir -p "$work/old-src"
git -C "$BENCH_ROOT" archive "$base" | tar -x -C "$work/old-src"
(cd "$work/old-src" && go build -trimpath -o "$work/old-loop-record" ./cmd/loop-record)

# one store per binary, the same 25 KB record, its stream spooled fresh
head -c 25600 /dev/urandom | base64 -w 100 | head -c 25600 > "$work/out25k.txt"
for v in old new; do
  mkdir -p "$work/$v/.loop/spool"
  jq -cn --rawfile out "$work/out25k.txt" --arg f "$work/$v/.loop/spool/1-1-aa.validate.stdout" \
    '{type:"validation",command:"go test ./...",exit_code:1,stdout:$out,stderr:"",stdout_file:$f,files_changed:[]}' > "$work/$v/rec.json"
done
LOOP_STORE="$work/old/.loop" "$work/old-loop-record" --new-run --run r >/dev/null
LOOP_STORE="$work/new/.loop" "$BIN/loop-record" --new-run --run r >/dev/null

# Alternate old and new append by append, so that the load of a shared
# machine falls on both alike (hyperfine would run one after the other).
append() { # append old|new: one append, prints its wall time in seconds
  local bin=$BIN/loop-record t0 t1
  [ "$1" = old ] && bin=$work/old-loop-record
  cp "$work/out25k.txt" "$work/$1/.loop/spool/1-1-aa.validate.stdout"
  t0=$EPOCHREALTIME
  LOOP_STORE="$work/$1/.loop" "$bin" --run r < "$work/$1/rec.json" > /dev/null
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
for ((i = 0; i < 5; i++)); do append old >/dev/null; append new >/dev/null; done
for ((i = 0; i < runs; i++)); do
  append old >> "$work/old.times"
  append new >> "$work/new.times"
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
old=$(median "$work/old.times"); new=$(median "$work/new.times")
n_old=$(wc -l < "$work/old/.loop/runs/r/iterations.jsonl")
n_new=$(wc -l < "$work/new/.loop/runs/r/iterations.jsonl")

cat > "$BENCH_ROOT/docs/bench/store.md" <<MD
## loop-record's append, before and after the store's hardening

Machine: $(machine_line). Medians of $runs appends each (after 5 warm-ups),
the two binaries alternating append by append in one run, each on its own
store (logs of $n_old and $n_new lines at the end).

| what | now | commit $base | figure | target |
|---|---|---|---|---|
| \`loop-record\` appending an iteration with 25 KB of output | $(ms "$new") ms | $(ms "$old") ms | time ratio $(ratio "$new" "$old") | at most 1.10 |

Now includes what the old one did not: the lock re-check (fstat against
lstat), the last-line check of both logs, O_NOFOLLOW opens, and fsyncs of
the iteration folder's parent before the commit line.
MD
echo "wrote docs/bench/store.md" >&2
