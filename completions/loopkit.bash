# bash completion for the loopkit commands and the `loop` driver.
# The loop-* commands complete themselves: with GO_FLAGS_COMPLETION set they
# print the candidates for the last word instead of running.
_loopkit_complete() {
  local IFS=$'\n'
  local args=("${COMP_WORDS[@]:1:COMP_CWORD}")
  # shellcheck disable=SC2207
  COMPREPLY=($(GO_FLAGS_COMPLETION=1 "${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null))
  if [ ${#COMPREPLY[@]} -eq 0 ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
  fi
}
complete -o filenames -F _loopkit_complete loop-validate loop-record loop-step loop-progress loop-view loop-clean loop-drive loop-tui loop-export

_loopkit_loop() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "run resume cancel list help --help --version" -- "$cur"))
    return
  fi
  case "${COMP_WORDS[1]}:$cur" in
    run:-*)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "$(loop run --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur")) ;;
    resume:*|cancel:*)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "$(loop-view runs --jq .run_id -r 2>/dev/null)" -- "$cur")) ;;
    *)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o filenames -F _loopkit_loop loop
