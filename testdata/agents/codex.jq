# Codex exec --json: input without cached reads and cache writes, summed
# over threads; tool calls are the distinct item ids of tool items;
# the final message is the last completed agent_message.
# A turn.completed holds its thread's running total: the last of each
# thread counts.
def turns: reduce .[] as $e ({t: "", by: {}, order: []};
  if $e.type == "thread.started" then .t = ($e.thread_id // "")
  elif $e.type == "turn.completed" and $e.usage != null then
    (if .by[.t] == null then .order += [.t] else . end) | .by[.t] = $e.usage
  else . end) | [.by[.order[]]];
def usage(f): [turns[] | f] | if length == 0 then null else add end;
{format: "codex",
 input: usage(.input_tokens - (.cached_input_tokens // 0) - (.cache_write_input_tokens // 0)),
 output: usage(.output_tokens), cache_read: usage(.cached_input_tokens),
 cache_creation: usage(.cache_write_input_tokens) ,
 cost: null,
 tool_calls: ([.[] | select(.type | startswith("item.")) | .item | select(.type | IN("command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call")) | .id] | unique | length),
 final_message: ([.[] | select(.type == "item.completed" and .item.type == "agent_message") | .item.text] | last // ""),
 session_id: ([.[] | select(.type == "thread.started") | .thread_id] | first),
 error_kind: null}
