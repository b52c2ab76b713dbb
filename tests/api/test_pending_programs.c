/* Programs and kernels before the compiler exists: the device says
 * CL_DEVICE_COMPILER_AVAILABLE = CL_FALSE, creation is refused with CL_INVALID_OPERATION
 * (after the context is checked), and no program or kernel handle can be valid. */
#include "kiln_test.h"

static void test_compiler_reported_unavailable(void **state) {
  struct kiln_test_env *env = *state;
  cl_bool compiler = CL_TRUE, linker = CL_TRUE;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_LINKER_AVAILABLE, sizeof linker, &linker, NULL));
  assert_int_equal(CL_FALSE, compiler);
  assert_int_equal(CL_FALSE, linker);
}

static void test_program_creation_refused(void **state) {
  struct kiln_test_env *env = *state;
  const char *source = "kernel void k(void) {}";
  cl_int err = CL_SUCCESS;
  assert_null(clCreateProgramWithSource(env->context, 1, &source, NULL, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  const unsigned char *binary = (const unsigned char *)"x";
  size_t length = 1;
  assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, &length, &binary, NULL, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  assert_null(clCreateProgramWithBuiltInKernels(env->context, 1, &env->device, "k", &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  assert_null(clCreateProgramWithIL(env->context, "x", 1, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);

  struct kiln_test_fake_handle fake_context = kiln_test_fake_handle_like(env->context);
  assert_null(clCreateProgramWithSource((cl_context)&fake_context, 1, &source, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clLinkProgram((cl_context)&fake_context, 0, NULL, NULL, 0, NULL, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clLinkProgram(env->context, 0, NULL, NULL, 0, NULL, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
}

static void test_program_and_kernel_handles_invalid(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  cl_program program = (cl_program)&fake;
  cl_kernel kernel = (cl_kernel)&fake;
  cl_int err = CL_SUCCESS;
  size_t size;
  assert_int_equal(CL_INVALID_PROGRAM, clRetainProgram(program));
  assert_int_equal(CL_INVALID_PROGRAM, clReleaseProgram(program));
  assert_int_equal(CL_INVALID_PROGRAM, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clCompileProgram(program, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, 0, NULL, &size));
  assert_int_equal(CL_INVALID_PROGRAM,
                   clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramReleaseCallback(program, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(program, 0, 4, &size));
  assert_null(clCreateKernel(program, "k", &err));
  assert_int_equal(CL_INVALID_PROGRAM, err);
  assert_int_equal(CL_INVALID_PROGRAM, clCreateKernelsInProgram(program, 0, NULL, NULL));

  assert_null(clCloneKernel(kernel, &err));
  assert_int_equal(CL_INVALID_KERNEL, err);
  assert_int_equal(CL_INVALID_KERNEL, clRetainKernel(kernel));
  assert_int_equal(CL_INVALID_KERNEL, clReleaseKernel(kernel));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelArg(kernel, 0, 4, &size));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelArgSVMPointer(kernel, 0, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL,
                   clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                                              NULL, 0, NULL, &size));
}

static void test_launches_refused(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake_kernel = kiln_test_fake_handle_like(env->context);
  struct kiln_test_fake_handle fake_queue = kiln_test_fake_handle_like(env->context);
  cl_kernel kernel = (cl_kernel)&fake_kernel;
  size_t global = 1;
  assert_int_equal(CL_INVALID_KERNEL,
                   clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clEnqueueTask(env->queue, kernel, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueNDRangeKernel((cl_command_queue)&fake_queue, kernel, 1, NULL,
                                                                    &global, NULL, 0, NULL, NULL));
  /* CL_DEVICE_EXECUTION_CAPABILITIES lacks CL_EXEC_NATIVE_KERNEL, so native kernels are refused. */
  cl_device_exec_capabilities caps = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL));
  assert_int_equal(0, caps & CL_EXEC_NATIVE_KERNEL);
  assert_int_equal(CL_INVALID_OPERATION,
                   clEnqueueNativeKernel(env->queue, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueNativeKernel((cl_command_queue)&fake_queue, NULL, NULL, 0, 0,
                                                                   NULL, NULL, 0, NULL, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compiler_reported_unavailable),
      cmocka_unit_test(test_program_creation_refused),
      cmocka_unit_test(test_program_and_kernel_handles_invalid),
      cmocka_unit_test(test_launches_refused),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
