# shellcheck shell=bash
# The iteration loop shared by `run` and `resume` (sourced by scripts/loop).
# Each turn asks `loop-drive next` for the action and runs act_<action>;
# a feature adds an action by defining act_<name> in a file of loop.d.

RUN=""                    # the run being driven
declare -A S=()           # its settings, from loop-drive
AGENT=() CALL=()          # the agent's argv; the flags every agent call gets (the step's, the reviewer's, the stuck report's)
declare -A A=()           # the current action's key=value fields
CHILD=""                  # the background child being waited for
SIGNALED="" SIGCODE=0     # the signal that ended the run, and the exit status it gives
FINISHING="" DECIDED=""   # the run is ending; A already holds the next action
HREQ="" HREP="" HKEY="" ASKING="" HOLDING="" # the pipes to the holder, its key (never exported); a request in flight; it takes the run (hold)
TMP="" REC=""             # the driver's temporary folder; what slurp read

# on_signal NAME CODE: INT, TERM, HUP and PIPE end the run as canceled.
# A running child (loop-step, loop-validate) gets the same signal (TERM
# for PIPE), the holder taking the run (hold) TERM; the run is marked
# once it has ended, or the holder's answer (next_action) has returned.
on_signal() {
  [ -n "$SIGNALED" ] || { SIGNALED=$1; SIGCODE=$2; }
  if [ -n "$CHILD" ]; then # CONT: the agent may have stopped it
    kill -"${1/PIPE/TERM}" "$CHILD" 2>/dev/null; kill -CONT "$CHILD" 2>/dev/null
  elif [ -n "$ASKING" ]; then # a record stuck in git is cut
    kill -USR2 "${HOLDER_PID:-}" 2>/dev/null; kill -CONT "${HOLDER_PID:-}" 2>/dev/null
  elif [ -n "$HOLDING" ]; then kill -TERM "${HOLDER_PID:-}" 2>/dev/null
  elif [ -z "$FINISHING" ]; then canceled
  fi
}

trap_signals() {
  trap 'on_signal HUP 129' HUP; trap 'on_signal INT 130' INT; trap 'on_signal QUIT 131' QUIT
  trap 'on_signal PIPE 141' PIPE; trap 'on_signal TERM 143' TERM
}

# canceled records the run canceled by the caught signal and exits 128+n.
# An agent step not yet in an iteration (interrupted, or finished before a
# validation that was) is kept as an attempt: its transcript, tokens, cost.
canceled() {
  FINISHING=1; trap '' HUP INT QUIT TERM # a Ctrl-C again (the group's) cuts no record below
  if [ -n "$RUN" ]; then
    keep_steps; "$LK_RECORD" status canceled --run "$RUN" --message "canceled by SIG$SIGNALED" >/dev/null ||
      log "could not mark run $RUN canceled"
    echo canceled 2>/dev/null
    log "run $RUN canceled by SIG$SIGNALED"
  fi
  exit "$SIGCODE"
}

# run_child OUT CMD...: runs CMD, its stdout to file OUT (never the driver's own), in the background and
# waits, so a signal to the driver is handled at once; CMD gets SIGINT and SIGQUIT as the driver did.
run_child() {
  local rc=0 out=$1; shift
  (trap - INT QUIT && exec "$@" >"$out") & # bash ignores them in a `&` job
  CHILD=$!
  while :; do
    wait "$CHILD" 2>/dev/null; rc=$? # bash's "Killed" notice names its own code: checked says it
    # wait returns >128 when a trapped signal interrupted it; the child may still run
    if [ $rc -gt 128 ] && kill -0 "$CHILD" 2>/dev/null; then continue; fi
    break
  done
  CHILD=""
  return $rc
}

# checked NAME RC: after a child (never inside its redirection): a caught
# signal cancels the run now; a loopkit child that failed is an internal error; one
# killed by SIGPIPE means our stdout is gone, which ends the run like a
# SIGPIPE to the driver.
checked() {
  [ -z "$SIGNALED" ] || canceled
  case $2 in 0) return 0 ;; 141) SIGNALED=PIPE; SIGCODE=141; canceled ;; esac
  local how="failed"; [ "$2" -le 128 ] || [ "$2" -gt 192 ] || how="was killed by SIG$(kill -l "$2")" # the OOM killer's SIGKILL, say
  die 70 "$1 $how (exit $2) in run $RUN"
}

# hold ARGS...: starts `loop-drive ARGS` (new or resume and the
# driver's arguments), which takes the run's driver lock, a concurrency slot
# and the live lock and keeps them until this driver exits; reads the store,
# run id, settings and agent argv it prints as NUL-terminated KEY=VALUE
# records (or the help to print, or the status to exit with); then
# answers next_action over the same pipes.
hold() {
  local rec k="" v hpid rc DRIVE_PROTOCOL=4 # what the holder's first record must say (loop-drive's Protocol)
  coproc HOLDER { LOOPKIT_DRIVE_REQUESTS=$$ exec "$LK_DRIVE" "$@"; }
  HOLDING=1 HREP=${HOLDER[0]} HREQ=${HOLDER[1]} hpid=$HOLDER_PID
  LC_ALL=C IFS= read -r -d '' rec <&"$HREP" 2>/dev/null || [ -n "$rec$SIGNALED" ] || { wait "$hpid" 2>/dev/null; rc=$?; die 70 "$LK_DRIVE ended (exit $rc) before it held the run: its error is above$(v=$(ulimit -v); if [ "$v" != unlimited ]; then echo "; the virtual memory limit (ulimit -v $v KiB) may be too small for a Go program: raise it (ulimit -v unlimited)"; elif [ "$rc" = 2 ]; then echo "; an unknown flag or command there is a loop-drive of another loopkit version's: install the driver and the commands from one version together (make install, or make build in a checkout); a Go runtime's \"failed to create new OS thread\" there is the process limit (ulimit -u, or the container's pids.max): end stray processes, or raise it"; fi)"; } # no Go runtime under a small ulimit -v; an older loop-drive stops at the flags before any record
  [ "$rec" = "protocol=$DRIVE_PROTOCOL" ] || [ -n "$SIGNALED" ] || die 70 "$LK_DRIVE does not speak this driver's protocol $DRIVE_PROTOCOL (it is another version's): install the driver and the commands from one version together (make install, or make build in a checkout)"
  while LC_ALL=C IFS= read -r -d '' rec <&"$HREP" 2>/dev/null; do # by bytes (fields); 2>/dev/null: LOCALE_QUIET
    k=${rec%%=*} v=${rec#*=}
    case $k in
      store) export LOOP_STORE=$v ;;
      storeid) export LOOPKIT_STORE_ID=$v ;; dirid) export LOOPKIT_DIR_ID=$v ;; # the children refuse another folder there
      unset) export LOOPKIT_UNSET=$v ;; # set here for loopkit's commands, not for the agent's
      config) export LOOP_CONFIG=$v ;; # run --config FILE: the children read it too
      runconfig) export LOOPKIT_RUN_CONFIG=$v; trap 'rm -rf "$LOOPKIT_RUN_CONFIG" ${TMP:+"$TMP"}' EXIT ;; # the config as the run started; gone with a driver canceled before it drives
      tmp) TMP=$v; trap 'rm -rf "$TMP" ${LOOPKIT_RUN_CONFIG:+"$LOOPKIT_RUN_CONFIG"}' EXIT ;; # in loopkit's runtime directory: the agent may write $TMPDIR
      out) printf '%s' "$v" 2>/dev/null ;;
      run) RUN=$v; echo "$RUN" 2>/dev/null ;; # a closed stdout (>&-) is no error
      set.*) S[${k#set.}]=$v ;;
      agent) AGENT+=("$v") ;; key) HKEY=$v ;; # the key starts every request and answer
      status) echo "$v" 2>/dev/null; log "run ${RUN:-} already $v" ;;
      warning) log "warning: $v" ;;
      note) log "$v" ;;
      exit) trap - EXIT; exit "$v" ;; # the holder removed tmp and runconfig: rm would fork beside its threads (pids.max: 15 s, exit 254)
      signal) [ -n "$SIGNALED" ] || { SIGNALED=$v; SIGCODE=$((128 + $(kill -l "$v"))); }; break ;; # caught as it made the run
      ready) break ;;
    esac
  done
  HOLDING=""; [ -z "$SIGNALED" ] || canceled # the run, if the holder made it, by its id
  [ "$k" = ready ] || die 70 "loop-drive ended without holding the run"
  CALL=(--retries "${S[retries]}" --retry-backoff "${S[retry_backoff]}" --rate-limit-policy "${S[rate_limit_policy]}")
  # children stop if this driver dies untrapped, and leave config warnings to it
  export LOOPKIT_DRIVER_PID=$$
}

# next_action [MODE ARGS...]: fills A from `loop-drive next`, or from
# MODE (record, attempt: REC is their input), which decides the next
# action after its own work; DECIDED tells drive not to ask again. The
# holder answers (no Go process per call): its key, a NUL, "LENGTH STATUS", then what it printed, read whole
# (read -N; up to a NUL, bash reads byte by byte); one without the key another process (the agent: /proc/PID/fd)
# wrote. A signal waits for the answer (ASKING), or a record is cut short. None, or one cut short: the holder died.
next_action() {
  local key="" len="" rest="" rc="" in=""; A=()
  [ $# -eq 0 ] || in=$REC; ASKING=1
  { printf '%s\0' "$HKEY" "${LOOPKIT_ERROR_FILE:-}" "${@:-next}" --run "$RUN" "" "$in" >&"$HREQ" && { LC_ALL=C IFS= read -r -d '' key && IFS=' ' read -r len rc &&
    { [ "$key" != "$HKEY" ] || [ "$len" = 0 ] || { [[ -n $len && $len != *[!0-9]* ]] && LC_ALL=C IFS= read -r -N "$len" rest; }; } || rc=""; } <&"$HREP"; } 2>/dev/null; ASKING="" # no key: no length to trust
  [ -n "$rc" ] || [[ -n $key && $key != "$HKEY" ]] || { [ "$SIGNALED" != PIPE ] || SIGNALED=""; die 70 "the holder of run $RUN (loop-drive) is gone; '$LOOP_PROG resume $RUN' goes on"; }
  [ "$key" = "$HKEY" ] || die 70 "an answer on the pipe from the holder of run $RUN came without its key: another process wrote to the driver's pipes (the agent, through /proc/PID/fd)"
  checked loop-drive "$rc"
  LC_ALL=C fields 2>/dev/null
  [ -n "${A[action]:-}" ] || die 70 "could not decide the next action of run $RUN"
  [ -z "${A[warning]:-}" ] || log "warning: ${A[warning]}"
  [ $# -eq 0 ] || DECIDED=1
}

# fields: A from rest's KEY=VALUE lines (a here-string costs a pipe and a read per byte). Run as LC_ALL=C fields, as records are read: by bytes, for a GBK, Big5 or Shift_JIS locale's lead byte took the NUL or newline after it (two records were one).
# LOCALE_QUIET: 2>/dev/null after each LC_ALL=C, as bash warns setting back an LC_ALL the system lacks (20 lines an iteration).
fields() { local line; while [ -n "$rest" ]; do line=${rest%%$'\n'*} rest=${rest:${#line}+1}; [[ $line != *=* ]] || A[${line%%=*}]=${line#*=}; done; }

# drive: runs actions until one stops the driver.
drive() {
  [ -n "$TMP" ] || TMP=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-driver.XXXXXX") || die 70 "no temporary directory"
  trap 'rm -rf "$TMP" ${LOOPKIT_RUN_CONFIG:+"$LOOPKIT_RUN_CONFIG"}' EXIT
  export LOOPKIT_ERROR_FILE=$TMP/error # a failed loopkit command's error line, for die
  while :; do
    if [ -n "$DECIDED" ]; then DECIDED=""; else next_action; fi
    if declare -F "act_${A[action]}" >/dev/null; then
      "act_${A[action]}"
    else
      die 70 "loop-drive asked for an unknown action: ${A[action]}"
    fi
  done
}

# slurp FILE...: the files' contents one after the other in REC, read by bash itself (cat,
# rm, $(<) cost a process each); a folder emptied under it (at logout) ends the driver.
slurp() {
  local f part gone="the driver's folder $TMP is gone (its runtime directory emptied, as at logout without 'loginctl enable-linger'?)"; REC=""
  for f; do part=""; { LC_ALL=C IFS= read -r -d '' part; } 2>/dev/null <"$f" || [ -e "$f" ] || die 70 "$gone; '$LOOP_PROG resume $RUN' goes on"; REC+=$part; done
}

# act_iterate: agent step, validation and record of iteration A[iteration].
act_iterate() {
  local i=${A[iteration]} max=${S[max_iterations]}
  [ "${A[rule]}" != watchdog-rewrite ] || log "${A[reason]}"
  log "iteration $i/$max: agent"
  : >"$TMP/step.json"; : >"$TMP/review.json" # emptied, not removed: no rm process
  run_child "$TMP/step.json" "$LK_STEP" --run "$RUN" --dir "${S[dir]}" --template "${A[prompt]}" ${S[plan]:+--plan "${S[plan]}"} --append-progress --excerpt failures --agent-summary \
    --phase implementation --timeout "${A[step_timeout]:-${S[timeout]}}" ${A[deadline_ms]:+--deadline "${A[deadline_ms]}"} "${CALL[@]}" \
    --completion-mode "${S[completion_mode]}" ${A[base]:+--base "${A[base]}"} --exit-zero -- "${AGENT[@]}"
  checked loop-step $?
  # a rate-limited step, or one cut by --max-duration, is an attempt, not
  # an iteration: the next action waits, or ends the run
  slurp "$TMP/step.json"
  local keep=()
  [[ $REC != *'"rate_limited":true'* ]] || keep=(rate-limit "$TMP/step.json")
  [[ -z ${A[step_timeout]:-} || $REC != *'"timed_out":true'* || $REC == *'"idle_timeout":true'* ]] ||
    keep=(attempt --kind over_duration)
  if [ ${#keep[@]} -gt 0 ]; then
    "$LK_RECORD" "${keep[@]}" --run "$RUN" <"$TMP/step.json" >/dev/null
    checked loop-record $?
    : >"$TMP/step.json"
    return
  fi
  # a step that could not work (not logged in, no program) is an attempt:
  # no review, no validation; loop-drive keeps it and fails the run
  if [[ $REC == *'"cannot_work":true'* ]]; then
    next_action attempt
    : >"$TMP/step.json"
    return
  fi
  [ -z "${A[review]:-}" ] || review_step "$i/$max" # before the validation: the step's change alone
  log "iteration $i/$max: validate"
  run_child "$TMP/validate.json" "$LK_VALIDATE" --run "$RUN" --dir "${S[dir]}" --timeout "${S[validate_timeout]}" ${A[deadline_ms]:+--deadline "${A[deadline_ms]}"} \
    --exit-zero --no-files-changed --shell "${S[validate]}"
  checked loop-validate $?
  # one call records the iteration and decides the next action
  slurp "$TMP/step.json" ${A[review]:+"$TMP/review.json"} "$TMP/validate.json"
  next_action record --iteration "$i"
  : >"$TMP/step.json"; : >"$TMP/review.json" # in the iteration now
  # printed by the driver itself: a closed stdout (`| head`) is a SIGPIPE
  # here, while a Go child would end quietly
  printf '%s\n' "${A[summary]}" 2>/dev/null # a closed stdout is the SIGPIPE trap's
}

# act_wait: a rate limit holds; wait A[seconds] (less once the run is paused), then ask again.
act_wait() {
  log "${A[reason]}"
  run_child /dev/null "$LK_DRIVE" wait --run "$RUN" --seconds "${A[seconds]}"
  checked loop-drive $?
}

# act_stop: the run ends with A[status]; the driver exits with A[exit].
act_stop() {
  local status=${A[status]} reason=${A[reason]:-} hook
  FINISHING=1; trap '' HUP INT QUIT TERM # the end is recorded whole
  if [ "${A[rule]:-}" != not-running ]; then
    "$LK_RECORD" status "$status" --run "$RUN" ${reason:+--message "$reason"} --rule "${A[rule]:-}" >/dev/null ||
      log "could not mark run $RUN $status"
  fi
  [ "$status" != stuck ] || ask_hypotheses
  case $status in
    completed) "$LK_RECORD" snapshot success --run "$RUN" >/dev/null ;;
    stuck) "$LK_RECORD" snapshot stuck --run "$RUN" >/dev/null ;;
  esac
  for hook in "${ON_STOP[@]}"; do "$hook" "$status"; done
  echo "$status" 2>/dev/null
  log "run $RUN $status${reason:+: $reason}"
  [ -z "${S[worktree]}" ] || log "the work is in worktree ${S[dir]} (branch ${S[run_branch]})"
  [ "$status" != stuck ] || log "report: $LOOP_STORE/runs/$RUN/stuck.md"
  exit "${A[exit]}"
}

# ON_STOP are functions called with the final status, last thing before
# the driver exits (a merge, a copy); loop.d files append to it.
ON_STOP=()

# ask_hypotheses: with --stuck-agent, the agent reads stuck.md once and its
# answer is kept in the report's Hypotheses section.
ask_hypotheses() {
  [ -n "${A[ask_hypotheses]:-}" ] || return 0
  log "asking the agent for hypotheses on the stuck report"
  FINISHING=""; trap_signals # a Ctrl-C stops this agent call
  run_child "$TMP/stuck-step.json" "$LK_STEP" --run "$RUN" --dir "${S[dir]}" --prompt "$LOOP_STORE/runs/$RUN/stuck.md" \
    --phase stuck_report --timeout "${A[step_timeout]:-${S[timeout]}}" ${A[deadline_ms]:+--deadline "${A[deadline_ms]}"} --exit-zero "${CALL[@]}" -- "${AGENT[@]}"
  FINISHING=1; trap '' HUP INT QUIT TERM
  # a call like any other: its tokens and cost count in the run's totals
  "$LK_RECORD" attempt --run "$RUN" --kind stuck_report <"$TMP/stuck-step.json" >/dev/null ||
    log "the stuck agent's call was not recorded"
  [ -z "$SIGNALED" ] || exit "$SIGCODE"
  "$LK_RECORD" hypotheses --run "$RUN" <"$TMP/stuck-step.json" >/dev/null || log "hypotheses not recorded"
}
