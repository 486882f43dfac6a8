#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-record's append, today's against older builds of it, all built here
# and run side by side, alternating append by append in one run: commit
# 3b045ef (before the store's hardening), and each side of the two merges
# of that work, which isolates its cost from other changes made meanwhile.
# Writes docs/bench/store.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-store.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=60; [ -n "${BENCH_QUICK:-}" ] && runs=20
revs=(3b045ef 3f5b2fa c5c8a3e a224765 45c470e)

for rev in "${revs[@]}"; do
  mkdir -p "$work/src-$rev"
  git -C "$BENCH_ROOT" archive "$rev" | tar -x -C "$work/src-$rev"
  (cd "$work/src-$rev" && go build -trimpath -o "$work/bin-$rev" ./cmd/loop-record)
done
cp "$BIN/loop-record" "$work/bin-now"
all=("${revs[@]}" now)

# one store per binary, the same 25 KB record, its stream spooled fresh
head -c 25600 /dev/urandom | base64 -w 100 | head -c 25600 > "$work/out25k.txt"
for v in "${all[@]}"; do
  mkdir -p "$work/$v/.loop/spool"
  jq -cn --rawfile out "$work/out25k.txt" --arg f "$work/$v/.loop/spool/1-1-aa.validate.stdout" \
    '{type:"validation",command:"go test ./...",exit_code:1,stdout:$out,stderr:"",stdout_file:$f,files_changed:[]}' > "$work/$v/rec.json"
  LOOP_STORE="$work/$v/.loop" "$work/bin-$v" --new-run --run r >/dev/null
done

# Alternate binaries append by append, so that the load of a shared
# machine falls on all alike (hyperfine would run one after the other).
append() { # append VERSION: one append, prints its wall time in seconds
  local t0 t1
  cp "$work/out25k.txt" "$work/$1/.loop/spool/1-1-aa.validate.stdout"
  t0=$EPOCHREALTIME
  LOOP_STORE="$work/$1/.loop" "$work/bin-$1" --run r < "$work/$1/rec.json" > /dev/null
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
for ((i = 0; i < 5; i++)); do for v in "${all[@]}"; do append "$v" >/dev/null; done; done
for ((i = 0; i < runs; i++)); do
  for v in "${all[@]}"; do append "$v" >> "$work/$v.times"; done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
load=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A t
for v in "${all[@]}"; do t[$v]=$(median "$work/$v.times"); done

cat > "$BENCH_ROOT/docs/bench/store.md" <<MD
## loop-record's append, before and after the store's hardening

Machine: $(machine_line). Medians of $runs appends of an iteration with
25 KB of output, per build, after 5 warm-ups; the builds alternate append
by append in one run, each on its own store.

| what | after | before | time ratio | target |
|---|---|---|---|---|
| today against 3b045ef (everything since, all helpers) | $(ms "${t[now]}") ms | $(ms "${t[3b045ef]}") ms | $(ratio "${t[now]}" "${t[3b045ef]}") | at most 1.10 |
| first store merge: c5c8a3e against 3f5b2fa (lock re-check, attempts, last-line check, identity check) | $(ms "${t[c5c8a3e]}") ms | $(ms "${t[3f5b2fa]}") ms | $(ratio "${t[c5c8a3e]}" "${t[3f5b2fa]}") | at most 1.10 |
| second store merge: 45c470e against a224765 (no-follow opens, folder and parent fsync, one owner) | $(ms "${t[45c470e]}") ms | $(ms "${t[a224765]}") ms | $(ratio "${t[45c470e]}" "${t[a224765]}") | at most 1.10 |

The store work itself is the two merges; the first line also carries
every other change made to loop-record meanwhile. Load average during the
run: $load (on a shared machine medians move by some 20% from one run to
the next, which alternating spreads over all builds alike).
MD
echo "wrote docs/bench/store.md" >&2
