#!/bin/sh
# A fake Claude Code (stream-json) whose API call fails, retried by the CLI
# itself as the real one does: one api_retry line per try with the HTTP
# status (RETRY_STATUS: 401, 429, 529), RETRY_TIMES tries (default 10) a
# second apart, for the first RETRY_CALLS calls (default 1). With
# RETRY_THEN=success the call then succeeds; otherwise it gives up with the
# CLI's error result and logs "gave up". Later calls fix calc.go. Each call
# is counted in $AGENT_LOG.
cat > /dev/null
echo "call $(date +%s)" >> "$AGENT_LOG"
n=$(grep -c '^call ' "$AGENT_LOG")
sid=7a2e3d4c-5b6a-4d7e-8f90-1a2b3c4d5e6f
echo '{"type":"system","subtype":"init","cwd":"'"$PWD"'","session_id":"'$sid'","tools":["Bash","Edit"],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY"}'
if [ "$n" -le "${RETRY_CALLS:-1}" ]; then
  case ${RETRY_STATUS:-401} in
    401) err=authentication_failed delay=600 words='Invalid API key · Fix external API key' ;;
    429) err=rate_limit delay=3000 words='API Error: Request rejected (429) · rate limited' ;;
    *) err=overloaded delay=900 words='API Error: Repeated 529 Overloaded errors' ;;
  esac
  i=1
  while [ "$i" -le "${RETRY_TIMES:-10}" ]; do
    echo '{"type":"system","subtype":"api_retry","attempt":'$i',"max_retries":10,"retry_delay_ms":'$delay',"error_status":'"${RETRY_STATUS:-401}"',"error":"'$err'","session_id":"'$sid'","uuid":"0f3c1d2e-'$i'"}'
    i=$((i + 1))
    sleep 1
  done
  if [ "${RETRY_THEN:-}" != success ]; then
    echo "gave up" >> "$AGENT_LOG"
    echo '{"type":"result","subtype":"success","is_error":true,"duration_ms":177000,"num_turns":1,"result":"'"$words"'","session_id":"'$sid'","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}'
    exit 1
  fi
fi
sed -i.bak 's/BUG(/FIXED(/' calc.go; rm -f calc.go.bak
echo '{"type":"result","subtype":"success","is_error":false,"duration_ms":900,"num_turns":2,"result":"Fixed calc.go.","session_id":"'$sid'","total_cost_usd":0.01,"usage":{"input_tokens":100,"output_tokens":20}}'
