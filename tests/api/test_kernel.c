/* Kernels through the loader: creation, names, arguments of every kind and their error
 * codes, clone, and the info queries. Needs CL_DEVICE_COMPILER_AVAILABLE = CL_TRUE. */
#include "kiln_test.h"

#include <string.h>

static const char *source =
    "typedef struct { int a; float b; } pair;\n"
    "kernel void mixed(global int *out, constant float *in, local int *scratch, int n, float4 v, pair s,\n"
    "                  global const volatile int *restrict ro) {\n"
    "  scratch[0] = n; out[0] = scratch[0] + (int)v.w + s.a + (int)s.b + (ro ? 1000 : 0) + (in ? 100 : 0);\n"
    "}\n"
    "__attribute__((reqd_work_group_size(4, 2, 1))) kernel void fixed(global int *p) { p[0] = 1; }\n"
    "kernel void noargs(void) {}\n";

static cl_program build(struct kiln_test_env *env, const char *options) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 0, NULL, options, NULL, NULL));
  return program;
}

static void test_create(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_SUCCESS;
  cl_program unbuilt = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_null(clCreateKernel(unbuilt, "mixed", &err));
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, err);
  cl_uint n;
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, clCreateKernelsInProgram(unbuilt, 0, NULL, &n));
  assert_cl_success(clReleaseProgram(unbuilt));

  cl_program program = build(env, NULL);
  assert_null(clCreateKernel(program, "missing", &err));
  assert_int_equal(CL_INVALID_KERNEL_NAME, err);
  assert_null(clCreateKernel(program, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_cl_success(clCreateKernelsInProgram(program, 0, NULL, &n));
  assert_int_equal(3, n);
  cl_kernel kernels[3];
  assert_int_equal(CL_INVALID_VALUE, clCreateKernelsInProgram(program, 2, kernels, NULL));
  assert_cl_success(clCreateKernelsInProgram(program, 3, kernels, &n));
  bool seen[3] = {false, false, false};
  const char *names[3] = {"mixed", "fixed", "noargs"};
  for (int i = 0; i < 3; i++) {
    char name[32];
    assert_cl_success(clGetKernelInfo(kernels[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
    for (int j = 0; j < 3; j++) seen[j] |= strcmp(name, names[j]) == 0;
    cl_program owner;
    cl_context context;
    assert_cl_success(clGetKernelInfo(kernels[i], CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL));
    assert_ptr_equal(program, owner);
    assert_cl_success(clGetKernelInfo(kernels[i], CL_KERNEL_CONTEXT, sizeof context, &context, NULL));
    assert_ptr_equal(env->context, context);
  }
  assert_true(seen[0] && seen[1] && seen[2]);
  /* A kernel keeps its program alive after the application's release. */
  assert_cl_success(clReleaseProgram(program));
  cl_uint refs;
  assert_cl_success(clGetKernelInfo(kernels[0], CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  for (int i = 0; i < 3; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  assert_int_equal(CL_INVALID_KERNEL, clReleaseKernel(kernels[0]));
}

static void test_set_args(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = build(env, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(program, "mixed", &err);
  assert_cl_success(err);
  cl_uint num_args;
  assert_cl_success(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, NULL));
  assert_int_equal(7, num_args);
  int zero = 0;
  cl_mem out = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
  assert_cl_success(err);
  cl_mem none = NULL;
  int n = 5;
  cl_float4 v = {{0, 0, 0, 20}};
  struct { cl_int a; cl_float b; } s = {300, 4000.0f};

  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 7, sizeof n, &n));
  /* Buffers: size must be sizeof(cl_mem); NULL allowed; a non-buffer is rejected. */
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, sizeof(cl_mem) / 2, &out));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, sizeof(cl_mem) * 2, &out));
  cl_mem not_mem = (cl_mem)env->queue;
  assert_int_equal(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof not_mem, &not_mem));
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof none, &none));
  assert_cl_success(clSetKernelArg(k, 6, sizeof(cl_mem), NULL));
  /* Local: value must be NULL, size non-zero. */
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, 16, &n));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 0, NULL));
  assert_cl_success(clSetKernelArg(k, 2, 64, NULL));
  /* Scalars, vectors, structs: value required, exact size. */
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 3, sizeof n, NULL));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 3, sizeof(cl_long), &n));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 4, sizeof(cl_float2), &v));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 5, sizeof s - 1, &s));

  size_t one = 1;
  /* Args 3..5 still unset. */
  assert_int_equal(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clSetKernelArg(k, 3, sizeof n, &n));
  assert_cl_success(clSetKernelArg(k, 4, sizeof v, &v));
  assert_cl_success(clSetKernelArg(k, 5, sizeof s, &s));
  cl_ulong local = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL));
  assert_true(local >= 64);

  /* A clone copies the arguments; changing the clone's leaves the original alone. */
  cl_kernel clone = clCloneKernel(k, &err);
  assert_cl_success(err);
  cl_mem out2 = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
  assert_cl_success(clSetKernelArg(clone, 0, sizeof out2, &out2));
  int m = 6;
  assert_cl_success(clSetKernelArg(clone, 3, sizeof m, &m));
  assert_cl_success(clEnqueueTask(env->queue, k, 0, NULL, NULL));
  assert_cl_success(clEnqueueTask(env->queue, clone, 0, NULL, NULL));
  int r1 = 0, r2 = 0;
  assert_cl_success(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof r1, &r1, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, out2, CL_TRUE, 0, sizeof r2, &r2, 0, NULL, NULL));
  assert_int_equal(5 + 20 + 300 + 4000, r1);
  assert_int_equal(6 + 20 + 300 + 4000, r2);

  /* A buffer released after being set: the launch is refused, not a crash. */
  assert_cl_success(clReleaseMemObject(out2));
  assert_int_equal(CL_INVALID_KERNEL_ARGS, clEnqueueTask(env->queue, clone, 0, NULL, NULL));

  /* SVM pointer arguments and exec infos: test_svm_kernels.c. */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, 0x7777, sizeof n, &n));
  assert_cl_success(clReleaseKernel(clone));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseProgram(program));
}

static void test_work_group_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = build(env, NULL);
  cl_int err;
  cl_kernel fixed = clCreateKernel(program, "fixed", &err);
  cl_kernel free_size = clCreateKernel(program, "noargs", &err);
  size_t sizes[3], size, device_max;
  assert_cl_success(clGetKernelWorkGroupInfo(fixed, NULL, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof sizes, sizes, NULL));
  assert_int_equal(4, sizes[0]);
  assert_int_equal(2, sizes[1]);
  assert_int_equal(1, sizes[2]);
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof sizes,
                                             sizes, NULL));
  assert_int_equal(0, sizes[0] + sizes[1] + sizes[2]);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_max, &device_max, NULL));
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, NULL));
  assert_true(size >= 1 && size <= device_max);
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                             sizeof size, &size, NULL));
  assert_true(size >= 1);
  /* The kernel's preferred multiple is the device's (both: the floats of one vector
   * register, the width the work-item vectorizers fill), for kernels with and without a
   * required size. */
  size_t device_multiple = 0, fixed_multiple = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof device_multiple,
                                    &device_multiple, NULL));
  assert_int_equal(device_multiple, size);
  cl_uint float_width = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof float_width, &float_width,
                                    NULL));
  assert_int_equal(float_width, device_multiple);
  assert_cl_success(clGetKernelWorkGroupInfo(fixed, env->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                             sizeof fixed_multiple, &fixed_multiple, NULL));
  assert_int_equal(device_multiple, fixed_multiple);
  cl_ulong bytes;
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof bytes, &bytes, NULL));
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes, NULL));
  assert_int_equal(0, bytes);
  assert_int_equal(CL_INVALID_VALUE,
                   clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof sizes, sizes, NULL));
  cl_device_id bad = (cl_device_id)(void *)&state;
  assert_int_equal(CL_INVALID_DEVICE,
                   clGetKernelWorkGroupInfo(free_size, bad, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, NULL));
  /* Sub-groups of one work-item: as many per group as work-items (test_subgroups.c has the rest). */
  assert_cl_success(clGetKernelSubGroupInfo(free_size, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof size,
                                            &size, NULL));
  size_t max_items = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(free_size, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_items,
                                             &max_items, NULL));
  assert_int_equal(max_items, size);
  char attributes[128];
  assert_cl_success(clGetKernelInfo(fixed, CL_KERNEL_ATTRIBUTES, sizeof attributes, attributes, NULL));
  assert_non_null(strstr(attributes, "reqd_work_group_size(4,2,1)"));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelInfo(fixed, 0x7777, 0, NULL, &size));
  assert_cl_success(clReleaseKernel(fixed));
  assert_cl_success(clReleaseKernel(free_size));
  assert_cl_success(clReleaseProgram(program));
}

static void test_arg_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_program plain = build(env, NULL);
  cl_kernel k = clCreateKernel(plain, "mixed", &err);
  char name[64];
  assert_int_equal(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof name, name, NULL));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseProgram(plain));

  cl_program program = build(env, "-cl-kernel-arg-info");
  k = clCreateKernel(program, "mixed", &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_ARG_INDEX, clGetKernelArgInfo(k, 7, CL_KERNEL_ARG_NAME, sizeof name, name, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelArgInfo(k, 0, 0x7777, sizeof name, name, NULL));
  assert_cl_success(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, sizeof name, name, NULL));
  assert_string_equal("n", name);
  assert_cl_success(clGetKernelArgInfo(k, 4, CL_KERNEL_ARG_TYPE_NAME, sizeof name, name, NULL));
  assert_string_equal("float4", name);
  cl_kernel_arg_address_qualifier address;
  cl_kernel_arg_address_qualifier expected[4] = {CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_CONSTANT,
                                                 CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ADDRESS_PRIVATE};
  for (cl_uint i = 0; i < 4; i++) {
    assert_cl_success(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
    assert_int_equal(expected[i], address);
  }
  cl_kernel_arg_type_qualifier type;
  assert_cl_success(clGetKernelArgInfo(k, 6, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof type, &type, NULL));
  assert_int_equal(CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_VOLATILE | CL_KERNEL_ARG_TYPE_RESTRICT, type);
  cl_kernel_arg_access_qualifier access;
  assert_cl_success(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
  assert_int_equal(CL_KERNEL_ARG_ACCESS_NONE, access);
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseProgram(program));
}

static void test_invalid_kernel_handles(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  cl_kernel kernel = (cl_kernel)&fake;
  cl_int err;
  size_t size;
  assert_null(clCloneKernel(kernel, &err));
  assert_int_equal(CL_INVALID_KERNEL, err);
  assert_int_equal(CL_INVALID_KERNEL, clRetainKernel(kernel));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelArg(kernel, 0, 4, &size));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelArgSVMPointer(kernel, 0, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL,
                   clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE, 0, NULL, &size));
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                                              NULL, 0, NULL, &size));
  size_t global = 1;
  assert_int_equal(CL_INVALID_KERNEL, clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_KERNEL, clEnqueueTask(env->queue, kernel, 0, NULL, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create),
      cmocka_unit_test(test_set_args),
      cmocka_unit_test(test_work_group_info),
      cmocka_unit_test(test_arg_info),
      cmocka_unit_test(test_invalid_kernel_handles),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
