/* src/device/cpu/builtins/ — the OpenCL C builtin library (work-item, integer, common,
 * relational, geometric, math, conversions, vector load/store, shuffle, synchronization,
 * atomics, async copies, printf), written in OpenCL C from the OpenCL C 3.0 spec, compiled
 * to LLVM bitcode at build time and embedded here. The compiler links it into every
 * executable program. What it leaves undefined: the __kiln_* intrinsics of kernel_abi.h,
 * SLEEF's scalar functions (Sleef_*) and C math library functions (remainder, ...);
 * tests/unit/test_builtins_coverage.c checks that nothing else is.
 *
 * builtins.h: the embedded library, one bitcode module ("shard") per family, and the
 * names each shard defines, so that a program links only the families it uses. */
#ifndef KILN_DEVICE_CPU_BUILTINS_H
#define KILN_DEVICE_CPU_BUILTINS_H

#include <stddef.h>

struct kiln_builtins_shard {
  const char *name; /* the family: "math", "integer", ... */
  const unsigned char *bitcode;
  size_t size;
};

extern const struct kiln_builtins_shard kiln_builtins_shards[];
extern const size_t kiln_builtins_shard_count;
/* "name\tshard index\n" for every function and variable a shard defines. */
extern const char kiln_builtins_symbols[];
extern const size_t kiln_builtins_symbols_size;

#endif
