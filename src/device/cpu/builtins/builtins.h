/* src/device/cpu/builtins/ — the OpenCL C builtin library (work-item, integer, common,
 * relational, geometric, math, conversions, vector load/store, shuffle, synchronization,
 * atomics, async copies, printf), written in OpenCL C from the OpenCL C 3.0 spec, compiled
 * to LLVM bitcode at build time and embedded here. The compiler links it into every
 * executable program. What it leaves undefined: the __kiln_* intrinsics of kernel_abi.h,
 * SLEEF's scalar functions (Sleef_*) and C math library functions (remainder, ...);
 * tests/unit/test_builtins_coverage.c checks that nothing else is.
 *
 * builtins.h: the embedded bitcode (one llvm-link'ed module) and the names of the
 * functions and variables it defines (llvm-nm's list: one per line). */
#ifndef KILN_DEVICE_CPU_BUILTINS_H
#define KILN_DEVICE_CPU_BUILTINS_H

#include <stddef.h>

extern const unsigned char kiln_builtins_bitcode[];
extern const size_t kiln_builtins_bitcode_size;
extern const unsigned char kiln_builtins_symbols[];
extern const size_t kiln_builtins_symbols_size;

#endif
