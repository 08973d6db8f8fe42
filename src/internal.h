/* internal.h - every internal header of the host library, for the tests and tools that
 * reach inside it. Not installed. The library's own files include only the layer
 * headers they use (docs/internals.md), lowest first:
 *   0 status.h
 *   1 device.h profile.h sources.h diskcache.h ops.h
 *   2 options.h reference.h
 *   3 context_state.h (struct bicl_context)
 *   4 tensor.h program.h     5 selftest.h     6 context.h     7 launch.h
 *   8 tables.h               9 cast.h rope.h (ops)
 * A header includes only headers of lower layers; tests/check_layers.sh checks it. */
#ifndef BICL_INTERNAL_H
#define BICL_INTERNAL_H

#include "status.h"

#include "device.h"
#include "diskcache.h"
#include "ops.h"
#include "options.h"
#include "profile.h"
#include "reference.h"
#include "sources.h"
#include "tensor.h"

#include "context_state.h"

#include "program.h"

#include "selftest.h"

#include "context.h"

#include "launch.h"

#include "tables.h"

#include "cast.h"
#include "rope.h"

#endif /* BICL_INTERNAL_H */
