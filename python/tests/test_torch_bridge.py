"""The PyTorch bridge. On a machine with torch, CUDA and NVIDIA's OpenCL (the H200 rig:
python/tools/gpu_demo.sh) the ops run on pool tensors without copies; elsewhere only the
allocator module's own behaviour is tested and the rest is skipped (CUDA is never a CI
requirement)."""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest
from conftest import assert_bits_equal

import bicl
from bicl import reference as ref
from bicl import torch_bridge as tb


def test_allocator_module_without_a_driver() -> None:
    if not os.path.exists(tb.allocator_path()):
        pytest.skip("the allocator module was not built here (no cuda.h)")
    so = ctypes.CDLL(tb.allocator_path())
    so.bicl_cuda_init.restype = ctypes.c_char_p
    so.bicl_cuda_alloc.restype = ctypes.c_void_p
    so.bicl_cuda_alloc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    so.bicl_cuda_last_error.restype = ctypes.c_char_p
    why = so.bicl_cuda_init().decode()
    if not why:
        pytest.skip("this machine has a CUDA driver")
    assert "CUDA driver" in why
    assert so.bicl_cuda_alloc(1024, 0, None) is None
    assert so.bicl_cuda_last_error().decode() == why
    assert tb.availability() != "available"


@pytest.fixture(scope="module")
def bridge():
    why = tb.availability()
    if why != "available":
        pytest.skip(f"PyTorch bridge: {why}")
    ctx = bicl.Context(os.environ.get("BICL_TORCH_DEVICE", "nvidia"))
    return tb.TorchBridge(ctx)


def _bf16(torch, a: np.ndarray):
    return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)


def _np(torch, t) -> np.ndarray:
    return t.cpu().view(torch.int16).numpy().view(np.uint16)


def test_ops_on_pool_tensors_equal_the_reference(bridge) -> None:
    import torch

    rng = np.random.default_rng(5)
    gate = ref.f32_to_bf16(rng.standard_normal((33, 1000)).astype(np.float32) * 3)
    up = ref.f32_to_bf16(rng.standard_normal((33, 1000)).astype(np.float32))
    g, u = bridge.copy_in(_bf16(torch, gate)), bridge.copy_in(_bf16(torch, up))
    act = bridge.empty((33, 1000), torch.bfloat16)
    bridge.ctx.glu("swiglu", g, u, act, round_act_to_storage=True)
    assert_bits_equal(_np(torch, act), ref.glu("swiglu", gate, up, round_act_to_storage=True), "glu")
    # torch reads bicl's output without a copy, and bicl reads torch's
    with bridge.allocating():  # torch's own kernel writes into the pool
        doubled = act.float() * 2
        y = torch.empty_like(doubled)
    out = bridge.empty((33, 1000), torch.bfloat16)
    bridge.ctx.scale(0.5, doubled, y)
    bridge.ctx.cast(y, out)
    assert torch.equal(out, act)
    # a view with an offset and strides inside a segment
    half = bridge.empty((17, 1000), torch.float32)
    bridge.ctx.unary("silu", g[::2], half)
    assert_bits_equal(half.cpu().numpy(), ref.unary("silu", gate[::2], "f32"), "strided")


def test_segments_are_imported_once_and_released(bridge) -> None:
    import torch

    before = bridge.stats()
    x = bridge.empty((1 << 16,), torch.float32)
    x.fill_(1.5)
    for _ in range(5):
        bridge.ctx.unary("relu", x, x)
    after = bridge.stats()
    assert after["imports"] - before["imports"] <= 1
    assert float(x[7]) == 1.5
    del x
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # frees unused segments: their cl_mem goes with them
    s = bridge.stats()
    assert s["segments_made"] - s["segments_freed"] == s["segments_live"]


def test_tensor_outside_the_pool_is_refused(bridge) -> None:
    import torch

    x = torch.zeros(16, device=bridge.device)
    with pytest.raises(ValueError, match="pool"):
        bridge.ctx.unary("relu", x, x)


def test_semaphore_ordering_needs_an_exporting_device(bridge) -> None:
    """sync='semaphore' runs where the device exports opaque-fd semaphores (the chain
    below then checks it) and is refused, naming what is missing, where it does not."""
    from bicl import _cl

    assert bridge.sync == "blocking" and "opt-in" in bridge.sync_why
    if "OPAQUE_FD" in _cl.semaphore_export_types(bridge.ctx.cl_device):
        ctx = bicl.Context(os.environ.get("BICL_TORCH_DEVICE", "nvidia"))
        b = tb.TorchBridge(ctx, sync="semaphore")
        assert b.sync == "semaphore"
        _chain(b)
        ctx.close()
    else:
        with pytest.raises(RuntimeError, match="CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR"):
            tb.TorchBridge(bridge.ctx, sync="semaphore")


def _chain(b, rounds: int = 6) -> None:
    """torch writes, bicl reads and writes in place, torch reads, with no host wait in
    between: 64 MiB per tensor, so that a missing wait lets a kernel see stale data."""
    import torch

    n = 1 << 24
    with b.allocating():
        x = torch.empty(n, device=b.device, dtype=torch.float32)
        y = torch.empty_like(x)
    for r in range(rounds):
        x.fill_(float(r + 1))  # torch's kernel, queued on its stream
        b.ctx.scale(2.0, x, y)  # bicl reads what torch wrote
        b.ctx.scale(3.0, y, y)  # and writes in place
        y.add_(1.0)  # torch reads bicl's result
        assert float(y[n - 1]) == 6.0 * (r + 1) + 1.0, (b.sync, r)


def test_ordering_of_the_default_bridge(bridge) -> None:
    _chain(bridge)


def test_blocking_ordering_and_one_context_per_segment(bridge) -> None:
    """A second bridge (blocking) on its own context orders the same chain; a tensor of
    the first bridge's pool is refused by the second context, never used across contexts."""
    import torch

    ctx2 = bicl.Context(os.environ.get("BICL_TORCH_DEVICE", "nvidia"))
    b2 = tb.TorchBridge(ctx2, sync="blocking")  # a second bridge, its own pool
    assert b2.sync == "blocking"
    _chain(b2, rounds=3)
    x1 = bridge.empty((1024,), torch.float32)
    x1.fill_(1.0)
    bridge.ctx.unary("relu", x1, x1)  # imported into the first context
    y2 = b2.empty((1024,), torch.float32)
    with pytest.raises(ValueError, match="another"):
        ctx2.unary("relu", x1, y2)
    ctx2.close()
