# shellcheck shell=bash
# The iteration loop shared by `run` and `resume` (sourced by scripts/loop).

CHILD=""
CANCELED=""

# on_signal forwards Ctrl-C / cancel to the running child (loop-step and
# loop-validate pass it on to their process groups) and marks the run.
on_signal() {
  CANCELED=$1
  [ -n "$CHILD" ] && kill "-$1" "$CHILD" 2>/dev/null
}

# run_child CMD...: runs CMD in the background and waits, so a signal to
# the driver is handled at once instead of after the child ends.
run_child() {
  "$@" &
  CHILD=$!
  local rc=0
  while :; do
    wait "$CHILD"; rc=$?
    # wait returns >128 when a trapped signal interrupted it; the child may still run
    if [ $rc -gt 128 ] && kill -0 "$CHILD" 2>/dev/null; then continue; fi
    break
  done
  CHILD=""
  return $rc
}

finish() {
  local run=$1 status=$2 message=$3 code=$4
  "$LK_RECORD" --run "$run" --status "$status" ${message:+--message "$message"} >/dev/null ||
    log "could not mark run $run $status"
  [ "$status" = completed ] && "$LK_RECORD" --run "$run" --snapshot success >/dev/null
  echo "$status"
  log "run $run $status${message:+: $message}"
  exit "$code"
}

# drive RUN FIRST: iterations FIRST..max of RUN, with settings from run.json.
drive() {
  local run=$1 i=$2
  # every setting in one read: key=base64(value) lines, decoded here
  local -A set=()
  local kv
  while IFS= read -r kv; do
    set[${kv%%=*}]=$(printf '%s' "${kv#*=}" | base64 -d)
  done < <("$LK_VIEW" describe "$run" --json --jq '.settings | to_entries[] | "\(.key)=\(.value | @base64)"' -r)
  local prompt=${set[prompt]:-} validate=${set[validate]:-} dir=${set[dir]:-} max=${set[max_iterations]:-10}
  local timeout=${set[timeout]:-30m} vtimeout=${set[validate_timeout]:-10m} maxcost=${set[max_cost]:-}
  local require=${set[require_completion]:-} mode=${set[completion_mode]:-trailing} retries=${set[retries]:-0}
  local backoff=${set[retry_backoff]:-5s} stuck_agent=${set[stuck_agent]:-}
  if [ -z "$prompt" ] || [ -z "$validate" ] || [ -z "$dir" ]; then
    die "run $run has no driver settings (was it created by scripts/loop run?)"
  fi
  local -a agent
  eval "agent=(${set[agent]:-})" # written by this driver with printf %q
  [ ${#agent[@]} -gt 0 ] || die "run $run has no agent command in its settings"

  trap 'on_signal INT' INT
  trap 'on_signal TERM' TERM
  exec {LIVE_FD}>>"$LOOP_STORE/runs/$run/live.lock"
  flock -s "$LIVE_FD"
  "$LK_RECORD" --run "$run" --pid "$$" --pgid "$(ps -o pgid= $$ | tr -d ' ')" >/dev/null

  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-driver.XXXXXX")
  # shellcheck disable=SC2064 # expand now: tmp is local
  trap "rm -rf '$tmp'" EXIT

  while [ "$i" -le "$max" ]; do
    log "iteration $i/$max: agent"
    run_child "$LK_STEP" --run "$run" --dir "$dir" --template "$prompt" --append-progress --excerpt failures --agent-summary \
      --phase implementation --timeout "$timeout" --retries "$retries" --retry-backoff "$backoff" \
      --completion-mode "$mode" --exit-zero -- "${agent[@]}" >"$tmp/step.json"
    [ -n "$CANCELED" ] && finish "$run" canceled "canceled by SIG$CANCELED" 130
    log "iteration $i/$max: validate"
    run_child "$LK_VALIDATE" --run "$run" --dir "$dir" --timeout "$vtimeout" --exit-zero --shell "$validate" >"$tmp/validate.json"
    [ -n "$CANCELED" ] && finish "$run" canceled "canceled by SIG$CANCELED" 130
    if ! cat "$tmp/step.json" "$tmp/validate.json" | "$LK_RECORD" --run "$run" --iteration "$i" >/dev/null; then
      die "could not record iteration $i of run $run"
    fi
    "$LK_VIEW" logs "$run" --last 1

    local code completed cost outcome
    outcome=$(last_field "$run" '"\(.exit_code) \(.agent.completed // false)"')
    code=${outcome% *} completed=${outcome#* }
    if [ "$code" = 0 ] && { [ -z "$require" ] || [ "$completed" = true ]; }; then
      finish "$run" completed "" 0
    fi
    if [ "$code" = 0 ]; then
      log "validation passed but the agent gave no completion marker (--require-completion)"
    fi
    if [ -n "$maxcost" ]; then
      cost=$(field "$run" '.total_cost_usd // 0')
      if awk -v c="$cost" -v m="$maxcost" 'BEGIN { exit !(c > m) }'; then
        finish "$run" failed "cost cap reached: \$$cost spent, cap \$$maxcost" 1
      fi
    fi
    i=$((i + 1))
  done
  local why="no success after $max iterations"
  "$LK_RECORD" --run "$run" --status stuck --message "$why" >/dev/null || log "could not mark run $run stuck"
  if [ -n "$stuck_agent" ]; then
    log "asking the agent for hypotheses on the stuck report"
    run_child "$LK_STEP" --run "$run" --dir "$dir" --prompt "$LOOP_STORE/runs/$run/stuck.md" \
      --phase review --timeout "$timeout" --exit-zero -- "${agent[@]}" >"$tmp/stuck-step.json"
    "$LK_RECORD" --run "$run" --hypotheses <"$tmp/stuck-step.json" >/dev/null || log "hypotheses not recorded"
  fi
  "$LK_RECORD" --run "$run" --snapshot stuck >/dev/null
  echo stuck
  log "run $run stuck: $why (report: $LOOP_STORE/runs/$run/stuck.md)"
  exit 1
}
