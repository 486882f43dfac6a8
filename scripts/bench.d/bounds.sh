#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Bounded capture and diffs: loop-validate's overhead and loop-record's
# append, each side by side with the binaries of the commit before the
# stray-writer, private-git and streamed-patch work (built here), and the
# peak RSS of recording a 300 MB binary change. Writes docs/bench/bounds.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
quick=${BENCH_QUICK:-}
runs=40; [ -n "$quick" ] && runs=10
bigmb=300; [ -n "$quick" ] && bigmb=30
before=${BENCH_BEFORE:-3b045ef}
# mid: main just before this work was merged, to tell its cost from others'.
mid=${BENCH_MID:-0bca668}

# The binaries before: built from the commit, in a temp dir.
mkdir -p "$work/src" "$work/old" "$work/midsrc" "$work/mid"
git -C "$BENCH_ROOT" archive "$before" | tar -x -C "$work/src"
(cd "$work/src" && go build -trimpath -o "$work/old/" ./cmd/loop-validate ./cmd/loop-record ./cmd/loop-step)
git -C "$BENCH_ROOT" archive "$mid" | tar -x -C "$work/midsrc"
(cd "$work/midsrc" && go build -trimpath -o "$work/mid/" ./cmd/loop-record)
OLD="$work/old" MID="$work/mid"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b

# alternate N PREP CMD...: runs the commands in turn, N rounds (PREP
# before each, untimed), and prints each one's median wall time in
# seconds. Alternating keeps a busy machine's drift out of the ratios.
alternate() {
  local n=$1 prep=$2 i j t0 t1; shift 2
  local -a cmds=("$@")
  for j in "${!cmds[@]}"; do : > "$work/t$j"; done
  for ((i = 0; i < n; i++)); do
    for j in "${!cmds[@]}"; do
      eval "$prep"
      t0=$EPOCHREALTIME; eval "${cmds[$j]}" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME
      echo "$t0 $t1" >> "$work/t$j"
    done
  done
  for j in "${!cmds[@]}"; do
    awk '{ print $2 - $1 }' "$work/t$j" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
  done
}

# 1. loop-validate overhead over the bare command, outside git, store on.
mkdir -p "$work/plain" && cd "$work/plain"
export LOOP_STORE="$work/plain/.loop"
mapfile -t m < <(alternate $((runs * 5)) "rm -rf $LOOP_STORE/spool" \
  'sh -c true' "$OLD/loop-validate -- sh -c true" "$BIN/loop-validate -- sh -c true")
bare=${m[0]} old=${m[1]} new=${m[2]}
over() { awk -v a="$1" -v b="$bare" 'BEGIN { printf "%.2f", (a - b) * 1000 }'; }
overratio=$(awk -v o="$old" -v n="$new" -v b="$bare" 'BEGIN { printf "%.2f", (n - b) / (o - b) }')

# 2. loop-record appending an iteration (25 KB of output, outside git).
mkdir -p "$work/rec" && cd "$work/rec" && export LOOP_STORE="$work/rec/.loop"
"$BIN/loop-record" --new-run --run r >/dev/null
"$BIN/loop-record" --new-run --run o >/dev/null
"$BIN/loop-record" --new-run --run m >/dev/null
head -c 25600 /dev/urandom | base64 -w 100 | head -c 25600 > out25k.txt
spool="$work/rec/.loop/spool/bench.validate.stdout"
jq -cn --rawfile out out25k.txt --arg f "$spool" \
  '{type:"validation",command:"go test ./...",exit_code:1,stdout:$out,stderr:"",stdout_file:$f,stdout_bytes:25600,files_changed:[]}' > rec.json
mapfile -t m < <(alternate $((runs * 2)) "cp $work/rec/out25k.txt $spool" \
  "$OLD/loop-record --run o < rec.json" "$MID/loop-record --run m < rec.json" "$BIN/loop-record --run r < rec.json")
rold=${m[0]} rmid=${m[1]} rnew=${m[2]}

# 3. a step that adds a ${bigmb} MB binary file to a repository, recorded.
# Each side gets its own copy of the repository and store; the figures are
# loop-record's peak RSS (GNU time: the process and the git it waits for),
# its time, and what the user's .git gained.
bigcase() { # bigcase BINDIR NAME -> "rss_mib seconds gained_kib patch_bytes"
  local bin=$1 d="$work/big-$2"
  mkdir -p "$d/repo" && cd "$d/repo" && git init -q && echo a > a.txt && git add -A && git commit -qm init
  export LOOP_STORE="$d/.loop"
  echo 'add the data' > "$d/prompt.md"
  "$bin/loop-step" --dir "$d/repo" --prompt "$d/prompt.md" -- sh -c "head -c ${bigmb}M /dev/urandom > big.bin" > "$d/in.jsonl" 2>/dev/null
  "$bin/loop-validate" --dir "$d/repo" -- true >> "$d/in.jsonl" 2>/dev/null || true
  local objs0 t0 t1
  objs0=$(git count-objects -v | awk '/^size(-pack)?:/ { s += $2 } END { print s }')
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$d/rss" "$bin/loop-record" --run r < "$d/in.jsonl" > /dev/null 2>&1
  t1=$(date +%s.%N)
  local objs1; objs1=$(git count-objects -v | awk '/^size(-pack)?:/ { s += $2 } END { print s }')
  printf '%s %s %s %s\n' "$(awk '{ printf "%.1f", $1 / 1024 }' "$d/rss")" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" "$((objs1 - objs0))" \
    "$(wc -c < "$LOOP_STORE/runs/r/iterations/001/changes.patch")"
  rm -rf "$d"
}
read -r orss otime ogain opatch < <(bigcase "$OLD" old)
read -r nrss ntime ngain npatch < <(bigcase "$BIN" new)

cat > "$BENCH_ROOT/docs/bench/bounds.md" <<MD
## Bounded capture and diffs (stray writers, private git, streamed patch)

Machine: $(machine_line). "before" is \`$before\`, built in the same run;
medians of runs alternating before / now ($((runs * 5)) and $((runs * 2)) rounds), so
a busy machine weighs on both alike.

| what | before | now | figure | target |
|---|---|---|---|---|
| \`loop-validate -- sh -c true\` (store on, outside git); bare \`sh -c true\` $(ms "$bare") ms | $(ms "$old") ms | $(ms "$new") ms | overhead $(over "$old") ms before, $(over "$new") ms now: ratio $overratio | at most 1.10 |
| \`loop-record\` appending an iteration with 25 KB of output (runs growing to $((runs * 2)) iterations) | $(ms "$rold") ms | $(ms "$rnew") ms | time ratio $(ratio "$rnew" "$rold"); main just before this work (\`$mid\`) $(ms "$rmid") ms: this work's ratio $(ratio "$rnew" "$rmid") | at most 1.10 |
| \`loop-record\` of a step that added a ${bigmb} MB binary file: peak RSS (with git) | $orss MiB | $nrss MiB | | under 64 MiB |
| the same: time | $otime s | $ntime s | | |
| the same: bytes added to the user's \`.git\` | $ogain KiB | $ngain KiB | | 0 |
| the same: changes.patch | $opatch bytes | $npatch bytes | | at most 10 MiB |

loop-validate now also asks the kernel for a read lease on each spool file
after the command (one \`fcntl\`), to tell whether a process that left the
group still writes there. loop-record now snapshots the work tree into the
run's own git directory; the ${bigmb} MB file is streamed into a pack there
(git's big-file threshold is 8 MiB), and changes.patch holds a note and the
\`git diff --stat\` summary instead of the ${bigmb} MB binary diff.

loop-record's append grew between \`$before\` and \`$mid\`, before this
work (its time grows with the run's log there); this work's own ratio is
the one against \`$mid\`.
MD
echo "wrote docs/bench/bounds.md" >&2
