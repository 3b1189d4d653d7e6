#!/usr/bin/env bash
# A long fuzzing run of one target (CI runs each target for 45 s in fuzz/run.sh; this is for
# the runs that mean something). The working corpus grows in build-fuzz/corpus-<target> (not
# committed; kept between runs); at the end it is minimized (-merge=1) and, with SAVE=1, the
# minimized corpus replaces the committed seeds in fuzz/corpus/<target> (the hand-written seeds
# are kept: they are named, the merged files are hashes). Prints executions, coverage and the CPU
# seconds spent, for the fuzzing log in fuzz/README.md.
#   bash fuzz/long_run.sh TARGET SECONDS
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1
seconds=$2
bash fuzz/run.sh 1 "$target" > /dev/null || true   # builds it
work=build-fuzz/corpus-$target
mkdir -p "$work" build-fuzz/artifacts
max_len=4096
case $target in dynamodb_request|tablestore_request) max_len=16384 ;; esac
dict=()
[ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
log=build-fuzz/$target.long.log
set +e
/usr/bin/time -f "%U %S" -o "$log.time" nice -n 10 build-fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=$max_len "${dict[@]}" -artifact_prefix=build-fuzz/artifacts/$target- \
  -print_final_stats=1 "$work" "fuzz/corpus/$target" > "$log" 2>&1
rc=$?
set -e
cpu=$(tail -1 "$log.time" | awk '{printf "%.0f", $1 + $2}')
echo "fuzz: $target exit=$rc cpu_seconds=$cpu"
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed 's/^/  /'
grep -E "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1 | sed 's/^/  /'
ls build-fuzz/artifacts/ | grep "^$target-" | sed 's/^/  artifact: /' || true
if [ "${SAVE:-0}" = 1 ] && [ "$rc" = 0 ]; then
  merged=$(mktemp -d)
  build-fuzz/fuzz_$target -merge=1 -max_len=$max_len "$merged" "$work" "fuzz/corpus/$target" \
    > /dev/null 2>&1
  find "fuzz/corpus/$target" -type f -regex '.*/[0-9a-f]\{40\}' -delete
  cp "$merged"/* "fuzz/corpus/$target/"
  rm -rf "$merged"
  echo "  corpus saved: $(ls fuzz/corpus/$target | wc -l) files, $(du -sh fuzz/corpus/$target | cut -f1)"
fi
exit $rc
