#!/usr/bin/env python3
"""The coefficients of bicl_m_erfcx_poly_d (cl/bicl_math_f32.h): erfcx(z) = e^(z^2) erfc(z) on
z in [0, 10.3] as a polynomial in t = (z - K) / (z + K), K = 4, by Chebyshev interpolation
at N nodes in t (mpmath, 50 digits), rounded to double; prints the Horner lines of the
header (highest degree first) and, on stderr, the rounded polynomial's largest relative
error over 2001 points of z in [0, 10.27] (the largest z the double path sees).

usage: python3 tools/fit_erfcx.py [N]   (N = 21: degree 20, the header's)
Needs mpmath (pip install mpmath). Not part of the build or the tests: the header holds
the output, and bicl-accuracy --exhaustive proves the function that uses it."""
import sys

import mpmath as mp

mp.mp.dps = 50
K = mp.mpf(4)
Z_LO, Z_HI, Z_USED = mp.mpf(0), mp.mpf("10.3"), mp.mpf("10.27")


def erfcx(z):
    return mp.erfc(z) * mp.exp(z * z)


def t_of(z):
    return (z - K) / (z + K)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    g = lambda t: erfcx(K * (1 + t) / (1 - t))  # noqa: E731 (z as a function of t)
    poly = mp.chebyfit(g, [t_of(Z_LO), t_of(Z_HI)], n)
    rounded = [mp.mpf(float(c)) for c in poly]
    worst, at = 0, None
    t0, t1 = t_of(Z_LO), t_of(Z_USED)
    for i in range(2001):
        t = t0 + (t1 - t0) * i / 2000
        e = abs(mp.polyval(rounded, t) / g(t) - 1)
        if e > worst:
            worst, at = e, t
    print(f"degree {n - 1}: relative error 2^{float(mp.log(worst, 2)):.2f} at t = {float(at):.4f}",
          file=sys.stderr)
    print(f"    double p = {float(rounded[0]).hex()};")
    for c in rounded[1:]:
        print(f"    p = bicl_fma(p, t, {float(c).hex()});")


if __name__ == "__main__":
    main()
