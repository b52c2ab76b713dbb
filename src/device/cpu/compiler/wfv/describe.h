/* describe.h: a C view of whole-function vectorization's decisions, for unit tests
 * (tests/unit/test_wfv.c) and debugging. */
#ifndef KILN_DEVICE_CPU_COMPILER_WFV_DESCRIBE_H
#define KILN_DEVICE_CPU_COMPILER_WFV_DESCRIBE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Parses `ir` (LLVM assembly), linearizes its function `function` (already in the form
 * wfv::prepare makes) and widens it to `width` lanes. Returns (malloc'd) one line per fact:
 *   "%name: uniform" | "%name: affine <stride>" | "%name: varying"   (named values)
 *   "load %name: uniform|consecutive|gather"                          (named loads)
 *   "store <value>: uniform|consecutive|scatter"                       (stores, by value name)
 *   "block <name>: predicated" | "block <name>: all lanes"            (blocks after linearization)
 *   "branch <name>: kept"                             (a block still ending in a conditional branch)
 *   "widened" | "not vectorized: <why>"                               (last line)
 * or NULL when the IR does not parse or has no such function. */
char *kiln_wfv_describe(const char *ir, const char *function, unsigned width);

#ifdef __cplusplus
}
#endif

#endif
