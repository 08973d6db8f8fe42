#!/usr/bin/env bash
# AMD rig: build bicl, run the whole test suite, bicl-check (contract + golden hashes),
# the start-up timing and the benchmarks on an AMD GPU through ROCm's OpenCL runtime, and
# print a summary. The counterpart of platforms/nvidia/rig.sh. NOT RUN YET: no AMD GPU
# was available while it was written, so treat its first run as its test.
# Prerequisites:
#   - ROCm with its OpenCL runtime (Debian/Ubuntu: rocm-opencl-runtime, or ROCm's
#     rocm-opencl) and the user in the render and video groups; its ICD file
#     (amdocl64*.icd) is registered with the ICD loader here if it is missing;
#   - Debian .debs of CLBlast, CMocka, MPFR/GMP and cJSON in .rig/, as for the NVIDIA
#     rig (mkdir -p .rig && cd .rig && apt-get download libclblast1 libclblast-dev
#     libcmocka0 libcmocka-dev libmpfr6 libmpfr-dev libgmp10 libgmp-dev libcjson1
#     libcjson-dev); they are unpacked into /opt/rig, never into /.
# The device spec is "AMD Accelerated Parallel Processing" (ROCm's platform name), not
# "amd": on a host with an AMD CPU, PoCL's CPU device has vendor "AuthenticAMD" and
# would match too. Override with RIG_AMD_SPEC (e.g. "gfx90a", or an index from bicl-info).
# usage: platforms/amd/rig.sh [BUILD_DIR]; results go to $OUT (default BUILD_DIR/out):
#   summary.txt, logs.tar.gz, check-amd.json, bench-amd.json (when built).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build/rig-amd}
OUT=${OUT:-$B/out}
AMD=${RIG_AMD_SPEC:-AMD Accelerated Parallel Processing}
mkdir -p "$OUT" "$B/logs"
L=$B/logs
PREFIX=/opt/rig
if compgen -G ".rig/*.deb" >/dev/null; then
  for f in .rig/*.deb; do dpkg -x "$f" "$PREFIX"; done
  export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
ROCM=${ROCM_PATH:-/opt/rocm}
if ! compgen -G "/etc/OpenCL/vendors/amdocl*.icd" >/dev/null; then
  lib=$(find "$ROCM/lib" "$ROCM/opencl/lib" -name 'libamdocl64.so*' 2>/dev/null | sort | head -1)
  if [ -n "$lib" ]; then
    mkdir -p /etc/OpenCL/vendors && echo "$lib" >/etc/OpenCL/vendors/amdocl64.icd
  fi
fi
export POCL_CACHE_DIR=$PWD/$B/pocl-cache
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
: >"$OUT/summary.txt"
summary "== bicl AMD rig, $(date -u '+%F %T UTC')"
if command -v rocm-smi >/dev/null; then
  summary "$(rocm-smi --showproductname --showdriverversion 2>&1 | grep -E 'Card series|Card SKU|Driver version' | head -3)"
else
  summary "rocm-smi not found (PATH: $ROCM/bin?)"
fi
status=0
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PREFIX/usr \
         >"$L/configure.log" 2>&1 && cmake --build "$B" -j"$(nproc)" >"$L/build.log" 2>&1; }; then
  summary "BUILD FAILED"; tail -40 "$L/configure.log" "$L/build.log"
  tar -C "$B" -czf "$OUT/logs.tar.gz" logs; exit 1
fi
"$B/bicl-info" >"$L/info.txt" 2>&1
summary "$(grep -E '^\[|SUITABLE|fingerprint:' "$L/info.txt")"
# The AMD GPU first, then PoCL on the host CPU as the control (same bits expected).
for dev in "$AMD" ${RIG_EXTRA_DEVICES:-pocl}; do
  tag=$(echo "$dev" | tr -c 'A-Za-z0-9\n' '_')
  (cd "$B" && BICL_TEST_DEVICE=$dev BICL_DEVICE=$dev ctest --output-on-failure -j4 --timeout 1200) \
    >"$L/ctest-$tag.log" 2>&1 || status=1
  summary "ctest on $dev: $(grep -E 'tests passed|tests failed' "$L/ctest-$tag.log" | tail -1)"
  grep -E '\*\*\*Failed|FAILED  \]' "$L/ctest-$tag.log" | head -20 | tee -a "$OUT/summary.txt"
done
"$B/bicl-check" --device "$AMD" --json "$OUT/check-amd.json" >"$L/check-amd.txt" 2>&1
rc=$?
[ $rc = 0 ] || status=1
summary "bicl-check amd: exit $rc $(tail -1 "$L/check-amd.txt")"
"$B/bicl-check" --device "$AMD" --verify tests/golden/golden.txt >"$L/golden-amd.txt" 2>&1 || status=1
summary "golden verify amd: $(tail -1 "$L/golden-amd.txt")"
if [ -x "$B/bicl-bench" ]; then
  "$B/bicl-bench" --device "$AMD" --startup >"$L/startup-amd.txt" 2>&1
  summary "$(tail -4 "$L/startup-amd.txt")"
  "$B/bicl-bench" --device "$AMD" --json "$OUT/bench-amd.json" >"$L/bench-amd.txt" 2>&1
  summary "$(tail -40 "$L/bench-amd.txt")"
fi
tar -C "$B" -czf "$OUT/logs.tar.gz" logs
summary "== rig status: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
