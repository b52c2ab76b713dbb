/* OpenCL C source: built, and when it builds, every kernel created and described
 * (fuzz_describe_kernels). Source that does not compile must be CL_BUILD_PROGRAM_FAILURE
 * with a log. Use with the dictionary tests/fuzz/opencl_c.dict. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct fuzz_env *env = fuzz_env();
  char *source = fuzz_string(data, size);
  const char *text = source;
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &text, NULL, &err);
  FUZZ_CHECK(err);
  err = clBuildProgram(program, 1, &env->device, NULL, NULL, NULL);
  fuzz_expect_status(err, "clBuildProgram");
  if (err != CL_SUCCESS && err != CL_BUILD_PROGRAM_FAILURE) abort();
  if (err == CL_SUCCESS) {
    fuzz_describe_kernels(env, program);
  } else {
    size_t log_size = 0;
    FUZZ_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
    if (log_size <= 1) abort(); /* a failed build says why */
  }
  FUZZ_CHECK(clReleaseProgram(program));
  free(source);
  return 0;
}
