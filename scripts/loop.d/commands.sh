# shellcheck shell=bash
# The driver's subcommands (sourced by scripts/loop).

need_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then usage_error "$1 needs a value"; fi
}

cmd_run() {
  local prompt="" validate="" max="" name="" timeout="" vtimeout="" maxcost="" require=""
  local mode="" conc="" worktree="" stuck_agent="" dir="" retries="" backoff=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --prompt) need_value "$@"; prompt=$2; shift 2 ;;
      --validate) need_value "$@"; validate=$2; shift 2 ;;
      --max-iterations) need_value "$@"; max=$2; shift 2 ;;
      --name) need_value "$@"; name=$2; shift 2 ;;
      --timeout) need_value "$@"; timeout=$2; shift 2 ;;
      --validate-timeout) need_value "$@"; vtimeout=$2; shift 2 ;;
      --retries) need_value "$@"; retries=$2; shift 2 ;;
      --retry-backoff) need_value "$@"; backoff=$2; shift 2 ;;
      --max-cost) need_value "$@"; maxcost=$2; shift 2 ;;
      --completion-mode) need_value "$@"; mode=$2; shift 2 ;;
      --max-concurrency) need_value "$@"; conc=$2; shift 2 ;;
      --dir) need_value "$@"; dir=$2; shift 2 ;;
      --require-completion) require=1; shift ;;
      --worktree) worktree=1; shift ;;
      --stuck-agent) stuck_agent=1; shift ;;
      --) shift; break ;;
      *) usage_error "unknown flag: $1" ;;
    esac
  done
  [ $# -gt 0 ] || usage_error "no agent command: give it after --"
  [ -n "$prompt" ] || usage_error "--prompt is required"
  [ -f "$prompt" ] || usage_error "--prompt $prompt: no such file"
  prompt=$(cd "$(dirname "$prompt")" && pwd)/$(basename "$prompt")
  validate=$(pick "$validate" LOOP_VALIDATE verify_cmds "")
  [ -n "$validate" ] || usage_error "--validate is required (or config verify_cmds)"
  max=$(pick "$max" LOOP_ITERATIONS iterations 10)
  timeout=$(seconds "$(pick "$timeout" LOOP_TIMEOUT claude_timeout_sec 30m)")
  vtimeout=$(seconds "$(pick "$vtimeout" LOOP_VALIDATE_TIMEOUT verify_timeout_sec 10m)")
  retries=$(pick "$retries" LOOP_RETRIES claude_retries 0)
  backoff=$(seconds "$(pick "$backoff" LOOP_RETRY_BACKOFF claude_retry_backoff_sec 5s)")
  maxcost=$(pick "$maxcost" LOOP_MAX_COST max_cost "")
  mode=$(pick "$mode" LOOP_COMPLETION_MODE completion_mode trailing)
  conc=$(pick "$conc" LOOP_MAX_CONCURRENCY max_concurrency 3)
  case "$max" in ''|*[!0-9]*|0) usage_error "--max-iterations must be a positive whole number, got '$max'" ;; esac
  case "$conc" in ''|*[!0-9]*|0) usage_error "--max-concurrency must be a positive whole number, got '$conc'" ;; esac
  case "$retries" in *[!0-9]*) usage_error "--retries must be a whole number, got '$retries'" ;; esac
  case "$mode" in trailing|exact) ;; *) usage_error "--completion-mode must be trailing or exact, got '$mode'" ;; esac
  if [ -n "$maxcost" ] && ! awk -v c="$maxcost" 'BEGIN { exit !(c ~ /^[0-9]+(\.[0-9]+)?$/) }'; then
    usage_error "--max-cost must be a number of dollars, got '$maxcost'"
  fi
  [ -n "$name" ] || name=$(basename "$prompt" | sed 's/\.[^.]*$//')
  dir=$(cd "${dir:-.}" && pwd) || usage_error "--dir: no such directory"

  acquire_slot "$conc"
  if [ -n "$worktree" ]; then
    dir=$(make_worktree "$dir" "$name") || die "could not create a worktree"
    log "working in worktree $dir"
  fi
  local agent_q run
  agent_q=$(printf '%q ' "$@")
  run=$("$LK_RECORD" --new-run --name "$name" \
    --setting prompt="$prompt" --setting validate="$validate" --setting agent="$agent_q" \
    --setting dir="$dir" --setting max_iterations="$max" --setting timeout="$timeout" \
    --setting validate_timeout="$vtimeout" --setting max_cost="$maxcost" \
    --setting require_completion="$require" --setting completion_mode="$mode" \
    --setting retries="$retries" --setting retry_backoff="$backoff" \
    --setting stuck_agent="$stuck_agent" --setting worktree="$worktree") || die "could not create a run"
  echo "$run"
  log "run $run: $max iterations at most, validating with: $validate (store: $LOOP_STORE)"
  "$LK_RECORD" --run "$run" --snapshot start >/dev/null
  drive "$run" 1
}

# make_worktree DIR NAME: a new worktree of DIR's repository on branch
# run/<name> at ../<repo>.run-<name>, de-duplicated with -2, -3, ...
make_worktree() {
  local top slug n=1 branch path suffix=""
  top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) || { log "--worktree needs a git repository"; return 1; }
  slug=$(tr '[:upper:]' '[:lower:]' <<<"$2" | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//')
  [ -n "$slug" ] || slug=run
  while :; do
    branch="run/$slug$suffix"
    path="$(dirname "$top")/$(basename "$top").run-$slug$suffix"
    if ! git -C "$top" show-ref --verify --quiet "refs/heads/$branch" && [ ! -e "$path" ]; then break; fi
    n=$((n + 1)); suffix="-$n"
  done
  git -C "$top" worktree add -q -b "$branch" "$path" >&2 || return 1
  printf '%s' "$path"
}

cmd_resume() {
  [ $# -eq 1 ] || usage_error "usage: scripts/loop resume RUN"
  local run=$1 status last pid conc
  status=$(field "$run" '.status') || exit 1
  if [ "$status" = completed ]; then
    "$LK_RECORD" --run "$run" --repair || die "could not repair run $run"
    log "run $run already completed"
    echo completed
    exit 0
  fi
  # the log is the truth: continue after the last recorded iteration
  last=$(last_field "$run" '.iteration') || exit 1
  if ! flock -n -x "$LOOP_STORE/runs/$run/live.lock" true; then
    pid=$(field "$run" '.pid // ""')
    if [ -n "$pid" ] && alive "$pid"; then
      die "run $run is live (driver pid $pid); stop it first with: scripts/loop cancel $run"
    fi
  fi
  stop_left_groups "$run"
  flock -w 10 -x "$LOOP_STORE/runs/$run/live.lock" true || die "run $run is still held by another process"
  # killed after recording a passing iteration but before marking the run
  if [ -n "$last" ] && [ "$(last_field "$run" '.exit_code')" = 0 ] &&
    { [ -z "$(field "$run" '.settings.require_completion // ""')" ] || [ "$(last_field "$run" '.agent.completed // false')" = true ]; }; then
    echo "$run"
    finish "$run" completed "" 0
  fi
  conc=$(pick "" LOOP_MAX_CONCURRENCY max_concurrency 3)
  acquire_slot "$conc"
  echo "$run"
  log "resuming run $run after iteration ${last:-0}"
  "$LK_RECORD" --run "$run" --status running >/dev/null
  drive "$run" $(( ${last:-0} + 1 ))
}

cmd_cancel() {
  [ $# -eq 1 ] || usage_error "usage: scripts/loop cancel RUN"
  local run=$1 pid i
  field "$run" '.status' >/dev/null || exit 1
  pid=$(field "$run" '.pid // ""')
  if [ -n "$pid" ] && alive "$pid"; then
    log "stopping the driver of run $run (pid $pid)"
    kill -TERM "$pid"
    for ((i = 0; i < 100; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
  fi
  stop_left_groups "$run"
  if [ "$(field "$run" '.status')" != canceled ]; then
    "$LK_RECORD" --run "$run" --status canceled --message "canceled by scripts/loop cancel" >/dev/null
  fi
  echo canceled
}

cmd_list() {
  [ $# -eq 0 ] || usage_error "usage: scripts/loop list"
  exec "$LK_VIEW" runs
}
