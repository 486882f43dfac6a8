#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-validate and loop-record against running the command bare, cat and
# tee, and jq >> file && sync file, in alternated rounds. Writes
# docs/bench/foundation.md.
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
mib=256; [ -n "$quick" ] && mib=32
runs=30; [ -n "$quick" ] && runs=8

# 1. overhead over the bare command, outside git, store on and off
mkdir -p "$work/plain" && cd "$work/plain"
export LOOP_STORE="$work/plain/.loop"
measure "$work/over.json" -r "$runs" -w 2 --prepare "rm -rf $LOOP_STORE/spool" \
  'sh -c true' "$BIN/loop-validate -- sh -c true" "$BIN/loop-validate --no-store -- sh -c true"

# 2. files_changed: the same inside a git repository of 1,000 files, 10 dirty
mkdir -p "$work/repo" && cd "$work/repo" && git init -q
for i in $(seq 1 1000); do echo "$i" >"f$i.txt"; done
git add -A && git -c user.name=b -c user.email=b@b commit -qm init
for i in $(seq 1 10); do echo x >>"f$i.txt"; done
export LOOP_STORE="$work/repo/.loop"
measure "$work/git.json" -r "$runs" -w 2 --dir "$work/repo" --prepare "rm -rf $LOOP_STORE/spool" \
  "$BIN/loop-validate -- sh -c true" 'git status --porcelain=v1 -z --untracked-files=all'

# 3. capturing a large stdout: loop-validate hands the child a file, or
# copies a pipe with --tee; against cat and tee doing the same
cd "$work/plain" && export LOOP_STORE="$work/plain/.loop"
gen="head -c ${mib}M /dev/zero"
measure "$work/cap.json" -r 3 --dir "$work/plain" --prepare "sh -c 'rm -f $work/*.out $LOOP_STORE/spool/*'" \
  "sh -c '$gen | cat > $work/cat.out'" "sh -c '$gen | tee $work/tee.out > /dev/null'" \
  "$BIN/loop-validate -- $gen" "$BIN/loop-validate --tee -- $gen"
rm -f "$work"/*.out "$LOOP_STORE"/spool/*
rss() { /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1 || true; awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"; rm -f "$LOOP_STORE"/spool/*; }
rss_file=$(rss "$BIN/loop-validate" -- head -c "${mib}M" /dev/zero)
rss_tee=$(rss "$BIN/loop-validate" --tee -- head -c "${mib}M" /dev/zero)
mibps() { awk -v m="$mib" -v s="$(wall "$work/cap.json" "$1")" 'BEGIN { printf "%.0f", m / s }'; }

# 4. loop-record appending an iteration with 25 KB of output vs jq >> file && sync
mkdir -p "$work/rec" && cd "$work/rec" && export LOOP_STORE="$work/rec/.loop"
"$BIN/loop-record" new --run r >/dev/null
head -c 25600 /dev/urandom | base64 -w 100 | head -c 25600 >out25k.txt
mkdir -p .loop/spool
spool="$work/rec/.loop/spool/bench.validate.stdout"
jq -cn --rawfile out out25k.txt --arg f "$spool" \
  '{type:"validation",command:"go test ./...",exit_code:1,stdout:$out,stderr:"",stdout_file:$f,files_changed:[]}' >rec.json
measure "$work/rec.json" -r "$runs" -w 2 --dir "$work/rec" --prepare "cp $work/rec/out25k.txt $spool" \
  "sh -c '$BIN/loop-record --run r < rec.json > /dev/null'" \
  "sh -c 'jq -c . rec.json >> plain.jsonl && sync plain.jsonl'"

over() { awk -v a="$(cpu "$1" "$2")" -v b="$(cpu "$1" 0)" 'BEGIN { printf "%.2f", (a - b) * 1000 }'; }
cat >"$BENCH_ROOT/docs/bench/foundation.md" <<MD
## loop-validate and loop-record

$(measured ./cmd/loop-validate ./cmd/loop-record)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/over.json" "$work/git.json" "$work/rec.json") ($runs rounds; the capture, 3).

| what | loopkit | baseline | figure | target |
|---|---|---|---|---|
| \`loop-validate -- sh -c true\` (store on, outside git) vs \`sh -c true\` | $(fig "$work/over.json" 1) | $(fig "$work/over.json" 0) | overhead $(over "$work/over.json" 1) ms of CPU | within 5 ms |
| \`loop-validate --no-store -- sh -c true\` | $(fig "$work/over.json" 2) | | overhead $(over "$work/over.json" 2) ms of CPU | |
| \`loop-validate -- sh -c true\` in a git repo of 1,000 files, 10 dirty (files_changed) vs \`git status\` alone | $(fig "$work/git.json" 0) | $(fig "$work/git.json" 1) | | reported separately |
| capture $mib MiB of stdout (a file handed to the child) vs \`head \| cat > file\` | $(fig "$work/cap.json" 2); $(mibps 2) MiB/s | $(fig "$work/cap.json" 0); $(mibps 0) MiB/s | throughput ratio $(ratio "$(wall "$work/cap.json" 0)" "$(wall "$work/cap.json" 2)") of cat | at least 0.5 |
| the same with \`--tee\` (pipe copy + live stderr) vs \`head \| tee file\` | $(fig "$work/cap.json" 3); $(mibps 3) MiB/s | $(fig "$work/cap.json" 1); $(mibps 1) MiB/s | throughput ratio $(ratio "$(wall "$work/cap.json" 1)" "$(wall "$work/cap.json" 3)") of tee | |
| peak RSS capturing $mib MiB (file / \`--tee\`), GNU time | $rss_file MiB / $rss_tee MiB | | | under 64 MiB |
| \`loop-record\` appending an iteration with 25 KB of output vs \`jq -c . >> file && sync file\` (each through \`sh -c\`) | $(fig "$work/rec.json" 0) | $(fig "$work/rec.json" 1) | CPU ratio $(ratio "$(cpu "$work/rec.json" 0)" "$(cpu "$work/rec.json" 1)") | |

loop-record's figure includes everything it does per iteration: the append
lock, hard-linking the spooled stream into the iteration folder, writing and
fsyncing meta.json, output.json and guard.log, the fsynced log line (the commit
point), events.jsonl, report.tsv, manifest.json and run.json.
MD
cat "$BENCH_ROOT/docs/bench/foundation.md"
