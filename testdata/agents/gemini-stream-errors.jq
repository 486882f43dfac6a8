# Gemini CLI --output-format stream-json: the result's stats hold the
# session's totals (input counts cached reads, so `input` or input_tokens
# minus cached); tool calls are the distinct tool_use ids; the final
# message is the assistant text after the last tool event (deltas joined).
# The error kind is that of the HTTP status in the result's error message
# (the API's error body, which Gemini CLI quotes), else of its words.
(map(select(.type == "result")) | last) as $r
| ($r.stats // null) as $s
| def kind(s): if s == 401 then "authentication" elif s == 403 then "permission"
    elif s == 429 then "rate_limit" elif s == 400 or s == 404 or s == 413 then "invalid_request"
    elif s >= 500 then "overloaded" else "api_error" end;
  def errkind(m): if m == null then null
    elif (m | test("\"code\":[0-9]{3}")) then kind(m | capture("\"code\":(?<c>[0-9]{3})").c | tonumber)
    elif (m | test("quota|RESOURCE_EXHAUSTED"; "i")) then "rate_limit"
    elif (m | test("overloaded|UNAVAILABLE"; "i")) then "overloaded" else "api_error" end;
{format: "gemini",
 input: (if $s == null then null else ($s.input // (if $s.input_tokens == null then null else $s.input_tokens - ($s.cached // 0) end)) end),
 output: ($s.output_tokens // null), cache_read: ($s.cached // null), cache_creation: null, cost: null,
 tool_calls: ([.[] | select(.type == "tool_use") | .tool_id] | unique | length),
 final_message: (reduce .[] as $e ({text: "", after: false};
   if $e.type == "message" and $e.role == "assistant" then
     (if .after or ($e.delta | not) then .text = "" | .after = false else . end) | .text += $e.content
   elif $e.type == "tool_use" or $e.type == "tool_result" then .after = true
   else . end) | .text | sub("^\\s+"; "") | sub("\\s+$"; "")),
 session_id: ([.[] | .session_id | select(. != null)] | first),
 error_kind: errkind($r.error.message)}
