/* selftest.h - layer 5: the device self-test (selftest.c), run by
 * context creation on programs of program.c. */
#ifndef BICL_SRC_SELFTEST_H
#define BICL_SRC_SELFTEST_H

#include "bicl/bicl.h"

#include <stdbool.h>
#include <stdint.h>

/* Runs the device self-test of ctx (src/selftest.c), or recalls its verdict for the
 * same fingerprint and f16 form: on success sets info.caps to what is proven (divide/sqrt
 * and denormals added, fp64 dropped if its part failed), caps_advertised and selftest_note.
 * Returns BICL_ERR_DEVICE_UNSUITABLE naming the first failing operation, BICL_ERR_BUILD_FAILED
 * where the compiler refused the _Float16 f16 form (remembered too), or the status of a
 * failed OpenCL call (not remembered), and then leaves ctx as it was. Needs ctx's cl objects,
 * options and base fingerprint. */
bicl_status bicl_context_selftest(bicl_context *ctx);
/* "suitable (fp64), self-tested", with what the self-test proved or dropped. */
void bicl_context_verdict(const bicl_context *ctx, char *out, size_t n);
/* For tests of the judgement without a device: the self-test's cases (4 words each:
 * op, a, b, c; malloc'ed, NULL and 0 on failure), the host's answer to one case, and
 * the verdict on a device's answers `got` for a device advertising `caps` (*caps_out:
 * what bicl_context_selftest would set; why: what it would say). */
size_t bicl_selftest_cases(bool fp64, uint64_t **cases);
uint64_t bicl_selftest_expect(const uint64_t *k);
bicl_status bicl_selftest_judge(const uint64_t *cases, size_t n, const uint64_t *got, unsigned caps,
                                unsigned *caps_out, char *why, size_t why_n);

#endif
