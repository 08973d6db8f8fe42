#!/bin/sh
# check_exports.sh LIB SONAME INCLUDE_DIR - the ABI surface of libbicl.so:
#  1. every dynamic symbol the library defines starts with bicl_ (nothing internal, no
#     cJSON or helper leaks: the library is built with hidden visibility);
#  2. every function the public headers declare carries BICL_API and is exported (a
#     missing BICL_API hides the function and engines fail to link), and nothing else
#     is exported;
#  3. the SONAME is the one CMake was asked for (libbicl.so.MAJOR).
set -eu
lib=$1 soname=$2 inc=$3
tmp=${TMPDIR:-/tmp}/bicl-exports.$$
trap 'rm -f "$tmp".*' EXIT
nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp.exported"
# Declarations start at the left margin (comments and continuation lines do not); the
# function's name is the first identifier before the first parenthesis.
grep -h '^[A-Za-z]' "$inc"/bicl/*.h | grep -v '^typedef' |
  sed -n 's/^\([^(]*[^a-z0-9_]\)\{0,1\}\(bicl_[a-z0-9_]*\)(.*/\2 \1/p' >"$tmp.decl"
cut -d' ' -f1 "$tmp.decl" | sort -u >"$tmp.declared"
status=0
n=$(wc -l <"$tmp.exported")
if [ "$n" -lt 50 ]; then
  echo "only $n symbols exported from $lib"; status=1
fi
if grep -v ' BICL_API ' "$tmp.decl" >"$tmp.noapi"; then
  echo "declared without BICL_API (hidden from engines):"; cut -d' ' -f1 "$tmp.noapi"; status=1
fi
if grep -v '^bicl_' "$tmp.exported" >"$tmp.foreign"; then
  echo "symbols outside the bicl_ prefix exported from $lib:"; cat "$tmp.foreign"; status=1
fi
if comm -23 "$tmp.declared" "$tmp.exported" | grep . >"$tmp.missing"; then
  echo "declared BICL_API but not exported:"; cat "$tmp.missing"; status=1
fi
if comm -13 "$tmp.declared" "$tmp.exported" | grep . >"$tmp.extra"; then
  echo "exported but not declared BICL_API in include/bicl/:"; cat "$tmp.extra"; status=1
fi
got=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$got" != "$soname" ]; then
  echo "SONAME is '$got', expected '$soname'"; status=1
fi
[ $status = 0 ] && echo "$n exported symbols, all bicl_ and all declared; SONAME $got"
exit $status
