#!/usr/bin/env bash
# merge-runs.sh STORE DIR...: copies the run directories in each DIR (another
# store's runs/, or a downloaded artifact of them) into STORE/runs. A run
# directory is self-contained and named by its run id, so merging is
# copying; a run already in STORE is left as it is. The same id with another
# created_at names two different runs: nothing is copied and the ids are
# printed, exit 1.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: merge-runs.sh STORE DIR..." >&2; exit 2; }
store=$1
shift
mkdir -p "$store/runs"
shopt -s nullglob
files=("$store"/runs/*/run.json)
for dir in "$@"; do files+=("$dir"/*/run.json); done
[ ${#files[@]} -gt 0 ] || exit 0

# one line per run id that names runs with different created_at
collisions=$(jq -nr '[inputs | {id: (input_filename | split("/")[-2]), created_at}]
  | group_by(.id)[] | select((map(.created_at) | unique | length) > 1) | .[0].id' "${files[@]}")
if [ -n "$collisions" ]; then
  echo "merge-runs.sh: these run ids name different runs (another created_at); rename one copy and run loop-record repair --run ID in it:" >&2
  echo "$collisions" >&2
  exit 1
fi
for dir in "$@"; do
  for run in "$dir"/*/; do
    [ -f "$run/run.json" ] || continue
    id=$(basename "$run")
    [ -e "$store/runs/$id" ] || cp -R "$run" "$store/runs/$id"
  done
done
chmod -R go-rwx "$store"
