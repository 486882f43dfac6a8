#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-step's parser on the two streams that matter for memory and speed:
# a tool-heavy one (25,000 Claude tool calls with 4 KB inputs and results)
# and a text-only one (assistant text messages), 200 MB each, generated
# here and never committed; against `jq -c 'select(.type=="result")'` on
# the same file, best of 3 in the same run, with peak RSS. Writes
# docs/bench/agents.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
(cd "$BENCH_ROOT" && go build -o "$BIN/" ./cmd/loop-step)
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
calls=25000; texts=50000
[ -n "${BENCH_QUICK:-}" ] && calls=2500 && texts=5000
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
}' > tools.ndjson
# Text-only: assistant messages of 4 KB of prose, no tools.
awk -v n="$texts" 'BEGIN {
  x = sprintf("%800s", ""); gsub(/ /, "word ", x)
  print "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"bench\",\"model\":\"claude-opus-4-7\"}"
  for (i = 1; i <= n; i++)
    printf "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"cache_read_input_tokens\":1,\"cache_creation_input_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"bench\"}\n", i, x
  print "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"bench\",\"total_cost_usd\":1.5,\"usage\":{\"input_tokens\":1,\"output_tokens\":2,\"cache_read_input_tokens\":3,\"cache_creation_input_tokens\":4}}"
}' > text.ndjson
: > empty.txt

row() { # name file
  local f=$2 mb
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  "$BIN/loop-step" --no-store --prompt empty.txt -- cat "$f" |
    jq -e '.format == "claude" and .llm_input_tokens == 1 and .cost_usd == 1.5' >/dev/null
  hyperfine -w 1 -r 3 --export-json "$work/$1.json" --prepare "rm -rf $LOOP_STORE/spool" \
    "jq -c 'select(.type==\"result\")' $f" \
    "$BIN/loop-step --no-store --prompt empty.txt -- cat $f" \
    "$BIN/loop-step --prompt empty.txt -- cat $f" >/dev/null 2>&1
  local jqt live spool
  jqt=$(jq -r '.results[0].min' "$work/$1.json"); live=$(jq -r '.results[1].min' "$work/$1.json"); spool=$(jq -r '.results[2].min' "$work/$1.json")
  local rjq rlive rspool
  rjq=$(peak_rss_mib jq -c 'select(.type=="result")' "$f")
  rlive=$(peak_rss_mib "$BIN/loop-step" --no-store --prompt empty.txt -- cat "$f")
  rm -rf "$LOOP_STORE/spool"
  rspool=$(peak_rss_mib "$BIN/loop-step" --prompt empty.txt -- cat "$f")
  echo "| $1, $mb MB | $(ms "$jqt") ms, $rjq MiB | $(ms "$live") ms ($(ratio "$live" "$jqt")), $rlive MiB | $(ms "$spool") ms ($(ratio "$spool" "$jqt")), $rspool MiB |"
}
{
  echo "## loop-step on tool-heavy and text-only streams"
  echo
  echo "Machine: $(machine_line). Best of 3 runs each (hyperfine min), jq measured in"
  echo "the same run; peak RSS from GNU time. The agent is \`cat\` of a generated"
  echo "Claude stream-json file (scripts/bench.d/agents.sh; not committed)."
  echo
  echo "| stream | jq -c 'select(.type==\"result\")' | loop-step --no-store (ratio to jq), RSS | loop-step, spooled (ratio), RSS |"
  echo "|---|---|---|---|"
  row "tool-heavy ($calls tool calls of 4 KB)" tools.ndjson
  row "text-only ($texts messages of 4 KB)" text.ndjson
  echo
  echo "Targets: peak RSS under 64 MiB and time at most jq's. The parser keeps"
  echo "copies of 200-character summaries of the first 1000 tool calls only"
  echo "(\`--max-tool-calls\`), so memory does not grow with the stream."
} > "$BENCH_ROOT/docs/bench/agents.md"
cat "$BENCH_ROOT/docs/bench/agents.md"
