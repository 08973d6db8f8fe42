#!/usr/bin/env bash
# Installs Intel's CPU OpenCL runtime from PyPI wheels into a prefix (default
# /opt/intel-ocl), never into /usr, and writes an ICD file for it into PREFIX/vendors.
# Nothing is registered system-wide: name that folder in OCL_ICD_VENDORS for a command
# (tests/with_vendors.sh adds it next to the system's ICDs for the Intel ctest entries).
#
# usage: platforms/intel-cpu/install.sh [PREFIX]     (idempotent; ~150 MB download)
#
# Facts (measured, docs/audit.md "Implementations"):
# - intel-cmplr-lib-rt holds libimf, libsvml, libirng and libintlc, which libintelocl.so
#   needs but the intel-opencl-rt wheel does not declare: it is named here.
# - The wheel's own .icd file names a conda placeholder path: unused. /opt/.../lib must
#   stay off LD_LIBRARY_PATH (it ships a second libOpenCL.so); its RUNPATH is $ORIGIN.
# - The older opencl-rt 2021.2.0 miscompiles a struct passed by value: not this one.
set -euo pipefail
PREFIX=${1:-/opt/intel-ocl}
# The pinned versions: one place for them (.ci/run calls this script).
WHEELS=(intel-opencl-rt==2026.2.0 'tbb==2023.*' 'tcmlib==1.*'
        'intel-cmplr-lib-rt==2026.*' 'intel-cmplr-lic-rt==2026.*')

if [ -f "$PREFIX/lib/libintelocl.so" ] && [ -f "$PREFIX/vendors/intel-cpu.icd" ]; then
  echo "intel-cpu: already installed in $PREFIX"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "intel-cpu: python3 -m pip is needed to download the wheels (apt-get install python3-pip)" >&2
  exit 1
fi
command -v unzip >/dev/null || { echo "intel-cpu: unzip is needed" >&2; exit 1; }

work=$(mktemp -d /tmp/intel-ocl.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$work/dl" "${WHEELS[@]}"
for w in "$work"/dl/*.whl; do unzip -oq "$w" -d "$work/x"; done
mkdir -p "$PREFIX/vendors"
for d in "$work"/x/*.data/data; do cp -a "$d"/. "$PREFIX"/; done
test -f "$PREFIX/lib/libintelocl.so" || { echo "intel-cpu: no lib/libintelocl.so in the wheels" >&2; exit 1; }
echo "$PREFIX/lib/libintelocl.so" >"$PREFIX/vendors/intel-cpu.icd"
echo "intel-cpu: installed in $PREFIX; ICD folder $PREFIX/vendors"
