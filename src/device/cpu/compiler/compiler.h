/* src/device/cpu/compiler/ — OpenCL C to machine code, in process: the clang front end,
 * LLVM passes (work-group launchers, local memory, barriers), linking with the builtin
 * library, the ORC JIT and the compiled-code cache. C++ inside (clang and LLVM have no C
 * API for these), this C header outside.
 *
 * compiler.h: the interface the runtime's program and kernel objects use. Every function
 * is thread-safe. Functions that can fail return 0 on success and set *log to a malloc'd,
 * NUL-terminated message (also on success: warnings, possibly ""); the caller frees it. */
#ifndef KILN_DEVICE_CPU_COMPILER_H
#define KILN_DEVICE_CPU_COMPILER_H

#include "device/cpu/kernel_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An embedded header for clCompileProgram (input_headers / header_include_names). */
struct kiln_cl_header {
  const char *include_name;
  const char *source;
  size_t length;
};

/* Result codes (mapped by the runtime to CL_* errors). */
enum kiln_compile_status {
  KILN_COMPILE_OK = 0,
  KILN_COMPILE_INVALID_OPTIONS,  /* -> CL_INVALID_BUILD_OPTIONS / CL_INVALID_COMPILER_OPTIONS / ..._LINKER_OPTIONS */
  KILN_COMPILE_FAILED,           /* -> CL_BUILD_PROGRAM_FAILURE / CL_COMPILE_PROGRAM_FAILURE / CL_LINK_PROGRAM_FAILURE */
  KILN_COMPILE_INVALID_BINARY,   /* -> CL_INVALID_BINARY */
  KILN_COMPILE_OUT_OF_MEMORY,
};

/* An LLVM module with its kernels' descriptions (compiled object, library or executable). */
typedef struct kiln_module kiln_module;

/* Checks an OpenCL option string: 0 when every option is one the spec defines for
 * clBuildProgram / clCompileProgram (-D, -I, -cl-std=, -cl-opt-disable, -w, -Werror, ...),
 * KILN_COMPILE_INVALID_OPTIONS otherwise (log says which). */
int kiln_compiler_check_options(const char *options, bool for_link, char **log);

/* OpenCL C source -> compiled object (not yet linked with the builtin library). */
int kiln_compiler_compile(const char *source, size_t length, const char *options,
                          const struct kiln_cl_header *headers, size_t num_headers, kiln_module **out, char **log);

/* A SPIR-V module (spirv_module.h, read and validated) with its specialization constants
 * -> compiled object, as kiln_compiler_compile makes from source (spirv_frontend.cpp).
 * Options as for source; preprocessor options and -cl-std do nothing for IL. */
struct kiln_spirv_module;
int kiln_compiler_compile_il(const struct kiln_spirv_module *il, const char *options, kiln_module **out, char **log);

/* Links compiled objects / libraries. create_library: the result is a library (not linked
 * with builtins, no launchers); otherwise an executable whose kernels can be JIT-loaded. */
int kiln_compiler_link(kiln_module *const *inputs, size_t num_inputs, const char *options, bool create_library,
                       kiln_module **out, char **log);

/* Program binaries (CL_PROGRAM_BINARIES): Kiln's own versioned, checksummed format.
 * deserialize returns KILN_COMPILE_INVALID_BINARY for foreign or corrupt data. */
enum kiln_module_kind { KILN_MODULE_OBJECT = 1, KILN_MODULE_LIBRARY, KILN_MODULE_EXECUTABLE };
int kiln_module_serialize(const kiln_module *module, void **bytes, size_t *size);
int kiln_module_deserialize(const void *bytes, size_t size, kiln_module **out, char **log);
enum kiln_module_kind kiln_module_get_kind(const kiln_module *module);
void kiln_module_free(kiln_module *module);

/* A kernel argument as clGetKernelArgInfo describes it, plus where it sits in the block. */
struct kiln_kernel_arg_desc {
  enum kiln_arg_kind kind;
  uint32_t offset;            /* in the packed argument block */
  uint32_t size;              /* bytes clSetKernelArg must be given (pointers: sizeof(cl_mem)) */
  uint32_t address_qualifier; /* CL_KERNEL_ARG_ADDRESS_* */
  uint32_t access_qualifier;  /* CL_KERNEL_ARG_ACCESS_* */
  uint64_t type_qualifier;    /* CL_KERNEL_ARG_TYPE_* bits */
  const char *type_name;      /* e.g. "float4*" */
  const char *name;           /* NULL unless compiled with -cl-kernel-arg-info */
};

/* The size of every sub-group Kiln runs (builtins/subgroups.cl): one work-item. */
#define KILN_SUB_GROUP_SIZE 1u

struct kiln_kernel_desc {
  const char *name;
  uint32_t num_args;
  const struct kiln_kernel_arg_desc *args;
  uint32_t args_block_size;       /* bytes of the packed argument block */
  uint64_t static_local_bytes;    /* __local variables declared in the kernel */
  uint64_t private_bytes;         /* per work-item stack estimate */
  uint64_t reqd_work_group_size[3];  /* 0,0,0 when not given */
  uint64_t work_group_size_hint[3];  /* 0,0,0 when not given */
  uint32_t required_sub_group_size;  /* intel_reqd_sub_group_size, 0 when not given */
  uint32_t compile_num_sub_groups;   /* SPIR-V's SubgroupsPerWorkgroup, 0 when not given */
  const char *attributes;         /* CL_KERNEL_ATTRIBUTES text */
  bool uses_barriers;               /* barriers, or work-group collective functions (barriers inside) */
  bool uses_work_group_scratch;     /* work-group collective functions: launches add their scratch */
  bool uses_printf;                /* calls printf: launches need a printf buffer */
  bool has_loops;                  /* loops in its own code: a work-item may run long (batch planner) */
  bool is_block;                   /* a block's kernel for enqueue_kernel: no kernel object may name it */
  bool enqueues;                   /* uses device-side enqueue: launches run with their children */
};

size_t kiln_module_kernel_count(const kiln_module *module);
const struct kiln_kernel_desc *kiln_module_kernel(const kiln_module *module, size_t index);
/* Whether it was compiled with -g. */
bool kiln_module_has_debug_option(const kiln_module *module);
/* Bytes of program-scope global variables (CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE). */
uint64_t kiln_module_global_variable_bytes(const kiln_module *module);

/* Machine code for an executable module: one launcher per kernel. Launchers take the
 * local size at run time, so a new local size never compiles anything. */
typedef struct kiln_jit_program kiln_jit_program;
int kiln_jit_load(const kiln_module *executable, kiln_jit_program **out, char **log);
kiln_launcher_fn kiln_jit_launcher(const kiln_jit_program *program, size_t kernel_index);
/* Bytes of stack one call of that launcher needs for the program's own code: its frame
 * (all of a work-item's private memory and spills) and the frames of the program's other
 * functions; from the generated machine code (library functions it calls come on top).
 * 0: not known. */
uint64_t kiln_jit_launcher_stack(const kiln_jit_program *program, size_t kernel_index);
/* Whether that launcher runs work-items as fibers (device/cpu/fibers.h): the kernel may
 * wait in a loop for another work-item of its group. Their private memory is on the
 * fibers' stacks then. */
bool kiln_jit_launcher_uses_fibers(const kiln_jit_program *program, size_t kernel_index);
void kiln_jit_free(kiln_jit_program *program);

/* Makes a host function or object visible to JIT-compiled code under `name` (runtime
 * helpers the builtin library calls, e.g. its printf helper: libkiln hides its own
 * symbols). Other external names resolve against the process (libc, libm, SLEEF).
 * Call before the first kiln_jit_load that needs it. */
void kiln_jit_define_symbol(const char *name, void *address);

/* For the compiled-code cache (program_cache.h). The machine code kiln_jit_load compiled,
 * as relocatable object files (none for a program loaded from objects); each one's bytes
 * live as long as the program. */
size_t kiln_jit_object_count(const kiln_jit_program *program);
const void *kiln_jit_object(const kiln_jit_program *program, size_t index, size_t *size);
/* Loads objects from kiln_jit_object of this executable, compiled by the same Kiln for the
 * same host: links them, no optimization or code generation. */
int kiln_jit_load_objects(const kiln_module *executable, const void *const *objects, const size_t *sizes,
                          size_t count, kiln_jit_program **out, char **log);
/* The host as the JIT compiles for it: "triple;cpu name;+feature,-feature,..." (static). */
const char *kiln_jit_host_identity(void);
/* Object files compiled by the JIT so far in this process (tests: a cache hit compiles none). */
unsigned long kiln_jit_code_generations(void);

/* For the unit tests of fault recovery (compiler_fault.hpp): runs, as a compiler call, code
 * that faults as `kind` says (a SIGSEGV or SIGFPE raised on the compiler thread, or an
 * LLVM fatal error) and returns what a build that faulted so returns: KILN_COMPILE_FAILED
 * and the log. */
enum kiln_compiler_fault { KILN_FAULT_SIGSEGV, KILN_FAULT_SIGFPE, KILN_FAULT_LLVM_FATAL_ERROR };
int kiln_compiler_provoke_fault(enum kiln_compiler_fault kind, char **log);

#ifdef __cplusplus
}
#endif

#endif
