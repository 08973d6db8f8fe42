#!/usr/bin/env bash
# check_rope_half.sh BICL_CHECK - bicl-check --rope-half (what Intel's golden entry runs)
# keeps of each RoPE model's eight configurations (angle mode x cos/sin source x dtype)
# four, each level of each factor twice, alternating so that two consecutive models of a
# family run all eight; the configurations that run every variant (--primary) run besides.
# From --plan: no device.
set -uo pipefail
check=$1
fail() { echo "check_rope_half: $*"; exit 1; }
plan() { "$check" --plan --op rope --op rope_slice "$@" || fail "bicl-check --plan $* failed"; }
half=$(plan --rope-half)
all=$(plan)
primary=$(plan --primary)
[ -n "$primary" ] || fail "no RoPE configuration runs every variant"
while read -r line; do
  echo "$half" | grep -qxF -- "$line" || fail "'$line' runs every variant but was left out"
done <<< "$primary"
# "mode source dtype" of one model's configurations in a plan
of_model() {
  echo "$1" | awk -v fam="$2" -v m="$3" '$1 == fam {split($2, f, "/"); if (f[1] == m) print f[2], f[3], f[4]}'
}
prev_family="" prev_set=""
n_models=0
while read -r family model; do
  n_models=$((n_models + 1))
  sel=$(of_model "$half" "$family" "$model")
  prim=$(of_model "$primary" "$family" "$model")
  n_prim=$(echo "$prim" | sed '/^$/d' | wc -l)
  n_sel=$(echo "$sel" | sed '/^$/d' | wc -l)
  [ "$n_sel" -ge 4 ] && [ "$n_sel" -le $((4 + n_prim)) ] ||
    fail "$family $model: $n_sel configurations (every-variant ones: $n_prim), want 4 and those"
  for col in 1 2 3; do
    levels=$(echo "$sel" | awk -v c=$col '{print $c}' | sort | uniq -c | awk '$1 < 2' | wc -l)
    kinds=$(echo "$sel" | awk -v c=$col '{print $c}' | sort -u | wc -l)
    [ "$kinds" = 2 ] && [ "$levels" = 0 ] ||
      fail "$family $model: factor $col not at both levels twice: $(echo "$sel" | tr '\n' ';')"
  done
  if [ "$family" = "$prev_family" ]; then
    both=$( (echo "$prev_set"; echo "$sel") | sort -u | sed '/^$/d' | wc -l)
    [ "$both" = 8 ] || fail "$family: $model and the model before it ran $both of 8 configurations"
  fi
  prev_family=$family prev_set=$sel
done <<< "$(echo "$all" | awk '{split($2, f, "/"); print $1, f[1]}' | uniq)"
[ "$n_models" -ge 4 ] || fail "only $n_models RoPE models"
echo "check_rope_half: $n_models models, $(echo "$half" | wc -l) of $(echo "$all" | wc -l) configurations, passed"
