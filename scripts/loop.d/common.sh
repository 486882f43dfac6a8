# shellcheck shell=bash
# Helpers shared by the driver's subcommands (sourced by scripts/loop).

log() { printf 'loop: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

usage() {
  cat <<'USAGE'
usage: scripts/loop run --prompt TASK.md --validate 'CMD' [options] -- AGENT [ARGS...]
       scripts/loop resume RUN
       scripts/loop cancel RUN
       scripts/loop list

run options:
  --prompt FILE           task prompt template (<<progress>> or appended progress)
  --validate 'CMD'        validation command, run with sh -c (config: verify_cmds)
  --max-iterations N      iterations before the run is stuck (default 10; config: iterations)
  --name NAME             run name (default: the prompt file's name)
  --timeout D             agent step timeout (default 30m; config: claude_timeout_sec)
  --validate-timeout D    validation timeout (default 10m; config: verify_timeout_sec)
  --retries N             agent retries on failure (config: claude_retries)
  --retry-backoff D       first retry backoff, doubling (config: claude_retry_backoff_sec)
  --max-cost USD          stop as failed once the run's cost passes USD (config: max_cost)
  --require-completion    also require the agent's completion marker to finish
  --completion-mode M     trailing (default) or exact (config: completion_mode)
  --max-concurrency N     loops on this machine at once (default 3; config: max_concurrency)
  --worktree              run in a new git worktree on branch run/<name>
  --stuck-agent           when stuck, run the agent once on the stuck report to fill in hypotheses
  --dir DIR               workspace (default: the current directory)

Settings: flags > environment (LOOP_ITERATIONS, LOOP_VALIDATE, LOOP_TIMEOUT,
LOOP_VALIDATE_TIMEOUT, LOOP_MAX_COST, LOOP_MAX_CONCURRENCY, LOOP_COMPLETION_MODE)
> config files (the store's config, then LOOP_CONFIG) > defaults.
Exit status: 0 completed, 1 stuck or failed, 2 usage, 130 canceled.
USAGE
}

usage_error() {
  log "$*"
  usage >&2
  exit 2
}

# find_tools sets LK_<NAME> for every loop-* command: from LOOP_BIN when
# set, else next to this script (../bin), else PATH.
find_tools() {
  local missing=() name var path
  for name in loop-validate loop-record loop-step loop-view loop-clean loop-progress; do
    var="LK_$(tr '[:lower:]-' '[:upper:]_' <<<"${name#loop-}")"
    if [ -n "${LOOP_BIN:-}" ]; then
      if [ -x "$LOOP_BIN/$name" ]; then printf -v "$var" '%s' "$LOOP_BIN/$name"; else missing+=("$name"); fi
      continue
    fi
    if [ -x "$LOOP_HOME/bin/$name" ]; then
      path="$LOOP_HOME/bin/$name"
    elif path=$(command -v "$name" 2>/dev/null); then
      :
    else
      missing+=("$name")
      continue
    fi
    printf -v "$var" '%s' "$path"
  done
  if [ ${#missing[@]} -gt 0 ]; then
    die "missing loopkit commands: ${missing[*]} (run 'make build' in $LOOP_HOME, or put them on PATH)"
  fi
}

# store_root exports an absolute LOOP_STORE: the given one, else .loop at
# the git top level, else in the current directory.
store_root() {
  if [ -n "${LOOP_STORE:-}" ]; then
    mkdir -p "$LOOP_STORE"
    LOOP_STORE=$(cd "$LOOP_STORE" && pwd)
  else
    local top
    top=$(git rev-parse --show-toplevel 2>/dev/null) || top=$PWD
    LOOP_STORE="$top/.loop"
  fi
  export LOOP_STORE
}

# load_config reads key=value settings: the store's config, then LOOP_CONFIG.
declare -A CFG=()
load_config() {
  local f key val
  for f in "$LOOP_STORE/config" "${LOOP_CONFIG:-}"; do
    if [ -z "$f" ] || [ ! -f "$f" ]; then continue; fi
    while IFS= read -r line || [ -n "$line" ]; do
      line="${line#"${line%%[![:space:]]*}"}"
      case "$line" in ''|'#'*) continue ;; esac
      key="${line%%=*}"; val="${line#*=}"
      key="${key%"${key##*[![:space:]]}"}"
      val="${val#"${val%%[![:space:]]*}"}"
      case "$val" in \"*\") val="${val:1:${#val}-2}" ;; esac
      CFG[$key]=$val
    done < "$f"
  done
}

# pick FLAG_VALUE ENV_NAME CONFIG_KEY DEFAULT: the first that is set.
pick() {
  if [ -n "$1" ]; then printf '%s' "$1"
  elif [ -n "${!2:-}" ]; then printf '%s' "${!2}"
  elif [ -n "${CFG[$3]:-}" ]; then printf '%s' "${CFG[$3]}"
  else printf '%s' "$4"
  fi
}

# seconds D: a config value in seconds ("600") as a duration loop-* accept.
seconds() { case "$1" in *[!0-9]*) printf '%s' "$1" ;; *) printf '%ss' "$1" ;; esac; }

# field RUN EXPR: one value of the run's run.json, through loop-view's jq.
field() { "$LK_VIEW" describe "$1" --json --jq "$2" -r; }

# last_field RUN EXPR: one value of the run's last recorded iteration.
last_field() { "$LK_VIEW" logs "$1" --json --last 1 --jq "$2" -r; }

# acquire_slot N: waits for one of N flock slots and keeps it (fd SLOT_FD)
# for the life of the driver; the kernel frees it when the driver dies.
acquire_slot() {
  local max=$1 dir i fd waited=0
  # loop-record makes and checks the directory (the user's own, 0700)
  dir=$("$LK_RECORD" --slots "$max") || die "no private directory for concurrency slots"
  while :; do
    for ((i = 1; i <= max; i++)); do
      exec {fd}>>"$dir/slot.$i"
      if flock -n "$fd"; then
        # shellcheck disable=SC2034 # held open, never read: the fd is the lock
        SLOT_FD=$fd
        [ "$waited" = 1 ] && log "got a slot"
        return 0
      fi
      exec {fd}>&-
    done
    if [ "$waited" = 0 ]; then
      log "waiting for a free slot: $max loops already running on this machine (max_concurrency=$max)"
      waited=1
    fi
    sleep 1
  done
}

# alive PID: the process exists and is not a zombie (a killed process whose
# parent died may linger unreaped where PID 1 does not reap).
alive() {
  local stat
  kill -0 "$1" 2>/dev/null || return 1
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# stop_left_groups RUN: kills process groups that a crashed loop-step or
# loop-validate of RUN left behind (their spool entries name the group), then
# removes those entries: their writer is gone and nothing will record them.
stop_left_groups() {
  local run=$1 f pgid pid
  for f in "$LOOP_STORE"/spool/*.json; do
    [ -f "$f" ] || continue
    grep -q "\"run_id\":\"$run\"" "$f" || continue
    pgid=$(sed -n 's/.*"pgid":\([0-9][0-9]*\).*/\1/p' "$f")
    pid=$(sed -n 's/.*"pid":\([0-9][0-9]*\).*/\1/p' "$f")
    if [ -n "$pgid" ] && kill -0 -- "-$pgid" 2>/dev/null; then
      log "stopping process group $pgid left behind by run $run"
      kill -KILL -- "-$pgid" 2>/dev/null || true
    fi
    if [ -n "$pid" ] && ! alive "$pid"; then
      rm -rf -- "${f%.json}".*  # streams, and a step's base objects (a directory)
    fi
  done
  # temporary files of a spool meta whose writer was killed mid-rename
  local name
  for f in "$LOOP_STORE"/spool/.*.tmp-*; do
    [ -f "$f" ] || continue
    name=${f##*/}
    pid=$(cut -d- -f2 <<<"$name")
    case "$pid" in ''|*[!0-9]*) continue ;; esac
    alive "$pid" || rm -f -- "$f"
  done
}
