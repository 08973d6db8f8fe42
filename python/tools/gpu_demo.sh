#!/usr/bin/env bash
# The Python package on the NVIDIA rig (../shared/gpu.md): build and install it, run its
# tests on NVIDIA's OpenCL (the PyTorch bridge's tests included) and on PoCL, and the
# Llama-layer demo on torch CUDA tensors through the zero-copy bridge, checked against
# the host reference and the same layer on PoCL, with the per-call overhead against the
# native torch op. One device call; results in $OUT (default BUILD_DIR/out):
#   summary.txt, demo.json, info.txt, logs.tar.gz.
#
# Prerequisites, on the development machine, in the checkout, once (ignored folder .rig/):
#   .rig/*.deb as for platforms/nvidia/rig.sh (cJSON, MPFR/GMP, CMocka, CLBlast), and
#   Python wheels for an offline build:
#     python3 -m pip download --only-binary=:all: -d .rig/wheels scikit-build-core pytest
# On the H200 machine (no registry): torch with CUDA, numpy, nvcc (cuda.h), NVIDIA's
# OpenCL driver (registered with the ICD loader here if needed).
#
# The package is built the way users get it: `pip wheel ./python` through
# scikit-build-core and the project's CMake, then unpacked into BUILD_DIR/site
# (PYTHONPATH; nothing system-wide). Where scikit-build-core cannot be had, the same
# CMake component is installed directly (cmake --install --component python) and the
# summary says so.
# usage: python/tools/gpu_demo.sh [BUILD_DIR]
#   GPU_DEMO_STAGES (default: build info test-nvidia test-pocl demo check)
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
B=${1:-build/gpu-demo}
mkdir -p "$B"
B=$(cd "$B" && pwd)
OUT=${OUT:-$B/out}
STAGES=${GPU_DEMO_STAGES:-build info test-nvidia test-pocl demo check}
L=$B/logs
mkdir -p "$OUT" "$L"
PY=${PYTHON:-python3}
# .rig/ unpacked under /opt/rig, NVIDIA's ICD registered
source "$SRC/platforms/nvidia/setup.sh"
if command -v nvcc >/dev/null && [ -z "${CUDA_HOME:-}" ]; then
  CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  export CUDA_HOME
fi
export POCL_CACHE_DIR=$B/pocl-cache
export CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$PREFIX/usr -DBICL_WERROR=OFF"
has() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
pack() { tar -C "$B" -czf "$OUT/logs.tar.gz" logs 2>/dev/null; }
: >"$OUT/summary.txt"
summary "== bicl Python package on the GPU rig, $(date -u '+%F %T UTC'), $(git rev-parse --short HEAD 2>/dev/null)"
summary "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
summary "python: $("$PY" -c 'import sys, numpy, torch; print(sys.version.split()[0], "numpy", numpy.__version__, "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1)"
status=0

# Offline Python helpers (scikit-build-core, pytest and their dependencies: pure-Python
# wheels, so unpacking them is installing them) into a private folder.
DEPS=$B/pydeps
if compgen -G ".rig/wheels/*.whl" >/dev/null; then
  for w in .rig/wheels/*.whl; do "$PY" -m zipfile -e "$w" "$DEPS" >>"$L/pydeps.log" 2>&1; done
fi
export PYTHONPATH=$DEPS${PYTHONPATH:+:$PYTHONPATH}

if has build; then
  rm -rf "$B/site" "$B/dist"
  how=""
  if "$PY" -c "import scikit_build_core" 2>/dev/null &&
    "$PY" -m pip wheel --no-deps --no-build-isolation -w "$B/dist" "$SRC/python" >"$L/build.log" 2>&1; then
    "$PY" -m zipfile -e "$B"/dist/bicl-*.whl "$B/site" && chmod +x "$B"/site/bicl/bin/*
    how="pip wheel (scikit-build-core): $(basename "$B"/dist/*.whl)"
  else
    cmake -S "$SRC" -B "$B/cmake" -DCMAKE_BUILD_TYPE=Release -DBICL_BUILD_TESTS=OFF $CMAKE_ARGS \
      >>"$L/build.log" 2>&1 &&
      cmake --build "$B/cmake" -j"$(nproc)" --target bicl_python >>"$L/build.log" 2>&1 &&
      cmake --install "$B/cmake" --component python --prefix "$B/stage" >>"$L/build.log" 2>&1 &&
      mv "$B/stage/python" "$B/site"
    how="cmake --install --component python (no scikit-build-core here)"
  fi
  if [ ! -d "$B/site/bicl" ]; then
    summary "BUILD FAILED"; tail -40 "$L/build.log"; pack; exit 1
  fi
  summary "package: $how; CUDA allocator module: $(ls "$B"/site/bicl/lib/libbicl_cuda_alloc.so 2>/dev/null || echo 'NOT BUILT (no cuda.h)')"
  pack
fi
export PYTHONPATH=$B/site:$PYTHONPATH

if has info; then
  "$PY" -m bicl info --device nvidia >"$L/info.txt" 2>&1 || status=1
  cp "$L/info.txt" "$OUT/info.txt"
  summary "$(grep -E '^\[|chosen|fingerprint:|torch bridge' "$L/info.txt")"
  "$PY" - >>"$OUT/summary.txt" 2>&1 <<'EOF'
import bicl, bicl._cl as cl
ctx = bicl.Context("nvidia")
ext = [e for e in cl.device_extensions(ctx.cl_device) if "external" in e or "uuid" in e]
print("external-memory extensions:", " ".join(ext))
EOF
fi
for dev in nvidia pocl; do
  has "test-$dev" || continue
  (cd "$B" && BICL_TEST_DEVICE=$dev BICL_TORCH_DEVICE=nvidia timeout 900 "$PY" -m pytest -q -rs \
    -p no:cacheprovider "$SRC/python/tests") >"$L/pytest-$dev.log" 2>&1 || status=1
  summary "pytest on $dev: $(tail -1 "$L/pytest-$dev.log")"
  grep -E '^(FAILED|ERROR)|SKIPPED.*bridge' "$L/pytest-$dev.log" | head -20 | tee -a "$OUT/summary.txt"
  pack
done
if has demo; then
  (cd "$B" && timeout 900 "$PY" -m bicl demo --backend torch --out "$OUT") >"$L/demo.txt" 2>&1 || status=1
  summary "$(cat "$L/demo.txt" | tail -40)"
  pack
fi
if has check; then
  (cd "$B" && timeout 600 "$PY" -m bicl check --device nvidia --op silu --op rope) >"$L/check.txt" 2>&1 || status=1
  summary "python -m bicl check (nvidia, silu and rope, golden verified): $(tail -1 "$L/check.txt")"
fi
pack
summary "== gpu demo status: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
