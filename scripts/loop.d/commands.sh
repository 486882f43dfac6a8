# shellcheck shell=bash
# The driver's subcommands (sourced by scripts/loop).

need_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then usage_error "$1 needs a value"; fi
}

cmd_run() {
  local prompt="" validate="" max="" name="" timeout="" vtimeout="" maxcost="" require=""
  local mode="" conc="" worktree="" stuck_agent="" dir="" retries="" backoff="" maxtok="" fails="" amode="" gdir=""
  local hooks="" k
  local -a more=() # watchdog, rate-limit, hook and merge settings (config keys first, flags win)
  for k in watchdog watchdog_k max_rewrites max_wait account hook_timeout merge_target merge_strategy; do
    if [ -n "${CFG[$k]:-}" ]; then more+=(--setting "$k=${CFG[$k]}"); fi
  done
  local spec="" plan="" extra=()
  while [ $# -gt 0 ]; do
    case "$1" in --[a-z]*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;; esac
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --prompt) need_value "$@"; prompt=$2; shift 2 ;;
      --validate) need_value "$@"; validate=$2; shift 2 ;;
      --max-iterations) need_value "$@"; max=$2; shift 2 ;;
      --name) need_value "$@"; name=$2; shift 2 ;;
      --timeout) need_value "$@"; timeout=$2; shift 2 ;;
      --validate-timeout) need_value "$@"; vtimeout=$2; shift 2 ;;
      --retries) need_value "$@"; retries=$2; shift 2 ;;
      --retry-backoff) need_value "$@"; backoff=$2; shift 2 ;;
      --max-cost) need_value "$@"; maxcost=$2; shift 2 ;;
      --max-tokens) need_value "$@"; maxtok=$2; shift 2 ;;
      --max-agent-failures) need_value "$@"; fails=$2; shift 2 ;;
      --completion-mode) need_value "$@"; mode=$2; shift 2 ;;
      --max-concurrency) need_value "$@"; conc=$2; shift 2 ;;
      --dir) need_value "$@"; dir=$2; shift 2 ;;
      --artifact-mode) need_value "$@"; amode=$2; shift 2 ;;
      --global-log-dir) need_value "$@"; gdir=$2; shift 2 ;;
      --on-event) need_value "$@"; hooks+="$2"$'\n'; shift 2 ;;
      --watchdog|--watchdog-k|--max-rewrites|--max-wait|--account|--hook-timeout|--rate-limit-backoff|\
      --merge-target|--merge-strategy)
        need_value "$@"; k=${1#--}; more+=(--setting "${k//-/_}=$2"); shift 2 ;;
      --require-completion) require=1; shift ;;
      --worktree) worktree=1; shift ;;
      --stuck-agent) stuck_agent=1; shift ;;
      --reviewer|--review-marker|--final-verify|--name-source|--name-model|--max-runs-per-workspace|\
      --queue-policy|--base-branch|--run-branch-prefix|--worktree-path-template)
        need_value "$@"; extra+=("$1" "$2"); shift 2 ;;
      --) shift; break ;;
      -*) usage_error "unknown flag: $1" ;;
      *) if [ -z "$spec" ]; then spec=$1; elif [ -z "$plan" ]; then plan=$1; else usage_error "unexpected argument: $1"; fi; shift ;;
    esac
  done
  [ $# -gt 0 ] || usage_error "no agent command: give it after --"
  [ -n "$prompt$spec" ] || usage_error "--prompt is required (or a SPEC argument)"
  if [ -n "$prompt" ]; then
    [ -f "$prompt" ] || usage_error "--prompt $prompt: no such file"
    prompt=$(cd "$(dirname "$prompt")" && pwd)/$(basename "$prompt")
  fi
  validate=$(pick "$validate" LOOP_VALIDATE verify_cmds "")
  [ -n "$validate" ] || usage_error "--validate is required (or config verify_cmds)"
  dir=$(cd "${dir:-.}" 2>/dev/null && pwd) || usage_error "--dir $dir: no such directory"
  trap_signals
  # loop-drive checks every value (exit 2 on the first bad one, no run made)
  hold --new ${name:+--name "$name"} ${spec:+--spec "$spec"} ${plan:+--plan "$plan"} ${extra[@]+"${extra[@]}"} --max-concurrency "$(pick "$conc" LOOP_MAX_CONCURRENCY max_concurrency 3)" \
    --setting prompt="$prompt" --setting validate="$validate" --setting dir="$dir" \
    --setting max_iterations="$(pick "$max" LOOP_ITERATIONS iterations 10)" \
    --setting timeout="$(pick "$timeout" LOOP_TIMEOUT claude_timeout_sec 30m)" \
    --setting validate_timeout="$(pick "$vtimeout" LOOP_VALIDATE_TIMEOUT verify_timeout_sec 10m)" \
    --setting retries="$(pick "$retries" LOOP_RETRIES claude_retries 0)" \
    --setting retry_backoff="$(pick "$backoff" LOOP_RETRY_BACKOFF claude_retry_backoff_sec 5s)" \
    --setting max_cost="$(pick "$maxcost" LOOP_MAX_COST max_cost "")" \
    --setting max_tokens="$(pick "$maxtok" LOOP_MAX_TOKENS max_tokens "")" \
    --setting max_agent_failures="$(pick "$fails" LOOP_MAX_AGENT_FAILURES max_agent_failures 3)" \
    --setting completion_mode="$(pick "$mode" LOOP_COMPLETION_MODE completion_mode trailing)" \
    --setting require_completion="$require" --setting stuck_agent="$stuck_agent" \
    --setting artifact_mode="$(pick "$amode" LOOP_ARTIFACT_MODE artifact_mode workspace)" \
    --setting global_log_dir="$(pick "$gdir" LOOP_GLOBAL_LOG_DIR global_log_dir "")" \
    --setting worktree="$worktree" --setting on_event="${hooks:-${CFG[on_event]:-}}" "${more[@]}" -- "$@"
  [ -z "$worktree" ] || log "working in worktree ${S[dir]} (branch ${S[run_branch]:-})" # made by loop-drive
  log "run $RUN: ${S[max_iterations]} iterations at most, validating with: ${S[validate]} (store: $LOOP_STORE)"
  "$LK_RECORD" --run "$RUN" --snapshot start >/dev/null
  drive
}

cmd_resume() {
  local run="" max=""
  while [ $# -gt 0 ]; do
    case "$1" in --[a-z]*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;; esac
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --max-iterations) need_value "$@"; max=$2; shift 2 ;;
      -*) usage_error "unknown flag: $1" ;;
      *) [ -z "$run" ] || usage_error "usage: scripts/loop resume RUN [--max-iterations N]"; run=$1; shift ;;
    esac
  done
  [ -n "$run" ] || usage_error "usage: scripts/loop resume RUN [--max-iterations N]"
  trap_signals
  hold --resume --run "$run" ${max:+--max-iterations "$max"} \
    --max-concurrency "$(pick "" LOOP_MAX_CONCURRENCY max_concurrency 3)"
  drive
}

cmd_cancel() {
  [ $# -eq 1 ] || usage_error "usage: scripts/loop cancel RUN"
  exec "$LK_DRIVE" --cancel --run "$1"
}

cmd_pause() {
  [ $# -eq 1 ] || usage_error "usage: scripts/loop pause RUN"
  exec "$LK_DRIVE" --pause --run "$1"
}

cmd_list() {
  [ $# -eq 0 ] || usage_error "usage: scripts/loop list"
  exec "$LK_VIEW" runs
}
