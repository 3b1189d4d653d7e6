#!/usr/bin/env bash
# Installs what ttlstore needs, builds it, and runs every test: the GoogleTest unit tests and the
# end-to-end tests that drive the real binary with boto3 and the AWS CLI (pytest), both under
# ASan+UBSan; the Tablestore SDK tests, the JavaScript DynamoDB client tests, the dynamodb-admin
# web GUI test and the benchmark smoke test on the release build; and the fuzzers.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The release server; its unit tests and the end-to-end tests run on the AddressSanitizer +
# UBSan build below (the same code, with memory errors and undefined behaviour turned into
# failures), which keeps the whole run within the CI's time on two cores.
TARGETS=ttlstore bash scripts/build.sh

echo "== sanitizer build, unit and end-to-end tests (scripts/sanitize.sh)"
bash scripts/sanitize.sh

echo "== Tablestore end-to-end tests (node --test, official tablestore SDK)"
TTLSTORE_BIN="$PWD/build/ttlstore" node --test test/tablestore/

echo "== JavaScript DynamoDB clients end-to-end (node --test: AWS SDK v3, dynamoose, ElectroDB, DynamoDB Toolbox)"
TTLSTORE_BIN="$PWD/build/ttlstore" node --test test/js/

echo "== web GUI end-to-end test (node --test, dynamodb-admin in headless Chromium)"
TTLSTORE_BIN="$PWD/build/ttlstore" node --test test/gui/

echo "== fuzzing the parsers of untrusted input (fuzz/run.sh, 30 s per target)"
bash fuzz/run.sh "${TTLSTORE_FUZZ_SECONDS:-30}"

echo "== benchmark tooling smoke test (bench/smoke.sh)"
bash bench/smoke.sh
