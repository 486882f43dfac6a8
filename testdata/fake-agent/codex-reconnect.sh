#!/bin/sh
# Codex exec --json without network: a thread starts, then the same retry
# notice every few seconds, forever (here every 0.1s).
printf '%s\n' '{"type":"thread.started","thread_id":"019a-offline"}'
printf '%s\n' '{"type":"turn.started"}'
while :; do
	printf '%s\n' '{"type":"error","message":"Reconnecting... waiting for network (stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses))"}'
	sleep 0.1
done
