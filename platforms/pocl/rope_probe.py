#!/usr/bin/env python3
"""What PoCL vectorises in a RoPE kernel: rope_probe.cl's kernels against a float4 copy
in one run (docs/performance.md). Needs pyopencl and numpy (pip). A diagnostic: the
outputs are not checked.
usage: python3 platforms/pocl/rope_probe.py [MIB]   (bf16 q of MIB MiB, default 16)"""
import os
import sys

import numpy as np
import pyopencl as cl

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 16
plat = next(p for p in cl.get_platforms() if "Portable" in p.name)
ctx = cl.Context(plat.get_devices())
q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "rope_probe.cl")).read()
src += "kernel void copy4(global const float4 *a, global float4 *b)\n"
src += "{ size_t i = get_global_id(0); b[i] = a[i]; }\n"
prg = cl.Program(ctx, src).build(options="-cl-std=CL1.2")
T = (MIB << 20) // (40 * 128 * 2)
nb = T * 40 * 128 * 2
mf = cl.mem_flags
rng = np.random.default_rng(1)
bits = (rng.random(T * 40 * 128, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
x = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=bits)
y = cl.Buffer(ctx, mf.READ_WRITE, nb)
tab = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                hostbuf=rng.random(8192 * 128, dtype=np.float32))
pos = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                hostbuf=(np.arange(T) % 8192).astype(np.int32))
a, b = cl.Buffer(ctx, mf.READ_WRITE, nb), cl.Buffer(ctx, mf.READ_WRITE, nb)
k = {n: cl.Kernel(prg, n) for n in
     ["copy4", "scale", "flat_table", "rows_const", "rows_table", "rows_split"]}


def gbs(run, moved=2 * nb):
    ts = []
    for _ in range(7):
        e = run()
        e.wait()
        ts.append((e.profile.end - e.profile.start) * 1e-9)
    return moved / sorted(ts)[3] / 1e9


rows = [("scale (bf16 stream)", lambda: k["scale"](q, (nb // 2,), None, x)),
        ("flat, bicl's float2 table, in place",
         lambda: k["flat_table"](q, (T * 40 * 64,), None, x, tab, pos)),
        ("2-d, constant cos/sin, in place", lambda: k["rows_const"](q, (64, T * 40), (64, 1), x)),
        ("2-d, bicl's float2 table, out of place",
         lambda: k["rows_table"](q, (64, T * 40), (64, 1), x, y, tab, pos)),
        ("2-d, cos and sin rows, out of place",
         lambda: k["rows_split"](q, (64, T * 40), (64, 1), x, y, tab, pos))]
for r in range(2):
    copy = gbs(lambda: k["copy4"](q, (nb // 16,), None, a, b))
    print(f"run {r + 1}: copy {copy:.1f} GB/s, {MIB} MiB of bf16 q")
    for name, run in rows:
        g = gbs(run)
        print(f"  {name}: {g:.1f} GB/s ({g / copy:.2f})")
