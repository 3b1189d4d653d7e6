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
