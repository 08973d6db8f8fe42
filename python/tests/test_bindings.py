"""The bindings against the C library: every header function bound, the enums equal
to what the C compiler sees, the struct layouts, the versions."""
from __future__ import annotations

import ctypes
import glob
import os
import re
import shutil
import subprocess
from ctypes import byref, c_size_t

import pytest
from conftest import REPO

import bicl
from bicl import _enums
from bicl._lib import SIGNATURES, RopeConfigC, TensorC, lib

HEADERS = sorted(glob.glob(os.path.join(REPO, "include", "bicl", "*.h")))  # every public header


def header_functions() -> set:
    """Names of every BICL_API function declared in the public headers."""
    names = set()
    for path in HEADERS:
        with open(path) as f:
            text = f.read()
        names |= set(re.findall(r"BICL_API\s+[^;(]*?\b(bicl_\w+)\s*\(", text))
    return names


def test_every_header_function_is_bound() -> None:
    declared = header_functions()
    assert len(declared) > 50
    missing = sorted(declared - set(SIGNATURES))
    assert not missing, f"add these to SIGNATURES in python/src/bicl/_lib.py: {missing}"
    unknown = sorted(set(SIGNATURES) - declared)
    assert not unknown, f"bound but not in the headers: {unknown}"


def test_every_bound_function_is_exported() -> None:
    for name in SIGNATURES:
        assert hasattr(lib(), name), name


def _enum_members():
    for cls_name in _enums.__all__:
        cls = getattr(_enums, cls_name)
        if isinstance(cls, type):
            for member in cls:
                yield member


def test_enums_equal_the_c_compiler_values(tmp_path) -> None:
    """The generated enums and constants, printed by a C program built from the headers."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    expect = [(m.c_name, "%d", str(int(m))) for m in _enum_members()]
    assert len(expect) > 60
    for n in _enums.__all__:
        v = getattr(_enums, n)
        if isinstance(v, str):
            expect.append((f"BICL_{n}", "%s", v))
        elif isinstance(v, int):
            expect.append((f"(int)BICL_{n}", "%d", str(v)))
    body = "\n".join(f'printf("{fmt}\\n", {name.replace("BICL_", "(int)BICL_", 1) if fmt == "%d" and not name.startswith("(") else name});'
                     for name, fmt, _ in expect)
    src = tmp_path / "enums.c"
    src.write_text("#include <stdio.h>\n#include <bicl/bicl.h>\nint main(void) {\n" + body
                   + "\nreturn 0;\n}\n")
    exe = tmp_path / "enums"
    subprocess.run([cc, "-std=c11", "-I", os.path.join(REPO, "include"), str(src), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    assert len(out) == len(expect)
    for (name, _, want), got in zip(expect, out):
        assert got == want, f"{name}: C says {got}, Python {want}"


def test_status_names_match_the_library() -> None:
    for s in bicl.Status:
        assert bicl.status_string(s).startswith(s.c_name + ":"), s


def test_dtype_names_and_sizes() -> None:
    sizes = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "U8": 1}
    for d in bicl.Dtype:
        assert lib().bicl_dtype_name(d).decode() == d.name.lower()
        assert lib().bicl_dtype_size(d) == sizes[d.name]


def test_rope_config_layout() -> None:
    c = RopeConfigC()
    lib().bicl_rope_config_init_sized(byref(c), ctypes.sizeof(c), 128, 64)
    assert c.struct_size == ctypes.sizeof(RopeConfigC)
    assert (c.head_dim, c.rotary_dim, c.theta, c.truncate) == (128, 64, 10000.0, 1)


def test_tensor_layout() -> None:
    shape = (c_size_t * 4)(3, 5, 7, 0)
    t = lib().bicl_tensor_contiguous(0x1234, bicl.Dtype.BF16, 11, 3, shape)
    assert isinstance(t, TensorC)
    assert (t.mem, t.offset, t.dtype, t.rank) == (0x1234, 11, int(bicl.Dtype.BF16), 3)
    assert list(t.shape[:3]) == [3, 5, 7] and list(t.stride[:3]) == [35, 7, 1]


def test_versions() -> None:
    assert bicl.library_version() == bicl.__version__ == _enums.VERSION_STRING
    assert lib().bicl_version_number() == (_enums.VERSION_MAJOR * 10000 + _enums.VERSION_MINOR * 100
                                           + _enums.VERSION_PATCH)
