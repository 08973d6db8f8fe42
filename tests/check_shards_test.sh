#!/usr/bin/env bash
# check_shards_test.sh SOURCE_DIR - platforms/check_shards.sh (the rigs' bicl-check in
# parallel shards) against a stand-in bicl-check that lists 70 ops and reports on its --op
# arguments: every op runs in exactly one shard, none gets more than bicl-check's 32, the
# heavy ops get shards of their own, the results add up, and one failing op fails the whole.
set -uo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_shards_test: $*"; exit 1; }
cat >"$tmp/fake-check" <<'STUB'
#!/usr/bin/env bash
if [ "$1" = --list-ops ]; then
  for i in $(seq 1 68); do echo "op$i"; done
  echo rope; echo rope_slice
  exit 0
fi
ops=() json=""
while [ $# -gt 0 ]; do
  case $1 in --op) ops+=("$2"); shift ;; --json) json=$2; shift ;; esac
  shift
done
[ ${#ops[@]} -le 32 ] || { echo "bicl-check: at most 32 --op"; exit 2; }
printf 'ran %s\n' "${ops[@]}"
echo '{}' >"$json"
bad=0
for op in "${ops[@]}"; do [ "$op" = "${FAKE_BAD:-none}" ] && bad=1; done
if [ $bad = 1 ]; then echo "bicl-check: FAIL: 1 of ${#ops[@]}0 results failed (0.1 s)"; exit 1; fi
echo "bicl-check: PASS: 0 of ${#ops[@]}0 results failed (0.1 s)"
STUB
chmod +x "$tmp/fake-check"
out=$("$src/platforms/check_shards.sh" "$tmp/fake-check" dev 4 "$tmp/ok" --quick) || fail "a passing run exited $?: $out"
[ "$out" = "PASS: 5 shards, 0 of 700 results failed" ] || fail "passing run said: $out"
ran=$(cat "$tmp"/ok/check-*.txt | grep '^ran ' | sort)
[ "$(echo "$ran" | wc -l)" = 70 ] || fail "$(echo "$ran" | wc -l) ops ran, not 70"
[ "$(echo "$ran" | uniq | wc -l)" = 70 ] || fail "an op ran in two shards"
for f in "$tmp"/ok/check-*.txt; do
  [ "$(grep -c '^ran ' "$f")" -le 32 ] || fail "$f ran more than 32 ops"
done
grep -qx "ran rope" "$tmp/ok/check-0.txt" && [ "$(grep -c '^ran ' "$tmp/ok/check-0.txt")" = 1 ] ||
  fail "rope has no shard of its own"
[ "$(ls "$tmp"/ok/check-*.json | wc -l)" = 5 ] || fail "not one JSON per shard"
out=$(FAKE_BAD=op37 "$src/platforms/check_shards.sh" "$tmp/fake-check" dev 4 "$tmp/bad" --quick) &&
  fail "a failing op left the exit status 0: $out"
[ "$out" = "FAIL: 5 shards, 1 of 700 results failed" ] || fail "failing run said: $out"
echo "check_shards_test: passed"
