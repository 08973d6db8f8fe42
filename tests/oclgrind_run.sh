#!/bin/sh
# oclgrind_run.sh LOG [--expect TEXT] CMD... - runs CMD on oclgrind's simulated device
# (through tests/with_vendors.sh, which makes its ICD visible) with its checks on:
# invalid reads and writes (always), data races (OCLGRIND_DATA_RACES=1) and OpenCL API
# misuse (OCLGRIND_CHECK_API=1). Every report goes to LOG; the run fails when CMD fails
# or LOG holds anything. With --expect TEXT it passes only when LOG contains TEXT
# (the planted out-of-bounds kernel that proves the log is read).
#
# OCLGRIND_BUILD_OPTIONS=-cl-opt-disable works around an interpreter bug of oclgrind
# 21.10: at -O2, LLVM turns bicl's f16 exponent test and the sincos quadrant select into
# a `switch` on a truncated sub-byte integer (i5, i2), and the interpreter switches on
# the untruncated value. Repro (docs/audit.md, "Implementations"):
#   OCL_ICD_VENDORS=<folder with oclgrind.icd> bicl-info --device oclgrind
# refuses oclgrind at -O2: "self-test: f16 -> f32 (bit path): inputs 0x80d7 ... gave
# 0xb81ae000, the host 0xb7570000"; with the option it passes.
set -u
log=$1
shift
expect=""
if [ "${1:-}" = "--expect" ]; then expect=$2; shift 2; fi
rm -f "$log"
OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1 OCLGRIND_BUILD_OPTIONS=-cl-opt-disable \
  OCLGRIND_LOG=$log "$@"
rc=$?
if [ -n "$expect" ]; then
  if [ -s "$log" ] && grep -q -- "$expect" "$log"; then
    echo "oclgrind reported the planted error ($expect):"; head -n 5 "$log"; exit 0
  fi
  echo "oclgrind did not report '$expect' (exit $rc)"; exit 1
fi
if [ -s "$log" ]; then
  echo "oclgrind reported errors (invalid access, data race or API misuse), $log:"
  head -n 60 "$log"
  exit 1
fi
if [ "$rc" != 0 ]; then echo "exit status $rc"; exit "$rc"; fi
echo "oclgrind: no invalid access, data race or API error"
