# Codex exec --json: input without cached reads and cache writes, summed
# over threads; tool calls are the distinct item ids of tool items;
# the final message is the last completed agent_message. The error kind
# is that of the last HTTP status an error or turn.failed message names
# ("unexpected status 401 Unauthorized", "last status: 429 …"); a failed
# turn without one is an API error.
# A turn.completed holds its thread's running total: the last of each
# thread counts.
def turns: reduce .[] as $e ({t: "", by: {}, order: []};
  if $e.type == "thread.started" then .t = ($e.thread_id // "")
  elif $e.type == "turn.completed" and $e.usage != null then
    (if .by[.t] == null then .order += [.t] else . end) | .by[.t] = $e.usage
  else . end) | [.by[.order[]]];
def usage(f): [turns[] | f] | if length == 0 then null else add end;
def kind(s): if s == 401 then "authentication" elif s == 403 then "permission"
  elif s == 429 then "rate_limit" elif s == 400 or s == 404 or s == 413 then "invalid_request"
  elif s >= 500 then "overloaded" else "api_error" end;
([.[] | select(.type == "error" or .type == "turn.failed") | (.message // .error.message // "")
  | capture("status:? (?<c>[0-9]{3})") | .c | tonumber] | last) as $status
| {format: "codex",
 input: usage(.input_tokens - (.cached_input_tokens // 0) - (.cache_write_input_tokens // 0)),
 output: usage(.output_tokens), cache_read: usage(.cached_input_tokens),
 cache_creation: usage(.cache_write_input_tokens) ,
 cost: null,
 tool_calls: ([.[] | select(.type | startswith("item.")) | .item | select(.type | IN("command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call")) | .id] | unique | length),
 final_message: ([.[] | select(.type == "item.completed" and .item.type == "agent_message") | .item.text] | last // ""),
 session_id: ([.[] | select(.type == "thread.started") | .thread_id] | first),
 error_kind: (if $status != null then kind($status) elif any(.[]; .type == "turn.failed") then "api_error" else null end)}
