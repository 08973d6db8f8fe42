/* context.h - layer 6: a context's variants (context.c; creation and
 * the public context functions are in bicl/bicl.h). */
#ifndef BICL_SRC_CONTEXT_H
#define BICL_SRC_CONTEXT_H

#include "profile.h"

/* The variant the context launches a kernel with: the profile's for launch class c
 * (bicl_vclass_of), or the forced one. */
bicl_variant bicl_context_variant_snapshot(bicl_context *ctx);
/* The variant for a launch of class c (bicl_vclass_of). */
bicl_variant bicl_context_variant_for(bicl_context *ctx, bicl_vclass c);

#endif
