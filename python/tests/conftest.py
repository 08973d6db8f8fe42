"""Fixtures of the Python tests: the device (``BICL_TEST_DEVICE``, ``BICL_DEVICE``,
else pocl), bit comparison, and the rule for optional dependencies: a missing module is
a skip locally, a failure where ``BICL_REQUIRE_PYTHON=1`` (CI, .ci/run)."""
from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Iterator

import numpy as np
import pytest

import bicl

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def require(module: str) -> ModuleType:
    """Import a module the test needs: skip without it, unless CI requires it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("BICL_REQUIRE_PYTHON") == "1":
            pytest.fail(f"{module} is required here (BICL_REQUIRE_PYTHON=1): {e}")
        pytest.skip(f"{module} is not installed")
        raise


def device_spec() -> str:
    """The test device."""
    return os.environ.get("BICL_TEST_DEVICE") or os.environ.get("BICL_DEVICE") or "pocl"


@pytest.fixture(scope="session")
def ctx() -> Iterator[bicl.Context]:
    """One context on the test device for the session."""
    with bicl.Context(device_spec()) as c:
        yield c


def bits(a: np.ndarray) -> bytes:
    """The bytes of an array (memcmp semantics: -0, NaN payloads count)."""
    return np.ascontiguousarray(a).tobytes()


def assert_bits_equal(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Bitwise equality with the first differing element in the message."""
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape)
    if bits(got) != bits(want):
        g = got.reshape(-1).view(np.uint8).reshape(got.size, -1)
        w = want.reshape(-1).view(np.uint8).reshape(want.size, -1)
        i = int(np.nonzero((g != w).any(axis=1))[0][0])
        pytest.fail(f"{what}: element {i} differs: {g[i].tobytes().hex()} vs {w[i].tobytes().hex()}")


def special_f32(n: int, seed: int) -> np.ndarray:
    """n float32 values: random normals and every special class (+-0, +-inf, NaNs with
    payloads, denormals, +-FLT_MAX, large values)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 6).astype(np.float32)
    specials = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFFA00002,
                         0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x42C80000, 0xC2C80000],
                        dtype=np.uint32).view(np.float32)
    k = min(n, specials.size)
    x[:k] = specials[:k]
    return x
