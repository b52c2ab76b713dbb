/* tests/fuzz/ — libFuzzer targets for every parser of untrusted bytes (program binaries,
 * build options, kernel source, property lists). They link kiln_core and call the OpenCL
 * API directly (no loader), built with clang-19 under -fsanitize=fuzzer,address,undefined
 * (CMake option KILN_FUZZ; scripts/fuzz.sh builds and runs them).
 *
 * fuzz_common.h: the objects every target reuses across inputs, made once. A call that
 * must succeed and does not is a finding: it aborts, and libFuzzer keeps the input. */
#ifndef KILN_FUZZ_COMMON_H
#define KILN_FUZZ_COMMON_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fuzz_env {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
};

#define FUZZ_CHECK(call)                                                             \
  do {                                                                               \
    cl_int fuzz_err_ = (call);                                                       \
    if (fuzz_err_ != CL_SUCCESS) {                                                   \
      fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, fuzz_err_); \
      abort();                                                                       \
    }                                                                                \
  } while (0)

static inline struct fuzz_env *fuzz_env(void) {
  static struct fuzz_env env;
  if (!env.context) {
    setenv("KILN_CACHE", "0", 1); /* every input compiled, nothing written to disk */
    FUZZ_CHECK(clGetPlatformIDs(1, &env.platform, NULL));
    FUZZ_CHECK(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 1, &env.device, NULL));
    cl_int err;
    env.context = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    FUZZ_CHECK(err);
    env.queue = clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
    FUZZ_CHECK(err);
  }
  return &env;
}

/* `data` as a NUL-terminated string (caller frees). */
static inline char *fuzz_string(const unsigned char *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* A status an entry point may return for bad input: an error, never success on garbage
 * checked by the caller, and never a code outside the API's range. */
static inline void fuzz_expect_status(cl_int status, const char *what) {
  if (status > 0 || status < -1200) {
    fprintf(stderr, "%s returned %d, not an OpenCL status\n", what, status);
    abort();
  }
}

/* Creates every kernel of a built program (code generation) and queries each: its
 * arguments' type names and its work-group size. Kernels are not run: a kernel may write
 * outside its buffers, which crashes a CPU driver by design (docs/reliability.md). */
static inline void fuzz_describe_kernels(struct fuzz_env *env, cl_program program) {
  cl_uint count = 0;
  cl_int err = clCreateKernelsInProgram(program, 0, NULL, &count);
  fuzz_expect_status(err, "clCreateKernelsInProgram");
  if (err != CL_SUCCESS || !count) return;
  cl_kernel *kernels = calloc(count, sizeof *kernels);
  if (kernels && clCreateKernelsInProgram(program, count, kernels, NULL) == CL_SUCCESS)
    for (cl_uint i = 0; i < count; i++) {
      cl_uint args = 0;
      FUZZ_CHECK(clGetKernelInfo(kernels[i], CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL));
      for (cl_uint a = 0; a < args; a++) {
        size_t name_size;
        fuzz_expect_status(clGetKernelArgInfo(kernels[i], a, CL_KERNEL_ARG_TYPE_NAME, 0, NULL, &name_size),
                           "clGetKernelArgInfo");
      }
      size_t group;
      FUZZ_CHECK(clGetKernelWorkGroupInfo(kernels[i], env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof group, &group, NULL));
      FUZZ_CHECK(clReleaseKernel(kernels[i]));
    }
  free(kernels);
}

#endif
