/* cl_khr_command_buffer 0.9.7, the objects: device queries and entry points, creation
 * and its errors, retain/release, clGetCommandBufferInfoKHR, finalize and the state
 * machine, invalid and released handles on every entry point, and what a command buffer
 * keeps alive (its queue and context). */
#include "khr_command_buffer_test.h"

#define KCB_SOURCE "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"

/* ---- device ---- */

static void test_extension_advertised(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_khr_command_buffer", CL_MAKE_VERSION(0, 9, 7));
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_command_buffer_multi_device"));
  /* The layered mutable-dispatch extension has its own suites (test_khr_mutable_dispatch_*). */
  kiln_test_expect_extension(env->device, "cl_khr_command_buffer_mutable_dispatch", CL_MAKE_VERSION(0, 9, 3));
}

static cl_bitfield device_bitfield(cl_device_id device, cl_device_info param) {
  cl_bitfield value = ~(cl_bitfield)0;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, param, sizeof value, &value, &size));
  assert_int_equal(sizeof value, size);
  return value;
}

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_command_buffer_capabilities_khr caps =
      device_bitfield(env->device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
  /* Simultaneous use, device-side enqueue (the device has it: test_device_side_enqueue in
   * the execution suite), and no bit beyond the three this extension defines
   * (MULTIPLE_QUEUE belongs to multi_device). Whether printf kernels can be recorded is
   * checked against the KERNEL_PRINTF bit in the recording suite. */
  assert_true(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR);
  assert_true(caps & CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR);
  assert_int_equal(0, caps & ~(cl_bitfield)(CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |
                                            CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
                                            CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR));
  cl_device_device_enqueue_capabilities device_enqueue = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof device_enqueue,
                                    &device_enqueue, NULL));
  assert_true(device_enqueue & CL_DEVICE_QUEUE_SUPPORTED);
  cl_command_queue_properties required =
      device_bitfield(env->device, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR);
  assert_int_equal(0, required);
  cl_command_queue_properties supported =
      device_bitfield(env->device, CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
  /* Exactly these, profiling (the spec's mandated minimum) included. */
  assert_int_equal(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, supported);

  /* Size-only and too-small queries follow the clGetDeviceInfo rules. */
  const cl_device_info params[] = {CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
                                   CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR,
                                   CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR};
  for (size_t i = 0; i < 3; i++) {
    size_t size = 0;
    assert_cl_success(clGetDeviceInfo(env->device, params[i], 0, NULL, &size));
    assert_int_equal(sizeof(cl_bitfield), size);
    cl_uint small;
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, params[i], sizeof small, &small, NULL));
  }
}

static void test_function_addresses(void **state) {
  struct kiln_test_env *env = *state;
  /* kcb_setup already failed on any NULL; Kiln's deprecated lookup (called through its
   * dispatch table: the loader answers that one itself) agrees. */
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(env->platform);
  assert_ptr_equal((void *)kcb.clCreateCommandBufferKHR,
                   dispatch->clGetExtensionFunctionAddress("clCreateCommandBufferKHR"));
  assert_ptr_equal((void *)kcb.clCommandSVMMemFillKHR,
                   dispatch->clGetExtensionFunctionAddress("clCommandSVMMemFillKHR"));
  /* Layered extensions Kiln does not support have no entry points (mutable dispatch's are
   * checked by its suites). */
  const char *absent[] = {"clRemapCommandBufferKHR", "clCreateCommandBufferKHRX", "clCommandFillBuffer"};
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
    assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, absent[i]));
}

/* ---- creation ---- */

static void test_create_success(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_INVALID_VALUE;
  cl_command_buffer_khr a = kcb.clCreateCommandBufferKHR(1, &env->queue, NULL, &err);
  assert_cl_success(err);
  assert_non_null(a);

  cl_command_buffer_properties_khr simultaneous[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                     CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  err = CL_INVALID_VALUE;
  cl_command_buffer_khr b = kcb.clCreateCommandBufferKHR(1, &env->queue, simultaneous, &err);
  assert_cl_success(err);
  assert_non_null(b);

  cl_command_buffer_properties_khr no_flags[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0};
  cl_command_buffer_khr c = kcb.clCreateCommandBufferKHR(1, &env->queue, no_flags, NULL); /* errcode_ret NULL */
  assert_non_null(c);

  cl_command_buffer_properties_khr empty[] = {0};
  cl_command_buffer_khr d = kcb.clCreateCommandBufferKHR(1, &env->queue, empty, &err);
  assert_cl_success(err);
  assert_non_null(d);

  /* An out-of-order and a profiling queue are valid creation queues. */
  cl_command_queue ooo =
      kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
  cl_command_buffer_khr e = kcb.clCreateCommandBufferKHR(1, &ooo, NULL, &err);
  assert_cl_success(err);
  assert_non_null(e);

  cl_command_buffer_khr all[] = {a, b, c, d, e};
  for (size_t i = 0; i < 5; i++) {
    for (size_t j = 0; j < i; j++) assert_ptr_not_equal(all[i], all[j]);
    assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(all[i]));
    assert_cl_success(kcb.clReleaseCommandBufferKHR(all[i]));
  }
  assert_cl_success(clReleaseCommandQueue(ooo));
}

static void expect_create_error(cl_int expected, cl_uint num_queues, const cl_command_queue *queues,
                                const cl_command_buffer_properties_khr *properties) {
  cl_int err = CL_SUCCESS;
  cl_command_buffer_khr cb = kcb.clCreateCommandBufferKHR(num_queues, (cl_command_queue *)queues, properties, &err);
  assert_null(cb);
  assert_int_equal(expected, err);
  /* errcode_ret may be NULL on failure too. */
  assert_null(kcb.clCreateCommandBufferKHR(num_queues, (cl_command_queue *)queues, properties, NULL));
}

static void test_create_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q2 = kcb_queue(env->context, env->device, 0);
  cl_command_queue pair[2] = {env->queue, q2};

  expect_create_error(CL_INVALID_VALUE, 1, NULL, NULL);
  expect_create_error(CL_INVALID_VALUE, 0, NULL, NULL);
  expect_create_error(CL_INVALID_VALUE, 0, pair, NULL);
  expect_create_error(CL_INVALID_VALUE, 2, pair, NULL); /* no cl_khr_command_buffer_multi_device */
  pair[1] = env->queue;
  expect_create_error(CL_INVALID_VALUE, 2, pair, NULL);

  cl_command_queue null_queue = NULL;
  expect_create_error(CL_INVALID_COMMAND_QUEUE, 1, &null_queue, NULL);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_command_queue fake_queue = (cl_command_queue)&fake;
  expect_create_error(CL_INVALID_COMMAND_QUEUE, 1, &fake_queue, NULL);
  cl_command_queue context_as_queue = (cl_command_queue)env->context;
  expect_create_error(CL_INVALID_COMMAND_QUEUE, 1, &context_as_queue, NULL);
  cl_command_queue released = kcb_queue(env->context, env->device, 0);
  assert_cl_success(clReleaseCommandQueue(released));
  expect_create_error(CL_INVALID_COMMAND_QUEUE, 1, &released, NULL);

  const cl_command_buffer_properties_khr bad_name[] = {CL_QUEUE_PROPERTIES, 0, 0};
  expect_create_error(CL_INVALID_VALUE, 1, &env->queue, bad_name);
  const cl_command_buffer_properties_khr bad_name2[] = {0x7FFF, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  expect_create_error(CL_INVALID_VALUE, 1, &env->queue, bad_name2);
  const cl_command_buffer_properties_khr bad_after_good[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0x7FFF, 0, 0};
  expect_create_error(CL_INVALID_VALUE, 1, &env->queue, bad_after_good);
  const cl_command_buffer_properties_khr twice[] = {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
                                                    CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0};
  expect_create_error(CL_INVALID_VALUE, 1, &env->queue, twice);
  const cl_command_buffer_properties_khr twice_same[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0, CL_COMMAND_BUFFER_FLAGS_KHR, 0,
                                                         0};
  expect_create_error(CL_INVALID_VALUE, 1, &env->queue, twice_same);
  /* Unknown flag bits, and the bit of the layered extension Kiln does not support
   * (CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR = 1 << 2; CL_COMMAND_BUFFER_MUTABLE_KHR, 1 << 1,
   * is mutable dispatch's). */
  const cl_command_buffer_flags_khr bad_flags[] = {1u << 2, 1u << 7, (cl_command_buffer_flags_khr)1 << 40,
                                                   CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | (1u << 3)};
  for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
    const cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR, bad_flags[i], 0};
    expect_create_error(CL_INVALID_VALUE, 1, &env->queue, props);
  }
  assert_cl_success(clReleaseCommandQueue(q2));
}

/* ---- reference counting and handles ---- */

static void test_retain_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_int_equal(1, kcb_refcount(cb));
  assert_cl_success(kcb.clRetainCommandBufferKHR(cb));
  assert_int_equal(2, kcb_refcount(cb));
  assert_cl_success(kcb.clRetainCommandBufferKHR(cb));
  assert_int_equal(3, kcb_refcount(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_int_equal(2, kcb_refcount(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_int_equal(1, kcb_refcount(cb));
  /* Still fully usable with one reference. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  cl_uint refs;
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof refs, &refs, NULL));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clRetainCommandBufferKHR(cb));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clReleaseCommandBufferKHR(cb));
}

/* Every entry point taking a command buffer, with `cb` bad and every other argument valid. */
static void expect_invalid_everywhere(cl_command_buffer_khr cb, cl_mem buffer, cl_kernel kernel) {
  const cl_int bad = CL_INVALID_COMMAND_BUFFER_KHR;
  cl_int word = 5;
  size_t origin[3] = {0, 0, 0}, region[3] = {4, 1, 1}, one = 1;
  char host_a[16], host_b[16];
  size_t size_ret;
  assert_int_equal(bad, kcb.clRetainCommandBufferKHR(cb));
  assert_int_equal(bad, kcb.clReleaseCommandBufferKHR(cb));
  assert_int_equal(bad, kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(bad, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  const cl_command_buffer_info_khr params[] = {CL_COMMAND_BUFFER_NUM_QUEUES_KHR, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR,
                                               CL_COMMAND_BUFFER_STATE_KHR, CL_COMMAND_BUFFER_CONTEXT_KHR};
  for (size_t i = 0; i < 4; i++) {
    char value[16];
    assert_int_equal(bad, kcb.clGetCommandBufferInfoKHR(cb, params[i], sizeof value, value, NULL));
  }
  assert_int_equal(bad, kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, 0, NULL, &size_ret));
  assert_int_equal(bad, kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL, NULL));
  assert_int_equal(bad, kcb.clCommandCopyBufferKHR(cb, NULL, NULL, buffer, buffer, 0, 16, 16, 0, NULL, NULL, NULL));
  assert_int_equal(bad, kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, buffer, buffer, origin, (size_t[]){16, 0, 0},
                                                       region, 0, 0, 0, 0, 0, NULL, NULL, NULL));
  assert_int_equal(bad,
                   kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &word, sizeof word, 0, 16, 0, NULL, NULL, NULL));
  assert_int_equal(bad,
                   kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel, 1, NULL, &one, NULL, 0, NULL, NULL, NULL));
  assert_int_equal(
      bad, kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, buffer, buffer, 0, origin, region, 0, NULL, NULL, NULL));
  assert_int_equal(
      bad, kcb.clCommandCopyImageKHR(cb, NULL, NULL, buffer, buffer, origin, origin, region, 0, NULL, NULL, NULL));
  assert_int_equal(
      bad, kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, buffer, buffer, origin, region, 0, 0, NULL, NULL, NULL));
  cl_float color[4] = {0};
  assert_int_equal(bad, kcb.clCommandFillImageKHR(cb, NULL, NULL, buffer, color, origin, region, 0, NULL, NULL, NULL));
  assert_int_equal(bad, kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, host_a, host_b, sizeof host_a, 0, NULL, NULL, NULL));
  assert_int_equal(
      bad, kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, host_a, &word, sizeof word, sizeof host_a, 0, NULL, NULL, NULL));
}

static void test_invalid_and_released_handles(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem buffer = kcb_buffer(env->context, 64);
  cl_program program = kcb_program(env->context, env->device, KCB_SOURCE, NULL);
  cl_kernel kernel = kcb_kernel(program, "put");
  kcb_arg_mem(kernel, 0, buffer);
  kcb_arg_int(kernel, 1, 3);

  expect_invalid_everywhere(NULL, buffer, kernel);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  expect_invalid_everywhere((cl_command_buffer_khr)&fake, buffer, kernel);
  expect_invalid_everywhere((cl_command_buffer_khr)env->queue, buffer, kernel);
  expect_invalid_everywhere((cl_command_buffer_khr)env->context, buffer, kernel);
  expect_invalid_everywhere((cl_command_buffer_khr)buffer, buffer, kernel);

  cl_command_buffer_khr recording = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(recording));
  expect_invalid_everywhere(recording, buffer, kernel);

  cl_command_buffer_khr finalized = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(finalized, NULL, NULL, kernel, 1, NULL, (size_t[]){16}, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(finalized));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, finalized, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(finalized));
  expect_invalid_everywhere(finalized, buffer, kernel);

  /* A stale handle stays invalid while new command buffers are created (one that lands at
   * the released address makes it that command buffer's handle: nothing to check then). */
  for (int i = 0; i < 20; i++) {
    cl_command_buffer_khr fresh = kcb_create(env->queue, 0);
    if (fresh != recording) assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clRetainCommandBufferKHR(recording));
    assert_cl_success(kcb.clReleaseCommandBufferKHR(fresh));
  }
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* ---- clGetCommandBufferInfoKHR ---- */

static void test_info_values(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  size_t size = 0;

  cl_uint num_queues = 0;
  assert_cl_success(
      kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_NUM_QUEUES_KHR, sizeof num_queues, &num_queues, &size));
  assert_int_equal(1, num_queues);
  assert_int_equal(sizeof(cl_uint), size);

  cl_command_queue queues[2] = {NULL, NULL};
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof queues, queues, &size));
  assert_int_equal(sizeof(cl_command_queue), size);
  assert_ptr_equal(env->queue, queues[0]);

  cl_context context = NULL;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_CONTEXT_KHR, sizeof context, &context, &size));
  assert_int_equal(sizeof(cl_context), size);
  assert_ptr_equal(env->context, context);

  cl_uint refs = 0;
  assert_cl_success(
      kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof refs, &refs, &size));
  assert_int_equal(sizeof(cl_uint), size);
  assert_int_equal(1, refs);

  cl_command_buffer_state_khr st = 99;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof st, &st, &size));
  assert_int_equal(sizeof(cl_command_buffer_state_khr), size);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, st);

  /* Created with NULL properties: size 0, or a lone terminating 0 (the spec allows both). */
  size = 99;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 0, NULL, &size));
  if (size != 0) {
    assert_int_equal(sizeof(cl_command_buffer_properties_khr), size);
    cl_command_buffer_properties_khr terminator = 99;
    assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof terminator,
                                                    &terminator, NULL));
    assert_int_equal(0, terminator);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  /* Given properties come back exactly, terminator included. */
  const cl_command_buffer_properties_khr lists[2][3] = {
      {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0}, {CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0}};
  for (int l = 0; l < 2; l++) {
    cl_int err;
    cb = kcb.clCreateCommandBufferKHR(1, &env->queue, lists[l], &err);
    assert_cl_success(err);
    cl_command_buffer_properties_khr got[4] = {7, 7, 7, 7};
    assert_cl_success(
        kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof got, got, &size));
    assert_int_equal(3 * sizeof(cl_command_buffer_properties_khr), size);
    assert_memory_equal(lists[l], got, sizeof lists[l]);
    assert_int_equal(7, got[3]);
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  }
  /* An empty list ({0}) comes back as given or as nothing. */
  const cl_command_buffer_properties_khr empty[] = {0};
  cl_int err;
  cb = kcb.clCreateCommandBufferKHR(1, &env->queue, empty, &err);
  assert_cl_success(err);
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 0, NULL, &size));
  assert_true(size == 0 || size == sizeof(cl_command_buffer_properties_khr));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  /* The queue the command buffer was created with, not the default one. */
  cl_command_queue other = kcb_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  cb = kcb_create(other, 0);
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof queues, queues, NULL));
  assert_ptr_equal(other, queues[0]);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseCommandQueue(other));
}

static void test_info_size_rules(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  const struct {
    cl_command_buffer_info_khr param;
    size_t size;
  } params[] = {
      {CL_COMMAND_BUFFER_NUM_QUEUES_KHR, sizeof(cl_uint)},
      {CL_COMMAND_BUFFER_QUEUES_KHR, sizeof(cl_command_queue)},
      {CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof(cl_uint)},
      {CL_COMMAND_BUFFER_STATE_KHR, sizeof(cl_command_buffer_state_khr)},
      {CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 3 * sizeof(cl_command_buffer_properties_khr)},
      {CL_COMMAND_BUFFER_CONTEXT_KHR, sizeof(cl_context)},
  };
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
    size_t size = 0;
    assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, params[i].param, 0, NULL, &size));
    assert_int_equal(params[i].size, size);
    assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, params[i].param, 0, NULL, NULL));
    unsigned char value[64];
    memset(value, 0xCD, sizeof value);
    assert_int_equal(CL_INVALID_VALUE,
                     kcb.clGetCommandBufferInfoKHR(cb, params[i].param, params[i].size - 1, value, &size));
    assert_int_equal(CL_INVALID_VALUE, kcb.clGetCommandBufferInfoKHR(cb, params[i].param, 0, value, NULL));
    /* A larger buffer is fine and only the value's bytes are written. */
    size = 0;
    assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, params[i].param, sizeof value, value, &size));
    assert_int_equal(params[i].size, size);
    assert_int_equal(0xCD, value[params[i].size]);
  }
  const cl_command_buffer_info_khr unknown[] = {0,
                                                CL_COMMAND_BUFFER_FLAGS_KHR,
                                                CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR,
                                                CL_QUEUE_CONTEXT,
                                                0x12A1 /* mutable command info */,
                                                0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    char value[64];
    size_t size;
    assert_int_equal(CL_INVALID_VALUE, kcb.clGetCommandBufferInfoKHR(cb, unknown[i], sizeof value, value, &size));
    assert_int_equal(CL_INVALID_VALUE, kcb.clGetCommandBufferInfoKHR(cb, unknown[i], 0, NULL, &size));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* ---- finalize and the state machine ---- */

static void test_finalize_and_states(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem buffer = kcb_buffer(env->context, 64 * sizeof(cl_int));
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(cb));

  /* Not finalized: cannot be enqueued, stays recording. */
  cl_event event = NULL;
  assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &event));
  assert_null(event);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(cb));

  cl_int value = 0x1234;
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &value, sizeof value, 0, 64 * sizeof(cl_int), 0,
                                               NULL, NULL, NULL));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(cb));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  /* Recording is over. */
  assert_int_equal(CL_INVALID_OPERATION, kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &value, sizeof value, 0,
                                                                    sizeof value, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL, NULL));

  /* Pending while an execution waits for a user event, executable again once complete. */
  cl_event gate = kcb_user_event(env->context);
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &event));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL, NULL));
  assert_true(kcb_event_status(event) > CL_COMPLETE);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &event));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(CL_COMPLETE, kcb_event_status(event));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));

  cl_int got[64];
  kcb_read(env->queue, buffer, sizeof got, got);
  for (int i = 0; i < 64; i++) assert_int_equal(value, got[i]);

  /* Executable again: a second execution runs too. */
  cl_int zero = 0;
  assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, sizeof zero, 0, sizeof got, 0, NULL, NULL));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  kcb_read(env->queue, buffer, sizeof got, got);
  for (int i = 0; i < 64; i++) assert_int_equal(value, got[i]);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));

  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* A failed wait-list dependency completes the execution with an error; the command
 * buffer leaves the pending state and can run again. */
static void test_failed_dependency_leaves_pending(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem buffer = kcb_buffer(env->context, 16 * sizeof(cl_int));
  cl_int zero = 0, value = 77;
  assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, sizeof zero, 0, 16 * sizeof(cl_int), 0, NULL, NULL));
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &value, sizeof value, 0, 16 * sizeof(cl_int), 0,
                                               NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  cl_command_queue ooo = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_event gate = kcb_user_event(env->context), event;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &ooo, cb, 1, &gate, &event));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  assert_cl_success(clSetUserEventStatus(gate, -55));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &event));
  assert_true(kcb_event_status(event) < 0);
  assert_cl_success(clFinish(ooo));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  cl_int got[16];
  kcb_read(env->queue, buffer, sizeof got, got);
  for (int i = 0; i < 16; i++) assert_int_equal(0, got[i]); /* the skipped execution did nothing */

  cl_event again;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &again));
  assert_cl_success(clWaitForEvents(1, &again));
  kcb_read(env->queue, buffer, sizeof got, got);
  for (int i = 0; i < 16; i++) assert_int_equal(value, got[i]);
  cl_event events[] = {gate, event, again};
  for (int i = 0; i < 3; i++) assert_cl_success(clReleaseEvent(events[i]));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseCommandQueue(ooo));
  assert_cl_success(clReleaseMemObject(buffer));
}

static void test_empty_command_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  for (int i = 0; i < 3; i++) {
    cl_event event;
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &event));
    assert_cl_success(clWaitForEvents(1, &event));
    assert_int_equal(CL_COMPLETE, kcb_event_status(event));
    assert_cl_success(clReleaseEvent(event));
  }
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  /* Barriers only. */
  cl_command_buffer_khr barriers = kcb_create(env->queue, 0);
  cl_sync_point_khr a = 0, b = 0;
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(barriers, NULL, NULL, 0, NULL, &a, NULL));
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(barriers, NULL, NULL, 1, &a, &b, NULL));
  assert_int_not_equal(0, a);
  assert_int_not_equal(0, b);
  assert_int_not_equal(a, b);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(barriers));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, barriers, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(barriers));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(barriers));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* The command buffer holds its queue and context: once the application has released its
 * own handles, the command buffer still reports them, records, and runs on its queue
 * ("This enables correct behavior of the command-buffer when its attached objects have
 * been released"). Cleanup happens before the checks so a failure leaks nothing. */
static void test_holds_queue_and_context(void **state) {
  struct kiln_test_env *env = *state;
  cl_context context = kcb_context(env->device);
  cl_command_queue queue = kcb_queue(context, env->device, 0);
  cl_command_queue reader = kcb_queue(context, env->device, 0);
  cl_mem buffer = kcb_buffer(context, 32 * sizeof(cl_int));
  cl_command_buffer_khr cb = kcb_create(queue, 0);
  assert_cl_success(clReleaseCommandQueue(queue));
  assert_cl_success(clReleaseContext(context));

  cl_command_queue reported_queue = NULL;
  cl_context reported_context = NULL;
  assert_cl_success(
      kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof reported_queue, &reported_queue, NULL));
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_CONTEXT_KHR, sizeof reported_context,
                                                  &reported_context, NULL));
  assert_ptr_equal(queue, reported_queue);
  assert_ptr_equal(context, reported_context);

  cl_int value = 4242;
  cl_int record_err = kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &value, sizeof value, 0, 32 * sizeof(cl_int),
                                                 0, NULL, NULL, NULL);
  cl_int finalize_err = kcb.clFinalizeCommandBufferKHR(cb);
  cl_event event = NULL;
  cl_int enqueue_err = kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &event); /* on the creation queue */
  cl_int wait_err = event ? clWaitForEvents(1, &event) : CL_INVALID_EVENT;
  cl_int got[32] = {0};
  cl_int read_err = clEnqueueReadBuffer(reader, buffer, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
  cl_command_queue event_queue = NULL;
  if (event) {
    clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof event_queue, &event_queue, NULL);
    assert_cl_success(clReleaseEvent(event));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseCommandQueue(reader));

  assert_cl_success(record_err);
  assert_cl_success(finalize_err);
  if (enqueue_err != CL_SUCCESS)
    fail_msg("clEnqueueCommandBufferKHR(0, NULL, cb) after the application released the creation queue's handle "
             "returned %d, expected CL_SUCCESS (the command buffer holds its queue)",
             enqueue_err);
  assert_cl_success(wait_err);
  assert_cl_success(read_err);
  assert_ptr_equal(queue, event_queue);
  for (int i = 0; i < 32; i++) assert_int_equal(value, got[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_extension_advertised),
      KCB_TEST(test_device_queries),
      KCB_TEST(test_function_addresses),
      KCB_TEST(test_create_success),
      KCB_TEST(test_create_errors),
      KCB_TEST(test_retain_release),
      KCB_TEST(test_invalid_and_released_handles),
      KCB_TEST(test_info_values),
      KCB_TEST(test_info_size_rules),
      KCB_TEST(test_finalize_and_states),
      KCB_TEST(test_failed_dependency_leaves_pending),
      KCB_TEST(test_empty_command_buffer),
      KCB_TEST(test_holds_queue_and_context),
  };
  return cmocka_run_group_tests(tests, kcb_setup, kiln_test_env_teardown);
}
