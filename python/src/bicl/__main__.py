"""``python -m bicl info | check | demo``.

  info [--device SPEC]   versions, the library's path, every OpenCL device with bicl's
                         verdict, the chosen device's fingerprint, and the optional
                         parts (pyopencl, torch, the CUDA bridge)
  check [ARGS...]        bicl-check, bicl's own harness: the contract on the device and
                         the golden hashes (default: --quick --verify <packaged golden>;
                         ARGS are passed on, e.g. --device nvidia, --full)
  demo [ARGS...]         the pointwise and RoPE part of a Llama-style layer
                         (bicl.demo; --help lists its options)
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import List, Optional


def _info(device: Optional[str]) -> int:
    import bicl

    print(f"bicl package {bicl.__version__}, library {bicl.library_version()} "
          f"({bicl.library_path()})")
    for d in bicl.devices():
        verdict = "SUITABLE" if d.suitable else f"unsuitable: {d.verdict}"
        print(f"[{d.index}] {d.name}: {verdict}")
    status = 0
    try:
        with bicl.Context(device) as ctx:
            print(f"chosen: {ctx.device_name} (profile {ctx.profile}, fp64 {ctx.has_fp64})")
            print(f"fingerprint: {ctx.fingerprint}")
            print(f"fingerprint hash: {ctx.fingerprint_hash:016x}")
    except bicl.BiclError as e:
        print(f"no context for {device or 'the default device'}: {e}")
        status = 1
    for mod in ("numpy", "pyopencl", "torch"):
        found = importlib.util.find_spec(mod) is not None
        print(f"{mod}: {'installed' if found else 'not installed'}")
    from . import torch_bridge

    print(f"torch bridge: {torch_bridge.availability()}")
    return status


def _check(args: List[str]) -> int:
    from ._tools import check

    flags = set(args)
    full = "--full" in flags
    extra = [a for a in args if a != "--full"]
    verify = "--verify" not in flags  # a --verify FILE given is passed on as it is
    return check(quick=not full, verify=verify, extra=extra).returncode


def main(argv: Optional[List[str]] = None) -> int:
    """The command line."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bicl", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["info", "check", "demo"])
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv[:1])
    rest = argv[1:]
    if ns.command == "info":
        p = argparse.ArgumentParser(prog="python -m bicl info")
        p.add_argument("--device", default=None)
        return _info(p.parse_args(rest).device)
    if ns.command == "check":
        return _check(rest)
    from . import demo

    return demo.main(rest)


if __name__ == "__main__":
    sys.exit(main())
