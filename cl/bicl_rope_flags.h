/* bicl_rope_flags.h - the RoPE kernels' flag bits and M-RoPE modes: one list for the
 * kernels that test them (cl/rope.cl) and the host that sets them (src/rope.c,
 * src/mrope.c). */
#ifndef BICL_ROPE_FLAGS_H
#define BICL_ROPE_FLAGS_H

/* Bits of the flags argument, or of a specialised kernel's flags constant. */
#define ROPE_GPTJ         1u
#define ROPE_INVERSE      2u
#define ROPE_INLINE       4u
#define ROPE_HF           8u
#define ROPE_Q_IN_PLACE   16u
#define ROPE_K_IN_PLACE   32u
#define ROPE_DEINTERLEAVE 64u
#define ROPE_ALL_HEADS    128u /* one unit per (token, pair group) rotates every head */
#define ROPE_ONE_ROW      256u /* one batch row (S == T): no division for a token's row */
#define ROPE_PAIRED       512u /* rows form: a 16-bit GPT-J pair moves as one 32-bit word */
#define ROPE_UNIT_STRIDE  1024u /* rows form: every q/k view's element stride is 1 */
#define ROPE_ROWS_HEADS4  2048u /* rows form, specialised: 4 heads of a token to a group */

/* M-RoPE's mode: ROPE_M_NONE for 1-D RoPE (one position row), else the section layout of
 * bicl_mrope_row (cl/bicl_mrope.h). */
#define ROPE_M_NONE        0u
#define ROPE_M_CHUNKED     1u
#define ROPE_M_INTERLEAVED 2u

#endif
