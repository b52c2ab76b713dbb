/* kiln_test_hash64.h: the 64-bit hash loop of the heavy work-group kernels (the loader
 * suite test_ndrange_spread and kiln_bench's "heavy" case): an xorshift step and a
 * multiplication per round, one long dependency chain per work-item. The OpenCL C
 * function and its host twin, which checks the kernels' results. Header only: the bench
 * includes it without linking the test library. */
#ifndef KILN_TEST_HASH64_H
#define KILN_TEST_HASH64_H

#include <CL/cl.h>

/* OpenCL C: ulong kiln_hash64(ulong x, uint rounds). */
#define KILN_HASH64_CL_SOURCE                                                   \
  "ulong kiln_hash64(ulong x, uint rounds) {\n"                                 \
  "  for (uint k = 0; k < rounds; k++) {\n"                                     \
  "    x ^= x << 13; x ^= x >> 7; x ^= x << 17; x *= 0x9E3779B97F4A7C15UL;\n" \
  "  }\n"                                                                       \
  "  return x;\n"                                                               \
  "}\n"

static inline cl_ulong kiln_hash64(cl_ulong x, cl_uint rounds) {
  for (cl_uint k = 0; k < rounds; k++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x *= 0x9E3779B97F4A7C15ull;
  }
  return x;
}

#endif
