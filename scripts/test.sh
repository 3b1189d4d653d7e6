#!/usr/bin/env bash
# Installs what ttlstore needs, builds it, and runs every test: the GoogleTest unit tests (ctest)
# and the end-to-end tests that drive the real binary with boto3 and the AWS CLI (pytest).
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh

echo "== unit tests (ctest)"
ctest --test-dir build --output-on-failure -j 2

echo "== end-to-end tests (pytest, boto3, aws cli)"
export TTLSTORE_BIN="$PWD/build/ttlstore"
# Debian's python3 carries python3-boto3 and python3-pytest; a pyenv python on PATH would not.
set +e
/usr/bin/python3 -m pytest test/e2e -q -p no:cacheprovider
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: treating as failure" >&2
  exit 1
fi
[ "$rc" -eq 0 ] || exit "$rc"

echo "== Tablestore end-to-end tests (node --test, official tablestore SDK)"
TTLSTORE_BIN="$PWD/build/ttlstore" node --test test/tablestore/

echo "== fuzzing the parsers of untrusted input (fuzz/run.sh, 60 s per target)"
bash fuzz/run.sh "${TTLSTORE_FUZZ_SECONDS:-60}"

echo "== benchmark tooling smoke test (bench/smoke.sh)"
bash bench/smoke.sh
