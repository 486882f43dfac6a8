# bash completion for the loopkit commands and the `loop` driver.
# The loop-* commands complete themselves: with GO_FLAGS_COMPLETION set they
# print the candidates for the last word instead of running.

# _loopkit_runs: the store's run ids, newest first.
_loopkit_runs() { loop-view runs --jq .run_id -r 2>/dev/null; }

# _loopkit_complete_runs CUR: the run ids starting with CUR in COMPREPLY.
# Not through compgen -W, which expands its words: a run_id "$(cmd)" in a
# run.json the agent wrote would run cmd. Only what looks like an id.
_loopkit_complete_runs() {
  local id
  COMPREPLY=()
  while IFS= read -r id; do
    [[ $id == "$1"* && $id =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] && COMPREPLY+=("$id")
  done < <(_loopkit_runs)
}

_loopkit_complete() {
  local IFS=$'\n' cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local args=("${COMP_WORDS[@]:1:COMP_CWORD}")
  # loop-view's RUN argument (right after its command, or --run): run ids
  if [ "${COMP_WORDS[0]##*/}" = loop-view ] && [ "$COMP_CWORD" -ge 2 ] && [[ $cur != -* ]]; then
    case $prev in
      logs|output|show|describe|tail|diff|report|tui|checkout|events|--run)
        _loopkit_complete_runs "$cur"
        return ;;
    esac
  fi
  # shellcheck disable=SC2207
  COMPREPLY=($(GO_FLAGS_COMPLETION=1 "${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null))
  if [ ${#COMPREPLY[@]} -eq 0 ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _loopkit_complete loop-validate loop-record loop-step loop-progress loop-view loop-clean loop-drive loop-tui loop-export

_loopkit_loop() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "init run resume pause cancel list trust help --help --version" -- "$cur"))
    return
  fi
  case "${COMP_WORDS[1]}:$cur" in
    run:-*)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" run --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur")) ;;
    resume:-*)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "--max-iterations --max-duration --max-cost --max-tokens --interrupted --store --all-stores --print-unit" -- "$cur")) ;;
    init:-*)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "--force" -- "$cur")) ;;
    resume:*|cancel:*|pause:*)
      _loopkit_complete_runs "$cur" ;;
    *)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o filenames -F _loopkit_loop loop
