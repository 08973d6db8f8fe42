/* bicl_math_version.h - the version of bicl's f32 math, named in the numerics
 * fingerprint (bicl_fingerprint) so that nodes running different math see that their
 * bits differ. Raise it with every change of any function's bits (docs/accuracy.md
 * lists what each version computes).
 *   1  every function within its bound (0.51 ulp; erf 0.79, gelu 0.84), not CR
 *   2  exp, sigmoid and silu correctly rounded (proven on all 2^32 inputs); the
 *      others as in 1, bit for bit
 *   3  also gelu_quick correctly rounded
 *   4  also expm1, tanh, gelu_tanh and softcap correctly rounded (the others as in
 *      3, bit for bit)
 *   5  also erf and gelu (erf) correctly rounded (the others as in 4, bit for bit)
 *   6  also swiglu_oss (gpt-oss's SwiGLU) correctly rounded, and the single-rounding
 *      gated units swiglu1 and geglu_tanh1 (bicl_math_glu_f32.h); the others as in 5 */
#ifndef BICL_MATH_VERSION_H
#define BICL_MATH_VERSION_H
#define BICL_MATH_VERSION "6"
#endif
