#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-view : --where over a 10,000-iteration, 250 MB run against
# jq -c 'select(...)' on the same file, runs over 1,000 runs, the driver's
# reads, and peak RSS of the text Logs view. Writes docs/bench/view.md.
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
iters=10000; [ -n "$quick" ] && iters=1000
export LOOP_STORE="$work/.loop" NO_COLOR=1

# The fixture: run "big" (24 KB stdout, 640 B stderr, a tool call per
# iteration, two in three failing) and 1,000 small runs.
python3 - "$LOOP_STORE" "$iters" <<'PY'
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
def run(rid, created, iters):
    d = f"{root}/runs/{rid}"; os.makedirs(d, exist_ok=True)
    json.dump({"schema_version": 1, "run_id": rid, "name": rid, "status": "failed", "iteration": iters,
               "passed": iters // 3, "failed": iters - iters // 3, "validation_command": "go test ./...",
               "settings": {}, "artifact_status": "draft", "total_input_tokens": 1000, "total_output_tokens": 200,
               "total_duration_ms": 5000, "total_cost_usd": None, "created_at": created, "updated_at": created},
              open(f"{d}/run.json", "w"), indent=2)
    return d
d = run("big", 1767225600000, n)
out = "".join(f"ok  \tgithub.com/x/pkg{i}\t0.{i:03d}s\n" for i in range(800))[:24000]
with open(f"{d}/iterations.jsonl", "w") as f:
    for i in range(1, n + 1):
        code = 1 if i % 3 else 0
        f.write(json.dumps({"id": f"big-iter-{i}", "run_id": "big", "iteration": i, "status": "fail" if code else "pass",
            "validation_command": "go test ./...", "exit_code": code, "timed_out": False, "signal": None, "error": None,
            "stdout": out, "stderr": "--- FAIL: TestX\n" * 40, "stdout_truncated": False, "stderr_truncated": False,
            "duration_ms": 1000 + i % 2000, "files_changed": ["a.go", "b.go"], "tool_calls": [{"tool_name": "Edit",
            "arguments_summary": "{\"file_path\":\"a.go\"}", "result_summary": "ok", "is_error": False}],
            "created_at": 1767225600000 + i, "updated_at": 1767225600000 + i}, separators=(",", ":")) + "\n")
for i in range(1000):
    run(f"r{i:04d}", 1767225600000 + i * 1000, 3)
PY
log="$LOOP_STORE/runs/big/iterations.jsonl"
mb=$(du -m "$log" | cut -f1)
same=no
cmp -s <("$BIN/loop-view" logs big --json --where '.exit_code != 0') <(jq -c 'select(.exit_code != 0)' "$log") && same=yes

cd "$work"
measure "$work/where.json" -r 3 --dir "$work" \
  "$BIN/loop-view logs big --json --where '.exit_code != 0'" \
  "jq -c 'select(.exit_code != 0)' $log" \
  "$BIN/loop-view logs big --json --where '.exit_code != 0 and .duration_ms > 1000' --jq .iteration" \
  "jq -c 'select(.exit_code != 0 and .duration_ms > 1000) | .iteration' $log"
measure "$work/small.json" -r 15 -w 2 --dir "$work" \
  "$BIN/loop-view runs" "$BIN/loop-view runs --json" \
  "$BIN/loop-view logs big --json --last 1 --jq .exit_code -r" \
  "$BIN/loop-view describe big --json --jq .status -r" \
  "jq -r .status $LOOP_STORE/runs/big/run.json"
measure "$work/text.json" -r 3 --dir "$work" "$BIN/loop-view logs big" "$BIN/loop-view logs -v big"
rss() { /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1 || true; awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"; }
rss=$(rss "$BIN/loop-view" logs big); rssv=$(rss "$BIN/loop-view" logs -v big)
rssw=$(rss "$BIN/loop-view" logs big --json --where '.exit_code != 0')
w=$work/where.json sm=$work/small.json tx=$work/text.json

cat > "$BENCH_ROOT/docs/bench/view.md" <<MD
## loop-view

$(measured ./cmd/loop-view)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$w" "$sm" "$tx") (15 rounds for the small reads, 3 for the rest).
Fixture: one run of $iters iterations (24 KB stdout, 640 B stderr each; $mb MB
of iterations.jsonl) and 1,000 runs of 3 iterations. \`--where\` output
identical to jq's: $same.

| what | loopkit | baseline | CPU ratio | target |
|---|---|---|---|---|
| \`loop-view logs big --json --where '.exit_code != 0'\` vs \`jq -c 'select(.exit_code != 0)'\` | $(fig "$w" 0) | $(fig "$w" 1) | $(ratio "$(cpu "$w" 0)" "$(cpu "$w" 1)") | at most 1.0 |
| \`... --where '.exit_code != 0 and .duration_ms > 1000' --jq .iteration\` vs jq | $(fig "$w" 2) | $(fig "$w" 3) | $(ratio "$(cpu "$w" 2)" "$(cpu "$w" 3)") | |
| \`loop-view runs\` over 1,000 runs (text) | $(fig "$sm" 0) | | | under 200 ms |
| \`loop-view runs --json\` | $(fig "$sm" 1) | | | |
| \`loop-view logs big --json --last 1 --jq .exit_code -r\` (reads from the end) | $(fig "$sm" 2) | | | |
| \`loop-view describe big --json --jq .status -r\` vs \`jq -r .status run.json\` | $(fig "$sm" 3) | $(fig "$sm" 4) | $(ratio "$(cpu "$sm" 3)" "$(cpu "$sm" 4)") | |
| \`loop-view logs big\` (text) | $(fig "$tx" 0) | | | |
| \`loop-view logs -v big\` | $(fig "$tx" 1) | | | |
| peak RSS (GNU time): \`logs big\` / \`logs -v big\` / \`--json --where\` | $rss / $rssv / $rssw MiB | | | under 64 MiB |

\`--where\` is analysed once for the top-level fields it can read
(internal/jqfilter/needs.go); each line is scanned by internal/view/jsonobj, which
skips the values nobody asked for (24 KB of stdout at \`bytes.IndexByte\`
speed), and a match is written out as its stored bytes. \`--last N\` and
ITER read the log backwards from its end.
MD
echo "wrote docs/bench/view.md" >&2
