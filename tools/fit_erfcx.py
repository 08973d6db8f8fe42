#!/usr/bin/env python3
"""The coefficients of bicl_m_erfcx_p_d and bicl_m_erfcx_q_d (cl/bicl_math_f32.h): erfcx(z) =
e^(z^2) erfc(z) on z in [0, 10.27] (the largest z gelu's double path sees) as P(z) / Q(z),
both of degree N with P(0) = Q(0) = 1, fitted to erfcx's relative error in mpmath (60
digits):
  1. the rational: linearised least squares on 300 Chebyshev points (Sanathanan-Koerner:
     each pass divides by the previous Q), then Lawson's reweighting by the errors towards
     the minimax; the pass with the smallest largest error is kept;
  2. Q rounded to double, P fitted again against the rounded Q the same way (so that P
     absorbs Q's rounding), then rounded.
Prints the Horner lines of the header (highest degree first) and, on stderr, the largest
relative error of the rounded quotient over 4001 points of [0, 10.27].

usage: python3 tools/fit_erfcx.py [N]   (N = 9: the header's)
Needs mpmath (pip install mpmath); about a minute. Not part of the build or the tests: the
header holds the output, and bicl-math-identity --exhaustive proves the function that uses
it (docs/accuracy.md)."""
import sys

import mpmath as mp

mp.mp.dps = 60
Z_HI = mp.mpf("10.27")
POINTS = 300


def erfcx(z):
    return mp.erfc(z) * mp.exp(z * z)


def value(c, z):
    return mp.polyval(c[::-1], z)  # c: lowest degree first


def weighted_fit(zs, fs, n, m, den_of, iters):
    """P (degree n) and Q (degree m, given by den_of when m = 0) with P(0) = Q(0) = 1,
    minimising the largest |P / Q / f - 1| on zs by reweighted linearised least squares."""
    w = [mp.mpf(1)] * len(zs)
    qprev = [den_of(z) for z in zs]
    best = None
    for it in range(iters):
        rows, rhs = [], []
        for z, f, wi, q in zip(zs, fs, w, qprev):
            s = wi / (f * q)
            rows.append([s * z**j for j in range(1, n + 1)] + [-s * f * z**k for k in range(1, m + 1)])
            rhs.append(s * (f * den_of(z) - 1) if m == 0 else s * (f - 1))
        x = mp.qr_solve(mp.matrix(rows), mp.matrix(rhs))[0]
        p = [mp.mpf(1)] + [x[j] for j in range(n)]
        q = [mp.mpf(1)] + [x[n + k] for k in range(m)]
        errs = []
        for i, (z, f) in enumerate(zip(zs, fs)):
            qv = value(q, z) if m else den_of(z)
            if m:
                qprev[i] = qv
            errs.append(value(p, z) / qv / f - 1)
        worst = max(abs(e) for e in errs)
        if best is None or worst < best[0]:
            best = (worst, p, q)
        if m == 0 or it >= 8:  # Lawson, once the linearisation has settled
            w = [wi * abs(e) for wi, e in zip(w, errs)]
            total = sum(w)
            w = [wi / total * len(zs) for wi in w]
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    zs = [Z_HI / 2 * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / POINTS)) for i in range(POINTS)]
    fs = [erfcx(z) for z in zs]
    _, _, q = weighted_fit(zs, fs, n, n, lambda z: mp.mpf(1), 60)
    q = [mp.mpf(float(c)) for c in q]
    _, p, _ = weighted_fit(zs, fs, n, 0, lambda z: value(q, z), 40)
    p = [mp.mpf(float(c)) for c in p]
    worst, at = 0, 0
    for i in range(4001):
        z = Z_HI * i / 4000
        e = abs(value(p, z) / value(q, z) / erfcx(z) - 1)
        if e > worst:
            worst, at = e, z
    print(f"degree {n}/{n}: relative error 2^{float(mp.log(worst, 2)):.2f} at z = {float(at):.4f}",
          file=sys.stderr)
    for name, c in (("P", p), ("Q", q)):
        print(f"{name}:\n    double p = {float(c[-1]).hex()};")
        for x in reversed(c[1:-1]):
            print(f"    p = bicl_fma(p, z, {float(x).hex()});")
        print("    return bicl_fma(p, z, 1.0);")


if __name__ == "__main__":
    main()
