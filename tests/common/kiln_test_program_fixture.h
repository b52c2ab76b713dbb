/* A CMocka group fixture for kernel suites: the test environment (kiln_test.h) and one
 * program built from the suite's source, with helpers for buffers and kernels. */
#ifndef KILN_TEST_PROGRAM_FIXTURE_H
#define KILN_TEST_PROGRAM_FIXTURE_H

#include "kiln_test.h"

#include <stdlib.h>

struct kiln_program_fixture {
  struct kiln_test_env env;
  cl_program program;
};

static inline int kiln_program_fixture_setup(void **state, const char *source) {
  struct kiln_program_fixture *f = calloc(1, sizeof *f);
  void *env_state = NULL;
  if (!f || kiln_test_env_setup(&env_state) != 0) return -1;
  f->env = *(struct kiln_test_env *)env_state;
  free(env_state);
  cl_int err;
  f->program = clCreateProgramWithSource(f->env.context, 1, &source, NULL, &err);
  if (err != CL_SUCCESS || clBuildProgram(f->program, 1, &f->env.device, "", NULL, NULL) != CL_SUCCESS) return -1;
  *state = f;
  return 0;
}

static inline int kiln_program_fixture_teardown(void **state) {
  struct kiln_program_fixture *f = *state;
  clReleaseProgram(f->program);
  struct kiln_test_env *env = malloc(sizeof *env); /* kiln_test_env_teardown frees its state */
  if (!env) return -1;
  *env = f->env;
  void *env_state = env;
  free(f);
  return kiln_test_env_teardown(&env_state);
}

/* A read-write buffer, initialized from `data` when given. */
static inline cl_mem kiln_program_fixture_buffer(struct kiln_program_fixture *f, size_t bytes, const void *data) {
  cl_int err;
  cl_mem m = clCreateBuffer(f->env.context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            (void *)data, &err);
  assert_cl_success(err);
  return m;
}

static inline cl_kernel kiln_program_fixture_kernel(struct kiln_program_fixture *f, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->program, name, &err);
  assert_cl_success(err);
  return k;
}

#endif
