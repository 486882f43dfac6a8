#!/bin/sh
# A Claude-style agent that prints its result line and then never exits
# (a child holds on), as Claude Code sometimes does.
printf '%s\n' '{"type":"system","subtype":"init","session_id":"hang-1","model":"claude-opus-4-7"}'
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"done\n<promise>COMPLETE</promise>","session_id":"hang-1","total_cost_usd":0.01,"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}'
sleep 100000 &
wait
