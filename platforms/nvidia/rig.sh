#!/usr/bin/env bash
# NVIDIA rig: build bicl, run the whole test suite, bicl-check (contract + golden hashes),
# the benchmarks with the PyTorch peers, the CLBlast audit and the start-up timing on an
# NVIDIA GPU through NVIDIA's OpenCL driver, and print a summary. Written for the H200
# machine of ../shared/gpu.md:
#   - Debian .debs of CLBlast, CMocka, MPFR/GMP and cJSON in .rig/ (fetch them on a
#     Debian machine: mkdir -p .rig && cd .rig && apt-get download libclblast1
#     libclblast-dev libcmocka0 libcmocka-dev libmpfr6 libmpfr-dev libgmp10 libgmp-dev
#     libcjson1 libcjson-dev); they are unpacked into /opt/rig, never into /;
#   - NVIDIA's OpenCL library registered with the ICD loader (done here if missing).
# usage: platforms/nvidia/rig.sh [BUILD_DIR]
#   RIG_STAGES picks stages (default: all but python, in this order):
#     build test-nvidia check bench peers test-pocl audit startup
#   and the opt-in stages latency (bicl-bench --latency: decode latency and host overhead
#   alone, median of 9) and python: python/tools/gpu_demo.sh (the Python package, its tests
#   and the PyTorch bridge's Llama-layer demo), results in $OUT/python.
#   RIG_BENCH_ARGS replaces the bench stage's "--variants" (e.g. "--reps 9": no sweep).
#   Results go to $OUT (default BUILD_DIR/out): summary.txt, logs.tar.gz,
#   check-nvidia/ (one log and JSON per shard), bench-nvidia.json, bench-nvidia.svg,
#   clblast-nvidia.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/rig-nvidia}
OUT=${OUT:-$B/out}
STAGES=${RIG_STAGES:-build test-nvidia check bench peers test-pocl audit startup}
mkdir -p "$OUT" "$B/logs"
L=$B/logs
# .rig/ unpacked under /opt/rig, NVIDIA's ICD registered
source platforms/nvidia/setup.sh
export POCL_CACHE_DIR=$PWD/$B/pocl-cache
has() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
# the logs travel as one archive, refreshed after every stage (a run cut short keeps them)
pack() { tar -C "$B" -czf "$OUT/logs.tar.gz" logs 2>/dev/null; }
touch "$OUT/summary.txt"
summary "== bicl NVIDIA rig, $(date -u '+%F %T UTC'), stages: $STAGES"
summary "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
status=0
if has build; then
  # warnings are not errors here: a newer compiler must not cost a GPU run (CI keeps -Werror)
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DBICL_WERROR=OFF -DCMAKE_PREFIX_PATH=$PREFIX/usr \
    >"$L/configure.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >"$L/build.log" 2>&1
  if [ $? -ne 0 ]; then
    summary "BUILD FAILED"; tail -40 "$L/configure.log" "$L/build.log"
    tar -C "$B" -czf "$OUT/logs.tar.gz" logs; exit 1
  fi
  summary "compiler warnings: $(grep -c 'warning:' "$L/build.log")"
  "$B/bicl-info" --device nvidia >"$L/info.txt" 2>&1
  summary "$(grep -E '^\[|SUITABLE|fingerprint' "$L/info.txt")"
  pack
fi
for dev in nvidia pocl; do
  has "test-$dev" || continue
  (cd "$B" && BICL_TEST_DEVICE=$dev BICL_DEVICE=$dev ctest --output-on-failure -j8 --timeout 600) \
    >"$L/ctest-$dev.log" 2>&1 || status=1
  pack
  summary "ctest on $dev: $(grep -E 'tests passed|tests failed' "$L/ctest-$dev.log" | tail -1)"
  grep -E '\*\*\*Failed|FAILED  \]|drift [0-9]' "$L/ctest-$dev.log" | head -40 | tee -a "$OUT/summary.txt"
done
if has check; then
  # RIG_CHECK=full runs every variant on every layout; the default is --quick (every op
  # and layout, variants and offsets on the packed layout). RIG_CHECK_JOBS processes side
  # by side (platforms/check_shards.sh: one process compiles its ops' programs one after
  # another), their logs and JSON in $OUT/check-nvidia/.
  platforms/check_shards.sh "$B/bicl-check" nvidia "${RIG_CHECK_JOBS:-8}" "$OUT/check-nvidia" \
    $([ "${RIG_CHECK:-quick}" = full ] || echo --quick) --verify tests/golden/golden.txt \
    >"$L/check-nvidia.txt" 2>&1 || status=1
  summary "bicl-check nvidia (${RIG_CHECK:-quick}, golden verified): $(tail -1 "$L/check-nvidia.txt")"
  pack
fi
if has latency && [ -x "$B/bicl-bench" ]; then
  "$B/bicl-bench" --device nvidia --latency --reps 9 >"$L/latency-nvidia.txt" 2>&1
  summary "$(tail -8 "$L/latency-nvidia.txt")"
  pack
fi
if has bench && [ -x "$B/bicl-bench" ]; then
  # shellcheck disable=SC2086 # RIG_BENCH_ARGS is a list of arguments
  "$B/bicl-bench" --device nvidia ${RIG_BENCH_ARGS:---variants} --json "$OUT/bench-nvidia.json" --svg "$OUT/bench-nvidia.svg" \
    >"$L/bench-nvidia.txt" 2>&1
  summary "$(grep -vE '^ ' "$L/bench-nvidia.txt" | tail -60)"
  pack
fi
if has peers && [ -f platforms/nvidia/peers.py ]; then
  timeout 300 python3 platforms/nvidia/peers.py "$OUT/bench-nvidia.json" >"$L/peers.txt" 2>&1
  summary "$(tail -48 "$L/peers.txt")" # the ratio table and the targets
  pack
fi
if has audit && [ -x "$B/bicl-clblast-audit" ]; then
  "$B/bicl-clblast-audit" --device nvidia --json "$OUT/clblast-nvidia.json" >"$L/clblast-nvidia.txt" 2>&1
  summary "$(tail -40 "$L/clblast-nvidia.txt")"
  pack
fi
if has startup && [ -x "$B/bicl-bench" ]; then
  "$B/bicl-bench" --device nvidia --startup >"$L/startup-nvidia.txt" 2>&1
  summary "$(cat "$L/startup-nvidia.txt")"
fi
if has python; then
  OUT=$OUT/python python/tools/gpu_demo.sh "$B/python" >"$L/python.txt" 2>&1 || status=1
  summary "$(tail -30 "$L/python.txt")"
fi
pack
summary "== rig status: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
