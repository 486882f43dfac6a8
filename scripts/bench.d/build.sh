#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# make build in a fresh copy with an empty build cache (the modules already
# downloaded: the proxy's speed is not loopkit's), as a first make demo
# builds. Skipped with BENCH_QUICK. Writes docs/bench/build.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
[ -z "${BENCH_QUICK:-}" ] || exit 0
bench_install_tools
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
cleanup() {
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
EXIT_HOOK=cleanup
git -C "$BENCH_ROOT" archive HEAD | (mkdir -p "$work/src" && tar -x -C "$work/src")
(cd "$work/src" && go mod download)
cat >"$work/prepare" <<SH
#!/bin/sh
rm -rf "$work/cache" "$work/src/bin"
SH
chmod +x "$work/prepare"
measure "$work/b.json" -r 1 --dir "$work/src" --prepare "$work/prepare" \
  "env GOCACHE=$work/cache GOFLAGS=-modcacherw make -s build"
cat >"$BENCH_ROOT/docs/bench/build.md" <<MD
## Building with an empty cache

$(measured -- cmd internal pkg)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/b.json").
\`make build\` (the commands \`make demo\` runs) in a fresh copy with an empty
\`GOCACHE\`; the modules were downloaded beforehand.

| what | figure | target |
|---|---|---|
| \`make build\`, empty build cache | $(fig "$work/b.json" 0) | a first \`make demo\` under 120 s |

\`make build\` never compiles Bubble Tea or the OpenTelemetry SDK:
\`loop-tui\` and \`loop-export\` are their own targets (\`make tui\`, \`make export\`).
MD
echo "wrote docs/bench/build.md" >&2
