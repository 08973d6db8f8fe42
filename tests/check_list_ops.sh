#!/usr/bin/env bash
# check_list_ops.sh BICL_CHECK - `bicl-check --list-ops` (what platforms/check_shards.sh
# splits into shards) names each op of `bicl-check --list`'s table exactly once (a name
# twice or missing makes the sorted lists differ), and every name is one --op accepts.
set -uo pipefail
check=$1
fail() { echo "check_list_ops: $*"; exit 1; }
names=$("$check" --list-ops) || fail "--list-ops exited $?"
table=$("$check" --list | awk 'NR > 1 && NF && $1 != "layouts:" {print $1}' | sort -u)
[ -n "$table" ] || fail "--list gave no ops"
[ "$(echo "$names" | sort)" = "$table" ] ||
  fail "--list-ops and --list differ: $(diff <(echo "$names" | sort) <(echo "$table") | head -5)"
for op in $names; do
  "$check" --op "$op" --help >/dev/null 2>&1 || fail "--op $op refused"
done
echo "check_list_ops: $(echo "$names" | wc -l) ops, passed"
