# shellcheck shell=bash
# The driver's subcommands (sourced by scripts/loop).

# cmd_run and cmd_resume hand their arguments to loop-drive, which reads
# them with the environment and config files, checks every value and
# holds the run (it prints the help for --help, and a usage error itself).
cmd_run() {
  trap_signals
  hold new "$@" # which says where the run works and what bounds it
  "$LK_RECORD" snapshot start --run "$RUN" >/dev/null
  drive
}

cmd_resume() {
  case " $* " in *" --interrupted "* | *" --all-stores "* | *" --print-unit"*) exec "$LK_DRIVE" resume-all --driver "$0" "$@" ;; esac
  trap_signals
  hold resume "$@"
  drive
}
