#!/usr/bin/env bash
# check_shards.sh - bicl-check in N processes side by side, each with its own share of the
# ops (--op lists), for platforms/nvidia/rig.sh: one bicl-check process compiles its ops'
# programs one after another, and on NVIDIA the quick check no longer finished inside one
# device call (docs/gpu-runs.md). On PoCL (2 cores, 3 jobs: 4 shards) the quick check took
# 52 s. The heaviest ops (rope, rope_slice) get shards of their own.
# usage: platforms/check_shards.sh BICL_CHECK DEVICE N OUTDIR [bicl-check arguments...]
#   writes OUTDIR/check-K.txt and OUTDIR/check-K.json for each shard K and prints one line:
#   "PASS: N shards, F of R results failed" or "FAIL: ..." (exit status 0 / 1).
set -uo pipefail
check=$1 device=$2 n=$3 out=$4
shift 4
mkdir -p "$out"
ops=$("$check" --list-ops 2>/dev/null) || { echo "FAIL: $check --list-ops exited $?"; exit 1; }
[ -n "$ops" ] || { echo "FAIL: $check --list-ops gave no ops"; exit 1; }
heavy="rope rope_slice"
light=$(for op in $ops; do case " $heavy " in *" $op "*) ;; *) echo "$op" ;; esac; done)
count=$(echo "$light" | grep -c .)
n_light=$((n > 2 ? n - 2 : 1))
# bicl-check takes at most 32 --op
[ $(((count + n_light - 1) / n_light)) -le 32 ] || n_light=$(((count + 31) / 32))
pids=()
run_shard() { # shard K: its --op arguments
  local k=$1
  shift
  "$check" --device "$device" "$@" --json "$out/check-$k.json" "${extra[@]}" >"$out/check-$k.txt" 2>&1
}
extra=("$@")
k=0
for op in $heavy; do
  if echo "$ops" | grep -qx "$op"; then
    run_shard $k --op "$op" &
    pids+=($!)
    k=$((k + 1))
  fi
done
for ((s = 0; s < n_light; ++s)); do
  args=()
  j=0
  for op in $light; do
    [ $((j % n_light)) -eq $s ] && args+=(--op "$op")
    j=$((j + 1))
  done
  [ ${#args[@]} -gt 0 ] || continue
  run_shard $k "${args[@]}" &
  pids+=($!)
  k=$((k + 1))
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
# each shard's last line: "bicl-check: PASS: 0 of 534 results failed (6.9 s)"
failed=0 results=0
for ((s = 0; s < k; ++s)); do
  line=$(grep -E 'bicl-check: (PASS|FAIL)' "$out/check-$s.txt" | tail -1)
  [ -n "$line" ] || { status=1; echo "shard $s: no verdict (cut short?)"; continue; }
  read -r f r <<<"$(echo "$line" | sed -E 's/.*: ([0-9]+) of ([0-9]+) results failed.*/\1 \2/')"
  failed=$((failed + f)) results=$((results + r))
done
[ $failed -eq 0 ] || status=1
echo "$([ $status = 0 ] && echo PASS || echo FAIL): $k shards, $failed of $results results failed"
exit $status
