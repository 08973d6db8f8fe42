/* reference.h - layer 2: the host reference's element access
 * (reference.c) and what an op shares with its reference (pointwise_ref.c). */
#ifndef BICL_SRC_REFERENCE_H
#define BICL_SRC_REFERENCE_H

#include "bicl/bicl.h"

/* Element i of a host array of dtype dt (f32/f16/bf16) as f32, and back. */
float bicl_ref_load(bicl_dtype dt, const void *p, size_t i);
void bicl_ref_store(bicl_dtype dt, void *p, size_t i, float v);
/* y[j] = x[i] converted as bicl_cast does (bits copied for equal dtypes). */
void bicl_ref_copy_elem(bicl_dtype in, const void *x, size_t i, bicl_dtype out, void *y, size_t j);

/* The causal mask's offset clamped to [-rows, cols - 1], where it means the same
 * (cl/bicl_pointwise_ops.h, bicl_causal_filled); shared by the op and its reference. */
long bicl_mask_causal_offset(long offset, size_t rows, size_t cols);

#endif
