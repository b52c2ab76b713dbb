/* OpenCL C source: built, and when it builds, every kernel created (code generation) and
 * described (arguments, work-group info). Kernels are not run: a kernel may write outside
 * its buffers, which crashes a CPU driver by design (docs/reliability.md). Source that
 * does not compile must be CL_BUILD_PROGRAM_FAILURE with a log. Use with the dictionary
 * tests/fuzz/opencl_c.dict. */
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
    cl_uint count = 0;
    err = clCreateKernelsInProgram(program, 0, NULL, &count);
    fuzz_expect_status(err, "clCreateKernelsInProgram");
    if (err == CL_SUCCESS && count) {
      cl_kernel *kernels = calloc(count, sizeof *kernels);
      if (clCreateKernelsInProgram(program, count, kernels, NULL) == CL_SUCCESS)
        for (cl_uint i = 0; i < count; i++) {
          cl_uint args = 0;
          FUZZ_CHECK(clGetKernelInfo(kernels[i], CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL));
          for (cl_uint a = 0; a < args; a++) {
            size_t name_size;
            fuzz_expect_status(clGetKernelArgInfo(kernels[i], a, CL_KERNEL_ARG_TYPE_NAME, 0, NULL, &name_size),
                               "clGetKernelArgInfo");
          }
          size_t wg;
          FUZZ_CHECK(clGetKernelWorkGroupInfo(kernels[i], env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
          FUZZ_CHECK(clReleaseKernel(kernels[i]));
        }
      free(kernels);
    }
  } else {
    size_t log_size = 0;
    FUZZ_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
    if (log_size <= 1) abort(); /* a failed build says why */
  }
  FUZZ_CHECK(clReleaseProgram(program));
  free(source);
  return 0;
}
