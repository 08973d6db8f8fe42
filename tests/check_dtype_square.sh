#!/usr/bin/env bash
# check_dtype_square.sh BICL_CHECK - bicl-check --dtype-square (what Intel's golden entry
# runs) keeps of an activation's nine dtype pairs a Latin square: three pairs, every input
# and every output dtype once; three ops of consecutive ordinals (relu, relu2, hardswish:
# 1, 2 and 12 in the registry) cover all nine pairs between them; silu's four
# variant-sweeping configurations (f32 and bf16 in and out) all run besides its square.
set -uo pipefail
check=$1
device=${BICL_TEST_DEVICE:-${BICL_DEVICE:-pocl}}
fail() { echo "check_dtype_square: $*"; exit 1; }
out=$("$check" --quick --dtype-square --device "$device" --op relu --op relu2 --op hardswish \
  --op silu 2>&1) || fail "bicl-check failed: $(echo "$out" | tail -5)"
ran=$(echo "$out" | awk '/^\[[0-9]+\/[0-9]+\] / {print $2, $3}')
pairs() { echo "$ran" | awk -v op="$1" '$1 == op {print $2}' | sort; }
for op in relu relu2 hardswish; do
  p=$(pairs $op)
  [ "$(echo "$p" | wc -l)" = 3 ] || fail "$op ran $(echo "$p" | tr '\n' ' '), want 3 pairs"
  [ "$(echo "$p" | cut -d- -f1 | sort -u | wc -l)" = 3 ] || fail "$op: an input dtype twice: $p"
  [ "$(echo "$p" | cut -d'>' -f2 | sort -u | wc -l)" = 3 ] || fail "$op: an output dtype twice: $p"
done
all=$( (pairs relu; pairs relu2; pairs hardswish) | sort -u | wc -l)
[ "$all" = 9 ] || fail "relu, relu2 and hardswish ran $all distinct pairs, want 9"
s=$(pairs silu)
for want in "f32->f32" "f32->bf16" "bf16->f32" "bf16->bf16"; do
  echo "$s" | grep -qx -- "$want" || fail "silu $want (runs every variant) did not run"
done
[ "$(echo "$s" | wc -l)" = 6 ] || fail "silu ran $(echo "$s" | tr '\n' ' '), want 4 + its square's 2 others"
echo "check_dtype_square: $(echo "$ran" | wc -l) configurations, passed"
