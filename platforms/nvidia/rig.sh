#!/usr/bin/env bash
# NVIDIA rig: build bicl, run the whole test suite, bicl-check (contract + golden hashes),
# the start-up timing and the benchmarks on an NVIDIA GPU through NVIDIA's OpenCL
# driver, and print a summary. Written for the H200 machine of ../shared/gpu.md:
#   - Debian .debs of CLBlast, CMocka, MPFR/GMP and cJSON in .rig/ (fetch them on a
#     Debian machine: mkdir -p .rig && cd .rig && apt-get download libclblast1
#     libclblast-dev libcmocka0 libcmocka-dev libmpfr6 libmpfr-dev libgmp10 libgmp-dev
#     libcjson1 libcjson-dev); they are unpacked into /opt/rig, never into /;
#   - NVIDIA's OpenCL library registered with the ICD loader (done here if missing).
# usage: platforms/nvidia/rig.sh [BUILD_DIR]; results go to $OUT (default BUILD_DIR/out):
#   summary.txt, logs.tar.gz, check-nvidia.json, bench-nvidia.json (when built).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/rig-nvidia}
OUT=${OUT:-$B/out}
mkdir -p "$OUT" "$B/logs"
L=$B/logs
PREFIX=/opt/rig
if compgen -G ".rig/*.deb" >/dev/null; then
  for f in .rig/*.deb; do dpkg -x "$f" "$PREFIX"; done
  export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
export POCL_CACHE_DIR=$PWD/$B/pocl-cache
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
: >"$OUT/summary.txt"
summary "== bicl NVIDIA rig, $(date -u '+%F %T UTC')"
summary "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
status=0
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PREFIX/usr >"$L/configure.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" >"$L/build.log" 2>&1
if [ $? -ne 0 ]; then
  summary "BUILD FAILED"; tail -40 "$L/configure.log" "$L/build.log"
  tar -C "$B" -czf "$OUT/logs.tar.gz" logs; exit 1
fi
"$B/bicl-info" >"$L/info.txt" 2>&1
summary "$(grep -E '^\[|SUITABLE|fingerprint:' "$L/info.txt")"
for dev in ${RIG_DEVICES:-nvidia pocl}; do
  (cd "$B" && BICL_TEST_DEVICE=$dev BICL_DEVICE=$dev ctest --output-on-failure -j4 --timeout 1200) \
    >"$L/ctest-$dev.log" 2>&1 || status=1
  summary "ctest on $dev: $(grep -E 'tests passed|tests failed' "$L/ctest-$dev.log" | tail -1)"
  grep -E '\*\*\*Failed|FAILED  \]' "$L/ctest-$dev.log" | head -20 | tee -a "$OUT/summary.txt"
done
"$B/bicl-check" --device nvidia --json "$OUT/check-nvidia.json" >"$L/check-nvidia.txt" 2>&1 || status=1
summary "bicl-check nvidia: exit $? $(tail -1 "$L/check-nvidia.txt")"
"$B/bicl-check" --device nvidia --verify tests/golden/golden.txt >"$L/golden-nvidia.txt" 2>&1 || status=1
summary "golden verify nvidia: $(tail -1 "$L/golden-nvidia.txt")"
if [ -x "$B/bicl-bench" ]; then
  "$B/bicl-bench" --device nvidia --startup >"$L/startup-nvidia.txt" 2>&1
  summary "$(cat "$L/startup-nvidia.txt" | tail -4)"
  "$B/bicl-bench" --device nvidia --json "$OUT/bench-nvidia.json" >"$L/bench-nvidia.txt" 2>&1
  summary "$(tail -40 "$L/bench-nvidia.txt")"
fi
if [ -f platforms/nvidia/peers.py ]; then
  python3 platforms/nvidia/peers.py >"$L/peers.txt" 2>&1
  summary "$(tail -30 "$L/peers.txt")"
fi
tar -C "$B" -czf "$OUT/logs.tar.gz" logs
summary "== rig status: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
