#!/bin/sh
# install_example.sh MODE BUILD_DIR SOURCE_DIR WORK_DIR CC - installs the build tree
# into WORK_DIR/prefix with `cmake --install`, then builds programs against the
# installed package only, and runs them on the test device:
#   MODE=cmake       docs/examples/engine_example.c through find_package(bicl CONFIG)
#                    with CMAKE_PREFIX_PATH, against both bicl::bicl and bicl::bicl_static;
#   MODE=pkg-config  the same example, one compiler command with `pkg-config --cflags
#                    --libs bicl`;
#   MODE=engine      the engine-client suite tests/engine/ (find_package, ctest).
# BICL_EXAMPLE_CFLAGS adds compiler flags (the sanitizer build sets them); CMAKE names
# the cmake that configured the build tree (default: the one on PATH); BICL_CJSON_DIR
# the directory of the cJSON library bicl was built with (static linking needs it);
# BICL_PREFIX_PATH the build's CMAKE_PREFIX_PATH (CMocka for the engine suite on a rig).
set -eu
mode=$1 build=$2 src=$3 work=$4 cc=$5
extra=${BICL_EXAMPLE_CFLAGS:-}
cmake=${CMAKE:-cmake}
cjson_dir=${BICL_CJSON_DIR:-}
case $work in */example_* | */engine_client) ;; *) echo "refusing scratch dir $work"; exit 2 ;; esac
prefix=$work/prefix
# Runs a step with its output in a log, shown only when the step fails.
quiet() {
  log=$1; shift
  "$@" >"$log" 2>&1 || { cat "$log"; echo "FAILED: $*"; exit 1; }
}
rm -rf "$work"
mkdir -p "$work"
quiet "$work/install.log" "$cmake" --install "$build" --prefix "$prefix"
# The installed tools are the three for users (the developer tools are not installed),
# and bicl-check works from the install tree alone: the harness and its models are
# linked in, no file of the source tree is read (run from the scratch dir).
tools=$(ls "$prefix/bin" | tr '\n' ' ')
[ "$tools" = "bicl-bench bicl-check bicl-info " ] || { echo "installed tools: $tools"; exit 1; }
(cd "$work" && quiet "$work/check.log" "$prefix/bin/bicl-check" --golden "$work/golden.txt" --op silu)
grep -q '^silu f32->f32 prefill ' "$work/golden.txt" || { cat "$work/golden.txt"; exit 1; }
# The programs must never see the source or build tree: copy them out first.
cp -r "$src/docs/examples" "$work/examples"
cp -r "$src/tests/engine" "$work/engine"
case $mode in
engine)
  quiet "$work/configure-engine.log" "$cmake" -S "$work/engine" -B "$work/build-engine" \
    -DCMAKE_PREFIX_PATH="$prefix${BICL_PREFIX_PATH:+;$BICL_PREFIX_PATH}" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra"
  quiet "$work/build-engine.log" "$cmake" --build "$work/build-engine"
  ctest=$(dirname "$cmake")/ctest
  [ -x "$ctest" ] || ctest=ctest
  "$ctest" --test-dir "$work/build-engine" --output-on-failure
  ;;
cmake)
  for link in shared static; do
    static=OFF
    [ $link = static ] && static=ON
    quiet "$work/configure-$link.log" "$cmake" -S "$work/examples" -B "$work/build-$link" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_LIBRARY_PATH="$cjson_dir" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" -DBICL_EXAMPLE_STATIC=$static
    quiet "$work/build-$link.log" "$cmake" --build "$work/build-$link"
    "$work/build-$link/engine_example"
  done
  ;;
pkg-config)
  pcdir=$(dirname "$(find "$prefix" -name bicl.pc | head -1)")
  export PKG_CONFIG_PATH="$pcdir"
  flags=$(pkg-config --cflags --libs bicl)
  echo "pkg-config --cflags --libs bicl: $flags"
  # shellcheck disable=SC2086
  "$cc" -std=c11 -Wall -Wextra -Werror $extra -o "$work/engine_example" \
    "$work/examples/engine_example.c" $flags
  LD_LIBRARY_PATH=$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/engine_example"
  # libbicl.a with the --static flags: Libs.private must name everything it needs.
  libdir=$(pkg-config --variable=libdir bicl)
  privlibs=$(pkg-config --static --libs bicl | sed 's/-lbicl\b//')
  echo "libbicl.a + pkg-config --static --libs bicl: $privlibs"
  cflags=$(pkg-config --cflags bicl)
  # shellcheck disable=SC2086
  "$cc" -std=c11 -Wall -Wextra -Werror $extra -o "$work/engine_example_static" \
    "$work/examples/engine_example.c" $cflags "$libdir/libbicl.a" ${cjson_dir:+-L"$cjson_dir"} \
    $privlibs
  "$work/engine_example_static"
  ;;
*)
  echo "unknown mode $mode"; exit 2 ;;
esac
