# shellcheck shell=bash
# Shared helpers for scripts/bench.d/*.sh (sourced, not run).
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN="$BENCH_ROOT/bin"
# What every figure is tied to: the commit measured (scripts/bench-check
# fails once a path a figure depends on changes after it).
BENCH_COMMIT=${BENCH_COMMIT:-$(git -C "$BENCH_ROOT" rev-parse --short=12 HEAD)}
# BENCH_QUICK figures check the scripts; they are not to be published.
[ -z "${BENCH_QUICK:-}" ] || BENCH_COMMIT="${BENCH_COMMIT%-quick}-quick"
# The fragment's cleanup: it sets EXIT_HOOK to a function instead of its
# own EXIT trap, which would replace this one.
EXIT_HOOK=:
trap '"$EXIT_HOOK" || :; [ -n "${BENCH_RUNTIME:-}" ] || rm -rf "$XDG_RUNTIME_DIR"' EXIT
# A private slot directory: a run never waits for another user's loop.
# scripts/bench makes and removes one for all fragments; a fragment run
# alone makes its own, removed above.
export XDG_RUNTIME_DIR=${BENCH_RUNTIME:-$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-rt.XXXXXX")}
BENCH_RUN=$BIN/.bench/bench-run

# bench_install_tools builds what ships (make build) and the measuring tool.
bench_install_tools() {
  command -v jq >/dev/null 2>&1 || {
    echo "bench: installing jq" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null
  }
  # always: a stale bin/ would time the code of another commit
  make -C "$BENCH_ROOT" build >/dev/null && [ -x "$BIN/loop-record" ]
  (cd "$BENCH_ROOT" && go build -o "$BIN/.bench/" ./internal/benchrun/cmd/bench-run)
}

# build_at REV DIR CMD...: the commands of commit REV built into DIR the
# way make build builds today's (static, -trimpath), for a fair comparison.
build_at() {
  local rev=$1 dir=$2 src; shift 2
  src=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench-src.XXXXXX")
  git -C "$BENCH_ROOT" archive "$rev" | tar -x -C "$src"
  mkdir -p "$dir"
  make --no-print-directory -s -f "$BENCH_ROOT/Makefile" -C "$src" build BIN="$dir" CMDS="$*" VERSION="$rev" COMMIT="$rev" >/dev/null
  rm -rf "$src"
}

# measure FILE BENCH-RUN-ARGS...: alternated rounds of the commands, the
# report (wall, CPU with descendants, peak RSS) written to FILE.
measure() { local f=$1; shift; "$BENCH_RUN" --json "$f" "$@"; }

# stat FILE INDEX KIND STAT: seconds (KIND wall or cpu, STAT min, median or max).
stat_s() { jq -r ".results[$2].$3.$4" "$1"; }
cpu() { stat_s "$1" "$2" cpu median; }
wall() { stat_s "$1" "$2" wall median; }
rss_mib() { jq -r ".results[$2].maxrss / 1024 | . * 10 | round / 10" "$1"; }

# fig FILE INDEX: "CPU m ms (min–max), wall m ms (min–max)" of one command.
fig() {
  jq -r --argjson i "$2" '.results[$i] as $r | def ms: . * 1000 | if . >= 100 then "\(round)" else (. * 100 | round / 100 | tostring) end;
    "CPU \($r.cpu.median | ms) ms (\($r.cpu.min | ms)–\($r.cpu.max | ms)), wall \($r.wall.median | ms) ms (\($r.wall.min | ms)–\($r.wall.max | ms))"' "$1"
}

# when FILE...: the load averages over the measurements and their rounds.
when() {
  jq -rs '"\(.[0].rounds) alternated rounds, load average \(.[0].load_start) at the start, \(.[-1].load_end) at the end"' "$@"
}

# ms SECONDS: seconds to milliseconds with 2 decimals.
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }

# ratio A B: A/B with 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# machine_line: the machine, Go and the date, for a fragment's header.
machine_line() {
  printf '%s, %s cores, %s, Go %s, %s\n' "$(uname -sm)" "$(nproc)" \
    "$(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)" \
    "$(go env GOVERSION 2>/dev/null | sed 's/^go//')" "$(date -u +%Y-%m-%d)"
}

# measured PKG... [-- PATH...]: the line tying a fragment's figures to the
# commit and to what they depend on: the module's packages the measured
# commands link (go list -deps), go.mod and the Makefile's build, the
# benchmark's own scripts, and the PATHs given.
measured() {
  local pkgs=() extra=() seen=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pkgs+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; extra=("$@"); }
  local mod paths
  mod=$(cd "$BENCH_ROOT" && go list -m)
  [ ${#pkgs[@]} -eq 0 ] || seen=$(cd "$BENCH_ROOT" && go list -deps -f '{{.ImportPath}}' "${pkgs[@]}" |
    awk -v m="$mod/" 'index($0, m) == 1 { print substr($0, length(m) + 1) }')
  paths=$(printf '%s\n' "$seen" "${extra[@]}" go.mod go.sum Makefile scripts/bench scripts/bench.d/lib.sh \
    "scripts/bench.d/$(basename "$0")" internal/benchrun | awk 'NF' | sort -u | tr '\n' ' ')
  echo "<!-- measured: $BENCH_COMMIT, paths: ${paths% } -->"
}

# gobench PKG PATTERN COUNT BENCHTIME: runs Go benchmarks (in process; a
# benchmark reports cpu-ns/op through benchrun.CPUPerOp) COUNT times and
# prints, per benchmark, "NAME CPU (min–max), wall (min–max)" in µs.
gobench() {
  (cd "$BENCH_ROOT" && go test -run '^$' -bench "$2" -count "$3" -benchtime "$4" "$1") |
    awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); for (i = 2; i < NF; i++) { if ($(i+1) == "ns/op") w[n] = w[n] " " $i; if ($(i+1) == "cpu-ns/op") c[n] = c[n] " " $i } }
      function spread(s,   a, k, i, j, t, m) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        m = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2; return sprintf("%.1f µs (%.1f–%.1f)", m / 1000, a[1] / 1000, a[k] / 1000) }
      END { for (n in w) print n "\tCPU " spread(c[n]) ", wall " spread(w[n]) }' | sort
}
# cpu_us LINE: the CPU median (µs) of a gobench line.
cpu_us() { awk -F'\t' '{ split($2, a, " "); print a[2] }' <<<"$1"; }
