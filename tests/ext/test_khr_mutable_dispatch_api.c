/* cl_khr_command_buffer_mutable_dispatch 0.9.3, the interface: the extension and its
 * device capability, its entry points, CL_COMMAND_BUFFER_MUTABLE_KHR and
 * CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR at creation, clCommandNDRangeKernelKHR's
 * properties and mutable handles, every clGetMutableCommandInfoKHR query and its errors,
 * and every error of clUpdateMutableCommandsKHR: the call's own, each config's, and those
 * it inherits from clSetKernelArg, clSetKernelArgSVMPointer, clSetKernelExecInfo and
 * clEnqueueNDRangeKernel (checked against what those return for the same values). A
 * failing update changes nothing: neither what replays compute nor what the queries say. */
#include "khr_mutable_dispatch_test.h"

static const char *source = "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
                            "kernel void scratch(global int *p, local int *s) {\n"
                            "  s[get_local_id(0)] = 1;\n"
                            "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                            "  p[get_global_id(0)] = s[0] + (int)get_local_size(0);\n"
                            "}\n";

static cl_program program;

static int setup(void **state) {
  return kiln_test_program_setup(state, kcb_setup, &program, source, "-cl-std=CL3.0");
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* ---- device ---- */

static void test_extension_and_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_khr_command_buffer_mutable_dispatch", CL_MAKE_VERSION(0, 9, 3));
  cl_mutable_dispatch_fields_khr caps = 0;
  size_t size = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR, sizeof caps, &caps, &size));
  assert_int_equal(sizeof caps, size);
  assert_int_equal(KMD_ALL_FIELDS, caps); /* every field, nothing else */
  cl_uint small;
  assert_int_equal(CL_INVALID_VALUE,
                   clGetDeviceInfo(env->device, CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR, sizeof small, &small, NULL));
  /* kcb_setup found both entry points; Kiln's deprecated lookup agrees. */
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(env->platform);
  assert_ptr_equal((void *)kcb.clUpdateMutableCommandsKHR,
                   dispatch->clGetExtensionFunctionAddress("clUpdateMutableCommandsKHR"));
  assert_ptr_equal((void *)kcb.clGetMutableCommandInfoKHR,
                   dispatch->clGetExtensionFunctionAddress("clGetMutableCommandInfoKHR"));
}

/* ---- creation ---- */

static void test_create_properties(void **state) {
  struct kiln_test_env *env = *state;
  const cl_command_buffer_properties_khr both[] = {
      CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR,
      CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR | CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_buffer_khr cb = kcb.clCreateCommandBufferKHR(1, &env->queue, both, &err);
  assert_cl_success(err);
  cl_command_buffer_properties_khr got[8];
  size_t size = 0;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof got, got, &size));
  assert_int_equal(sizeof both, size);
  assert_memory_equal(both, got, sizeof both);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  const cl_command_buffer_properties_khr asserts_only[] = {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0};
  cb = kcb.clCreateCommandBufferKHR(1, &env->queue, asserts_only, &err);
  assert_cl_success(err);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  const cl_command_buffer_properties_khr bad[][5] = {
      {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, 1u << 1, 0},
      {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, (cl_properties)1 << 40, 0},
      {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, 0, CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0},
      {CL_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0}, /* an NDRange property, not a command buffer's */
      {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR | (1u << 2), 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err = CL_SUCCESS;
    assert_null(kcb.clCreateCommandBufferKHR(1, &env->queue, bad[i], &err));
    assert_int_equal(CL_INVALID_VALUE, err);
  }
}

/* ---- recording ---- */

static cl_int record_put(cl_command_buffer_khr cb, cl_kernel put, const cl_command_properties_khr *properties,
                         const size_t *local, cl_mutable_command_khr *handle) {
  const size_t global = 64;
  return kcb.clCommandNDRangeKernelKHR(cb, NULL, properties, put, 1, NULL, &global, local, 0, NULL, NULL, handle);
}

static void test_ndrange_properties(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  const size_t local = 8;
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr handle = NULL;

  /* Valid: each field alone, none, all; the assertion with a local size. */
  const cl_mutable_dispatch_fields_khr fields[] = {
      0, CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR, CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR, CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR,
      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, CL_MUTABLE_DISPATCH_EXEC_INFO_KHR, KMD_ALL_FIELDS};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    const cl_command_properties_khr props[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, fields[i], 0};
    assert_cl_success(record_put(cb, put, props, NULL, &handle));
  }
  const cl_command_properties_khr asserts[] = {CL_MUTABLE_DISPATCH_ASSERTS_KHR,
                                               CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR,
                                               CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, KMD_ALL_FIELDS, 0};
  assert_cl_success(record_put(cb, put, asserts, &local, &handle));
  const cl_command_properties_khr empty[] = {0};
  assert_cl_success(record_put(cb, put, empty, NULL, NULL)); /* no handle asked: none needed */

  /* Invalid values, each recording nothing and writing no handle. */
  const cl_command_properties_khr bad[][5] = {
      {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 1u << 5, 0},
      {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, (cl_properties)1 << 33, 0},
      {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0, CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0, 0},
      {CL_MUTABLE_DISPATCH_ASSERTS_KHR, 1u << 1, 0},
      {CL_MUTABLE_DISPATCH_ASSERTS_KHR, 0, CL_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0},
      {CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0}, /* the command buffer's property */
      {1, 0, 0},
  };
  cl_sync_point_khr before = 0, after = 0;
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, &before, NULL));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    handle = (cl_mutable_command_khr)0x1;
    assert_int_equal(CL_INVALID_VALUE, record_put(cb, put, bad[i], &local, &handle));
    assert_ptr_equal((cl_mutable_command_khr)0x1, handle);
  }
  /* The assertion needs work-groups the application chose. */
  assert_int_equal(CL_INVALID_VALUE, record_put(cb, put, asserts, NULL, &handle));
  assert_int_equal(CL_INVALID_VALUE, record_put(cb, put, asserts, NULL, NULL));
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, &after, NULL));
  assert_int_equal(before + 1, after); /* nothing recorded in between */

  /* Finalized: CL_INVALID_OPERATION, no handle. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  handle = NULL;
  assert_int_equal(CL_INVALID_OPERATION, record_put(cb, put, NULL, NULL, &handle));
  assert_null(handle);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  /* The command buffer's assertion applies to every NDRange of it. */
  const cl_command_buffer_properties_khr cb_asserts[] = {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR,
                                                         CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR,
                                                         CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR, 0};
  cl_int err;
  cb = kcb.clCreateCommandBufferKHR(1, &env->queue, cb_asserts, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_VALUE, record_put(cb, put, NULL, NULL, &handle));
  assert_int_equal(CL_INVALID_VALUE, record_put(cb, put, NULL, NULL, NULL));
  assert_cl_success(record_put(cb, put, NULL, &local, &handle));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* ---- clGetMutableCommandInfoKHR ---- */

static void test_info_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 4096);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);

  /* A 2-D NDRange with an offset, a local size and properties; a 1-D one with none. */
  const size_t offset[2] = {3, 5}, global[2] = {8, 4}, local[2] = {4, 2};
  const cl_command_properties_khr props[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
                                             CL_MUTABLE_DISPATCH_ASSERTS_KHR, 0, 0};
  cl_mutable_command_khr h2 = NULL, h1 = NULL;
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, props, put, 2, offset, global, local, 0, NULL, NULL, &h2));
  h1 = kmd_record_1d(cb, put, NULL, 16, 0);
  assert_ptr_not_equal(h1, h2);

  cl_command_queue queue = NULL;
  cl_command_buffer_khr owner = NULL;
  cl_command_type type = 0;
  cl_kernel kernel = NULL;
  cl_uint dims = 0;
  size_t size = 0;
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR, sizeof queue, &queue, &size));
  assert_ptr_equal(env->queue, queue);
  assert_int_equal(sizeof queue, size);
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, sizeof owner, &owner, &size));
  assert_ptr_equal(cb, owner);
  assert_int_equal(sizeof owner, size);
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR, sizeof type, &type, &size));
  assert_int_equal(CL_COMMAND_NDRANGE_KERNEL, type);
  assert_int_equal(sizeof type, size);
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_KERNEL_KHR, sizeof kernel, &kernel, &size));
  assert_ptr_equal(put, kernel); /* the application's kernel, not Kiln's copy */
  assert_int_equal(sizeof kernel, size);
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, &size));
  assert_int_equal(2, dims);
  assert_int_equal(sizeof dims, size);

  cl_command_properties_khr got[8];
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR, sizeof got, got, &size));
  assert_int_equal(sizeof props, size);
  assert_memory_equal(props, got, sizeof props);
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h1, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR, sizeof got, got, &size));
  assert_int_equal(0, size); /* recorded with NULL properties */

  size_t v[3];
  assert_int_equal(2 * sizeof(size_t), kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, v));
  assert_true(v[0] == 3 && v[1] == 5 && v[2] == 77);
  assert_int_equal(2 * sizeof(size_t), kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, v));
  assert_true(v[0] == 8 && v[1] == 4);
  assert_int_equal(2 * sizeof(size_t), kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, v));
  assert_true(v[0] == 4 && v[1] == 2);
  /* Not given: zeros. */
  assert_int_equal(sizeof(size_t), kmd_info_sizes(h1, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, v));
  assert_int_equal(0, v[0]);
  assert_int_equal(sizeof(size_t), kmd_info_sizes(h1, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, v));
  assert_int_equal(0, v[0]);
  assert_int_equal(sizeof(size_t), kmd_info_sizes(h1, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, v));
  assert_int_equal(16, v[0]);

  /* Sizes: NULL value with size 0 gives the size; too small a size is CL_INVALID_VALUE. */
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, 0, NULL, &size));
  assert_int_equal(2 * sizeof(size_t), size);
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizeof(size_t), v, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, 2, &dims, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR,
                                                                   sizeof(cl_properties), got, NULL));
  const cl_mutable_command_info_khr unknown[] = {0, 0x12A8, 0x12AE, CL_COMMAND_BUFFER_STATE_KHR,
                                                 CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    assert_int_equal(CL_INVALID_VALUE, kcb.clGetMutableCommandInfoKHR(h2, unknown[i], sizeof got, got, &size));
    assert_int_equal(CL_INVALID_VALUE, kcb.clGetMutableCommandInfoKHR(h2, unknown[i], 0, NULL, &size));
  }

  /* After an update the sizes are the updated ones; the rest is as recorded. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  const size_t new_global[2] = {16, 8};
  cl_mutable_dispatch_config_khr config = kmd_config(h2);
  config.global_work_size = new_global;
  assert_cl_success(kmd_update(cb, &config));
  kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, v);
  assert_true(v[0] == 16 && v[1] == 8);
  kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, v);
  assert_true(v[0] == 3 && v[1] == 5);
  kmd_info_sizes(h2, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, v);
  assert_true(v[0] == 4 && v[1] == 2);

  /* Invalid handles: NULL, another kind of object, a fake one, one whose command buffer was released. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(put);
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR(NULL, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, NULL));
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR((cl_mutable_command_khr)put, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR,
                                                  sizeof dims, &dims, NULL));
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR((cl_mutable_command_khr)&fake, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR,
                                                  sizeof dims, &dims, NULL));
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR((cl_mutable_command_khr)cb, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR,
                                                  sizeof dims, &dims, NULL));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR(h2, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, NULL));
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR,
                   kcb.clGetMutableCommandInfoKHR(h1, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR, sizeof type, &type, NULL));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* A handle from a command buffer that is not mutable answers queries; it cannot be updated. */
static void test_handle_of_immutable_command_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 5);
  cl_command_buffer_khr cb = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, 64, 16);
  size_t v[3];
  assert_int_equal(sizeof(size_t), kmd_info_sizes(h, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, v));
  assert_int_equal(16, v[0]);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  cl_int seven = 7;
  cl_mutable_dispatch_arg_khr arg = {1, sizeof seven, &seven};
  cl_mutable_dispatch_config_khr config = kmd_config(h);
  config.num_args = 1;
  config.arg_list = &arg;
  assert_int_equal(CL_INVALID_OPERATION, kmd_update(cb, &config));
  kmd_run(env->queue, cb);
  cl_int got[64], want[64];
  for (int i = 0; i < 64; i++) want[i] = 5;
  kcb_read(env->queue, out, sizeof got, got);
  kcb_expect_ints(want, got, 64, "the command as recorded");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* ---- clUpdateMutableCommandsKHR: the call's errors ---- */

static void test_update_call_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, 64, 0);
  cl_mutable_dispatch_config_khr config = kmd_config(h);
  const cl_command_buffer_update_type_khr types[1] = {CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR};
  const void *configs[1] = {&config};

  /* Recording: not finalized. */
  assert_int_equal(CL_INVALID_OPERATION, kcb.clUpdateMutableCommandsKHR(cb, 1, types, configs));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clUpdateMutableCommandsKHR(cb, 1, types, configs)); /* changes nothing */
  assert_cl_success(kcb.clUpdateMutableCommandsKHR(cb, 0, NULL, NULL));

  /* Arrays and their count. */
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 1, NULL, configs));
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 1, types, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 0, types, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 0, NULL, configs));
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 0, types, configs));
  const cl_command_buffer_update_type_khr bad_types[] = {1, 2, 0x1234, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
    assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 1, &bad_types[i], configs));
  const void *null_config[1] = {NULL};
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 1, types, null_config));
  const cl_command_buffer_update_type_khr two_types[2] = {CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR, 7};
  const void *two_configs[2] = {&config, &config};
  assert_int_equal(CL_INVALID_VALUE, kcb.clUpdateMutableCommandsKHR(cb, 2, two_types, two_configs));

  /* The command buffer: invalid handles, not mutable. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clUpdateMutableCommandsKHR(NULL, 1, types, configs));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clUpdateMutableCommandsKHR((cl_command_buffer_khr)&fake, 1, types, configs));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clUpdateMutableCommandsKHR((cl_command_buffer_khr)env->queue, 1, types, configs));
  cl_command_buffer_khr plain = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(plain));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clUpdateMutableCommandsKHR(plain, 0, NULL, NULL));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(plain));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clUpdateMutableCommandsKHR(cb, 1, types, configs));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* ---- clUpdateMutableCommandsKHR: each config's own errors ---- */

static void test_config_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 1024);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0), other = kmd_create(env->queue, 0);
  cl_mutable_command_khr all = kmd_record_1d(cb, put, NULL, 64, 8);
  /* One command per single field, and one with none. */
  const cl_mutable_dispatch_fields_khr single[] = {CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR, CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR,
                                                   CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR, CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
                                                   CL_MUTABLE_DISPATCH_EXEC_INFO_KHR, 0};
  enum { FIELDS = sizeof single / sizeof single[0] };
  cl_mutable_command_khr only[FIELDS];
  for (size_t i = 0; i < FIELDS; i++) {
    const cl_command_properties_khr props[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, single[i], 0};
    only[i] = kmd_record_1d(cb, put, props, 64, 8);
  }
  cl_mutable_command_khr foreign = kmd_record_1d(other, put, NULL, 64, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(other));

  /* The command: NULL, another kind of object, another command buffer's, a released one. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(put);
  cl_mutable_command_khr bad_commands[] = {NULL, (cl_mutable_command_khr)put, (cl_mutable_command_khr)&fake,
                                           (cl_mutable_command_khr)cb, foreign};
  for (size_t i = 0; i < sizeof bad_commands / sizeof bad_commands[0]; i++) {
    cl_mutable_dispatch_config_khr config = kmd_config(bad_commands[i]);
    assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR, kmd_update(cb, &config));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(other));
  cl_mutable_dispatch_config_khr released = kmd_config(foreign);
  assert_int_equal(CL_INVALID_MUTABLE_COMMAND_KHR, kmd_update(cb, &released));

  /* work_dim: 0 or the recorded one. */
  cl_mutable_dispatch_config_khr config = kmd_config(all);
  config.work_dim = 1;
  assert_cl_success(kmd_update(cb, &config));
  config.work_dim = 2;
  assert_int_equal(CL_INVALID_OPERATION, kmd_update(cb, &config));
  config.work_dim = 4;
  assert_int_equal(CL_INVALID_OPERATION, kmd_update(cb, &config));

  /* Each field only where the recording allowed it. */
  const size_t offset = 0, global = 64, local = 8;
  cl_int value = 2;
  cl_mutable_dispatch_arg_khr arg = {1, sizeof value, &value};
  static cl_int svm_target[64];
  cl_mutable_dispatch_arg_khr svm_arg = {0, 0, svm_target}; /* refused before it is used */
  cl_bool fine = CL_TRUE;
  cl_mutable_dispatch_exec_info_khr info = {CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof fine, &fine};
  for (size_t f = 0; f < FIELDS; f++) {
    cl_mutable_dispatch_config_khr c[5];
    for (int i = 0; i < 5; i++) c[i] = kmd_config(only[f]);
    c[0].global_work_offset = &offset;
    c[1].global_work_size = &global;
    c[2].local_work_size = &local;
    c[3].num_args = 1, c[3].arg_list = &arg;
    c[4].num_exec_infos = 1, c[4].exec_info_list = &info;
    for (int i = 0; i < 5; i++) {
      cl_int expected = single[f] == ((cl_mutable_dispatch_fields_khr)1 << i) ? CL_SUCCESS : CL_INVALID_OPERATION;
      if (expected != kmd_update(cb, &c[i])) fail_msg("field bit %d on a command allowing 0x%x", i, (unsigned)single[f]);
    }
    cl_mutable_dispatch_config_khr svm = kmd_config(only[f]);
    svm.num_svm_args = 1, svm.arg_svm_list = &svm_arg;
    if (single[f] != CL_MUTABLE_DISPATCH_ARGUMENTS_KHR) assert_int_equal(CL_INVALID_OPERATION, kmd_update(cb, &svm));
  }

  /* Lists and their counts. */
  cl_mutable_dispatch_config_khr lists[6];
  for (int i = 0; i < 6; i++) lists[i] = kmd_config(all);
  lists[0].num_args = 1;
  lists[1].arg_list = &arg;
  lists[2].num_svm_args = 1;
  lists[3].arg_svm_list = &svm_arg;
  lists[4].num_exec_infos = 1;
  lists[5].exec_info_list = &info;
  for (int i = 0; i < 6; i++)
    if (kmd_update(cb, &lists[i]) != CL_INVALID_VALUE) fail_msg("list/count mismatch %d accepted", i);

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* ---- errors of the calls an update stands for ---- */

/* `config` (on `command` of `cb`) must fail with `expected`, and nothing changes. */
static void expect_update_error(cl_command_buffer_khr cb, const cl_mutable_dispatch_config_khr *config, cl_int expected,
                                const char *what) {
  cl_int got = kmd_update(cb, config);
  if (got != expected) fail_msg("%s: returned %d, expected %d", what, got, expected);
}

static void test_errors_of_the_calls_it_stands_for(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 1024);
  cl_kernel put = kcb_kernel(program, "put"), scratch = kcb_kernel(program, "scratch");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  kcb_arg_mem(scratch, 0, out);
  assert_cl_success(clSetKernelArg(scratch, 1, 64 * sizeof(cl_int), NULL));
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, 64, 8);
  cl_mutable_command_khr hs = kmd_record_1d(cb, scratch, NULL, 64, 8);
  cl_mutable_command_khr free_groups = kmd_record_1d(cb, put, NULL, 60, 0); /* Kiln picks the work-groups */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  /* clSetKernelArg's: each compared with what it returns itself. */
  cl_int v = 3;
  cl_mem not_mem = (cl_mem)put;
  struct {
    cl_uint index;
    size_t size;
    const void *value;
    cl_kernel kernel;
    cl_mutable_command_khr command;
    const char *what;
  } args[] = {
      {2, sizeof v, &v, put, h, "argument index out of range"},
      {1, 2, &v, put, h, "wrong size for an int"},
      {1, sizeof v, NULL, put, h, "NULL value for an int"},
      {0, sizeof not_mem, &not_mem, put, h, "a kernel as a buffer"},
      {0, 3, &out, put, h, "wrong size for a buffer"},
      {1, 16, &v, scratch, hs, "a local argument with a value"},
      {1, 0, NULL, scratch, hs, "a local argument of size 0"},
  };
  for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
    cl_kernel probe = clCloneKernel(args[i].kernel, NULL);
    assert_non_null(probe);
    cl_int direct = clSetKernelArg(probe, args[i].index, args[i].size, args[i].value);
    assert_int_not_equal(CL_SUCCESS, direct);
    assert_cl_success(clReleaseKernel(probe));
    cl_mutable_dispatch_arg_khr arg = {args[i].index, args[i].size, args[i].value};
    cl_mutable_dispatch_config_khr config = kmd_config(args[i].command);
    config.num_args = 1, config.arg_list = &arg;
    expect_update_error(cb, &config, direct, args[i].what);
  }
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArg(put, 2, sizeof v, &v)); /* the spec's code, for the first */

  /* clSetKernelArgSVMPointer's and clSetKernelExecInfo's. */
  cl_mutable_dispatch_arg_khr svm_arg = {5, 0, NULL};
  cl_mutable_dispatch_config_khr config = kmd_config(h);
  config.num_svm_args = 1, config.arg_svm_list = &svm_arg;
  expect_update_error(cb, &config, CL_INVALID_ARG_INDEX, "SVM argument index out of range");
  svm_arg.arg_index = 1; /* an int */
  expect_update_error(cb, &config, clSetKernelArgSVMPointer(put, 1, &v), "SVM pointer for an int argument");
  cl_bool yes = CL_TRUE;
  cl_mutable_dispatch_exec_info_khr infos[] = {{0x7777, sizeof yes, &yes},
                                               {CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &yes},
                                               {CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, &v}};
  for (size_t i = 0; i < sizeof infos / sizeof infos[0]; i++) {
    config = kmd_config(h);
    config.num_exec_infos = 1, config.exec_info_list = &infos[i];
    expect_update_error(cb, &config, CL_INVALID_VALUE, "bad exec info");
  }

  /* clEnqueueNDRangeKernel's, for the geometry. */
  size_t max_group = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(put, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group,
                                             NULL));
  const size_t zero = 0, too_big = max_group * 2, huge_offset = SIZE_MAX - 8, seven = 7, sixty = 60, sixty_four = 64;
  config = kmd_config(h);
  config.local_work_size = &zero;
  expect_update_error(cb, &config, CL_INVALID_WORK_GROUP_SIZE, "local size 0");
  config = kmd_config(h);
  config.global_work_size = &too_big;
  config.local_work_size = &too_big;
  expect_update_error(cb, &config, CL_INVALID_WORK_GROUP_SIZE, "local size above the kernel's maximum");
  config = kmd_config(h);
  config.global_work_offset = &huge_offset;
  expect_update_error(cb, &config, CL_INVALID_GLOBAL_OFFSET, "offset + size overflowing");
  /* Work-group uniformity may not change: 64/8 is uniform, 60/8 and 64/7 are not. */
  config = kmd_config(h);
  config.global_work_size = &sixty;
  expect_update_error(cb, &config, CL_INVALID_OPERATION, "global size making the groups non-uniform");
  config = kmd_config(h);
  config.local_work_size = &seven;
  expect_update_error(cb, &config, CL_INVALID_OPERATION, "local size making the groups non-uniform");
  /* Without a local size the work-groups are Kiln's: any global size keeps them as they are. */
  config = kmd_config(free_groups);
  config.global_work_size = &sixty_four;
  assert_cl_success(kmd_update(cb, &config));
  config.global_work_size = &seven;
  assert_cl_success(kmd_update(cb, &config));

  /* Nothing above changed the commands. */
  kmd_run(env->queue, cb);
  /* put (v = 1), scratch over it (s[0] + local size 8), then put on the first 7. */
  cl_int got[64], want[64];
  kcb_read(env->queue, out, sizeof got, got);
  for (int i = 0; i < 64; i++) want[i] = i < 7 ? 1 : 9;
  kcb_expect_ints(want, got, 64, "after the failed updates");
  size_t sizes[3];
  kmd_info_sizes(h, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizes);
  assert_int_equal(64, sizes[0]);
  kmd_info_sizes(h, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, sizes);
  assert_int_equal(8, sizes[0]);
  kmd_info_sizes(h, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, sizes);
  assert_int_equal(0, sizes[0]);

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(scratch));
  assert_cl_success(clReleaseMemObject(out));
}

/* An update of several configs is all or nothing: a failing config (first, middle or last)
 * leaves the commands of the valid ones as they were. */
static void test_failing_update_changes_nothing(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem a = kcb_buffer(env->context, 256), b = kcb_buffer(env->context, 256), c = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, a);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr ha = kmd_record_1d(cb, put, NULL, 64, 8);
  kcb_arg_mem(put, 0, b);
  kcb_arg_int(put, 1, 2);
  cl_mutable_command_khr hb = kmd_record_1d(cb, put, NULL, 64, 8);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  cl_int ten = 10, bad_index_value = 0;
  const size_t half = 32;
  cl_mutable_dispatch_arg_khr to_c[2] = {{0, sizeof c, &c}, {1, sizeof ten, &ten}};
  cl_mutable_dispatch_arg_khr bad = {9, sizeof bad_index_value, &bad_index_value};
  for (int failing = 0; failing < 3; failing++) {
    cl_mutable_dispatch_config_khr configs[3];
    configs[0] = kmd_config(ha);
    configs[0].num_args = 2, configs[0].arg_list = to_c;
    configs[1] = kmd_config(hb);
    configs[1].global_work_size = &half;
    configs[2] = kmd_config(ha);
    configs[2].num_args = 1, configs[2].arg_list = &to_c[1];
    configs[failing].num_args = 1, configs[failing].arg_list = &bad, configs[failing].global_work_size = NULL;
    assert_int_equal(CL_INVALID_ARG_INDEX, kmd_update_n(cb, 3, configs));
  }
  /* A failure found once everything was applied: the rebuilt NDRange's. */
  const size_t uneven = 60;
  cl_mutable_dispatch_config_khr late[2] = {kmd_config(ha), kmd_config(hb)};
  late[0].num_args = 2, late[0].arg_list = to_c;
  late[1].global_work_size = &uneven;
  assert_int_equal(CL_INVALID_OPERATION, kmd_update_n(cb, 2, late));

  kcb_write(env->queue, c, 256, (cl_int[64]){0});
  kmd_run(env->queue, cb);
  cl_int got[64], want[64];
  for (int i = 0; i < 64; i++) want[i] = 1;
  kcb_read(env->queue, a, sizeof got, got);
  kcb_expect_ints(want, got, 64, "a: the first command as recorded");
  for (int i = 0; i < 64; i++) want[i] = 2;
  kcb_read(env->queue, b, sizeof got, got);
  kcb_expect_ints(want, got, 64, "b: the second command as recorded");
  for (int i = 0; i < 64; i++) want[i] = 0;
  kcb_read(env->queue, c, sizeof got, got);
  kcb_expect_ints(want, got, 64, "c: never written");
  size_t sizes[3];
  kmd_info_sizes(hb, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizes);
  assert_int_equal(64, sizes[0]);

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_extension_and_capabilities),
      KCB_TEST(test_create_properties),
      KCB_TEST(test_ndrange_properties),
      KCB_TEST(test_info_queries),
      KCB_TEST(test_handle_of_immutable_command_buffer),
      KCB_TEST(test_update_call_errors),
      KCB_TEST(test_config_errors),
      KCB_TEST(test_errors_of_the_calls_it_stands_for),
      KCB_TEST(test_failing_update_changes_nothing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
