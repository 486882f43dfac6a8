# Claude Code stream-json or json. The result line holds the session's
# totals; a field it lacks comes from the sum of the assistant messages'
# usage, each message id counted once. Tool calls are the distinct
# tool_use ids; the final message is the result's text, else the last
# assistant text (a result can come back empty); the session is the last
# session_id any line names. The error kind is that of the HTTP status
# the CLI reports: the result's api_error_status when it is an error,
# else the last api_retry's error_status (a stream stopped while the CLI
# was retrying).
(map(select(.type == "result")) | last) as $r
| ([.[] | select(.type == "assistant" and .message.usage != null)] | unique_by(.message.id) | map(.message.usage)) as $msgs
| def kind(s): if s == null then null elif s == 401 then "authentication" elif s == 403 then "permission"
    elif s == 429 then "rate_limit" elif s == 400 or s == 404 or s == 413 then "invalid_request"
    elif s >= 500 then "overloaded" else "api_error" end;
  def total(f): ($r.usage // {} | f) // ($msgs | map(f) | if length == 0 or all(. == null) then null else add end);
{format: "claude",
 input: total(.input_tokens), output: total(.output_tokens),
 cache_read: total(.cache_read_input_tokens), cache_creation: total(.cache_creation_input_tokens),
 cost: ($r.total_cost_usd // $r.cost_usd),
 tool_calls: ([.[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use") | .id] | unique | length),
 final_message: (if ($r.result // "") != "" then $r.result
   else ([.[] | select(.type == "assistant" and (.parent_tool_use_id == null)) | .message.content[]? | select(.type == "text" and .text != "") | .text] | last // "") end),
 session_id: ([.[] | .session_id | select(. != null)] | last),
 error_kind: (if $r == null then kind([.[] | select(.subtype == "api_retry") | .error_status] | last)
   elif $r.is_error then kind($r.api_error_status) else null end)}
