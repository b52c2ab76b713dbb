/* spirv_test_modules.h: what the SPIR-V suites (test_spirv.c, test_spirv_kernels.c)
 * share: the modules tests/CMakeLists.txt makes at build time (KILN_SPIRV_MODULE_DIR) and
 * their OpenCL C sources (KILN_SPIRV_SOURCE_DIR), programs of them, buffers and runs. */
#ifndef KILN_SPIRV_TEST_MODULES_H
#define KILN_SPIRV_TEST_MODULES_H

#include "kiln_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void *read_whole_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *bytes = malloc((size_t)n + 1);
  assert_non_null(bytes);
  assert_int_equal((size_t)n, fread(bytes, 1, (size_t)n, f));
  bytes[n] = '\0';
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

/* A module of tests/spirv as built into the build tree. */
static inline void *module_bytes(const char *name, size_t *size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.spv", KILN_SPIRV_MODULE_DIR, name);
  return read_whole_file(path, size);
}

static inline cl_program il_program(struct kiln_test_env *env, const char *name) {
  size_t size;
  void *il = module_bytes(name, &size);
  cl_int err;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  assert_cl_success(err);
  free(il);
  return program;
}

static inline cl_program source_program(struct kiln_test_env *env, const char *file) {
  char path[1024];
  size_t size;
  snprintf(path, sizeof path, "%s/%s", KILN_SPIRV_SOURCE_DIR, file);
  char *source = read_whole_file(path, &size);
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, (const char **)&source, NULL, &err);
  assert_cl_success(err);
  free(source);
  return program;
}

static inline void build(struct kiln_test_env *env, cl_program program, const char *options) {
  cl_int err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fail_msg("build failed (%d): %s", err, log);
  }
}

static inline char *build_log(struct kiln_test_env *env, cl_program program) {
  size_t size = 0;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  char *log = malloc(size);
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
  return log;
}

static inline cl_mem make_buffer(struct kiln_test_env *env, const void *data, size_t size) {
  cl_int err;
  cl_mem buffer =
      clCreateBuffer(env->context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), size, (void *)data, &err);
  assert_cl_success(err);
  if (!data) {
    static const unsigned char zero = 0;
    assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, 1, 0, size, 0, NULL, NULL));
  }
  return buffer;
}

static inline cl_kernel kernel_of(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static inline void run_1d(struct kiln_test_env *env, cl_kernel kernel, size_t global, size_t local) {
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL));
}

static inline void read_back(struct kiln_test_env *env, cl_mem buffer, void *out, size_t size) {
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, size, out, 0, NULL, NULL));
}

#endif
