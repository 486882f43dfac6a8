#!/bin/sh
# A fake agent that edits a file differently every time but never fixes the
# bug: the validation fails the same way each iteration. It keeps each prompt
# it gets in $AGENT_LOG (outside the workspace).
n=$(( $(cat "$AGENT_LOG.count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$AGENT_LOG.count"
{ echo "=== prompt $n"; cat; } >> "$AGENT_LOG"
echo "attempt $n: tried something new" > notes.txt
echo "I rewrote notes.txt (attempt $n); the bug should be gone."
