#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-validate and loop-record against running the command bare, timeout+tee,
# cat > file, and jq >> file && sync file. Writes docs/bench/foundation.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
quick=${BENCH_QUICK:-}
gib=$((1 << 30)); [ -n "$quick" ] && gib=$((64 << 20))
runs=30; [ -n "$quick" ] && runs=10

# 1. overhead over the bare command, outside git, store on
mkdir -p "$work/plain" && cd "$work/plain"
export LOOP_STORE="$work/plain/.loop"
hyperfine -N -w 5 -r $((runs * 3)) --export-json "$work/over.json" \
  'sh -c true' "$BIN/loop-validate -- sh -c true" "$BIN/loop-validate --no-store -- sh -c true" \
  'timeout 60 sh -c true' >/dev/null 2>&1
bare=$(hf_median "$work/over.json" 0); lv=$(hf_median "$work/over.json" 1)
lvn=$(hf_median "$work/over.json" 2); tmo=$(hf_median "$work/over.json" 3)
rm -rf "$LOOP_STORE/spool"

# 2. files_changed: the same inside a git repository of 1,000 files, 10 dirty
mkdir -p "$work/repo" && cd "$work/repo" && git init -q
for i in $(seq 1 1000); do echo "$i" > "f$i.txt"; done
git add -A && git -c user.name=b -c user.email=b@b commit -qm init
for i in $(seq 1 10); do echo x >> "f$i.txt"; done
export LOOP_STORE="$work/repo/.loop"
hyperfine -N -w 5 -r $((runs * 2)) --export-json "$work/git.json" \
  "$BIN/loop-validate -- sh -c true" 'git status --porcelain=v1 -z --untracked-files=all' >/dev/null 2>&1
lvgit=$(hf_median "$work/git.json" 0); gitst=$(hf_median "$work/git.json" 1)

# 3. capturing a large stdout: throughput and peak RSS
cd "$work/plain" && export LOOP_STORE="$work/plain/.loop"
gen="head -c $gib /dev/zero"
hyperfine -w 1 -r 5 --export-json "$work/cap.json" \
  "$gen | cat > $work/cat.out" \
  "$gen | timeout 600 tee $work/tee.out > /dev/null" \
  "$BIN/loop-validate -- $gen > /dev/null; rm -f $LOOP_STORE/spool/*" \
  "$BIN/loop-validate --tee -- $gen > /dev/null 2>&1; rm -f $LOOP_STORE/spool/*" >/dev/null 2>&1
cat_s=$(hf_median "$work/cap.json" 0); tee_s=$(hf_median "$work/cap.json" 1)
cap_s=$(hf_median "$work/cap.json" 2); capt_s=$(hf_median "$work/cap.json" 3)
rm -f "$work"/*.out
rss=$(peak_rss_mib "$BIN/loop-validate" -- head -c "$gib" /dev/zero); rm -f "$LOOP_STORE"/spool/*
rsst=$(peak_rss_mib "$BIN/loop-validate" --tee -- head -c "$gib" /dev/zero); rm -f "$LOOP_STORE"/spool/*
mibps() { awk -v b="$gib" -v s="$1" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }

# 4. loop-record appending an iteration with 25 KB of output vs jq >> file && sync
mkdir -p "$work/rec" && cd "$work/rec" && export LOOP_STORE="$work/rec/.loop"
"$BIN/loop-record" --new-run --run r >/dev/null
head -c 25600 /dev/urandom | base64 -w 100 | head -c 25600 > out25k.txt
mkdir -p .loop/spool
spool="$work/rec/.loop/spool/bench.validate.stdout"
jq -cn --rawfile out out25k.txt --arg f "$spool" \
  '{type:"validation",command:"go test ./...",exit_code:1,stdout:$out,stderr:"",stdout_file:$f,files_changed:[]}' > rec.json
hyperfine -N -w 5 -r $((runs * 2)) --export-json "$work/rec.json" \
  --prepare "cp $work/rec/out25k.txt $spool" \
  "sh -c '$BIN/loop-record --run r < rec.json > /dev/null'" \
  "sh -c 'jq -c . rec.json >> plain.jsonl && sync plain.jsonl'" >/dev/null 2>&1
recs=$(hf_median "$work/rec.json" 0); jqs=$(hf_median "$work/rec.json" 1)

cat > "$BENCH_ROOT/docs/bench/foundation.md" <<MD
## loop-validate and loop-record (the first version)

Machine: $(machine_line). hyperfine medians.

| what | loopkit | baseline | figure | target |
|---|---|---|---|---|
| \`loop-validate -- sh -c true\` (store on, outside git) vs \`sh -c true\` | $(ms "$lv") ms | $(ms "$bare") ms | overhead $(awk -v a="$lv" -v b="$bare" 'BEGIN{printf "%.2f", (a-b)*1000}') ms | within 5 ms |
| \`loop-validate --no-store -- sh -c true\` vs \`sh -c true\` | $(ms "$lvn") ms | $(ms "$bare") ms | overhead $(awk -v a="$lvn" -v b="$bare" 'BEGIN{printf "%.2f", (a-b)*1000}') ms | |
| \`timeout 60 sh -c true\` (for scale) | | $(ms "$tmo") ms | | |
| \`loop-validate -- sh -c true\` in a git repo of 1,000 files, 10 dirty (files_changed) | $(ms "$lvgit") ms | $(ms "$lv") ms outside git | files_changed costs $(awk -v a="$lvgit" -v b="$lv" 'BEGIN{printf "%.2f", (a-b)*1000}') ms; \`git status\` alone $(ms "$gitst") ms | reported separately |
| capture $((gib >> 20)) MiB of stdout: \`loop-validate -- head -c ...\` vs \`head -c ... \| cat > file\` | $(mibps "$cap_s") MiB/s | $(mibps "$cat_s") MiB/s | throughput ratio $(ratio "$cat_s" "$cap_s") of cat | at least 0.5 |
| the same with \`--tee\` (pipe copy + live stderr) vs \`head -c ... \| tee file\` | $(mibps "$capt_s") MiB/s | $(mibps "$tee_s") MiB/s | throughput ratio $(ratio "$tee_s" "$capt_s") of tee | |
| peak RSS capturing $((gib >> 20)) MiB (file handed to the child / \`--tee\` pipe copy) | $rss MiB / $rsst MiB | | | under 64 MiB |
| \`loop-record\` appending an iteration with 25 KB of output vs \`jq -c . >> file && sync file\` | $(ms "$recs") ms | $(ms "$jqs") ms | time ratio $(ratio "$recs" "$jqs") | at most 1.0 |

loop-record's figure includes everything it does per iteration: the append
lock, hard-linking the spooled stream into the iteration folder, writing and
fsyncing meta.json, output.json and guard.log, the fsynced log line (the commit
point), events.jsonl, report.tsv, manifest.json and run.json.
MD
echo "wrote docs/bench/foundation.md" >&2
