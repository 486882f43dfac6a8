#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-step parsing a 200 MB Claude stream-json transcript against
# `jq -c 'select(.type=="result")'` over the same file, with peak RSS.
# The transcript repeats the real sample (testdata/agent-samples, made
# compact as the CLI prints it) with fresh message and tool ids each time,
# its result line last. Writes docs/bench/step.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
(cd "$BENCH_ROOT" && go build -o "$BIN/" ./cmd/loop-step) # never a stale binary
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
size=$((200 * 1000 * 1000)); [ -n "${BENCH_QUICK:-}" ] && size=$((20 * 1000 * 1000))
cd "$work" && export LOOP_STORE="$work/.loop"

jq -c . "$BENCH_ROOT/testdata/agent-samples/claude-stream-json-bash.ndjson" > compact.ndjson
head -n -1 compact.ndjson > body.ndjson
awk -v target="$size" 'NR == FNR { body = body $0 "\n"; next }
  END { n = int(target / length(body))
        for (i = 1; i <= n; i++) { b = body; gsub(/msg_01/, "msg_" i "_", b); gsub(/toolu_01/, "toolu_" i "_", b); printf "%s", b } }' \
  body.ndjson /dev/null > t.ndjson
tail -n 1 compact.ndjson >> t.ndjson
mb=$(awk -v b="$(stat -c %s t.ndjson)" 'BEGIN { printf "%.0f", b / 1e6 }')
lines=$(wc -l < t.ndjson)

# The figures must be the sample's: the parse is checked, not just timed.
"$BIN/loop-step" --no-store --prompt /dev/null -- cat t.ndjson > rec.json
jq -e '.format == "claude" and .llm_input_tokens == 7 and .llm_output_tokens == 141 and .cost_usd == 0.110893' rec.json >/dev/null

: > empty.txt
hyperfine -w 1 -r 5 --export-json "$work/parse.json" \
  --prepare "rm -rf $LOOP_STORE/spool" \
  "jq -c 'select(.type==\"result\")' t.ndjson" \
  "$BIN/loop-step --no-store --prompt empty.txt -- cat t.ndjson" \
  "$BIN/loop-step --prompt empty.txt -- cat t.ndjson" >/dev/null 2>&1
jqt=$(hf_median "$work/parse.json" 0); live=$(hf_median "$work/parse.json" 1); spool=$(hf_median "$work/parse.json" 2)
rss_jq=$(peak_rss_mib jq -c 'select(.type=="result")' t.ndjson)
rss_live=$(peak_rss_mib "$BIN/loop-step" --no-store --prompt empty.txt -- cat t.ndjson)
rm -rf "$LOOP_STORE/spool"
rss_spool=$(peak_rss_mib "$BIN/loop-step" --prompt empty.txt -- cat t.ndjson)
# Worst case for memory: tool calls of 15 MB (under the 16 MiB line limit,
# decoded) and a 100 MB tool result (over it, skipped unbuffered).
xs() { head -c "$1" /dev/zero | tr '\0' x; }
for i in 1 2 3; do
  printf '{"type":"assistant","message":{"id":"m%d","content":[{"type":"tool_use","id":"t%d","name":"Write","input":{"content":"' "$i" "$i"; xs 15000000
  printf '"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null}\n'
  printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t%d","content":"' "$i"; xs 15000000; printf '"}]},"parent_tool_use_id":null}\n'
done > big.ndjson
{ printf '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t9","content":"'; xs 100000000; printf '"}]}}\n'; } >> big.ndjson
tail -n 1 compact.ndjson >> big.ndjson
big_mb=$(awk -v b="$(stat -c %s big.ndjson)" 'BEGIN { printf "%.0f", b / 1e6 }')
rss_big=$(peak_rss_mib "$BIN/loop-step" --no-store --prompt empty.txt -- cat big.ndjson)
"$BIN/loop-step" --no-store --prompt empty.txt -- cat big.ndjson 2>/dev/null | jq -e '(.tool_calls | length) == 3 and .llm_output_tokens == 141' >/dev/null
cd "$BENCH_ROOT" && inproc=$(go test -run XXX -bench 'BenchmarkClaudeStream$' -benchtime 10x ./internal/agent | awk '/MB\/s/ { print $(NF-5) " " $(NF-4) }')

{
  echo "## loop-step "
  echo
  echo "Machine: $(machine_line). hyperfine medians of 5 runs."
  echo "Transcript: $mb MB, $lines lines of Claude Code stream-json (the real sample"
  echo "repeated with fresh ids: hook lines of 10 KB, init, stream events, assistant"
  echo "messages, a tool result; the result line last). The agent is \`cat\`."
  echo
  echo "| command | median | time ratio loop-step / jq | peak RSS |"
  echo "|---|---|---|---|"
  echo "| \`jq -c 'select(.type==\"result\")' t.ndjson\` | $(ms "$jqt") ms | 1.00 | $rss_jq MiB |"
  echo "| \`loop-step --no-store -- cat t.ndjson\` (parsed live from the pipe) | $(ms "$live") ms | $(ratio "$live" "$jqt") | $rss_live MiB |"
  echo "| \`loop-step -- cat t.ndjson\` (spooled to disk, then parsed from the file) | $(ms "$spool") ms | $(ratio "$spool" "$jqt") | $rss_spool MiB |"
  echo
  echo "Target: peak RSS under 128 MiB and at least as fast as jq (ratio at most"
  echo "1.00). loop-step's times include running the agent, copying or spooling"
  echo "its 200 MB and writing the record; jq only reads. In process, the Claude"
  echo "parser alone runs at $inproc (\`go test -bench ClaudeStream ./internal/agent\`):"
  echo "stream_event lines (most of a stream) are recognised by their prefix and"
  echo "skipped without decoding; assistant, user and system lines are read by"
  echo "delimiting their fields (strings skipped at memchr speed), decoding only"
  echo "the type, ids and usage, and summarising tool inputs and results from"
  echo "their bytes only for the calls kept (\`--max-tool-calls\`); the rarer kinds"
  echo "(result, rate-limit and Cursor tool lines) decode into small structs;"
  echo "lines over 16 MiB are skipped with a warning without being buffered."
  echo
  echo "Worst case for memory: a $big_mb MB transcript of six 15 MB lines (Write"
  echo "calls and their results, decoded) and one 100 MB line (skipped): peak RSS"
  echo "$rss_big MiB. Long strings are summarized from the line's bytes in place"
  echo "(only their first 3,200 bytes are unescaped), so the line buffer is the"
  echo "only copy of a long value."
} > "$BENCH_ROOT/docs/bench/step.md"
cat "$BENCH_ROOT/docs/bench/step.md"
