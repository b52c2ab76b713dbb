/* Kernels built with the options that change code generation run correctly through the
 * loader: -cl-opt-disable (no optimizer: the launcher must still stand alone) and the
 * default pipeline, both with work-item functions and SLEEF-backed math (whose library the
 * JIT must find although the loader opened Kiln privately); -cl-denorms-are-zero flushes. */
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

/* -cl-denorms-are-zero flushes single-precision denormal inputs and results (this device
 * honours the hint); programs built without it, run afterwards on the same workers, keep
 * denormals. The option given only at clLinkProgram counts too. */
static const char *denormal_source = "kernel void k(global const float *a, global const float *b, global float *out) {\n"
                                     "  size_t i = get_global_id(0);\n"
                                     "  out[i] = a[i] * b[i];\n"
                                     "}\n";

static void run_denormals(struct kiln_test_env *env, cl_program program, float *out) {
  enum { N = 64 };
  float a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = i % 2 ? 0x1p-130f : 0x1p-100f; /* a denormal input; a normal one with a denormal product */
    b[i] = i % 2 ? 1.0f : 0x1p-40f;
  }
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  assert_cl_success(err);
  cl_mem ba = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  cl_mem bb = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  cl_mem bo = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, sizeof a, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof ba, &ba));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof bb, &bb));
  assert_cl_success(clSetKernelArg(kernel, 2, sizeof bo, &bo));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof a, out, 0, NULL, NULL));
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bo);
  assert_cl_success(clReleaseKernel(kernel));
}

static cl_program denormal_program(struct kiln_test_env *env, const char *build, const char *link) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &denormal_source, NULL, &err);
  assert_cl_success(err);
  if (!link) {
    assert_cl_success(clBuildProgram(program, 1, &env->device, build, NULL, NULL));
    return program;
  }
  assert_cl_success(clCompileProgram(program, 1, &env->device, build, 0, NULL, NULL, NULL, NULL));
  cl_program linked = clLinkProgram(env->context, 1, &env->device, link, 1, &program, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseProgram(program));
  return linked;
}

static void test_denorms_are_zero(void **state) {
  struct kiln_test_env *env = *state;
  float out[64];
  for (int variant = 0; variant < 3; variant++) {
    cl_program flushing = variant == 0   ? denormal_program(env, "-cl-denorms-are-zero", NULL)
                          : variant == 1 ? denormal_program(env, "-cl-denorms-are-zero -cl-std=CL3.0", NULL)
                                         : denormal_program(env, "", "-cl-denorms-are-zero");
    run_denormals(env, flushing, out);
    for (int i = 0; i < 64; i++)
      if (out[i] != 0.0f) fail_msg("variant %d: item %d = %a, want 0 (flushed)", variant, i, out[i]);
    assert_cl_success(clReleaseProgram(flushing));
    cl_program keeping = denormal_program(env, "", NULL);
    run_denormals(env, keeping, out);
    for (int i = 0; i < 64; i++)
      if (out[i] != (i % 2 ? 0x1p-130f : 0x1p-140f)) fail_msg("variant %d: after, item %d = %a", variant, i, out[i]);
    assert_cl_success(clReleaseProgram(keeping));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_options),
      cmocka_unit_test(test_opt_disable),
      cmocka_unit_test(test_opt_disable_cl30),
      cmocka_unit_test(test_fast_relaxed_math),
      cmocka_unit_test(test_denorms_are_zero),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
