"""pyopencl interop: a bicl Context over pyopencl's context, pyopencl Arrays as tensors,
the engine's (out-of-order) queue and its events."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, device_spec, require

import bicl
from bicl import reference as ref


@pytest.fixture(scope="module")
def cl_setup():
    """pyopencl's context and an out-of-order queue (where offered) on the test device."""
    cl = require("pyopencl")
    dev_handle = bicl.Context(device_spec()).cl_device
    for platform in cl.get_platforms():
        for dev in platform.get_devices():
            if dev.int_ptr == dev_handle:
                cl_ctx = cl.Context([dev])
                ooo = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                props = ooo if dev.queue_properties & ooo else 0
                return cl, cl_ctx, cl.CommandQueue(cl_ctx, dev, properties=props)
    pytest.fail("the test device is not among pyopencl's devices")


def test_ops_on_pyopencl_arrays(cl_setup) -> None:
    cl, cl_ctx, queue = cl_setup
    import pyopencl.array as cla

    from bicl import pyopencl_interop as pi

    ctx = pi.context(queue)
    assert ctx.cl_context == cl_ctx.int_ptr
    rng = np.random.default_rng(3)
    gate = ref.f32_to_bf16(rng.standard_normal((9, 40)).astype(np.float32))
    up = ref.f32_to_bf16(rng.standard_normal((9, 40)).astype(np.float32))
    g, u = cla.to_device(queue, gate), cla.to_device(queue, up)
    act = cla.empty(queue, (9, 40), np.uint16)
    out = cla.empty(queue, (9, 40), np.float32)
    ctx.glu("swiglu", g, u, act, round_act_to_storage=True, queue=queue)
    assert act.events, "the op's event is on the output array"
    ctx.cast(act, out, queue=queue)  # waits for act.events on the out-of-order queue
    want = ref.cast(ref.glu("swiglu", gate, up, round_act_to_storage=True), "f32")
    assert_bits_equal(out.get(), want, "pyopencl chain")
    # a strided pyopencl view: every other row
    half = cla.empty(queue, (5, 40), np.float32)
    ctx.unary("tanh", out[::2], half, queue=queue)
    assert_bits_equal(half.get(), ref.unary("tanh", want[::2]), "strided")
    ev = ctx.unary("relu", half, half, queue=queue, event=True)
    pev = pi.to_pyopencl_event(ev)
    pev.wait()
    assert pev.command_execution_status == cl.command_execution_status.COMPLETE
    ctx.close()
