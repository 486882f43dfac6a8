#!/bin/sh
# A fake Codex CLI (exec --json) whose first call fails on HTTP 429, as the
# real CLI reports it: an error event, then turn.failed, exit 1. Later calls
# fix calc.go. Each call is counted in $AGENT_LOG.
cat > /dev/null
echo "call" >> "$AGENT_LOG"
echo '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}'
echo '{"type":"turn.started"}'
if [ "$(grep -c '^call' "$AGENT_LOG")" -le 1 ]; then
  echo '{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests"}'
  echo '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}'
  exit 1
fi
sed -i.bak 's/BUG(/FIXED(/' calc.go; rm -f calc.go.bak
echo '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Fixed calc.go."}}'
echo '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":20}}'
