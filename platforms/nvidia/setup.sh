# setup.sh - sourced (bash) by the NVIDIA rig scripts (platforms/nvidia/rig.sh,
# python/tools/gpu_demo.sh) from the checkout's root: unpacks the Debian .debs of .rig/
# into PREFIX=/opt/rig (never into /) with their libraries on LD_LIBRARY_PATH, and
# registers NVIDIA's OpenCL driver with the ICD loader where the machine has not.
# Each .deb is unpacked once per machine (a stamp per package file): a stage sourced while
# tests of another run (rig.sh's check stage beside ctest) rewrote libcmocka under a
# starting test ("file too short", docs/gpu-runs.md, 2026-12-06).
PREFIX=/opt/rig
if compgen -G ".rig/*.deb" >/dev/null; then
  mkdir -p "$PREFIX/.unpacked"
  for f in .rig/*.deb; do
    stamp="$PREFIX/.unpacked/$(basename "$f")"
    [ -e "$stamp" ] || { dpkg -x "$f" "$PREFIX" && touch "$stamp"; }
  done
  export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
