# Claude Code stream-json or json. The result line holds the session's
# totals (its modelUsage summed when every figure of its usage is 0, as
# in a run cut at --max-budget-usd); a field it lacks comes from the sum
# of the assistant messages' usage, each message id counted once. Tool
# calls are the distinct tool_use ids; the final message is the result's text, else the last
# assistant text (a result can come back empty); the session is the last
# session_id any line names.
(map(select(.type == "result")) | last) as $r
| ([$r.modelUsage // {} | .[]] | if length == 0 then null else
    {input_tokens: (map(.inputTokens // 0) | add), output_tokens: (map(.outputTokens // 0) | add),
     cache_read_input_tokens: (map(.cacheReadInputTokens // 0) | add),
     cache_creation_input_tokens: (map(.cacheCreationInputTokens // 0) | add)} end) as $mu
| def counts(u): u != null and ([u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens] | any(. != null and . > 0));
  (if counts($r.usage) or (counts($mu) | not) then $r.usage else $mu end) as $u
| ([.[] | select(.type == "assistant" and .message.usage != null)] | unique_by(.message.id) | map(.message.usage)) as $msgs
| def total(f): ($u // {} | f) // ($msgs | map(f) | if length == 0 or all(. == null) then null else add end);
{format: "claude",
 input: total(.input_tokens), output: total(.output_tokens),
 cache_read: total(.cache_read_input_tokens), cache_creation: total(.cache_creation_input_tokens),
 cost: ($r.total_cost_usd // $r.cost_usd),
 tool_calls: ([.[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use") | .id] | unique | length),
 final_message: (if ($r.result // "") != "" then $r.result
   else ([.[] | select(.type == "assistant" and (.parent_tool_use_id == null)) | .message.content[]? | select(.type == "text" and .text != "") | .text] | last // "") end),
 session_id: ([.[] | .session_id | select(. != null)] | last),
 error_kind: null}
