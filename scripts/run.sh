#!/usr/bin/env bash
# Installs what ttlstore needs, builds it, and serves the DynamoDB API on 127.0.0.1:8000 with
# data in ./ttlstore-data. Extra arguments go to `ttlstore serve` (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
exec build/ttlstore serve --data-dir ./ttlstore-data "$@"
