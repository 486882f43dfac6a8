#!/bin/sh
# An agent CLI retrying a failed API call on its own, as the real ones do:
# FAKE_FIRST (stdout), then FAKE_RETRY FAKE_TIMES times (default 20) every
# FAKE_EVERY seconds (0.1) on FAKE_STREAM (stdout, or stderr), then
# FAKE_LAST (stdout). The lines are what Claude Code, Codex, Gemini CLI and
# opencode print; the test gives them.
[ -z "$FAKE_FIRST" ] || printf '%s\n' "$FAKE_FIRST"
i=0
while [ "$i" -lt "${FAKE_TIMES:-20}" ]; do
	i=$((i + 1))
	line=$(printf '%s' "$FAKE_RETRY" | sed "s/{n}/$i/g")
	if [ "${FAKE_STREAM:-stdout}" = stderr ]; then
		printf '%s\n' "$line" >&2
	else
		printf '%s\n' "$line"
	fi
	sleep "${FAKE_EVERY:-0.1}"
done
[ -z "$FAKE_LAST" ] || printf '%s\n' "$FAKE_LAST"
