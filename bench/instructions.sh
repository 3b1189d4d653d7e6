#!/usr/bin/env bash
# Instructions per operation of a ttlstore binary, counted by callgrind: a figure that does not
# move with what else the machine is doing (server CPU time on these shared VMs varies 10-20%
# from run to run), so a change of a few percent in ttlstore's own code can be seen. It counts
# the server's user-space instructions only: not the kernel (network, write(2)), not cache
# misses, so it complements bench/run_peers.py and bench/profile.py rather than replacing them.
#
#   bench/instructions.sh BIN WORKLOAD [KEYS] [SECONDS]
#   bench/instructions.sh build/ttlstore put 2000 8      # -> "put: 5304 ops, 94962 instructions/op"
#
# Starts BIN under valgrind --tool=callgrind on a fresh data dir, loads KEYS items (the query
# workload: its own table) with bench/loadgen, zeroes the counters, runs WORKLOAD for SECONDS at
# 4 connections, dumps the counters and divides. The dump stays in the temporary folder printed
# last, for callgrind_annotate --inclusive=yes. Needs valgrind and build-bench/loadgen.
set -euo pipefail
BIN=${1:?usage: bench/instructions.sh BIN WORKLOAD [KEYS] [SECONDS]}
WORKLOAD=${2:?usage: bench/instructions.sh BIN WORKLOAD [KEYS] [SECONDS]}
KEYS=${3:-2000}
SECONDS_RUN=${4:-8}
PORT=${PORT:-18640}
REPO=$(cd "$(dirname "$0")/.." && pwd)
LOADGEN=${LOADGEN:-$REPO/build-bench/loadgen}
command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; exit 2; }
[ -x "$LOADGEN" ] || { echo "$LOADGEN is missing: cmake -S bench -B build-bench && cmake --build build-bench" >&2; exit 2; }

TMP=$(mktemp -d /tmp/ttlstore-instructions-XXXXXX)
valgrind --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" \
  "$BIN" serve --port "$PORT" --data-dir "$TMP/data" > "$TMP/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2> /dev/null || true' EXIT
for _ in $(seq 1 200); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT/health" && break
  sleep 0.2
done
preload=load
[ "$WORKLOAD" = query ] && preload=query
"$LOADGEN" --endpoint "http://127.0.0.1:$PORT" --workload "$preload" --connections 4 \
  --keys "$KEYS" --duration 1 --warmup 0 > /dev/null 2>&1
callgrind_control -z "$PID" > /dev/null
OUT=$("$LOADGEN" --endpoint "http://127.0.0.1:$PORT" --workload "$WORKLOAD" --connections 4 \
  --keys "$KEYS" --duration "$SECONDS_RUN" --warmup 0 --preload 0 2>&1 | grep '"workload"')
callgrind_control -d "$PID" > /dev/null
sleep 1
kill "$PID"
wait "$PID" 2> /dev/null || true
trap - EXIT
OPS=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["ops"])')
IR=$(grep -h '^totals:' "$TMP"/callgrind.out.1 | awk '{print $2}')
python3 -c "print('$WORKLOAD: $OPS ops, %.0f instructions/op' % ($IR / $OPS))"
echo "callgrind dump: $TMP/callgrind.out.1"
