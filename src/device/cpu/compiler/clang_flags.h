/* clang_flags.h: the contract between the in-process compiler (the .cpp files in compiler/) and the
 * builtin library (builtins/, compiled by clang-19 at build time). Both must compile with
 * the same target and language flags, or the mangled names of the builtins (and the
 * calling convention of calls into them) do not match.
 *
 * Target: spir64-unknown-unknown, not the host triple. SPIR's kernel ABI is simple — one
 * IR parameter per source argument: scalars and vectors by value, structs as `ptr byval`
 * — so the launcher generator maps the packed argument block onto the kernel's signature
 * without re-implementing the host's C ABI classification. After linking, the compiler
 * retargets the module to the host (triple, data layout, calling conventions -> C) and the
 * JIT compiles it for the host CPU and its features.
 *
 * Address spaces (SPIR numbering, kept in the IR; x86 treats casts between them as no-ops):
 * 0 private, 1 global, 2 constant, 3 local, 4 generic (OpenCL C 3.0 with
 * __opencl_c_generic_address_space; builtins/address_spaces.cl tells where one points).
 *
 * Builtin library rules:
 *  - clang-19 driver form:
 *      clang-19 -target spir64-unknown-unknown -x cl -cl-std=CL3.0
 *        -Xclang -fdeclare-opencl-builtins -Xclang -finclude-default-header
 *        -cl-ext=<KILN_CLANG_CL_EXT> -U__SPIR__ -U__SPIR64__ -O2 -emit-llvm -c file.cl -o file.bc
 *    (then llvm-link-19 the .bc files into one module). -cl-std may be CL1.2 or CL3.0:
 *    mangling was checked to be identical across CL1.0..CL3.0 for these flags.
 *  - The work-item intrinsics of kernel_abi.h are plain (not overloadable) functions, e.g.
 *      size_t __kiln_local_id(uint d);   void __kiln_barrier(uint flags);
 *    declared only, never defined: the launcher generator replaces every call.
 *  - Never define kernels (__kernel) in the library.
 *  - __kiln_barrier must not be declared const/pure: optimizations before the barrier
 *    transformation must see it as reading and writing memory.
 *  - Calls from the library into host C code (runtime helpers, libm, SLEEF) must pass
 *    only scalars and pointers (also through "..."): the SPIR ABI for struct/vector
 *    arguments is not the host's. Host functions inside libkiln (e.g. the printf helper)
 *    are hidden by the version script, so they must be registered with
 *    kiln_jit_define_symbol(); other external names (memcpy, sinf, Sleef_*) resolve
 *    against the process's loaded libraries.
 *  - Do not rely on `convergent`: the compiler removes it from everything except
 *    __kiln_barrier before optimizing. */
#ifndef KILN_DEVICE_CPU_COMPILER_CLANG_FLAGS_H
#define KILN_DEVICE_CPU_COMPILER_CLANG_FLAGS_H

#define KILN_CLANG_TRIPLE "spir64-unknown-unknown"

/* The OpenCL extensions and optional features the device reports (and the builtins
 * implement) that clang defines itself; opencl_c_features.c lists every feature and the
 * macros the front end defines beside these. Everything else (mipmaps, sRGB writes)
 * is off. */
#define KILN_CLANG_CL_EXT                                                                                   \
  "-all,+cl_khr_fp64,+__opencl_c_fp64,+__opencl_c_int64,+__opencl_c_program_scope_global_variables,"        \
  "+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics," \
  "+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics,"       \
  "+cl_khr_int64_extended_atomics,+__opencl_c_atomic_order_acq_rel,+__opencl_c_atomic_order_seq_cst,"       \
  "+__opencl_c_atomic_scope_device,+__opencl_c_atomic_scope_all_devices,+__opencl_c_images,"               \
  "+__opencl_c_read_write_images,+__opencl_c_3d_image_writes,+cl_khr_3d_image_writes,+cl_khr_depth_images,"     \
  "+__opencl_c_generic_address_space,+__opencl_c_subgroups,+cl_khr_subgroups,+cl_khr_fp16,+__opencl_c_pipes,"                  \
  "+__opencl_c_device_enqueue"

/* The cc1 flags the in-process compiler uses for every program (user options follow).
 * __SPIR__ is undefined because clang's opencl-c-base.h turns on sub-group, dot-product,
 * float-atomic and other extension macros for SPIR targets, which this device lacks.
 * __OPENCL_VERSION__ (the device's OpenCL version, OpenCL C spec
 * "Preprocessor Directives and Macros") is the implementation's to define; clang does not.
 * For -cl-std=CL1.x the front end turns program-scope __global variables and the
 * generic address space off (OpenCL C 2.0/3.0 features). */
#define KILN_CLANG_CC1_FLAGS                                                                          \
  "-triple", KILN_CLANG_TRIPLE, "-fdeclare-opencl-builtins", "-finclude-default-header",             \
      "-cl-ext=" KILN_CLANG_CL_EXT, "-U__SPIR__", "-U__SPIR64__",       \
      "-D__OPENCL_VERSION__=300", "-O2", "-disable-llvm-passes"

/* OpenCL C version when -cl-std is not given: the highest 1.x the device supports. */
#define KILN_CLANG_DEFAULT_STD "CL1.2"

#endif
