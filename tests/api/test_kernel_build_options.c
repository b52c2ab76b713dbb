/* Kernels built with the options that change code generation run correctly through the
 * loader: -cl-opt-disable (no optimizer: the launcher must still stand alone) and the
 * default pipeline, both with work-item functions and SLEEF-backed math (whose library the
 * JIT must find although the loader opened Kiln privately). */
#include "kiln_test.h"

#include <math.h>

static const char *source =
    "kernel void k(global float *out, float scale) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sin((float)i * scale) * exp(0.5f) + acos(0.25f) + (float)get_local_id(0);\n"
    "}\n";

static void build_and_check(struct kiln_test_env *env, const char *options) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fail_msg("build with \"%s\" failed (%d): %s", options ? options : "", err, log);
  }
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  assert_cl_success(err);
  enum { N = 256, LOCAL = 16 };
  cl_mem out = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL, &err);
  assert_cl_success(err);
  float scale = 0.1f;
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof scale, &scale));
  size_t global = N, local = LOCAL;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  float result[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    double expected = sin((double)((float)i * scale)) * exp(0.5) + acos(0.25) + (double)(i % LOCAL);
    if (fabs(expected - result[i]) > 1e-5 * (1.0 + fabs(expected)))
      fail_msg("options \"%s\": out[%d] = %.9g, expected %.9g", options ? options : "", i, result[i], expected);
  }
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

static void test_default_options(void **state) { build_and_check(*state, NULL); }
static void test_opt_disable(void **state) { build_and_check(*state, "-cl-opt-disable"); }
static void test_opt_disable_cl30(void **state) { build_and_check(*state, "-cl-opt-disable -cl-std=CL3.0"); }
static void test_fast_relaxed_math(void **state) { build_and_check(*state, "-cl-fast-relaxed-math -cl-mad-enable"); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_options),
      cmocka_unit_test(test_opt_disable),
      cmocka_unit_test(test_opt_disable_cl30),
      cmocka_unit_test(test_fast_relaxed_math),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
