#!/usr/bin/env bash
# Crash injection for the driver: ROUNDS times, start scripts/loop on a fresh
# demo workspace, SIGKILL its whole process group at a random moment (every
# third round SIGHUP, every third SIGTERM to the driver alone, which must
# then exit 129/143 leaving no process of its group behind), resume,
# and check the store: what a killed step printed kept as an interrupted
# attempt with its tokens (or already in an iteration), iterations 1..N each once, the run completed, every log
# line parseable, no spool entry or tombstone left, no iteration folder
# without its line. Run by testdata/script/loop_crash.txtar.
set -uo pipefail
rounds=${1:-5}
root=$LOOPKIT_ROOT
fail() { echo "crash round $r: $*" >&2; exit 1; }
killed=0 signaled=0 steps_kept=0
for ((r = 1; r <= rounds; r++)); do
  ws="$PWD/crash-$r"
  mkdir -p "$ws" && cp -R "$root/testdata/demo/." "$ws/"
  (cd "$ws" && git init -q && git add -A && git commit -qm init) || fail "git"
  delay=$(awk -v x="$RANDOM" 'BEGIN { printf "%.3f", x / 32767 * 0.8 }')
  # shellcheck disable=SC2016 # expanded by the inner bash
  setsid bash -c 'echo $$ > "$1/pgid"; cd "$1" && exec "$2/scripts/loop" run --prompt TASK.md --validate "sh $2/testdata/loop/check.sh" --max-iterations 6 -- "$2/scripts/demo-agent" > run.out 2> run.err' _ "$ws" "$root" &
  bg=$!
  sleep "$delay"
  sig=$(( r % 3 )) pgid=$(cat "$ws/pgid" 2>/dev/null)
  if kill -0 "$bg" 2>/dev/null; then
    case $sig in
      0) kill -9 -- "-$pgid" 2>/dev/null && killed=$((killed + 1)) ;;
      1) kill -HUP "$pgid" 2>/dev/null && signaled=$((signaled + 1)) ;;
      2) kill -TERM "$pgid" 2>/dev/null && signaled=$((signaled + 1)) ;;
    esac
  fi
  wait "$bg" 2>/dev/null; rc=$?
  # the driver is reaped, its group may still be dying (a loop-drive the
  # clean below must see gone, or it keeps the run it was creating)
  for ((i = 0; i < 30; i++)); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.1; done
  if [ "$sig" != 0 ]; then
    case $rc in 0|129|143) ;; *) fail "driver exit $rc after signal $sig: $(cat "$ws/run.err")" ;; esac
    kill -0 -- "-$pgid" 2>/dev/null && fail "processes of the driver's group left: $(ps -o pid=,args= -g "$pgid")"
  fi
  run=$(find "$ws/.loop/runs" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' 2>/dev/null | head -n 1)
  if [ -z "$run" ]; then
    # killed before the run existed: the next clean removes a half-built one
    if [ -d "$ws/.loop/runs" ]; then
      (cd "$ws" && loop-clean >/dev/null 2>&1) || fail "clean after a killed creation"
      [ "$(find "$ws/.loop/runs" -mindepth 1 -maxdepth 1 | wc -l)" -eq 0 ] || fail "left in runs/: $(ls -A "$ws/.loop/runs")"
    fi
    rm -rf "$ws"
    continue
  fi
  # what the killed driver's steps had printed: each must be kept by resume
  mkdir -p "$ws/printed"
  for meta in "$ws"/.loop/spool/*.step.json; do
    out=${meta%.json}.stdout
    [ -s "$out" ] && grep -q "\"run_id\":\"$run\"" "$meta" && cp "$out" "$ws/printed/"
  done
  (cd "$ws" && "$root/scripts/loop" resume "$run" > resume.out 2> resume.err) || fail "resume failed: $(cat "$ws/resume.err")"
  for p in "$ws"/printed/*; do
    [ -e "$p" ] || continue
    kept=""
    for a in "$ws/.loop/runs/$run"/attempts/*/agent.stdout; do
      cmp -s "$p" "$a" || continue
      kept=$a n=$(basename "$(dirname "$a")")
      line=$(sed -n "$((10#$n))p" "$ws/.loop/runs/$run/attempts.jsonl")
      [[ $line == *'"kind":"interrupted"'* ]] || fail "attempt $n of a killed step is not interrupted: $line"
      # a transcript with a whole usage line has its tokens counted
      if grep -q '"usage":{' "$p"; then
        [[ $line == *'"llm_input_tokens":'[0-9]* ]] || fail "attempt $n lost its tokens: $line"
      fi
      steps_kept=$((steps_kept + 1))
      break
    done
    # (a step already in an iteration: the driver died as it recorded it)
    for a in "$ws/.loop/runs/$run"/iterations/*/agent.stdout; do
      [ -z "$kept" ] || break
      cmp -s "$p" "$a" && kept=$a
    done
    [ -n "$kept" ] || fail "a killed step's output was lost: $(head -c 300 "$p")"
  done
  status=$(cd "$ws" && loop-view describe "$run" --json --jq .status -r)
  [ "$status" = completed ] || fail "status $status after resume"
  iters=$(cd "$ws" && loop-view logs "$run" --json --jq .iteration -r | tr '\n' ' ')
  n=$(wc -w <<<"$iters")
  [ "$iters" = "$(seq -s ' ' 1 "$n") " ] || fail "iterations not 1..$n once each: $iters"
  [ "$n" -le 6 ] || fail "$n iterations"
  folders=$(find "$ws/.loop/runs/$run/iterations" -mindepth 1 -maxdepth 1 | wc -l)
  [ "$folders" -eq "$n" ] || fail "$folders iteration folders for $n lines"
  left=$(find "$ws/.loop/spool" -mindepth 1 | wc -l)
  [ "$left" -eq 0 ] || fail "spool not empty: $(find "$ws/.loop/spool" -mindepth 1)"
  tombs=$(find "$ws/.loop/runs" -mindepth 1 -maxdepth 1 -name '.*' | wc -l)
  [ "$tombs" -eq 0 ] || fail "tombstone left in $ws/.loop/runs"
  temps=$(find "$ws/.loop/runs/$run" -maxdepth 2 -name '.*.tmp-*' | wc -l)
  [ "$temps" -eq 0 ] || fail "temporary files left: $(find "$ws/.loop/runs/$run" -maxdepth 2 -name '.*.tmp-*')"
  if command -v jq >/dev/null; then
    for f in "$ws/.loop/runs/$run"/*.jsonl "$ws/.loop/runs/$run"/*.json; do
      jq -e . "$f" >/dev/null || fail "$f not parseable"
    done
  fi
  grep -q '"status": "completed"' "$ws/.loop/runs/$run/run.json" || fail "run.json not completed"
  rm -rf "$ws"
done
echo "crash rounds: $rounds, driver groups killed: $killed, drivers signaled: $signaled, killed steps kept as attempts: $steps_kept, all resumed to completion"
