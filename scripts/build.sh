#!/usr/bin/env bash
# Configures and builds ttlstore into build/ (RelWithDebInfo unless BUILD_TYPE says otherwise).
# Uses at most 2 parallel jobs unless JOBS says otherwise; TARGETS (space-separated) limits what
# is built (default: everything, the unit tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}"
fi
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "${JOBS:-2}" "${targets[@]}"
