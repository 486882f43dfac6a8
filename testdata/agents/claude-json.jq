# Claude Code stream-json: the result line holds the session's totals;
# tool calls are the distinct tool_use ids of main-agent assistant messages.
(map(select(.type == "result")) | last) as $r
| {format: "claude",
   input: $r.usage.input_tokens, output: $r.usage.output_tokens,
   cache_read: $r.usage.cache_read_input_tokens, cache_creation: $r.usage.cache_creation_input_tokens,
   cost: ($r.total_cost_usd // $r.cost_usd),
   tool_calls: ([.[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use") | .id] | unique | length),
   final_message: $r.result, session_id: $r.session_id, error_kind: null}
