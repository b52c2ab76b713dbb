/* clCreateProgramWithIL on arbitrary bytes, then, when accepted, specialization constants
 * and a build (the translator runs as its own process: a crash there is a build failure
 * here), kernel creation and the program's queries. Bytes Kiln does not accept must be
 * CL_INVALID_VALUE; a module it accepts must build or fail the build with a log. Seeds:
 * tests/spirv/*.spvasm, assembled by scripts/fuzz.sh. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct fuzz_env *env = fuzz_env();
  cl_int err = 12345;
  cl_program program = clCreateProgramWithIL(env->context, data, size, &err);
  fuzz_expect_status(err, "clCreateProgramWithIL");
  if (!program) {
    if (err != CL_INVALID_VALUE) abort();
    return 0;
  }
  if (err != CL_SUCCESS) abort();
  /* Spec ids 0..7 at every size: each call succeeds or names a spec error. */
  static const unsigned char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (cl_uint id = 0; id < 8; id++)
    for (size_t bytes = 1; bytes <= 8; bytes *= 2) {
      err = clSetProgramSpecializationConstant(program, id, bytes, value);
      if (err != CL_SUCCESS && err != CL_INVALID_SPEC_ID && err != CL_INVALID_VALUE) abort();
    }
  size_t il_size = 0;
  FUZZ_CHECK(clGetProgramInfo(program, CL_PROGRAM_IL, 0, NULL, &il_size));
  if (il_size != size) abort();
  err = clBuildProgram(program, 1, &env->device, NULL, NULL, NULL);
  fuzz_expect_status(err, "clBuildProgram");
  if (err != CL_SUCCESS && err != CL_BUILD_PROGRAM_FAILURE) abort();
  if (err == CL_SUCCESS) fuzz_describe_kernels(env, program);
  size_t log_size = 0;
  FUZZ_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  if (err != CL_SUCCESS && log_size <= 1) abort(); /* a failed build says why */
  FUZZ_CHECK(clReleaseProgram(program));
  return 0;
}
