# shellcheck shell=bash
# Helpers shared by the driver's subcommands (sourced by scripts/loop).

log() { printf 'loop: %s\n' "$*" >&2; }
# die CODE MESSAGE: 70 is an internal error of loopkit, 1 a failure.
die() { local code=$1; shift; log "$*"; exit "$code"; }

usage() {
  cat <<'USAGE'
usage: scripts/loop run (SPEC [PLAN] | --prompt FILE) --validate CMD [OPTIONS]
         -- AGENT ARGS...
       scripts/loop resume RUN [--max-iterations N]
       scripts/loop cancel RUN | pause RUN | list | --version

Examples:
  $ scripts/loop run --prompt TASK.md --validate 'go test ./...' -- \
      claude -p --output-format stream-json --verbose
  $ scripts/loop resume RUN
  $ scripts/loop list

Runs the agent, then the validation, again and again until the validation
passes (completed), --max-iterations pass without it (stuck) or a limit
fails the run; every iteration is recorded in the store. Installed by
`make install` as `loop`.

run options:
  --prompt FILE           task prompt template (<<progress>> or appended)
  --validate 'CMD'        validation, run with sh -c (config: verify_cmds)
  --max-iterations N      iterations before the run is stuck (default 10;
                          config: iterations)
  --name NAME             run name (default: the spec's title)
  --name-source S         spec_slug (default) or agent (config run_naming_mode)
  --name-model 'CMD'      naming agent for agent (config run_naming_model)
  --reviewer 'CMD'        review each iteration (config reviewer)
  --review-marker TAG     the reviewer's verdict tag (default review)
  --final-verify 'CMD'    must pass before completed (repeatable)
  --timeout D             agent step timeout (default 30m)
  --validate-timeout D    validation timeout (default 10m)
  --retries N             agent retries on failure (config: claude_retries)
  --retry-backoff D       first retry backoff, doubling
  --max-agent-failures N  agent failures in a row that fail the run (3)
  --max-cost USD          fail the run once its cost passes USD
  --max-tokens N          fail the run once input+output tokens pass N
  --require-completion    also require the agent's completion marker
  --completion-mode M     trailing (default) or exact
  --max-concurrency N     loops on this machine at once (default 3)
  --max-runs-per-workspace N, --queue-policy fifo|newest_first
  --worktree              run in a new git worktree on branch run/<name>
  --base-branch B, --run-branch-prefix P, --worktree-path-template T
  --merge-target B        once completed, merge the run branch into B (made
                          from the base if missing, checked out here, never
                          pushed; needs --worktree; config merge_target)
  --merge-strategy S      squash (default), merge or none (merge_strategy)
  --stuck-agent           when stuck, ask the agent for hypotheses
  --dir DIR               workspace (default: the current directory)
  --artifact-mode M       workspace (default) or mirror: also copy the
                          finished run to the global store
  --global-log-dir DIR    the global store (default $XDG_DATA_HOME/loopkit)
  --on-event CMD          run CMD (sh -c, event JSON on stdin) on completed,
                          failed, stuck, canceled, paused, rate_limited,
                          watchdog, cost_threshold (repeatable; on_event)
  --watchdog off          no stall signals (config: watchdog)
  --watchdog-k N          earlier iterations a signal compares with (default 2)
  --max-rewrites N        prompt rewrites before a stall is stuck (default 2)
  --max-wait D            rate-limit waiting before the run pauses (default 6h)
  --account NAME          rate-limit note key (default: the agent program)

Settings: flags > environment (LOOP_ITERATIONS, LOOP_VALIDATE, LOOP_TIMEOUT,
LOOP_VALIDATE_TIMEOUT, LOOP_MAX_COST, LOOP_MAX_CONCURRENCY,
LOOP_COMPLETION_MODE) > config files (the store's config, then LOOP_CONFIG)
> defaults.

Exit status: 0 completed; 1 stuck; 2 usage or a bad setting; 3 failed
(agent cannot run or keeps failing, over budget, merge refused or in
conflict); 75 busy (another driver has the run) or paused; 129/130/141/143
ended by SIGHUP/INT/PIPE/TERM; 70 internal error.
USAGE
}

usage_error() {
  log "$*"
  usage >&2
  exit 2
}

# find_tools sets LK_<NAME> for every loop-* command: from LOOP_BIN when
# set, else next to the driver (../bin), else PATH.
find_tools() {
  local missing=() name var path
  for name in loop-validate loop-record loop-step loop-view loop-clean loop-progress loop-drive; do
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
    die 70 "missing loopkit commands: ${missing[*]} (run 'make build' in $LOOP_HOME, or put them on PATH)"
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
  local f key val line
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
