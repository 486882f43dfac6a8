#!/usr/bin/env bash
# A fake coding agent for loop-step's tests. It behaves as the FAKE_*
# variables say, so one script covers prompts, retries, timeouts and output:
#   FAKE_LOG=FILE         append "attempt N", each argument and the stdin it got
#   FAKE_FAIL_TIMES=N     exit 3 on the first N attempts (counted in FAKE_LOG)
#   FAKE_SLEEP=SECS       sleep that long in a child process (timeouts)
#   FAKE_TRANSCRIPT=FILE  print FILE on stdout (a recorded agent transcript)
#   FAKE_SAY=TEXT         print TEXT on stdout
set -u
log=${FAKE_LOG:-/dev/null}
attempt=1
if [ -f "$log" ]; then
	attempt=$(( $(grep -c '^attempt ' "$log") + 1 ))
fi
{
	echo "attempt $attempt"
	for a in "$@"; do printf 'arg: %s\n' "$a"; done
	printf 'stdin: '
	cat
	echo
	# {prompt_file}: show that the file exists and what it holds
	for a in "$@"; do
		if [ -f "$a" ]; then printf 'file %s: ' "$a"; cat "$a"; echo; fi
	done
} >> "$log"
echo "fake agent attempt $attempt" >&2
if [ -n "${FAKE_SLEEP:-}" ]; then
	sleep "$FAKE_SLEEP" &
	wait
fi
if [ -n "${FAKE_TRANSCRIPT:-}" ]; then
	cat "$FAKE_TRANSCRIPT"
fi
if [ -n "${FAKE_SAY:-}" ]; then
	printf '%s\n' "$FAKE_SAY"
fi
if [ "$attempt" -le "${FAKE_FAIL_TIMES:-0}" ]; then
	echo "fake agent: failing on purpose" >&2
	exit 3
fi
exit 0
