#!/usr/bin/env bash
# What the embedded database's thread costs a plain read (bench/README.md, "The embedded database's
# thread"): two servers on copies of one demo-data folder, BEFORE_ROOT (a built checkout of the commit
# before the thread, PGlite in the serving thread) and AFTER_ROOT (default this checkout), measured in
# alternating rounds of BENCH_REQUESTS (3000) `GET /api/entities/1` at 8 connections: requests per
# second, latency, and the CPU time of each process (every thread's) per request.
#
#   DATA_DIR=/tmp/vda-embedded ADMIN_CLIENT_ID=bench-admin ADMIN_CLIENT_SECRET=bench-admin-secret-0123456789abcdefghij \
#     LOAD_DEMO_DATA=true npm start      # once, then stop it; then:
#   BEFORE_ROOT=/path/to/before DATA_DIR=/tmp/vda-embedded bash bench/embedded-thread.sh
set -euo pipefail
AFTER_ROOT=${AFTER_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
: "${BEFORE_ROOT:?a built checkout of the commit before}" "${DATA_DIR:?the prepared demo-data folder}"
ROUNDS=${BENCH_ROUNDS:-4}
REQUESTS=${BENCH_REQUESTS:-3000}
SECRET=bench-admin-secret-0123456789abcdefghij
AUTOCANNON="$AFTER_ROOT/node_modules/.bin/autocannon"
TICKS=$(getconf CLK_TCK)

start() { # root data-dir port
  rm -rf "$2" && cp -r "$DATA_DIR" "$2"
  (cd "$1" && DATA_DIR=$2 PORT=$3 HOST=127.0.0.1 LOAD_DEMO_DATA=false ADMIN_CLIENT_ID=bench-admin ADMIN_CLIENT_SECRET=$SECRET \
    LOG_LEVEL=warn RATE_LIMIT_PER_SECOND=1000000 RATE_LIMIT_BURST=1000000 exec node dist/main.js >"$2.log" 2>&1) &
  echo $!
}
BEFORE=$(start "$BEFORE_ROOT" "$DATA_DIR-before" 4911)
AFTER=$(start "$AFTER_ROOT" "$DATA_DIR-after" 4912)
trap 'kill -TERM $BEFORE $AFTER 2>/dev/null || true' EXIT
for port in 4911 4912; do
  for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 1; done
done
token() {
  curl -s "http://127.0.0.1:$1/oauth/token" -d grant_type=client_credentials -d client_id=bench-admin -d client_secret=$SECRET |
    node -p "JSON.parse(require('fs').readFileSync(0)).access_token"
}
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() { # label port token pid requests
  local before after out
  before=$(cpu "$4")
  out=$("$AUTOCANNON" -j -c 8 -a "$5" -H "Authorization=Bearer $3" -H "X-Client-Id=bench-admin" -H "User-Agent=bench/1.0 (bench@example.org)" \
    "http://127.0.0.1:$2/api/entities/1" 2>/dev/null)
  after=$(cpu "$4")
  node -e "const [label, out, before, after, count, ticks] = process.argv.slice(1); const r = JSON.parse(out);
    console.log(label.padEnd(7), 'req/s', Math.round(count / r.duration), 'p50', r.latency.p50, 'ms p99', r.latency.p99, 'ms non-2xx', r.non2xx,
      'cpu/request', ((after - before) * 1000 / ticks / count).toFixed(2), 'ms')" "$1" "$out" "$before" "$after" "$5" "$TICKS"
}
BEFORE_TOKEN=$(token 4911)
AFTER_TOKEN=$(token 4912)
run before 4911 "$BEFORE_TOKEN" "$BEFORE" 500 >/dev/null
run after 4912 "$AFTER_TOKEN" "$AFTER" 500 >/dev/null
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  run before 4911 "$BEFORE_TOKEN" "$BEFORE" "$REQUESTS"
  run after 4912 "$AFTER_TOKEN" "$AFTER" "$REQUESTS"
done
