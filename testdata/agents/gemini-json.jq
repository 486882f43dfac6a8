# Gemini CLI --output-format json: an error object instead of a response;
# code 41 is its documented authentication failure.
.[0] | {format: "gemini", input: null, output: null, cache_read: null, cache_creation: null, cost: null,
 tool_calls: 0, final_message: (.response // ""), session_id: .session_id,
 error_kind: (if .error.code == 41 then "authentication" else null end)}
