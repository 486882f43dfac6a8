# fish completion for the loopkit commands and the `loop` driver. The loop-*
# commands complete themselves: with GO_FLAGS_COMPLETION set they print the
# candidates for the last word instead of running.
function __loopkit_complete
    set -l words (commandline -opc)
    set -l cmd $words[1]
    set -e words[1]
    env GO_FLAGS_COMPLETION=1 $cmd $words (commandline -ct) 2>/dev/null
end

# loop-view's RUN argument: right after its command, or after --run
function __loopkit_view_run
    set -l words (commandline -opc)
    contains -- $words[-1] logs output show describe tail diff report tui checkout events --run
end

for c in loop-validate loop-record loop-step loop-progress loop-clean loop-drive loop-tui loop-export
    complete -c $c -f -a '(__loopkit_complete)'
end
complete -c loop-view -f -n 'not __loopkit_view_run' -a '(__loopkit_complete)'
complete -c loop-view -f -n __loopkit_view_run -a '(loop-view runs --jq .run_id -r 2>/dev/null)'

complete -c loop -f -n __fish_use_subcommand -a 'init run resume pause cancel list trust help'
complete -c loop -f -n '__fish_seen_subcommand_from run' -a '(loop run --help 2>/dev/null | string match -r -- "--[a-z][a-z-]*" | sort -u)'
complete -c loop -f -n '__fish_seen_subcommand_from resume cancel pause' -a '(loop-view runs --jq .run_id -r 2>/dev/null)'
complete -c loop -f -n '__fish_seen_subcommand_from resume' -a '--max-iterations --max-duration --max-cost --max-tokens --interrupted --store --all-stores --print-unit'
complete -c loop -f -n '__fish_seen_subcommand_from init' -a '--force'
