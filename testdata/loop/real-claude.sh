#!/usr/bin/env bash
# The driver against the real Claude Code CLI, without credentials: the run
# must end failed after one attempt (kept as an attempt that could not work,
# not an iteration: no validation ran), with the CLI's own "Not logged in" in
# `loop-view logs -v`, `describe` and the driver's exit message. Run by
# .ci/run (beside make test, not in it) with CLAUDE set to the CLI to use.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "real-claude: $*" >&2; exit 1; }
[ -x "${CLAUDE:-}" ] || fail "set CLAUDE to the claude binary"
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-real-claude.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws" "$work/home" "$work/bin"
ln -s "$CLAUDE" "$work/bin/claude"
cd "$work/ws" || exit 1
git init -q && echo "Make the tests pass." > TASK.md
git add -A && git -c user.email=ci@loopkit.invalid -c user.name=ci commit -qm init
# no credentials: a fresh HOME, no API key, no config of the user's
env -u ANTHROPIC_API_KEY -u CLAUDE_CODE_OAUTH_TOKEN HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
  PATH="$work/bin:$root/bin:$PATH" LOOP_BIN="$root/bin" \
  "$root/scripts/loop" run --prompt TASK.md --validate false --max-iterations 3 --timeout 2m \
  -- claude -p --output-format stream-json --verbose > out 2> err
rc=$?
run=$(head -n 1 out)
[ "$rc" = 3 ] || fail "exit $rc, want 3 (failed): $(cat err)"
grep -q '^failed$' out || fail "no 'failed' on stdout: $(cat out)"
grep -q 'failed: .*Not logged in' err || fail "exit message without 'Not logged in': $(cat err)"
iters=$("$root/bin/loop-view" logs "$run" --json --jq .iteration -r | wc -l)
[ "$iters" -eq 0 ] || fail "$iters iterations, want 0"
atts=$(wc -l <.loop/runs/"$run"/attempts.jsonl)
[ "$atts" -eq 1 ] || fail "$atts attempts, want 1"
# whole outputs first: grep -q stops at its match, and under pipefail the
# writer it leaves dies of SIGPIPE
logs=$("$root/bin/loop-view" logs -v "$run")
grep -q '^attempt 1: cannot_work .*agent: exit 1 — Not logged in.*(authentication)' <<<"$logs" ||
  fail "logs -v: $logs"
desc=$("$root/bin/loop-view" describe "$run")
grep -q 'last error: *agent cannot work: Not logged in' <<<"$desc" ||
  fail "describe: $desc"
echo "real-claude: $("$CLAUDE" --version 2>/dev/null | head -n 1): failed after 1 attempt, Not logged in shown"
