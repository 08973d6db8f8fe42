#!/usr/bin/env bash
# check_dtype_square.sh BICL_CHECK - bicl-check --dtype-square (what Intel's golden entry
# runs), from --plan (no device): of every op with nine dtype pairs (f32, f16, bf16 in and
# out; not cast) it keeps a Latin square (three pairs, every input and every output dtype
# once) and the pairs that run every variant (--primary), nothing else; the ops without
# configurations that run every variant cover all nine pairs between them; every other op
# (cast included) runs whole.
set -uo pipefail
check=$1
fail() { echo "check_dtype_square: $*"; exit 1; }
full=$("$check" --plan) || fail "bicl-check --plan failed"
square=$("$check" --plan --dtype-square) || fail "bicl-check --plan --dtype-square failed"
primary=$("$check" --plan --primary) || fail "bicl-check --plan --primary failed"
out=$(awk -v FULL="$full" -v SQ="$square" -v PRIM="$primary" '
function load(text, set, cnt,   n, i, l, f) {
  n = split(text, l, "\n")
  for (i = 1; i <= n; i++) if (l[i] != "") { split(l[i], f, " "); set[f[1] SUBSEP f[2]] = 1; if (cnt) c[f[1]]++ }
}
BEGIN {
  load(FULL, all, 1); load(SQ, sq, 0); load(PRIM, pr, 0)
  split("f32 f16 bf16", d, " ")
  np = 0
  for (a = 1; a <= 3; a++) for (b = 1; b <= 3; b++) for (e = 1; e <= 3; e++)
    if (a != b && b != e && a != e) { np++; perm[np] = d[a] " " d[b] " " d[e] }
  for (k in all) {
    split(k, f, SUBSEP); op = f[1]
    if (c[op] != 9 || op == "cast") { if (!(k in sq)) { print "FAIL " op " " f[2] " left out"; bad = 1 } ; continue }
    if ((k in pr) && !(k in sq)) { print "FAIL " op " " f[2] " runs every variant, left out"; bad = 1 }
    nine[op] = 1; if (k in pr) hasprim[op] = 1
  }
  for (op in nine) {
    found = 0
    for (p = 1; p <= np && !found; p++) {
      split(perm[p], o, " "); ok = 1; delete L
      for (i = 1; i <= 3; i++) { L[d[i] "->" o[i]] = 1; if (!((op SUBSEP d[i] "->" o[i]) in sq)) ok = 0 }
      for (a = 1; a <= 3 && ok; a++) for (b = 1; b <= 3; b++) {
        pair = d[a] "->" d[b]
        if (((op SUBSEP pair) in sq) && !(pair in L) && !((op SUBSEP pair) in pr)) ok = 0
      }
      if (ok) found = 1
    }
    if (!found) { print "FAIL " op ": no Latin square, or pairs beyond it and the every-variant ones"; bad = 1 }
    if (!(op in hasprim)) for (a = 1; a <= 3; a++) for (b = 1; b <= 3; b++)
      if ((op SUBSEP d[a] "->" d[b]) in sq) covered[d[a] "->" d[b]] = 1
    n9++
  }
  nc = 0; for (k in covered) nc++
  if (nc != 9) { print "FAIL the ops without every-variant configurations ran " nc " of the 9 pairs"; bad = 1 }
  print "ops with nine pairs: " n9
  exit bad
}') || fail "$(echo "$out" | grep FAIL | head -5)"
[ "$(echo "$out" | awk '/nine pairs/ {print $NF}')" -ge 3 ] || fail "$out"
echo "check_dtype_square: $(echo "$square" | wc -l) of $(echo "$full" | wc -l) configurations; $out; passed"
