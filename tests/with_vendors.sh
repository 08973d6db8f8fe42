#!/bin/sh
# with_vendors.sh NAME ICD_FILE DIR CMD... - runs CMD with the system's OpenCL ICDs plus
# one more implementation (ICD_FILE, e.g. Intel's CPU runtime installed by
# platforms/intel-cpu/install.sh) in a private vendors folder DIR named by
# OCL_ICD_VENDORS: nothing is registered system-wide, and PoCL stays visible, so the
# test's device spec must tell the two apart.
#
# When ICD_FILE or the library it names is missing the test is skipped (exit 77) with a
# message, unless NAME is in $BICL_REQUIRE_IMPLEMENTATIONS (.ci/run sets it): then it
# fails, so that CI cannot pass by skipping.
set -eu
name=$1 icd=$2 dir=$3
shift 3
lib=""
if [ -f "$icd" ]; then lib=$(head -n 1 "$icd"); fi
if [ -z "$lib" ] || [ ! -e "$lib" ]; then
  case " ${BICL_REQUIRE_IMPLEMENTATIONS:-} " in
    *" $name "*)
      echo "$name: $icd (or the library it names) is missing, and BICL_REQUIRE_IMPLEMENTATIONS requires it"
      exit 1 ;;
  esac
  echo "$name: not installed ($icd missing): skipped (platforms/intel-cpu/install.sh, or apt-get install oclgrind)"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
for f in /etc/OpenCL/vendors/*.icd; do
  if [ -e "$f" ]; then cp "$f" "$dir/"; fi
done
cp "$icd" "$dir/zz-$name.icd"
OCL_ICD_VENDORS=$dir
export OCL_ICD_VENDORS
exec "$@"
