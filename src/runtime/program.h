/* program.h: program objects. A program holds its context (internal reference), its
 * source or binary, and the result of the last build, compile or link: a compiled
 * module (device/cpu/compiler/compiler.h) and, for executables, its JIT-compiled code.
 * Kernels hold their program; while any kernel exists the build state is frozen
 * (clBuildProgram / clCompileProgram refuse), so kernels may read it without the lock. */
#ifndef KILN_RUNTIME_PROGRAM_H
#define KILN_RUNTIME_PROGRAM_H

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/compiler/program_cache.h"
#include "device/cpu/compiler/spirv_module.h"
#include "device/cpu/device_enqueue.h"
#include "runtime/object.h"

#include <pthread.h>

enum kiln_program_origin {
  KILN_PROGRAM_FROM_SOURCE = 1,
  KILN_PROGRAM_FROM_BINARY,
  KILN_PROGRAM_FROM_LINK,
  KILN_PROGRAM_FROM_IL,
};

/* What the runtime needs to know about the options a module was built with. */
struct kiln_program_option_flags {
  bool uniform_work_groups;  /* OpenCL C 1.x (no -cl-std=CL2.0/CL3.0) or -cl-uniform-work-group-size */
  bool kernel_arg_info;      /* -cl-kernel-arg-info */
};

struct _cl_program {
  struct kiln_object obj;
  cl_context context;              /* internal reference */
  cl_device_id device;             /* Kiln's one device */
  cl_uint num_devices;             /* CL_PROGRAM_DEVICES: the context's list or the one given */
  cl_device_id *devices;
  enum kiln_program_origin origin;
  char *source;                    /* FROM_SOURCE: the concatenated strings, NUL-terminated */
  size_t source_length;
  void *il;                        /* FROM_IL: the bytes as given (CL_PROGRAM_IL) */
  size_t il_length;

  pthread_mutex_t lock;            /* guards everything below */
  cl_build_status build_status;
  bool busy;                       /* a build, compile or link is running (CL_BUILD_IN_PROGRESS) */
  char *options;                   /* of the last build/compile/link; NULL: "" */
  char *log;                       /* NULL: "" */
  struct kiln_spirv_module spirv;  /* FROM_IL: host-order words; the spec constants' values */
  kiln_module *module;             /* object, library or executable; NULL: none */
  struct kiln_program_option_flags flags;
  kiln_jit_program *jit;           /* the executable's code: NULL until the first kernel needs it */
  struct kiln_enqueue_program *enqueue; /* device-side enqueue's table (program_enqueue.c), or NULL */
  bool cache_store_pending;        /* store module + code under cache_key once generated */
  struct kiln_program_cache_key cache_key;
  char *kernel_names;              /* "a;b;c" once an executable exists */
  unsigned kernel_objects;         /* live kernel objects created from this program */
  unsigned link_readers;           /* running links reading `module` as an input */
};

static inline bool kiln_program_is_valid(cl_program program) {
  return kiln_object_is_valid(program, KILN_OBJECT_PROGRAM);
}

/* Allocates a program in a valid context (build status CL_BUILD_NONE) for `devices`
 * (NULL: the context's devices). It is not a valid handle until kiln_program_publish:
 * the creator fills its fields first, so that no other thread (holding a released
 * program's handle, whose memory this one may reuse) sees them half written. */
cl_program kiln_program_create(cl_context context, enum kiln_program_origin origin, cl_uint num_devices,
                               const cl_device_id *devices, cl_int *errcode);
/* Registers the program: from now on its handle is valid. Returns it. */
cl_program kiln_program_publish(cl_program program);
/* CL_INVALID_DEVICE unless `device` is one of the program's devices. */
static inline bool kiln_program_has_device(cl_program program, cl_device_id device) {
  for (cl_uint i = 0; i < program->num_devices; i++)
    if (program->devices[i] == device) return true;
  return false;
}

/* True when the program has a successfully built executable (caller holds the lock or
 * knows the state is frozen by a kernel). Its code may not be generated yet. */
static inline bool kiln_program_has_executable_locked(cl_program program) {
  return program->build_status == CL_BUILD_SUCCESS && program->module != NULL &&
         kiln_module_get_kind(program->module) == KILN_MODULE_EXECUTABLE;
}

/* program_code.c: generates the executable's machine code unless it exists (caller holds
 * the lock and checked kiln_program_has_executable_locked). CL_OUT_OF_RESOURCES (reason in
 * the build log) or CL_OUT_OF_HOST_MEMORY when that fails. */
cl_int kiln_program_load_code_locked(cl_program program);

/* program_enqueue.c: makes the table of block kernels for device-side enqueue when the
 * code exists and a kernel enqueues (caller holds the lock); frees one. */
cl_int kiln_program_enqueue_table_locked(cl_program program);
void kiln_program_enqueue_table_free(struct kiln_enqueue_program *table);

/* The device's CL_DEVICE_COMPILER_AVAILABLE / CL_DEVICE_LINKER_AVAILABLE. */
bool kiln_program_compiler_available(cl_device_id device);
bool kiln_program_linker_available(cl_device_id device);

/* FROM_IL: the module's words with the specialization constants set so far written in,
 * as a module of their own (no constants left to set) for the compiler; false when out of
 * memory. Caller holds the lock; free with kiln_spirv_module_free. */
bool kiln_program_specialized_il_locked(cl_program program, struct kiln_spirv_module *out);

/* program_build.c: option strings. */
struct kiln_program_option_flags kiln_program_parse_option_flags(const char *options);
/* Appends `more` to the malloc'd log `*log` on a new line (either may be NULL); frees `more`. */
void kiln_program_append_log(char **log, char *more);
/* True when `options` holds `option` as a whole token. */
bool kiln_program_options_have(const char *options, const char *option);

/* Installs the result of a build/compile/link (takes ownership of module and log) and
 * loads the executable's code. Returns CL_SUCCESS or the failure to report. */
cl_int kiln_program_install_module(cl_program program, kiln_module *module, struct kiln_program_option_flags flags);

/* program_binary.c: Kiln's program binary = a small header (format version, the build
 * options and their flags) followed by the compiler's serialized module. */
cl_int kiln_program_binary_encode(cl_program program, void **bytes, size_t *size);
cl_int kiln_program_binary_decode(const void *bytes, size_t size, kiln_module **module, char **options,
                                  struct kiln_program_option_flags *flags);

/* The kernels the API sees (CL_PROGRAM_NUM_KERNELS, clCreateKernelsInProgram): the
 * module's, less the kernels clang makes of blocks for enqueue_kernel. */
static inline size_t kiln_program_api_kernel_count(const kiln_module *module) {
  size_t count = 0;
  for (size_t i = 0; i < kiln_module_kernel_count(module); i++) count += !kiln_module_kernel(module, i)->is_block;
  return count;
}

/* Kernel objects call these when they are created (program lock held) / destroyed. */
void kiln_program_kernel_attached_locked(cl_program program);
void kiln_program_kernel_detached(cl_program program);

#endif
