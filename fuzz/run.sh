#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 60) over
# its seed corpus in fuzz/corpus/<target>. Exits non-zero if any target finds a crash, a leak or
# undefined behaviour; the reproducer is left in build-fuzz/artifacts/.
#   bash fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ > /dev/null
ninja -C build-fuzz -j 2 > /dev/null
mkdir -p build-fuzz/artifacts
status=0
for target in json_item expression sigv4 plainbuffer tablestore_request; do
  work=build-fuzz/corpus-$target
  mkdir -p "$work"
  echo "fuzz: $target for ${seconds}s"
  dict=()
  [[ -f fuzz/$target.dict ]] && dict=(-dict="fuzz/$target.dict")
  if ! build-fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
       -max_len=4096 -artifact_prefix=build-fuzz/artifacts/$target- -print_final_stats=1 \
       "${dict[@]}" "$work" "fuzz/corpus/$target" > "build-fuzz/$target.log" 2>&1; then
    echo "fuzz: $target FAILED (log: build-fuzz/$target.log)"
    tail -40 "build-fuzz/$target.log"
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "build-fuzz/$target.log" | tail -2 | sed 's/^/  /'
  fi
done
exit $status
