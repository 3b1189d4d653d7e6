#!/usr/bin/env bash
# Builds ttlstore and its unit tests with AddressSanitizer + UndefinedBehaviorSanitizer (in
# build-asan/) and runs every test suite against that build: GoogleTest, the pytest end-to-end
# tests (boto3, AWS CLI) and the Tablestore Node SDK tests. A sanitizer report aborts the server
# or test process, so any finding fails the run. Not part of .ci/run yet: on the 2-core CI
# machine the instrumented build alone takes about 12 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTTLSTORE_SANITIZE=ON > /dev/null
ninja -C build-asan -j 2 ttlstore unit_tests
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
echo "== unit tests (ASan+UBSan)"
build-asan/unit_tests --gtest_brief=1
export TTLSTORE_BIN="$PWD/build-asan/ttlstore"
echo "== end-to-end tests (ASan+UBSan)"
/usr/bin/python3 -m pytest test/e2e -q -p no:cacheprovider
echo "== Tablestore end-to-end tests (ASan+UBSan)"
node --test test/tablestore/
