#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-step's parser on a tool-heavy stream (25,000 Claude tool calls with
# 4 KB inputs and results) and a text-only one (assistant messages), 200 MB
# each, generated here and never committed, against `jq -c
# 'select(.type=="result")'` on the same file, in alternated rounds; then
# the worst case for memory. Writes docs/bench/agents.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
cleanup() {
  rm -rf "$work"
}
EXIT_HOOK=cleanup
calls=25000 texts=50000 rounds=3
[ -z "${BENCH_QUICK:-}" ] || { calls=2500 texts=5000; }
cd "$work" && export LOOP_STORE="$work/.loop"

# Tool-heavy: each call a 4 KB Write input and a 4 KB result.
awk -v n="$calls" 'BEGIN {
  x = sprintf("%4096s", ""); gsub(/ /, "x", x)
  print "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"bench\",\"model\":\"claude-opus-4-7\"}"
  for (i = 1; i <= n; i++) {
    printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Write\",\"input\":{\"file_path\":\"f%d.go\",\"content\":\"%s\"}}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"cache_read_input_tokens\":1,\"cache_creation_input_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"bench\"}\n", i, i, i, x
    printf "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_%d\",\"type\":\"tool_result\",\"content\":\"%s\"}]},\"parent_tool_use_id\":null,\"session_id\":\"bench\"}\n", i, x
  }
  print "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"bench\",\"total_cost_usd\":1.5,\"usage\":{\"input_tokens\":1,\"output_tokens\":2,\"cache_read_input_tokens\":3,\"cache_creation_input_tokens\":4}}"
}' >tools.ndjson
# Text-only: assistant messages of 4 KB of prose, no tools.
awk -v n="$texts" 'BEGIN {
  x = sprintf("%800s", ""); gsub(/ /, "word ", x)
  print "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"bench\",\"model\":\"claude-opus-4-7\"}"
  for (i = 1; i <= n; i++)
    printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"cache_read_input_tokens\":1,\"cache_creation_input_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"bench\"}\n", i, x
  print "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"bench\",\"total_cost_usd\":1.5,\"usage\":{\"input_tokens\":1,\"output_tokens\":2,\"cache_read_input_tokens\":3,\"cache_creation_input_tokens\":4}}"
}' >text.ndjson
: >empty.txt

# peak_rss_mib CMD...: the command's peak RSS (MiB) from GNU time, whose
# own small image is the floor (bench-run's would be larger).
peak_rss_mib() {
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1 || true
  awk '{ printf "%.1f", $1 / 1024 }' "$work/rss"
}
best() { jq -r ".results[$2].cpu.min" "$1"; }
row() { # NAME FILE
  local f=$2 mb
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  "$BIN/loop-step" --no-store --prompt /dev/null -- cat "$f" |
    jq -e '.format == "claude" and .llm_input_tokens == 1 and .cost_usd == 1.5' >/dev/null
  measure "$work/$f.json" -r "$rounds" --dir "$work" --prepare "rm -rf $LOOP_STORE/spool" \
    "jq -c 'select(.type==\"result\")' $f" \
    "$BIN/loop-step --no-store --prompt /dev/null -- cat $f" \
    "$BIN/loop-step --prompt /dev/null -- cat $f"
  local j=$work/$f.json rjq rlive rspool
  rjq=$(peak_rss_mib jq -c 'select(.type=="result")' "$f")
  rlive=$(peak_rss_mib "$BIN/loop-step" --no-store --prompt /dev/null -- cat "$f")
  rm -rf "$LOOP_STORE/spool"
  rspool=$(peak_rss_mib "$BIN/loop-step" --prompt /dev/null -- cat "$f")
  echo "| $1, $mb MB | $(fig "$j" 0); $rjq MiB | $(fig "$j" 1); **$(ratio "$(best "$j" 1)" "$(best "$j" 0)")**; $rlive MiB | $(fig "$j" 2); **$(ratio "$(best "$j" 2)" "$(best "$j" 0)")**; $rspool MiB |"
}
rows=$(row "tool-heavy ($calls tool calls of 4 KB)" tools.ndjson; row "text-only ($texts messages of 4 KB)" text.ndjson)
load=$(when "$work/tools.ndjson.json" "$work/text.ndjson.json")
tool_ratio=$(ratio "$(best "$work/tools.ndjson.json" 1)" "$(best "$work/tools.ndjson.json" 0)")
text_ratio=$(ratio "$(best "$work/text.ndjson.json" 1)" "$(best "$work/text.ndjson.json" 0)")

# Worst case for memory: tool calls of 15 MB (under the 16 MiB line limit,
# decoded) and a 100 MB tool result (over it, skipped unbuffered).
big=2; [ -n "${BENCH_QUICK:-}" ] && big=1
xs() { head -c "$1" /dev/zero | tr '\0' x; }
for ((i = 1; i <= big; i++)); do
  printf '{"type":"assistant","message":{"id":"m%d","content":[{"type":"tool_use","id":"t%d","name":"Write","input":{"content":"' "$i" "$i"; xs 15000000
  printf '"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null}\n'
  printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t%d","content":"' "$i"; xs 15000000; printf '"}]},"parent_tool_use_id":null}\n'
done >big.ndjson
{ printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t9","content":"'; xs 100000000; printf '"}]}}\n'; } >>big.ndjson
tail -n 1 tools.ndjson >>big.ndjson
big_mb=$(awk -v b="$(stat -c %s big.ndjson)" 'BEGIN { printf "%.0f", b / 1e6 }')
rss_big=$(peak_rss_mib "$BIN/loop-step" --no-store --prompt /dev/null -- cat big.ndjson)

{
  echo "## loop-step on tool-heavy and text-only streams"
  echo
  measured ./cmd/loop-step
  echo
  echo "Machine: $(machine_line); commit $BENCH_COMMIT; $load."
  echo "The agent is \`cat\` of a generated Claude stream-json file; jq and"
  echo "loop-step alternate round by round. The ratio (bold) is loop-step's"
  echo "best CPU over jq's best (user+sys, \`cat\` included for loop-step);"
  echo "peak RSS from GNU time."
  echo
  echo "| stream | \`jq -c 'select(.type==\"result\")' FILE\`; RSS | \`loop-step --no-store --prompt /dev/null -- cat FILE\`; CPU ratio to jq; RSS | the same, spooled to the store; ratio; RSS |"
  echo "|---|---|---|---|"
  echo "$rows"
  echo
  echo "<!-- summary:step -->"
  echo "loop-step parsing a $(awk -v b="$(stat -c %s tools.ndjson)" 'BEGIN { printf "%.0f", b / 1e6 }') MB Claude stream costs **$tool_ratio× jq's CPU** (tool-heavy) and **$text_ratio×** (text-only), best of $rounds alternated rounds at $BENCH_COMMIT (\`make bench\`, docs/benchmarks.md)."
  echo "<!-- /summary -->"
  echo
  echo "Targets: CPU at most jq's (ratio 1.00 or less), peak RSS under 64 MiB."
  echo "The parser keeps copies of 200-character summaries of the first 1000"
  echo "tool calls only (\`--max-tool-calls\`), so memory does not grow with the"
  echo "stream. Assistant, user and system lines are read by delimiting their"
  echo "fields (strings skipped at memchr speed), decoding only the type, ids and"
  echo "usage, and summarising tool inputs and results from their bytes only for"
  echo "the calls kept; the rarer kinds (result, rate-limit and Cursor tool lines)"
  echo "decode into small structs; lines over 16 MiB are skipped with a warning"
  echo "without being buffered. Worst case for memory: a $big_mb MB transcript of $((big * 2)) lines of 15 MB"
  echo "(Write calls and their results, decoded) and one of 100 MB (skipped"
  echo "unbuffered): peak RSS $rss_big MiB."
} >"$BENCH_ROOT/docs/bench/agents.md"
cat "$BENCH_ROOT/docs/bench/agents.md"
