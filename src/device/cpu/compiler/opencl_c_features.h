/* opencl_c_features.h: the optional OpenCL C 3.0 features and the kernel-language
 * extension macros the device supports — one list for CL_DEVICE_OPENCL_C_FEATURES (the
 * runtime) and for the macros the front end defines (frontend.cpp), so that what is
 * reported and what a kernel sees cannot drift apart. Features clang defines itself come
 * from KILN_CLANG_CL_EXT (clang_flags.h, which the builtin library is compiled with);
 * the rest are "header-only" macros that clang's opencl-c-base.h defines for SPIR targets
 * only, which Kiln compiles without (__SPIR__ undefined), so the front end passes -D. */
#ifndef KILN_DEVICE_CPU_COMPILER_OPENCL_C_FEATURES_H
#define KILN_DEVICE_CPU_COMPILER_OPENCL_C_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kiln_opencl_c_macro {
  const char *name;
  bool feature;          /* an optional OpenCL C 3.0 feature (CL_DEVICE_OPENCL_C_FEATURES) */
  bool defined_by_clang; /* clang defines it from KILN_CLANG_CL_EXT; else the front end's -D */
  bool all_versions;     /* also for -cl-std=CL1.x (else OpenCL C 2.0 and 3.0 only) */
};

/* Every macro, features first; *count receives the number. */
const struct kiln_opencl_c_macro *kiln_opencl_c_macros(size_t *count);

#ifdef __cplusplus
}
#endif

#endif
