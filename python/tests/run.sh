#!/bin/sh
# run.sh MODE PYTHON SOURCE_DIR BUILD_DIR [PYTEST ARGS...] - the Python tests of ctest.
#   MODE=stage  install the build tree's component `python` into BUILD_DIR/python-stage
#               and run pytest on python/tests against it (PYTHONPATH);
#   MODE=wheel  build the wheel with pip from the checkout (scikit-build-core running the
#               project's CMake, as `pip install ./python` does), unpack it into
#               BUILD_DIR/python-wheel and run `python -m bicl info` and the CLI tests
#               from it.
# A missing Python dependency (numpy, pytest; scikit-build-core for the wheel) skips
# (exit 77) unless BICL_REQUIRE_PYTHON=1 (CI), where it fails.
set -eu
mode=$1 py=$2 src=$3 build=$4
shift 4
need() {
  if ! "$py" -c "import $1" 2>/dev/null; then
    if [ "${BICL_REQUIRE_PYTHON:-0}" = 1 ]; then echo "FAILED: $py lacks $1 (BICL_REQUIRE_PYTHON=1)"; exit 1; fi
    echo "SKIPPED: $py lacks $1"; exit 77
  fi
}
need numpy
need pytest
case $mode in
stage)
  stage=$build/python-stage
  rm -rf "$stage"
  "${CMAKE:-cmake}" --install "$build" --component python --prefix "$stage" >"$build/python-stage.log"
  PYTHONPATH=$stage/python exec "$py" -m pytest -q -rs -p no:cacheprovider "$src/python/tests" "$@"
  ;;
wheel)
  need scikit_build_core
  out=$build/python-wheel
  rm -rf "$out"
  mkdir -p "$out"
  if ! "$py" -m pip wheel --no-deps --no-build-isolation -w "$out/dist" "$src/python" >"$out/pip.log" 2>&1; then
    tail -40 "$out/pip.log"; echo "FAILED: pip wheel"; exit 1
  fi
  "$py" -m zipfile -e "$out"/dist/bicl-*.whl "$out/site"
  chmod +x "$out"/site/bicl/bin/* 2>/dev/null || true
  ls "$out"/dist
  cd "$out"
  PYTHONPATH=$out/site "$py" -m bicl info --device "${BICL_TEST_DEVICE:-${BICL_DEVICE:-pocl}}"
  PYTHONPATH=$out/site exec "$py" -m pytest -q -rs -p no:cacheprovider "$src/python/tests/test_cli.py" "$@"
  ;;
*) echo "usage: run.sh stage|wheel PYTHON SOURCE_DIR BUILD_DIR"; exit 2 ;;
esac
