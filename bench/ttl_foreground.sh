#!/usr/bin/env bash
# Foreground traffic during an expiry wave (rule D5): GetItem throughput and p99 with wrk, once
# before a wave and once while N items (all due in the same second) are being deleted.
#
#   bench/ttl_foreground.sh [ENDPOINT] [ITEMS] [SECONDS]
#   bench/ttl_foreground.sh http://127.0.0.1:8000 200000 6
#
# Needs wrk (Debian: apt-get install wrk) and python3-boto3. Bounded: each wrk run lasts SECONDS.
set -euo pipefail
endpoint=${1:-http://127.0.0.1:8000}
items=${2:-200000}
seconds=${3:-6}
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
table="ttl_fg_$RANDOM$RANDOM"

cat > "$work/get.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.GetItem"
wrk.body = '{"TableName":"$table","Key":{"pk":{"S":"hot"}}}'
LUA

# Load time grows with the wave; leave enough room before the common expiry second.
expires=$(( $(date +%s) + 20 + items / 8000 ))
/usr/bin/python3 "$here/ttl_load.py" --endpoint "$endpoint" --table "$table" --items "$items" \
    --expires "$expires"

echo "== baseline (no item due)"
wrk -t2 -c50 -d"${seconds}s" --latency -s "$work/get.lua" "$endpoint" | grep -E "Requests/sec|99%"
while [ "$(date +%s)" -lt "$expires" ]; do sleep 0.1; done
echo "== during the expiry wave of $items items"
wrk -t2 -c50 -d"${seconds}s" --latency -s "$work/get.lua" "$endpoint" | grep -E "Requests/sec|99%"
curl -s "$endpoint/metrics" | grep -E "^ttlstore_ttl_deleted_items_total\{table=\"$table\"\}" || true
