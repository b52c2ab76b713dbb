/* Build, compile and link options: the first byte picks clBuildProgram, clCompileProgram
 * or clLinkProgram, the rest is the option string, on a small valid program. Bad options
 * must be CL_INVALID_BUILD_OPTIONS / _COMPILER_ / _LINKER_ OPTIONS (or a build failure
 * with a log), never a crash. */
#include "fuzz_common.h"

static const char *source = "#ifndef N\n#define N 1\n#endif\nkernel void k(global int *p) { p[0] = N; }\n";

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size == 0) return 0;
  struct fuzz_env *env = fuzz_env();
  char *options = fuzz_string(data + 1, size - 1);
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  FUZZ_CHECK(err);
  switch (data[0] % 3) {
  case 0:
    fuzz_expect_status(clBuildProgram(program, 1, &env->device, options, NULL, NULL), "clBuildProgram");
    break;
  case 1:
    fuzz_expect_status(clCompileProgram(program, 1, &env->device, options, 0, NULL, NULL, NULL, NULL),
                       "clCompileProgram");
    break;
  default: {
    FUZZ_CHECK(clCompileProgram(program, 1, &env->device, NULL, 0, NULL, NULL, NULL, NULL));
    cl_program linked = clLinkProgram(env->context, 1, &env->device, options, 1, &program, NULL, NULL, &err);
    fuzz_expect_status(err, "clLinkProgram");
    if (linked) FUZZ_CHECK(clReleaseProgram(linked));
  }
  }
  size_t log_size = 0;
  FUZZ_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  FUZZ_CHECK(clReleaseProgram(program));
  free(options);
  return 0;
}
