#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The run's private git directory snapshotting a folder of 10,000 files
# without git (its own index over the work tree) against the same files in
# a git repository (the user's index seeds it): one iteration's snapshots,
# the run's first and a later one (BenchmarkSnapshot10k, in process).
# Writes docs/bench/snapshot.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
count=3; [ -n "${BENCH_QUICK:-}" ] && count=2
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(cd "$BENCH_ROOT" && go test -run '^$' -bench 'BenchmarkSnapshot10k' -benchtime 1x -count "$count" -timeout 60m ./internal/gitstore)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
# snap NAME [median]: "median ms (min–max)" of the sub-benchmark's rounds,
# or with "median" the median alone (ms)
snap() {
  awk -v n="BenchmarkSnapshot10k/$1-" 'index($1, n) == 1 { print $3 / 1e6 }' <<<"$out" | sort -n |
    awk -v only="${2:-}" '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      if (only != "") printf "%.3f", m; else printf "%.0f ms (%.0f–%.0f)", m, a[1], a[NR] }'
}
cat > "$BENCH_ROOT/docs/bench/snapshot.md" <<MD
## Snapshots of a folder without git

$(measured ./internal/gitstore)
Machine: $(machine_line). \`go test -bench BenchmarkSnapshot10k
./internal/gitstore\`, one iteration per round, $count rounds each: median
wall time (min–max); load average $load_start at the start, $load_end at
the end.

One iteration's snapshots as the driver takes them on a tree of 10,000
files of about 200 bytes (100 folders of 100): the step's base, ten files
edited, the tree after the step, its commit and the list of changes.

| iteration | folder without git | git repository | ratio |
|---|---|---|---|
| the run's first | $(snap plain/first) | $(snap git/first) | $(ratio "$(snap plain/first median)" "$(snap git/first median)") |
| a later one | $(snap plain/next) | $(snap git/next) | $(ratio "$(snap plain/next median)" "$(snap git/next median)") |

In a git repository the user's index gives the stat cache from the start;
in a folder without git the run's first iteration hashes every file once,
for its base (whose index is then the stat cache of the tree after the
step), and later ones find them in the run's own index, so only what
changed is read again.
MD
echo "wrote $BENCH_ROOT/docs/bench/snapshot.md" >&2
