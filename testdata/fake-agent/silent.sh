#!/bin/sh
# An agent that starts, says one line, then prints nothing for a long time.
echo 'thinking...'
sleep 100000 &
wait
