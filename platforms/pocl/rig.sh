#!/usr/bin/env bash
# PoCL rig: build, run the whole test suite and bicl-check on PoCL, print a summary.
# usage: platforms/pocl/rig.sh [BUILD_DIR]     (results also go to $OUT when set)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/rig-pocl}
OUT=${OUT:-$B/out}
mkdir -p "$OUT"
export BICL_DEVICE=pocl POCL_CACHE_DIR=$PWD/$B/pocl-cache
status=0
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
(cd "$B" && ctest --output-on-failure -j2) >"$OUT/ctest.log" 2>&1 || status=1
"$B/bicl-check" --device pocl --json "$OUT/check.json" >"$OUT/check.txt" 2>&1 || status=1
echo "== PoCL rig summary ($(date -u +%F))"
tail -3 "$OUT/ctest.log"
tail -5 "$OUT/check.txt"
exit $status
