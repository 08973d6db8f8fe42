"""bicl's own command-line tools, installed in the package's bin/ (bicl-info,
bicl-check) with the golden hashes in data/: golden verification runs bicl's C harness,
not a Python re-implementation."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional, Sequence

from ._lib import package_dir

__all__ = ["tool_path", "golden_path", "check"]


def tool_path(name: str) -> str:
    """The path of a bicl tool: $BICL_TOOLS_DIR, the package's bin/, or PATH."""
    for folder in (os.environ.get("BICL_TOOLS_DIR"), os.path.join(package_dir, "bin")):
        if folder and os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} is not installed with this package nor on PATH")
    return found


def golden_path() -> str:
    """The golden hashes of the host reference (tests/golden/golden.txt)."""
    for path in (os.environ.get("BICL_GOLDEN"), os.path.join(package_dir, "data", "golden.txt")):
        if path and os.path.exists(path):
            return path
    raise FileNotFoundError("golden.txt is not installed with this package (set BICL_GOLDEN)")


def check(device: Optional[str] = None, quick: bool = True, verify: bool = True,
          extra: Sequence[str] = (), capture: bool = False) -> subprocess.CompletedProcess:
    """Run bicl-check: the contract (I, R, A) on the device and, with verify, the
    committed golden hashes. Returns the finished process (returncode 0: all passed)."""
    args: List[str] = [tool_path("bicl-check")]
    if device:
        args += ["--device", device]
    if quick:
        args.append("--quick")
    if verify:
        args += ["--verify", golden_path()]
    args += list(extra)
    return subprocess.run(args, capture_output=capture, text=True, check=False)
