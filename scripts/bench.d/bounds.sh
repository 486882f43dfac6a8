#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Bounded recording: loop-record of a step that added a large binary file
# to a repository (peak RSS, CPU and wall time, bytes added to the user's
# .git, the patch's size). Writes docs/bench/bounds.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
cleanup() {
  rm -rf "$work"
}
EXIT_HOOK=cleanup
bigmb=100 rounds=2; [ -n "${BENCH_QUICK:-}" ] && bigmb=20 rounds=1
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
d=$work/big
# prepare (untimed): a repository, its store, the step that wrote the file
# and its validation; the timed command records the iteration.
cat >"$work/prepare" <<SH
#!/usr/bin/env bash
set -euo pipefail
rm -rf "$d" && mkdir -p "$d/repo" && cd "$d/repo" && git init -q && echo a >a.txt && git add -A && git commit -qm init
export LOOP_STORE="$d/.loop"
echo 'add the data' >"$d/prompt.md"
"$BIN/loop-step" --dir "$d/repo" --prompt "$d/prompt.md" -- sh -c "head -c ${bigmb}M /dev/urandom > big.bin" >"$d/in.jsonl" 2>/dev/null
"$BIN/loop-validate" --dir "$d/repo" -- true >>"$d/in.jsonl" 2>/dev/null || true
git count-objects -v | awk '/^size(-pack)?:/ { s += \$2 } END { print s }' >"$d/objs0"
SH
cat >"$work/record" <<SH
#!/usr/bin/env bash
cd "$d/repo" && LOOP_STORE="$d/.loop" exec "$BIN/loop-record" --run r <"$d/in.jsonl" >/dev/null
SH
chmod +x "$work/prepare" "$work/record"
measure "$work/b.json" -r "$rounds" --prepare "$work/prepare" "$work/record"
"$work/prepare" && cd "$d/repo"
/usr/bin/time -f '%M' -o "$work/rss" "$work/record"
rss=$(awk '{ printf "%.1f", $1 / 1024 }' "$work/rss")
gain=$(($(git count-objects -v | awk '/^size(-pack)?:/ { s += $2 } END { print s }') - $(cat "$d/objs0")))
patch=$(wc -c <"$d/.loop/runs/r/iterations/001/changes.patch")

cat >"$BENCH_ROOT/docs/bench/bounds.md" <<MD
## Recording a large change

$(measured ./cmd/loop-record)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/b.json").
A step added a ${bigmb} MB binary file to a repository; \`loop-record\` records
the iteration (with the git it runs).

| what | figure | target |
|---|---|---|
| time | $(fig "$work/b.json" 0) | |
| peak RSS (GNU time: the process and the git it waits for) | $rss MiB | under 64 MiB |
| bytes added to the user's \`.git\` | $gain KiB | 0 |
| changes.patch | $patch bytes | at most 10 MiB |

loop-record snapshots the work tree into the run's own git directory; the
${bigmb} MB file is streamed into a pack there (git's big-file threshold is
8 MiB), and changes.patch holds a note and the \`git diff --stat\` summary
instead of the binary diff.
MD
echo "wrote docs/bench/bounds.md" >&2
