# shellcheck shell=bash
# Helpers shared by the driver's subcommands (sourced by scripts/loop).

log() { printf 'loop: %s\n' "$*" >&2; }
# die CODE MESSAGE: 70 is an internal error of loopkit, 1 a failure; while driving, 70
# marks the run failed with MESSAGE and the failed command's error line (never left running),
# and says the fix its second line gives (a disk that refused a write: cli.DiskHint).
die() { local code=$1 err="" fix=""; shift; log "$*"
  if [ "$code" = 70 ] && [ -n "${RUN:-}" ] && [ -z "${FINISHING:-}" ]; then FINISHING=1; trap '' HUP INT QUIT TERM
    [ ! -s "${LOOPKIT_ERROR_FILE:-}" ] || { LC_ALL=C IFS= read -r err; LC_ALL=C IFS= read -r fix; } <"$LOOPKIT_ERROR_FILE" 2>/dev/null; [ "$PWD" -ef . ] || cd / || : # LOCALE_QUIET (drive.sh); a workspace removed (or made again) under the driver: record from a folder that is there
    if [ -d "${LOOP_STORE:-/}/runs/$RUN" ]; then keep_steps; "$LK_RECORD" status failed --run "$RUN" --message "$*${err:+: $err}" >/dev/null || log "could not mark run $RUN failed: it shows as interrupted"; elif [ -d "${LOOP_STORE:-/}" ]; then log "run $RUN is not marked failed: it is gone from its store $LOOP_STORE (removed during the run)"; else log "run $RUN is not marked failed: its store $LOOP_STORE is gone (moved or removed during the run)"; fi
    [ -z "$fix" ] || printf "hint: %s, then '%s resume %s' goes on\n" "$fix" "$LOOP_PROG" "$RUN" >&2
  fi; exit "$code"; }
# keep_steps: a step and a review in no iteration yet are kept as attempts, with their own error, tokens and cost.
keep_steps() { local k; [ -n "${TMP:-}" ] || return 0; for k in interrupted:step reviewer:review; do [ ! -s "$TMP/${k#*:}.json" ] ||
  "$LK_RECORD" attempt --run "$RUN" --kind "${k%:*}" <"$TMP/${k#*:}.json" >/dev/null || log "the ${k#*:} of run $RUN was not recorded"; done; }

usage_error() { die 2 "$* (see $LOOP_PROG --help)"; } # usage_error MESSAGE: one line pointing at the help, exit 2

# find_tools sets LK_<NAME> (spelled out: ${name^^} follows the locale, Turkish LK_VALİDATE) for each loop-*
# command the driver runs: from LOOP_BIN when set, else next to the driver (../bin), else PATH.
find_tools() {
  local name var path missing=()
  for name in validate:VALIDATE record:RECORD step:STEP view:VIEW drive:DRIVE; do
    var=${name#*:} name=${name%:*}
    path=${LOOP_BIN:-$LOOP_HOME/bin}/loop-$name
    if [ ! -x "$path" ] && [ -z "${LOOP_BIN:-}" ]; then abs_path "loop-$name" path || path=""; fi
    if [ -x "$path" ]; then printf -v "LK_$var" '%s' "$path"; else missing+=("loop-$name"); fi
  done
  [ ${#missing[@]} -eq 0 ] ||
    die 70 "missing loopkit commands: ${missing[*]} (run 'make build' in $LOOP_HOME, or put them on PATH)"
}
