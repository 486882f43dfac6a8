# opencode run --format json: every step_finish reports its own tokens and
# cost, so they add up (costs to the nano-dollar); tool calls are the distinct tool_use callIDs; the
# final message is the text of the last step that had any.
def steps(f): [.[] | select(.type == "step_finish") | .part | f | select(. != null)] | if length == 0 then null else add end;
{format: "opencode",
 input: steps(.tokens.input), output: steps(.tokens.output),
 cache_read: steps(.tokens.cache.read), cache_creation: steps(.tokens.cache.write),
 cost: (steps(.cost) | if . == null then null else (. * 1e9 | round) / 1e9 end), # summed to the nano-dollar, as loopkit sums costs
 tool_calls: ([.[] | select(.type == "tool_use") | .part.callID] | unique | length),
 final_message: (reduce .[] as $e ({cur: "", last: ""};
   if $e.type == "step_start" then .cur = ""
   elif $e.type == "text" then .cur = (if .cur == "" then $e.part.text else .cur + "\n" + $e.part.text end)
   elif $e.type == "step_finish" then (if .cur != "" then .last = .cur else . end) | .cur = ""
   else . end) | .last),
 session_id: ([.[] | .sessionID | select(. != null)] | first),
 error_kind: null}
