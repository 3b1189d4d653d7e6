#!/usr/bin/env bash
# Builds ttlstore and its unit tests with AddressSanitizer + UndefinedBehaviorSanitizer (in
# build-asan/, -O1 without debug info: the instrumented build is the slow part of CI) and runs
# the GoogleTest unit tests and the pytest end-to-end tests (boto3, AWS CLI) against that build.
# A sanitizer report aborts the server or test process, so any finding fails the run.
# scripts/test.sh (and so .ci/run) calls it; it also runs alone:
#   bash scripts/sanitize.sh            # build + unit + e2e
#   TTLSTORE_SANITIZE_NODE=1 bash scripts/sanitize.sh   # + the Tablestore SDK tests
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ ! -f build-asan/CMakeCache.txt ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="-O1 -DNDEBUG" \
        -DTTLSTORE_SANITIZE=ON > /dev/null
fi
ninja -C build-asan -j "${JOBS:-2}" ttlstore unit_tests
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
echo "== unit tests (ASan+UBSan)"
build-asan/unit_tests --gtest_brief=1
export TTLSTORE_BIN="$PWD/build-asan/ttlstore"
echo "== end-to-end tests (pytest, boto3, aws cli; ASan+UBSan)"
set +e
/usr/bin/python3 -m pytest test/e2e -q -p no:cacheprovider -W ignore::DeprecationWarning
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: treating as failure" >&2
  exit 1
fi
[ "$rc" -eq 0 ] || exit "$rc"
if [ "${TTLSTORE_SANITIZE_NODE:-0}" = 1 ]; then
  echo "== Tablestore end-to-end tests (ASan+UBSan)"
  node --test test/tablestore/
fi
