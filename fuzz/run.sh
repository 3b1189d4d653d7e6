#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 60) over
# its seed corpus in fuzz/corpus/<target>, with its dictionary fuzz/<target>.dict. Exits non-zero
# if any target finds a crash, a leak, a timeout or undefined behaviour; the reproducer is left in
# build-fuzz/artifacts/. Longer runs: fuzz/long_run.sh (fuzz/README.md).
#   bash fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json_item expression sigv4 plainbuffer content_decoding ion_item replicate_response dynamodb_request tablestore_request)
cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ > /dev/null
ninja -C build-fuzz -j "${JOBS:-2}" $(printf 'fuzz_%s ' "${targets[@]}") > /dev/null
mkdir -p build-fuzz/artifacts
status=0
for target in "${targets[@]}"; do
  work=build-fuzz/corpus-$target
  mkdir -p "$work"
  # Whole-request targets read bodies; the parsers' targets stay small and fast.
  max_len=4096
  case $target in dynamodb_request|tablestore_request) max_len=16384 ;; esac
  dict=()
  [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
  echo "fuzz: $target for ${seconds}s"
  if ! build-fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=$max_len "${dict[@]}" -artifact_prefix=build-fuzz/artifacts/$target- \
       -print_final_stats=1 "$work" "fuzz/corpus/$target" > "build-fuzz/$target.log" 2>&1; then
    echo "fuzz: $target FAILED (log: build-fuzz/$target.log)"
    tail -40 "build-fuzz/$target.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "build-fuzz/$target.log" | tail -2 | sed 's/^/  /'
  fi
done
exit $status
