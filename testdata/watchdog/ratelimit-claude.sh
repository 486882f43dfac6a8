#!/bin/sh
# A fake Claude Code (stream-json) whose first call hits the five-hour limit,
# reset 3 s away, as the real CLI reports it: a rate_limit_event with status
# "rejected" and resetsAt in seconds, an assistant message with
# "error":"rate_limit", a result with is_error and api_error_status 429.
# Later calls fix calc.go. Each call is counted in $AGENT_LOG; $RESET_AT
# gives another reset time (seconds, as the CLI writes it), $RESET_IN
# another distance (default 3 s).
cat > /dev/null
echo "call $(date +%s)" >> "$AGENT_LOG"
n=$(grep -c '^call ' "$AGENT_LOG")
sid=6f1d2c1e-4b7a-4c55-9e7e-0a1b2c3d4e5f
echo '{"type":"system","subtype":"init","cwd":"'"$PWD"'","session_id":"'$sid'","tools":["Bash","Edit"],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"none"}'
if [ "$n" -le "${LIMITED_CALLS:-1}" ]; then
  reset=${RESET_AT:-$(( $(date +%s) + ${RESET_IN:-3} ))}
  said="You've hit your session limit · resets 9:50pm (UTC)"
  [ -z "$RESET_AT" ] || said="You've hit your session limit" # no other time
  echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'"$reset"',"rateLimitType":"five_hour","overageStatus":"rejected","overageDisabledReason":"org_level_disabled","isUsingOverage":false},"uuid":"dcce88a7-42ea-4e85-aacc-99dcd8be3ce1","session_id":"'$sid'"}'
  echo '{"type":"assistant","error":"rate_limit","message":{"id":"msg_01","type":"message","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"'"$said"'"}]},"session_id":"'$sid'"}'
  echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"duration_ms":412,"num_turns":1,"result":"'"$said"'","session_id":"'$sid'","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}'
  exit 1
fi
sed -i.bak 's/BUG(/FIXED(/' calc.go; rm -f calc.go.bak
echo '{"type":"result","subtype":"success","is_error":false,"duration_ms":900,"num_turns":2,"result":"Fixed calc.go.","session_id":"'$sid'","total_cost_usd":0.01,"usage":{"input_tokens":100,"output_tokens":20}}'
