# shellcheck shell=bash
# Shared helpers for scripts/bench.d/*.sh (sourced, not run).
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN="$BENCH_ROOT/bin"

bench_install_tools() {
  local need=()
  for t in hyperfine jq; do command -v "$t" >/dev/null 2>&1 || need+=("$t"); done
  command -v /usr/bin/time >/dev/null 2>&1 || [ -x /usr/bin/time ] || need+=(time)
  if [ ${#need[@]} -gt 0 ]; then
    echo "bench: installing ${need[*]}" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  # always: a stale bin/ would time the code of another commit
  make -C "$BENCH_ROOT" build >/dev/null && [ -x "$BIN/loop-record" ]
}

# machine_line: one line naming the machine and date for a fragment header.
machine_line() {
  printf '%s, %s cores, %s, Go %s, %s\n' "$(uname -sm)" "$(nproc)" \
    "$(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)" \
    "$(go env GOVERSION 2>/dev/null | sed 's/^go//')" "$(date -u +%Y-%m-%d)"
}

# hf_median FILE INDEX: median seconds of the INDEXth command of a hyperfine JSON export.
hf_median() { jq -r ".results[$2].median" "$1"; }

# ms SECONDS: seconds to milliseconds with 2 decimals.
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }

# ratio A B: A/B with 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# peak_rss_mib CMD...: runs CMD and prints its peak RSS (MiB) from GNU time.
peak_rss_mib() {
  local f; f=$(mktemp)
  /usr/bin/time -f '%M' -o "$f" "$@" >/dev/null 2>&1 || true
  awk '{ printf "%.1f", $1 / 1024 }' "$f"
  rm -f "$f"
}
