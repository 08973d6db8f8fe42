/* tool_common.h - what the command-line tools share (programs/ and the developer tools
 * in tools/): a monotonic clock and a median. */
#ifndef BICL_TOOL_COMMON_H
#define BICL_TOOL_COMMON_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double tool_now_s(void);
/* The median of v[0..n-1], n > 0 (sorts v). */
double tool_median(double *v, size_t n);

#endif
