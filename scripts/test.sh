#!/usr/bin/env bash
# Installs what ttlstore needs, builds it, and runs every test: the GoogleTest unit tests, the
# end-to-end tests that drive the real binary with boto3 and the AWS CLI (pytest), the Tablestore
# SDK tests, the JavaScript DynamoDB client tests, the dynamodb-admin web GUI test and the
# benchmark smoke test, all on one AddressSanitizer + UBSan build; then the fuzzers.
# Exits non-zero if anything fails.
#
# One server build, not two: the instrumented build is the same code with memory errors and
# undefined behaviour turned into failures, and compiling a second (release) copy cost about
# nine of the CI's sixty minutes on two cores. The release build is scripts/build.sh (README).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage() { echo "== [$((SECONDS - start)) s] $*"; }

bash scripts/install-deps.sh

# A throwaway PostgreSQL 15 on loopback for the PostgreSQL backend's tests: the unit tests'
# storage conformance suite runs on it as well as on RocksDB (TTLSTORE_TEST_PG), and so do the
# end-to-end suites named below (TTLSTORE_E2E_PG). test/e2e/test_pg_backend.py starts its own.
eval "$(bash scripts/pg-server.sh start)"
trap 'bash scripts/pg-server.sh stop "$TTLSTORE_PG_DIR"' EXIT
export TTLSTORE_TEST_PG

stage "sanitizer build, unit and end-to-end tests (scripts/sanitize.sh)"
bash scripts/sanitize.sh

# The Node suites and the bench smoke test run on the sanitizer build too.
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
export TTLSTORE_BIN="$PWD/build-asan/ttlstore"

stage "Tablestore end-to-end tests (node --test, official tablestore SDK; ASan+UBSan)"
node --test test/tablestore/

stage "JavaScript DynamoDB clients end-to-end (node --test: AWS SDK v3, dynamoose, ElectroDB, DynamoDB Toolbox; ASan+UBSan)"
node --test test/js/

stage "web GUI end-to-end test (node --test, dynamodb-admin in headless Chromium; ASan+UBSan)"
node --test test/gui/

# The PostgreSQL backend: the whole suites run on RocksDB above; on PostgreSQL the suites of the
# storage paths that differ by backend (items, queries and scans, batches, transactions, TTL,
# streams, indexes, restarts, key and item limits, kill -9 during every background job; the
# JavaScript clients; Tablestore rows, versions, ranges, indexes).
# README "What runs where".
stage "PostgreSQL backend: end-to-end suites (TTLSTORE_E2E_PG; ASan+UBSan)"
# One seed per crash test here (two on RocksDB): the kill lands elsewhere in each run.
TTLSTORE_E2E_PG="$TTLSTORE_TEST_PG" TTLSTORE_CRASH_SEEDS=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  -W ignore::DeprecationWarning $(cat test/pg_e2e_suites.txt | grep -v '^#' | grep 'test/e2e/')
TTLSTORE_E2E_PG="$TTLSTORE_TEST_PG" node --test \
  $(cat test/pg_e2e_suites.txt | grep -v '^#' | grep -E 'test/(tablestore|js)/')

stage "benchmark tooling smoke test (bench/smoke.sh; ASan+UBSan server)"
bash bench/smoke.sh

# The parsers' fuzzers only: the two whole-request targets (dynamodb_request,
# tablestore_request) need the whole server compiled a second time with clang, about seven of
# the CI's sixty minutes; they run with `bash fuzz/run.sh SECONDS dynamodb_request
# tablestore_request` and in fuzz/long_run.sh, and the request paths' hostile inputs are also
# the end-to-end tests' (test/e2e/test_hostile_*.py, test/tablestore/hostile.test.mjs).
stage "fuzzing the parsers of untrusted input (fuzz/run.sh, 20 s per target)"
bash fuzz/run.sh "${TTLSTORE_FUZZ_SECONDS:-20}" json_item expression sigv4 plainbuffer \
  content_decoding ion_item replicate_response

stage "all tests passed"
