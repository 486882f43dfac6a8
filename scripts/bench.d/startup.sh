#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# How long a loopkit command takes to start and exit (`--version`), as the
# driver starts two of them an iteration, against an empty Go program
# built the same way (static, -trimpath), and against a program linking
# only the logging and flag libraries the commands are built on
# (internal/benchrun/cmd/stack-start). Writes docs/bench/startup.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
cleanup() {
  rm -rf "$work"
}
EXIT_HOOK=cleanup
rounds=40; [ -n "${BENCH_QUICK:-}" ] && rounds=10
cmds=(loop-step loop-validate loop-drive loop-record)
printf 'package main\n\nfunc main() {}\n' >"$work/empty.go"
mkdir "$work/linked"
(cd "$work" && CGO_ENABLED=0 go build -trimpath -o linked/empty empty.go)
(cd "$BENCH_ROOT" && CGO_ENABLED=0 go build -trimpath -o "$work/linked/stack-start" ./internal/benchrun/cmd/stack-start)
# Every binary is measured as a copy, as make install and a release archive
# leave it: the file the Go linker wrote (through mmap) took 0.3 ms more
# CPU to start than the same bytes copied (Linux 6.18, ext4; loop-step,
# 300 alternated rounds), the empty program's 0.03 ms, which inflated
# the ratios below by about 0.3.
cp "$work/linked/empty" "$work/linked/stack-start" "$work/"
for c in "${cmds[@]}"; do cp "$BIN/$c" "$work/$c"; done
args=("$work/empty" "$work/stack-start --version")
for c in "${cmds[@]}"; do args+=("$work/$c --version"); done
measure "$work/s.json" -r "$rounds" -w 3 "${args[@]}"
e=$(cpu "$work/s.json" 0)

{
  echo "## Starting a command"
  echo
  measured "${cmds[@]/#/./cmd/}" ./internal/benchrun/cmd/stack-start
  echo
  echo "Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/s.json")."
  echo "Each command with \`--version\` (start, read the flags, print, exit),"
  echo "against an empty Go program built the same way (static, \`-trimpath\`),"
  echo "each binary a copy as \`make install\` leaves it (a binary as the Go linker"
  echo "wrote it took 0.3 ms more CPU to start here, the empty program 0.03 ms)."
  echo
  echo "| command | figure | CPU ratio to the empty program |"
  echo "|---|---|---|"
  echo "| empty Go program | $(fig "$work/s.json" 0) | 1.00 |"
  echo "| \`stack-start --version\`: charmbracelet/log and go-flags alone | $(fig "$work/s.json" 1) | $(ratio "$(cpu "$work/s.json" 1)" "$e") |"
  i=2
  for c in "${cmds[@]}"; do
    echo "| \`$c --version\` | $(fig "$work/s.json" $i) | $(ratio "$(cpu "$work/s.json" $i)" "$e") |"
    i=$((i + 1))
  done
  echo
  echo "Target: within 1.5× the empty program. What a command does before"
  echo "\`main\` (package initialisation: compiled regular expressions, tables,"
  echo "registered formats) every run pays; \`GODEBUG=inittrace=1 CMD --version\`"
  echo "lists it package by package. loopkit's own packages do none (the tests"
  echo "TestNoWorkAtStart and TestInitTrace hold it); what is left is the"
  echo "runtime's, flag parsing, and the packages linked, the logging stack's"
  echo "(charmbracelet/log and its terminal libraries) the largest. The second"
  echo "line is the floor those libraries set: linked alone and doing the same"
  echo "(flags parsed, version printed, no logger made), they take"
  echo "$(ratio "$(cpu "$work/s.json" 1)" "$e")× the empty program, against the target of 1.5×."
} >"$BENCH_ROOT/docs/bench/startup.md"
cat "$BENCH_ROOT/docs/bench/startup.md"
