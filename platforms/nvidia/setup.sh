# setup.sh - sourced (bash) by the NVIDIA rig scripts (platforms/nvidia/rig.sh,
# python/tools/gpu_demo.sh) from the checkout's root: unpacks the Debian .debs of .rig/
# into PREFIX=/opt/rig (never into /) with their libraries on LD_LIBRARY_PATH, and
# registers NVIDIA's OpenCL driver with the ICD loader where the machine has not.
# Each .deb is unpacked once per machine (a stamp per package file, under a lock, so that
# two scripts sourcing this at once unpack nothing twice): a stage sourced while tests of
# another ran (rig.sh's check stage beside ctest) rewrote libcmocka under a starting test
# ("file too short", docs/gpu-runs.md, 2026-12-06).
PREFIX=/opt/rig
if compgen -G ".rig/*.deb" >/dev/null; then
  mkdir -p "$PREFIX/.unpacked"
  (
    flock 9
    for deb in .rig/*.deb; do
      stamp="$PREFIX/.unpacked/$(basename "$deb")"
      [ -e "$stamp" ] || { dpkg -x "$deb" "$PREFIX" && touch "$stamp"; }
    done
  ) 9>"$PREFIX/.unpacked/lock"
  export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
