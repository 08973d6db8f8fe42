/* bicl_table_compact.h - the compact form of a 16-bit activation table (BICL_OPTION_ACT_TABLES
 * "compact"): the layout the host builds (src/act_tables.c) and the kernels read
 * (cl/unary.cl), one definition for both.
 *
 * The 65536 entries of a table of 16-bit results fall into BICL_TABLE_BLOCKS blocks of
 * 128 consecutive inputs (a block of bf16 inputs is one sign and one exponent). Most of a
 * uniformly random input's blocks follow a rule: every result the same (a saturated or
 * underflowed activation, NaN), or every result the input's bits plus one constant (x, or
 * x / 2 for a tiny x). The buffer holds a directory word per block, then the entries of the
 * other blocks only, two to a 32-bit word (read as bicl_table16_at reads a full table). A
 * directory word is
 *   BICL_TABLE_DIR_TABLE | base   the block's entries start at entry `base` of the list;
 *   BICL_TABLE_DIR_DELTA | add    result = (input + add) mod 2^16;
 *   add                           result = add.
 * So an element reads its block's word from a 2 KiB directory and at most one entry of a
 * short list, where the full table spreads random inputs over 128 KiB: fewer cache lines a
 * gather on a GPU. The host checks every entry of the compact form against the full table
 * when it builds it: the same bits by construction. */
#ifndef BICL_TABLE_COMPACT_H
#define BICL_TABLE_COMPACT_H

#include "bicl_portable.h"

#define BICL_TABLE_BLOCK_BITS 7
#define BICL_TABLE_BLOCKS     512u
#define BICL_TABLE_DIR_TABLE  0x80000000u
#define BICL_TABLE_DIR_DELTA  0x40000000u

/* The index in the entry list of input a's result under directory word d: 0 (a valid entry
 * whatever the block, read and not used) where d is a rule. */
BICL_FN bicl_u32 bicl_table_compact_index(bicl_u32 d, bicl_u32 a)
{
    bicl_u32 low = a & ((1u << BICL_TABLE_BLOCK_BITS) - 1u);
    return (d & BICL_TABLE_DIR_TABLE) != 0u ? (d & 0xffffu) + low : 0u;
}

/* Input a's result under directory word d, e the list's entry at bicl_table_compact_index. */
BICL_FN bicl_u16 bicl_table_compact_value(bicl_u32 d, bicl_u32 a, bicl_u16 e)
{
    bicl_u16 rule = (bicl_u16)(((d & BICL_TABLE_DIR_DELTA) != 0u ? a : 0u) + d);
    return (d & BICL_TABLE_DIR_TABLE) != 0u ? e : rule;
}

#endif /* BICL_TABLE_COMPACT_H */
