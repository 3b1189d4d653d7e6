#!/usr/bin/env bash
# CI smoke test of the benchmark tooling: builds bench/loadgen, starts ttlstore on a free loopback
# port with a fresh data dir, runs every workload for 1 s with 4 connections, and fails if any
# workload reports an error or completes no operation. Also checks loadgen's SigV4 signature
# against botocore's when botocore is installed; then the Tablestore increments, purge and
# search-index benchmarks at a size of seconds (when the Tablestore SDK is installed), and
# bench/backends.py --tiny (RocksDB vs PostgreSQL) and bench/processes.py --tiny (several
# processes on one database), when postgresql-15 is installed. Takes about two minutes.
#   TTLSTORE_BIN  ttlstore binary (default build/ttlstore, built with scripts/build.sh if missing)
#   LOADGEN_BUILD_DIR  where to build the load generator (default build-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build_dir=${LOADGEN_BUILD_DIR:-build-bench}
case $build_dir in /*) ;; *) build_dir=$repo/$build_dir ;; esac
ttlstore=${TTLSTORE_BIN:-build/ttlstore}

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S bench -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build_dir" -j "${JOBS:-2}" >/dev/null
loadgen=$build_dir/loadgen
[ -x "$ttlstore" ] || bash scripts/build.sh >/dev/null

work=$(mktemp -d /tmp/ttlstore-bench-smoke.XXXXXX)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# --port 0 lets the kernel pick a free port; the "listening" log line says which.
: >"$work/server.log"  # exists before the background job opens it, for the grep below
"$ttlstore" serve --port 0 --data-dir "$work/data" >"$work/server.log" 2>&1 &
server_pid=$!
endpoint=
for _ in $(seq 1 200); do
  endpoint=$(grep -o 'address=http://[0-9.]*:[0-9]*' "$work/server.log" | head -1 | cut -d= -f2 || true)
  [ -n "$endpoint" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "smoke: ttlstore exited" >&2; exit 1; }
  sleep 0.05
done
[ -n "$endpoint" ] || { echo "smoke: ttlstore did not log its address" >&2; exit 1; }
echo "smoke: ttlstore pid $server_pid at $endpoint"

python3 bench/sigv4_check.py "$loadgen"

workloads=(put get mixed update query batch-put scan)
set +e
timeout 50 "$loadgen" --endpoint "$endpoint" --workload "$(IFS=,; echo "${workloads[*]}")" \
  --connections 4 --duration 1 --warmup 0 --keys 2000 --server-pid "$server_pid" \
  --timeout-ms 5000 >"$work/loadgen.out" 2>&1
rc=$?
set -e
grep -v '^{' "$work/loadgen.out" || true

passed=0 failed=0
for w in "${workloads[@]}"; do
  line=$(grep "^{\"workload\":\"$w\"" "$work/loadgen.out" || true)
  if [ -n "$line" ] && echo "$line" | grep -q '"error_count":0,' && ! echo "$line" | grep -q '"ops":0,'; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "smoke: FAILED $w: ${line:-no result}" >&2
  fi
done
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || { failed=1; echo "smoke: loadgen exited $rc" >&2; }

# The Tablestore benchmarks start servers of their own (from the same binary), at a size that
# takes seconds; they need the SDK the Tablestore tests install.
if [ -d test/tablestore/node_modules/tablestore ]; then
  for run in "tablestore_increments.mjs --count 2000 --window 500 --max-seconds 60" \
             "tablestore_purge.mjs --rows 20000 --hidden-percent 1 --kind ttl --interval 1" \
             "search.mjs --rows 2000 --write-rows 1000 --seconds 1 --concurrency 2"; do
    # shellcheck disable=SC2086
    if timeout 120 node bench/${run%% *} --bin "$ttlstore" ${run#* } >"$work/ts.out" 2>&1; then
      passed=$((passed + 1))
      grep -v '^  [0-9]* increments' "$work/ts.out" || true
    else
      failed=$((failed + 1))
      cat "$work/ts.out" >&2
      echo "smoke: FAILED bench/${run%% *}" >&2
    fi
  done
fi
# The PostgreSQL benchmarks at a size of seconds, when Debian's postgresql-15 and boto3 are
# installed; each starts and stops its own clusters. `pg_bench NAME LIMIT_S SUMMARY ARGS...` runs
# bench/NAME.py --tiny with ARGS and shows the report's lines that match SUMMARY.
pg_bench() {
  local name=$1 limit=$2 summary=$3
  shift 3
  if timeout "$limit" python3 "bench/$name.py" --tiny "$@" --ttlstore "$ttlstore" \
      --loadgen "$loadgen" --out "$work/$name" >"$work/$name.out" 2>&1; then
    passed=$((passed + 1))
    grep "$summary" "$work/$name.out" || true
  else
    failed=$((failed + 1))
    tail -30 "$work/$name.out" >&2
    echo "smoke: FAILED bench/$name.py --tiny" >&2
  fi
}
if [ -x /usr/lib/postgresql/15/bin/initdb ] && python3 -c 'import boto3' 2>/dev/null; then
  # The backends benchmark's PostgreSQL side (2000 items, 0.5 s per workload, one TTL wave of
  # 2000 items; about 20 s, most of it the cluster's start and the wave's lead time; RocksDB is
  # what the runs above exercise).
  pg_bench backends 120 '^| \(put\|get\|TTL wave\)' --backends postgresql --waves idle
  # Several ttlstore processes on one PostgreSQL (1 and 3 processes: loadgen's client threads
  # over every endpoint, a TTL wave deleted by all, a takeover after kill -9; about 35 s, most
  # of it the clusters' start and the takeover's lease time).
  pg_bench processes 180 '^| [0-9] | \(put\|get\)' --counts 1,3
fi
echo "bench smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
