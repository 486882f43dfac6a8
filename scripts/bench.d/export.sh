#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# loop-export, the binary `make export` ships: a 10,000-iteration run (two
# tool calls an iteration) sent to a local OTLP/HTTP receiver, its
# checkpoint removed before every round (sent again, it would send nothing);
# the binary's size. Writes docs/bench/export.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_install_tools
make -C "$BENCH_ROOT" export >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
rcv=""
cleanup() {
  [ -z "$rcv" ] || kill "$rcv" 2>/dev/null
  rm -rf "$work"
}
EXIT_HOOK=cleanup
n=10000 rounds=5; [ -n "${BENCH_QUICK:-}" ] && n=2000 rounds=3
export LOOP_STORE="$work/.loop" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b

# One real iteration (an agent step of two tool calls, a failing
# validation), recorded by loop-record, then copied n times.
mkdir -p "$work/ws" && cd "$work/ws" && echo task >TASK.md
cat >agent <<'SH'
#!/bin/sh
cat >/dev/null
s='"session_id":"b"' u='"usage":{"input_tokens":1200,"output_tokens":300}'
echo '{"type":"assistant","message":{"id":"a1","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"a.go"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go test ./..."}}],'"$u"'},'"$s"'}'
echo '{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"},{"tool_use_id":"t2","type":"tool_result","content":"FAIL","is_error":true}]},'"$s"'}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done",'"$s"',"total_cost_usd":0.02,'"$u"'}'
SH
chmod +x agent
"$BIN/loop-record" new --run tmpl >/dev/null
{ "$BIN/loop-step" --run tmpl --prompt TASK.md -- ./agent
  "$BIN/loop-validate" --run tmpl -- sh -c 'echo "--- FAIL: TestX"; exit 1' || true; } 2>/dev/null |
  "$BIN/loop-record" --run tmpl --iteration 1 >/dev/null
"$BIN/loop-record" new --run big >/dev/null
jq -c --argjson n "$n" 'range(1; $n + 1) as $i | .iteration = $i | .id = "big-iter-\($i)" | .run_id = "big"' \
  "$LOOP_STORE/runs/tmpl/iterations.jsonl" >"$LOOP_STORE/runs/big/iterations.jsonl"

# The receiver answers every POST 200 and counts the bytes it was sent.
python3 - "$work" <<'PY' &
import http.server, sys
work = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0)); self.rfile.read(n)
        with open(work + "/received", "a") as f: f.write(f"{n}\n")
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(work + "/port.tmp", "w").write(str(s.server_address[1])); __import__("os").rename(work + "/port.tmp", work + "/port")
s.serve_forever()
PY
rcv=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")"
# before each round: the checkpoint goes (else nothing is sent), and the
# round before must have sent its spans
cat >"$work/prepare" <<SH
#!/bin/sh
if [ -e "$work/received" ]; then
  [ "\$(awk '{ s += \$1 } END { print s + 0 }' "$work/received")" -gt $((n * 100)) ] || { echo "bench: loop-export sent too little" >&2; exit 1; }
fi
rm -rf "$LOOP_STORE/export" "$work/received"
SH
chmod +x "$work/prepare"
measure "$work/e.json" -r "$rounds" -w 1 --prepare "$work/prepare" "$BIN/loop-export big --endpoint $url"
"$work/prepare"
size=$(awk -v b="$(stat -c %s "$BIN/loop-export")" 'BEGIN { printf "%.2f MB (%.2f MiB)", b / 1e6, b / 1048576 }')
/usr/bin/time -f '%M' -o "$work/rss" "$BIN/loop-export" big --endpoint "$url" >/dev/null
rss=$(awk '{ printf "%.1f", $1 / 1024 }' "$work/rss")
rate() { jq -r --argjson n "$n" ".results[0].$1.median as \$s | \$n / \$s | round" "$work/e.json"; }

cat >"$BENCH_ROOT/docs/bench/export.md" <<MD
## loop-export

$(measured ./cmd/loop-export)

Machine: $(machine_line); commit $BENCH_COMMIT; $(when "$work/e.json").
A $n-iteration run (each iteration: the iteration, agent, validation and
two tool spans) sent by \`bin/loop-export\` (\`make export\`) to an OTLP/HTTP
receiver on 127.0.0.1 (a Python server that reads and drops each request),
its checkpoint removed before each round.

| what | figure | target |
|---|---|---|
| \`loop-export big --endpoint URL\` | $(fig "$work/e.json" 0) | |
| iterations per second of wall time / of CPU (medians) | $(rate wall) / $(rate cpu) | ≥ 5,000 |
| peak RSS (GNU time) | $rss MiB | < 64 MiB |
| size of \`bin/loop-export\` | $size | ≤ 12 MB |

loop-export delivers as it reads (every 2,048 spans, then the checkpoint
moves), so its memory does not grow with the run.
MD
echo "wrote docs/bench/export.md" >&2
