/* bounds_check.h: bounds-checked kernels (KILN_CHECK=bounds). The compiler
 * (compiler/bounds_checks.cpp) guards every access made through a pointer that comes from a
 * kernel argument with a test against the argument's extent, which the runtime writes after
 * the packed argument block (kernel_abi.h's table); an access outside is not made and calls
 * the violation handler here instead. The handler keeps the first violation of the batch the
 * thread runs; the executor fails the command (CL_OUT_OF_RESOURCES, as a GPU driver reports
 * a faulting kernel) and prints what happened: kernel, argument, access, work-item. */
#ifndef KILN_DEVICE_CPU_BOUNDS_CHECK_H
#define KILN_DEVICE_CPU_BOUNDS_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether kernels are compiled with bounds checks: KILN_CHECK contains "bounds" (read
 * when the library loads; the same for the whole process, so compiled code and launches
 * agree). */
bool kiln_bounds_checking(void);

/* Registers the violation handler with the JIT (before code that calls it is loaded). */
void kiln_bounds_check_register(void);

/* A batch's violations: cleared before the batch runs; afterwards, whether one happened. */
void kiln_bounds_batch_begin(void);
bool kiln_bounds_batch_violated(void);

/* Prints the calling thread's last batch's first violation, if it had one (stderr, one
 * line). The executor prints one per failed command: the batch that failed it first. */
void kiln_bounds_report(void);

#ifdef __cplusplus
}
#endif

#endif
