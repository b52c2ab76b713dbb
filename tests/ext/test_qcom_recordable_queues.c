/* cl_qcom_recordable_queues, the recordable side: the header's tokens and types, the
 * extension strings, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, the entry points, creating
 * recordable queues (both APIs) and their info, recording objects (new, end, retain,
 * release, their errors and reference counts, the reference a recording holds on its
 * queue, one active recording per queue, two queues recording at once), the size limit,
 * and what may be enqueued to a recordable queue: NDRanges and tasks are recorded (with
 * their arguments as set at that moment), everything else (including replays and
 * command-buffer executions) is refused. */
#include "khr_command_buffer_test.h" /* first: see that header */
#include "qcom_recordable_test.h"

#include <stddef.h>

static const char *source = "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
                            "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
                            KILN_TEST_COUNT_SOURCE
                            "kernel void say(global int *p) { printf(\"qcom %d\\n\", p[get_global_id(0)]); }\n"
                            KILN_TEST_GROUP_SUM_SOURCE;

static cl_program program;

/* The recordable side's fixture, plus cl_khr_command_buffer's entry points (command
 * buffers are among what a recordable queue refuses). */
static int setup(void **state) {
  kiln_test_program_setup(state, qrq_setup, &program, source, "-cl-std=CL1.2"); /* uniform work-groups */
  kcb_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

static cl_int read_int(cl_command_queue queue, cl_mem buffer) { return qrq_read_int(queue, buffer, 0); }

/* Whether an ended recording has a dispatch `index` (of the `count` kernel): an argument
 * update naming it succeeds (and replays, setting its counter to `counter`), or fails
 * with CL_INVALID_KERNEL_ARGS ("a dispatch index is out of bounds"). Call it after the
 * test's own checks of the counter: a successful probe runs the recording once more. */
static cl_bool dispatch_exists(cl_command_queue live, cl_recording_qcom recording, cl_uint index, cl_mem counter) {
  cl_array_arg_qcom a = qrq_arg(index, 0, sizeof counter, &counter);
  cl_int err = qrq_replay_args(live, recording, 1, &a);
  assert_true(err == CL_SUCCESS || err == CL_INVALID_KERNEL_ARGS);
  assert_cl_success(clFinish(live));
  return err == CL_SUCCESS;
}

/* ---- header, device, entry points ---- */

_Static_assert(CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM == 0x41DE, "token value");
_Static_assert(CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE == CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, "both spellings");
_Static_assert(CL_QUEUE_RECORDABLE_QCOM == (1u << 30), "token value");

static void test_header_types(void **state) {
  (void)state;
  assert_int_equal(0x41DE, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM);
  assert_int_equal(0x41DE, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE);
  assert_int_equal((cl_bitfield)1 << 30, (cl_bitfield)CL_QUEUE_RECORDABLE_QCOM);
  /* The structures' fields in the spec's order, with the spec's types. */
  assert_int_equal(sizeof(void *), sizeof(cl_recording_qcom));
  assert_int_equal(0, offsetof(cl_array_arg_qcom, dispatch_index));
  assert_int_equal(sizeof(cl_uint), offsetof(cl_array_arg_qcom, arg_index));
  assert_int_equal(sizeof(size_t), sizeof(((cl_array_arg_qcom *)0)->arg_size));
  assert_true(offsetof(cl_array_arg_qcom, arg_size) < offsetof(cl_array_arg_qcom, arg_value));
  assert_int_equal(0, offsetof(cl_array_kernel_exec_info_qcom, dispatch_index));
  assert_int_equal(sizeof(cl_uint), offsetof(cl_array_kernel_exec_info_qcom, param_name));
  assert_int_equal(sizeof(cl_kernel_exec_info), sizeof(((cl_array_kernel_exec_info_qcom *)0)->param_name));
  assert_true(offsetof(cl_array_kernel_exec_info_qcom, param_value_size) <
              offsetof(cl_array_kernel_exec_info_qcom, param_value));
  assert_int_equal(0, offsetof(cl_offset_qcom, dispatch_index));
  assert_int_equal(3 * sizeof(size_t), sizeof(((cl_offset_qcom *)0)->offsets));
  assert_int_equal(0, offsetof(cl_workgroup_qcom, dispatch_index));
  assert_int_equal(sizeof(const size_t *), sizeof(((cl_workgroup_qcom *)0)->workgroup_size));
}

static void test_extension_advertised(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_qcom_recordable_queues", CL_MAKE_VERSION(1, 0, 0));
}

static void test_device_max_size(void **state) {
  struct kiln_test_env *env = *state;
  /* The spec's sample 1, with Qualcomm's spelling. */
  cl_uint max_recordable_queue_size = 0;
  size_t ret_size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE, sizeof(cl_uint),
                                    &max_recordable_queue_size, &ret_size));
  assert_int_equal(sizeof(cl_uint), ret_size);
  assert_int_equal(4096, max_recordable_queue_size); /* Kiln's documented limit */

  cl_uint value = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, sizeof value, &value, NULL));
  assert_int_equal(max_recordable_queue_size, value);
  /* Size-only query, a larger buffer, a too small buffer. */
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, 0, NULL, &size));
  assert_int_equal(sizeof(cl_uint), size);
  cl_ulong wide = ~(cl_ulong)0;
  size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, sizeof wide, &wide, &size));
  assert_int_equal(sizeof(cl_uint), size);
  cl_uint low;
  memcpy(&low, &wide, sizeof low);
  assert_int_equal(max_recordable_queue_size, low);
  unsigned char small = 0;
  assert_int_equal(CL_INVALID_VALUE,
                   clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, sizeof small, &small, NULL));
}

static void test_function_addresses(void **state) {
  struct kiln_test_env *env = *state;
  /* qrq_setup failed on any NULL. The six are distinct, and Kiln's deprecated lookup
   * (through its dispatch table: the loader answers that one itself) agrees. */
  void *all[] = {(void *)qrq.clNewRecordingQCOM,     (void *)qrq.clEndRecordingQCOM,
                 (void *)qrq.clRetainRecordingQCOM,  (void *)qrq.clReleaseRecordingQCOM,
                 (void *)qrq.clEnqueueRecordingQCOM, (void *)qrq.clEnqueueRecordingSVMQCOM};
  const char *names[] = {"clNewRecordingQCOM",     "clEndRecordingQCOM",     "clRetainRecordingQCOM",
                         "clReleaseRecordingQCOM", "clEnqueueRecordingQCOM", "clEnqueueRecordingSVMQCOM"};
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(env->platform);
  for (size_t i = 0; i < 6; i++) {
    for (size_t j = 0; j < i; j++) assert_ptr_not_equal(all[i], all[j]);
    assert_ptr_equal(all[i], dispatch->clGetExtensionFunctionAddress(names[i]));
    assert_ptr_equal(all[i], clGetExtensionFunctionAddressForPlatform(env->platform, names[i]));
  }
  const char *absent[] = {"clNewRecording", "clNewRecordingQCOMX", "clEnqueueRecordingsQCOM", "clGetRecordingInfoQCOM"};
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
    assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, absent[i]));
}

/* ---- recordable queues ---- */

static cl_command_queue_properties queue_properties(cl_command_queue queue) {
  cl_command_queue_properties props = ~(cl_command_queue_properties)0;
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, &size));
  assert_int_equal(sizeof props, size);
  return props;
}

static void test_create_queue_legacy(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = clCreateCommandQueue(env->context, env->device, CL_QUEUE_RECORDABLE_QCOM, &err);
  assert_cl_success(err);
  assert_non_null(q);
  assert_int_equal(CL_QUEUE_RECORDABLE_QCOM, queue_properties(q));
  cl_recording_qcom r = qrq_new(q); /* it is recordable */
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));

  /* "may not be combined with CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_ON_DEVICE, or
   * CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE". (The 1.x API takes no on-device bits at all.) */
  const cl_command_queue_properties refused[] = {
      CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_PROFILING_ENABLE,
      CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_ON_DEVICE,
      CL_QUEUE_RECORDABLE_QCOM | ((cl_command_queue_properties)1 << 29),
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    err = CL_SUCCESS;
    assert_null(clCreateCommandQueue(env->context, env->device, refused[i], &err));
    if (err != CL_INVALID_VALUE)
      fail_msg("properties 0x%llx: %d, expected CL_INVALID_VALUE", (unsigned long long)refused[i], err);
  }
}

static cl_int create_with(struct kiln_test_env *env, cl_command_queue_properties bits) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, bits, 0};
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  if (q)
    assert_cl_success(clReleaseCommandQueue(q));
  else
    assert_int_not_equal(CL_SUCCESS, err);
  return err;
}

static void test_create_queue_with_properties(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_properties given[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_RECORDABLE_QCOM, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, given, &err);
  assert_cl_success(err);
  assert_int_equal(CL_QUEUE_RECORDABLE_QCOM, queue_properties(q));
  cl_queue_properties back[8] = {0};
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &size));
  assert_int_equal(sizeof given, size);
  assert_memory_equal(given, back, sizeof given);
  cl_context context = NULL;
  cl_device_id device = NULL;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof context, &context, NULL));
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, NULL));
  assert_ptr_equal(env->context, context);
  assert_ptr_equal(env->device, device);
  assert_int_equal(1, qrq_queue_refcount(q));
  assert_cl_success(clFinish(q)); /* not enqueues: allowed on a recordable queue */
  assert_cl_success(clFlush(q));
  assert_cl_success(clReleaseCommandQueue(q));

  assert_int_equal(CL_INVALID_VALUE, create_with(env, CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_PROFILING_ENABLE));
  assert_int_equal(CL_INVALID_VALUE,
                   create_with(env, CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  assert_int_equal(CL_INVALID_VALUE, create_with(env, CL_QUEUE_RECORDABLE_QCOM | CL_QUEUE_PROFILING_ENABLE |
                                                          CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  assert_int_equal(CL_INVALID_VALUE,
                   create_with(env, CL_QUEUE_RECORDABLE_QCOM | ((cl_command_queue_properties)1 << 29)));
  const cl_queue_properties with_size[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_RECORDABLE_QCOM, CL_QUEUE_SIZE, 1024, 0};
  err = CL_SUCCESS;
  assert_null(clCreateCommandQueueWithProperties(env->context, env->device, with_size, &err));
  assert_int_equal(CL_INVALID_VALUE, err);

  /* With on-device bits, always CL_INVALID_VALUE: the spec's "may not be combined with
   * CL_QUEUE_ON_DEVICE", and the core's own rules for on-device bits (out-of-order, and
   * ON_DEVICE under ON_DEVICE_DEFAULT), which agree. */
  const cl_command_queue_properties device_bits[] = {
      CL_QUEUE_ON_DEVICE,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
  };
  for (size_t i = 0; i < sizeof device_bits / sizeof device_bits[0]; i++) {
    cl_int recordable = create_with(env, device_bits[i] | CL_QUEUE_RECORDABLE_QCOM);
    if (recordable != CL_INVALID_VALUE)
      fail_msg("RECORDABLE | 0x%llx: %d, expected CL_INVALID_VALUE", (unsigned long long)device_bits[i], recordable);
  }
}

/* ---- recording objects ---- */

static void test_new_recording_errors(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_command_queue released = qrq_recordable_queue(env);
  assert_cl_success(clReleaseCommandQueue(released));
  /* (Nothing is created between the release and its use: the handle's memory is reused.) */
  const cl_command_queue bad[] = {released, NULL, (cl_command_queue)&fake, (cl_command_queue)env->context,
                                  (cl_command_queue)env->device};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_int err = CL_SUCCESS;
    assert_null(qrq.clNewRecordingQCOM(bad[i], &err));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, err);
    assert_null(qrq.clNewRecordingQCOM(bad[i], NULL));
  }
  cl_command_queue profiling = qrq_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  cl_command_queue ooo = qrq_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  const cl_command_queue plain[] = {env->queue, profiling, ooo};
  for (size_t i = 0; i < 3; i++) {
    cl_int err = CL_SUCCESS;
    assert_null(qrq.clNewRecordingQCOM(plain[i], &err));
    assert_int_equal(CL_INVALID_QUEUE_PROPERTIES, err);
    assert_null(qrq.clNewRecordingQCOM(plain[i], NULL));
    assert_int_equal(1, qrq_queue_refcount(plain[i]));
  }
  assert_cl_success(clReleaseCommandQueue(profiling));
  assert_cl_success(clReleaseCommandQueue(ooo));

  /* errcode_ret may be NULL on success too. */
  cl_command_queue q = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq.clNewRecordingQCOM(q, NULL);
  assert_non_null(r);
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_one_active_recording_per_queue(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = qrq_recordable_queue(env);
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  const size_t one = 1;
  cl_recording_qcom first = qrq_new(q);
  cl_int err = CL_SUCCESS;
  assert_null(qrq.clNewRecordingQCOM(q, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  assert_null(qrq.clNewRecordingQCOM(q, NULL));
  assert_int_equal(2, qrq_queue_refcount(q)); /* the refused attempts hold nothing */
  /* The first recording is still the active one: it records. */
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(first));
  /* Once ended, the queue takes a new recording, which records on its own. */
  cl_recording_qcom second = qrq_new(q);
  assert_ptr_not_equal(first, second);
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(second));
  qrq_replay(env->queue, first);
  assert_int_equal(1, read_int(env->queue, counter));
  qrq_replay(env->queue, second);
  assert_int_equal(3, read_int(env->queue, counter));
  assert_true(dispatch_exists(env->queue, first, 0, counter));
  assert_false(dispatch_exists(env->queue, first, 1, counter));
  assert_true(dispatch_exists(env->queue, second, 1, counter));
  assert_false(dispatch_exists(env->queue, second, 2, counter));
  assert_cl_success(qrq.clReleaseRecordingQCOM(first));
  assert_cl_success(qrq.clReleaseRecordingQCOM(second));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_end_recording(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_command_queue q = qrq_recordable_queue(env);
  const void *bad[] = {NULL, &fake, env->queue, q, env->context};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(CL_INVALID_VALUE, qrq.clEndRecordingQCOM((cl_recording_qcom)bad[i]));
  cl_recording_qcom r = qrq_new(q);
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_int_equal(CL_INVALID_OPERATION, qrq.clEndRecordingQCOM(r)); /* already closed */
  assert_int_equal(CL_INVALID_OPERATION, qrq.clEndRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  /* A released recording is not a valid recording (nothing is created in between). */
  assert_int_equal(CL_INVALID_VALUE, qrq.clEndRecordingQCOM(r));
  /* Ending an empty recording is fine: only enqueueing it is refused. */
  cl_recording_qcom empty = qrq_new(q);
  assert_cl_success(qrq.clEndRecordingQCOM(empty));
  assert_cl_success(qrq.clReleaseRecordingQCOM(empty));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_retain_release(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_command_queue q = qrq_recordable_queue(env);
  const void *bad[] = {NULL, &fake, env->queue, q, env->context};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(CL_INVALID_OPERATION, qrq.clRetainRecordingQCOM((cl_recording_qcom)bad[i]));
    assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM((cl_recording_qcom)bad[i]));
  }
  assert_int_equal(1, qrq_queue_refcount(q)); /* the queue handle was not touched */

  cl_recording_qcom r = qrq_new(q);
  /* An active recording cannot be released, however many references it has. */
  assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(qrq.clRetainRecordingQCOM(r));
  assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM(r));
  assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM(r));
  /* It is still active and whole: it records and ends. */
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  const size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  /* Two references now (creation + retain); one more makes three. */
  assert_cl_success(qrq.clRetainRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  /* One reference left: the recording still works. */
  qrq_replay(env->queue, r);
  assert_int_equal(1, read_int(env->queue, counter));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  /* Gone: both entry points refuse it (nothing created in between). */
  assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM(r));
  assert_int_equal(CL_INVALID_OPERATION, qrq.clRetainRecordingQCOM(r));
  assert_int_equal(CL_INVALID_VALUE,
                   qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* "The new cl_recording_qcom object holds a refcount on command_queue", released by
 * clEndRecordingQCOM: visible in CL_QUEUE_REFERENCE_COUNT; the application may release
 * its own reference while recording and still record and end. */
static void test_recording_holds_queue(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  const size_t one = 1;
  cl_command_queue q = qrq_recordable_queue(env);
  assert_int_equal(1, qrq_queue_refcount(q));
  cl_recording_qcom r = qrq_new(q);
  assert_int_equal(2, qrq_queue_refcount(q));
  assert_cl_success(clRetainCommandQueue(q));
  assert_int_equal(3, qrq_queue_refcount(q));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_int_equal(1, qrq_queue_refcount(q));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_int_equal(1, qrq_queue_refcount(q));

  /* The application lets its handle go while recording. */
  r = qrq_new(q);
  assert_cl_success(clReleaseCommandQueue(q));
  assert_int_equal(1, qrq_queue_refcount(q)); /* the recording's */
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueTask(q, k, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  /* The recording's reference was the last API one: the handle is no longer valid. */
  cl_uint refs = 0;
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  cl_int err = CL_SUCCESS;
  assert_null(qrq.clNewRecordingQCOM(q, &err));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, err);
  /* The recording still runs on a live queue, with and without updates. */
  qrq_replay(env->queue, r);
  qrq_replay(env->queue, r);
  assert_int_equal(4, read_int(env->queue, counter));
  cl_mem other = qrq_buffer_filled(env->queue, env->context, 1, 0);
  cl_array_arg_qcom to_other = qrq_arg(1, 0, sizeof other, &other);
  assert_cl_success(qrq_replay_args(env->queue, r, 1, &to_other));
  qrq_replay(env->queue, r);
  assert_int_equal(6, read_int(env->queue, counter));
  assert_int_equal(2, read_int(env->queue, other));
  assert_cl_success(clReleaseMemObject(other));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
}

/* Two recordable queues, each with its active recording at the same time: every dispatch
 * goes to its own queue's recording. */
static void test_two_queues_recording(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  cl_command_queue qa = qrq_recordable_queue(env), qb = qrq_recordable_queue(env);
  cl_mem a = qrq_buffer_filled(env->queue, env->context, N, 0);
  cl_mem b = qrq_buffer_filled(env->queue, env->context, N, 0);
  cl_kernel add = qrq_kernel(program, "add");
  const size_t n = N;
  cl_recording_qcom ra = qrq_new(qa);
  cl_recording_qcom rb = qrq_new(qb);
  assert_int_equal(2, qrq_queue_refcount(qa));
  assert_int_equal(2, qrq_queue_refcount(qb));
  for (cl_int i = 1; i <= 3; i++) {
    qrq_arg_mem(add, 0, a);
    qrq_arg_int(add, 1, i);
    assert_cl_success(clEnqueueNDRangeKernel(qa, add, 1, NULL, &n, NULL, 0, NULL, NULL));
    qrq_arg_mem(add, 0, b);
    qrq_arg_int(add, 1, 100 * i);
    assert_cl_success(clEnqueueNDRangeKernel(qb, add, 1, NULL, &n, NULL, 0, NULL, NULL));
    assert_cl_success(clEnqueueNDRangeKernel(qb, add, 1, NULL, &n, NULL, 0, NULL, NULL));
  }
  assert_cl_success(qrq.clEndRecordingQCOM(ra));
  /* qb is still recording after qa's recording ended. */
  qrq_arg_int(add, 1, 1000);
  assert_cl_success(clEnqueueNDRangeKernel(qb, add, 1, NULL, &n, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(rb));
  assert_int_equal(1, qrq_queue_refcount(qa));
  assert_int_equal(1, qrq_queue_refcount(qb));
  qrq_replay(env->queue, ra);
  qrq_expect_all(env->queue, a, N, 1 + 2 + 3, "queue A's recording");
  qrq_expect_all(env->queue, b, N, 0, "queue B's buffer after A's replay");
  qrq_replay(env->queue, rb);
  qrq_expect_all(env->queue, a, N, 6, "queue A's buffer after B's replay");
  qrq_expect_all(env->queue, b, N, 2 * (100 + 200 + 300) + 1000, "queue B's recording");
  assert_cl_success(qrq.clReleaseRecordingQCOM(ra));
  assert_cl_success(qrq.clReleaseRecordingQCOM(rb));
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseCommandQueue(qa));
  assert_cl_success(clReleaseCommandQueue(qb));
}

/* "Recording more commands than CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM will result in
 * an error": the first one past the limit is refused, the recording keeps the others and
 * stays usable. */
static void test_size_limit(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint max = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM, sizeof max, &max, NULL));
  assert_true(max > 0);
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_command_queue q = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(q);
  const size_t one = 1;
  for (cl_uint i = 0; i < max; i++) {
    cl_int err =
        i % 2 ? clEnqueueTask(q, k, 0, NULL, NULL) : clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail_msg("dispatch %u of %u: %d", i, max, err);
  }
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueTask(q, k, 0, NULL, NULL));
  /* Still the queue's active recording. */
  cl_int err = CL_SUCCESS;
  assert_null(qrq.clNewRecordingQCOM(q, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_replay(env->queue, r);
  assert_int_equal((cl_int)max, read_int(env->queue, counter));
  /* The last dispatch is max - 1. */
  cl_mem other = qrq_buffer_filled(env->queue, env->context, 1, 0);
  cl_array_arg_qcom last = qrq_arg(max - 1, 0, sizeof other, &other);
  cl_array_arg_qcom past = qrq_arg(max, 0, sizeof other, &other);
  assert_int_equal(CL_INVALID_KERNEL_ARGS, qrq_replay_args(env->queue, r, 1, &past));
  assert_cl_success(qrq_replay_args(env->queue, r, 1, &last));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(2 * (cl_int)max - 1, read_int(env->queue, counter));
  assert_int_equal(1, read_int(env->queue, other));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
  assert_cl_success(clReleaseMemObject(other));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* ---- enqueues to a recordable queue ---- */

/* "If command_queue is a recordable command queue, event_wait_list must be 0 and
 * num_events_wait_list must be NULL ... event must be NULL"; refused calls record
 * nothing. */
static void test_record_wait_list_and_event(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_command_queue q = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(q);
  const size_t one = 1;
  cl_event done = kiln_test_done_marker(env->queue);
  cl_event user = qrq_user_event(env->context);
  const cl_event lists[][1] = {{done}, {user}};
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 1, lists[i], NULL));
    assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueTask(q, k, 1, lists[i], NULL));
    assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, lists[i], NULL));
  }
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 1, NULL, NULL));
  cl_event event = NULL;
  assert_int_equal(CL_INVALID_VALUE, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, &event));
  assert_null(event);
  assert_int_equal(CL_INVALID_VALUE, clEnqueueTask(q, k, 0, NULL, &event));
  assert_null(event);
  assert_cl_success(clSetUserEventStatus(user, CL_COMPLETE));
  /* One valid dispatch: the only one recorded. */
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_replay(env->queue, r);
  assert_int_equal(1, read_int(env->queue, counter));
  assert_false(dispatch_exists(env->queue, r, 1, counter));
  assert_cl_success(clReleaseEvent(user));
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* The launch errors of a recorded NDRange are clEnqueueNDRangeKernel's: each refused call
 * returns the code the same call gets on an ordinary queue, and records nothing. */
static void test_record_launch_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_kernel unset = qrq_kernel(program, "count");
  cl_context other_context = kiln_test_context(env->device);
  cl_program other_program = qrq_program(other_context, env->device, source, NULL);
  cl_kernel foreign = qrq_kernel(other_program, "count");
  cl_mem foreign_counter = qrq_buffer(other_context, sizeof(cl_int));
  qrq_arg_mem(foreign, 0, foreign_counter);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(k);
  cl_kernel released = qrq_kernel(program, "count");
  qrq_arg_mem(released, 0, counter);
  size_t max_group = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));

  cl_command_queue q = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(q);
  /* (Used first, before anything else is created: its memory would be reused.) */
  assert_cl_success(clReleaseKernel(released));
  const size_t g6[3] = {6, 4, 4}, l4[3] = {4, 1, 1}, l3[3] = {3, 3, 1}, zero_local[3] = {0, 1, 1};
  size_t big_global[3] = {max_group * 2, 1, 1}, big_local[3] = {max_group * 2, 1, 1};
  size_t two_d_global[3] = {max_group, 2, 1}, two_d_local[3] = {max_group, 2, 1};
  const struct launch {
    cl_kernel kernel;
    cl_uint dim;
    const size_t *global, *local;
    cl_int expected;
  } launches[] = {
      {released, 1, g6, NULL, CL_INVALID_KERNEL},
      {(cl_kernel)&fake, 1, g6, NULL, CL_INVALID_KERNEL},
      {foreign, 1, g6, NULL, CL_INVALID_CONTEXT},
      {unset, 1, g6, NULL, CL_INVALID_KERNEL_ARGS},
      {k, 0, g6, NULL, CL_INVALID_WORK_DIMENSION},
      {k, 4, g6, NULL, CL_INVALID_WORK_DIMENSION},
      {k, 1, g6, l4, CL_INVALID_WORK_GROUP_SIZE}, /* OpenCL C 1.2 program: 6 % 4 != 0 */
      {k, 2, g6, l3, CL_INVALID_WORK_GROUP_SIZE}, /* 4 % 3 != 0 in dimension 1 */
      {k, 1, g6, zero_local, CL_INVALID_WORK_GROUP_SIZE},
      {k, 1, big_global, big_local, CL_INVALID_WORK_GROUP_SIZE}, /* more than the maximum work-group size */
      {k, 2, two_d_global, two_d_local, CL_INVALID_WORK_GROUP_SIZE},
  };
  for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++) {
    const struct launch *l = &launches[i];
    cl_int plain = clEnqueueNDRangeKernel(env->queue, l->kernel, l->dim, NULL, l->global, l->local, 0, NULL, NULL);
    if (plain != l->expected) fail_msg("launch %zu on an ordinary queue: %d, expected %d", i, plain, l->expected);
    cl_int got = clEnqueueNDRangeKernel(q, l->kernel, l->dim, NULL, l->global, l->local, 0, NULL, NULL);
    if (got != l->expected) fail_msg("launch %zu on the recordable queue: %d, expected %d", i, got, l->expected);
  }
  /* One valid 2-D launch (6 x 4 items in groups of 3 x 2): the only dispatch recorded. */
  const size_t l32[3] = {3, 2, 1};
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 2, NULL, g6, l32, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(0, read_int(env->queue, counter));
  qrq_replay(env->queue, r);
  assert_int_equal(6 * 4, read_int(env->queue, counter));
  assert_false(dispatch_exists(env->queue, r, 1, counter));

  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseKernel(unset));
  assert_cl_success(clReleaseKernel(foreign));
  assert_cl_success(clReleaseMemObject(foreign_counter));
  assert_cl_success(clReleaseProgram(other_program));
  assert_cl_success(clReleaseContext(other_context));
  assert_cl_success(clReleaseMemObject(counter));
}

/* Records `refused` (CL_INVALID_OPERATION for NDRange and task forms alike) between
 * nothing and a counting task, and checks that the replay runs the task alone. */
static void expect_kernel_refused(struct kiln_test_env *env, cl_kernel refused) {
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_command_queue q = qrq_recordable_queue(env);
  const size_t four = 4;
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueNDRangeKernel(q, refused, 1, NULL, &four, NULL, 0, NULL, NULL));
  cl_recording_qcom r = qrq_new(q);
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueNDRangeKernel(q, refused, 1, NULL, &four, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueTask(q, refused, 0, NULL, NULL));
  assert_cl_success(clEnqueueTask(q, k, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_replay(env->queue, r);
  assert_int_equal(1, read_int(env->queue, counter));
  assert_false(dispatch_exists(env->queue, r, 1, counter)); /* only the count task */
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
}

/* "Kernel Enqueue Kernel and printf features are not supported with this extension":
 * recording a printf kernel fails with CL_INVALID_OPERATION and records nothing. */
static void test_record_printf_kernel(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem data = qrq_buffer_filled(env->queue, env->context, 4, 7);
  cl_kernel say = qrq_kernel(program, "say");
  qrq_arg_mem(say, 0, data);
  expect_kernel_refused(env, say);
  assert_cl_success(clReleaseKernel(say));
  assert_cl_success(clReleaseMemObject(data));
}

/* The same sentence's "Kernel Enqueue Kernel": a kernel that uses device-side enqueue is
 * refused too, whether it would enqueue or not, and nothing of it is recorded. */
static void test_record_enqueueing_kernel(void **state) {
  struct kiln_test_env *env = *state;
  const char *source = "kernel void parent(global int *p, queue_t q) {\n"
                       "  if (p[0] < 0) enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ p[1] = 1; });\n"
                       "}\n";
  cl_int err;
  cl_program enqueueing = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(enqueueing, 1, &env->device, "-cl-std=CL2.0", NULL, NULL));
  cl_kernel parent = qrq_kernel(enqueueing, "parent");
  cl_mem data = qrq_buffer_filled(env->queue, env->context, 4, 7);
  qrq_arg_mem(parent, 0, data);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue device_queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(parent, 1, sizeof device_queue, &device_queue));
  expect_kernel_refused(env, parent);
  assert_cl_success(clReleaseCommandQueue(device_queue));
  assert_cl_success(clReleaseKernel(parent));
  assert_cl_success(clReleaseProgram(enqueueing));
  assert_cl_success(clReleaseMemObject(data));
}

/* "Commands can only be enqueued to a recordable queue when a recording is active." */
static void test_record_without_active_recording(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_command_queue q = qrq_recordable_queue(env);
  const size_t one = 1;
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueTask(q, k, 0, NULL, NULL));
  cl_recording_qcom r = qrq_new(q);
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueTask(q, k, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  /* Nothing ran on the recordable queue, and the recording holds the one dispatch. */
  assert_int_equal(0, read_int(env->queue, counter));
  qrq_replay(env->queue, r);
  assert_int_equal(1, read_int(env->queue, counter));
  assert_false(dispatch_exists(env->queue, r, 1, counter));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter));
}

static void CL_CALLBACK native_add_one(void *args) {
  cl_int **p = args;
  (**p)++;
}

/* Every enqueue other than an NDRange or task, each otherwise valid (the same call
 * succeeds on an ordinary queue), is refused on a recordable queue with
 * CL_INVALID_OPERATION: returns no event, touches no memory, records nothing. */
static void expect_other_enqueues_refused(struct kiln_test_env *env, cl_command_queue q, cl_recording_qcom ready,
                                          cl_command_buffer_khr command_buffer, const char *when) {
  enum { N = 64 };
  cl_mem a = qrq_buffer_filled(env->queue, env->context, N, 1);
  cl_mem b = qrq_buffer_filled(env->queue, env->context, N, 2);
  cl_int host[N], pattern = 9;
  for (int i = 0; i < N; i++) host[i] = 50 + i;
  cl_event done = kiln_test_done_marker(env->queue);
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 2, 1};
  cl_event ev = NULL;
  struct {
    const char *name;
    cl_int err;
  } calls[32];
  size_t n = 0;
#define CALL(expr) calls[n].name = #expr, calls[n++].err = (expr)
  CALL(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  CALL(clEnqueueReadBuffer(q, a, CL_FALSE, 0, sizeof host, host, 1, &done, &ev));
  CALL(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  CALL(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, sizeof host, host, 0, NULL, &ev));
  CALL(clEnqueueCopyBuffer(q, b, a, 0, 0, sizeof host, 0, NULL, &ev));
  CALL(clEnqueueFillBuffer(q, a, &pattern, sizeof pattern, 0, sizeof host, 0, NULL, &ev));
  CALL(clEnqueueReadBufferRect(q, a, CL_TRUE, origin, origin, region, 16, 0, 16, 0, host, 0, NULL, NULL));
  CALL(clEnqueueWriteBufferRect(q, a, CL_TRUE, origin, origin, region, 16, 0, 16, 0, host, 0, NULL, NULL));
  CALL(clEnqueueCopyBufferRect(q, b, a, origin, origin, region, 16, 0, 16, 0, 0, NULL, &ev));
  CALL(clEnqueueMarkerWithWaitList(q, 0, NULL, &ev));
  CALL(clEnqueueMarkerWithWaitList(q, 1, &done, NULL));
  CALL(clEnqueueBarrierWithWaitList(q, 0, NULL, &ev));
  CALL(clEnqueueBarrierWithWaitList(q, 1, &done, NULL));
  CALL(clEnqueueMarker(q, &ev));
  CALL(clEnqueueBarrier(q));
  CALL(clEnqueueWaitForEvents(q, 1, &done));
  CALL(clEnqueueMigrateMemObjects(q, 1, &a, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &ev));
  cl_int *native_target = host;
  CALL(clEnqueueNativeKernel(q, native_add_one, &native_target, sizeof native_target, 0, NULL, NULL, 0, NULL, &ev));
  cl_int map_err = CL_SUCCESS;
  void *mapped = clEnqueueMapBuffer(q, a, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &map_err);
  calls[n].name = "clEnqueueMapBuffer (blocking)", calls[n++].err = map_err;
  assert_null(mapped);
  mapped = clEnqueueMapBuffer(q, a, CL_FALSE, CL_MAP_WRITE, 0, sizeof host, 0, NULL, &ev, &map_err);
  calls[n].name = "clEnqueueMapBuffer (non-blocking)", calls[n++].err = map_err;
  assert_null(mapped);
  /* Unmapping, on the recordable queue, a region mapped through an ordinary queue. */
  void *ordinary_map = clEnqueueMapBuffer(env->queue, b, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &map_err);
  assert_cl_success(map_err);
  CALL(clEnqueueUnmapMemObject(q, b, ordinary_map, 0, NULL, &ev));
  /* Replaying a recording onto a recordable queue is an enqueue too. */
  CALL(qrq.clEnqueueRecordingQCOM(q, ready, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &ev));
  CALL(qrq.clEnqueueRecordingSVMQCOM(q, ready, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &ev));
#undef CALL
  for (size_t i = 0; i < n; i++)
    if (calls[i].err != CL_INVALID_OPERATION)
      fail_msg("%s, %s: %d, expected CL_INVALID_OPERATION", when, calls[i].name, calls[i].err);
  /* Executing there a command buffer (created on the recordable queue, or with the
   * recordable queue as substitute): cl_khr_command_buffer's rule applies first, the
   * recordable bit is not a supported queue property. */
  assert_int_equal(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
                   kcb.clEnqueueCommandBufferKHR(0, NULL, command_buffer, 0, NULL, &ev));
  assert_int_equal(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
                   kcb.clEnqueueCommandBufferKHR(1, &q, command_buffer, 0, NULL, &ev));
  assert_null(ev);
  assert_int_equal(50, host[0]); /* the native kernel never ran */
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, b, ordinary_map, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  assert_cl_success(clFinish(env->queue));
  qrq_expect_all(env->queue, a, N, 1, "buffer a");
  qrq_expect_all(env->queue, b, N, 2, "buffer b");

  /* The same calls are valid on an ordinary queue (so each refusal above is the
   * recordable queue's doing). */
  cl_event ok[4];
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, b, a, origin, origin, region, 16, 0, 16, 0, 0, NULL, &ok[0]));
  assert_cl_success(clEnqueueMigrateMemObjects(env->queue, 1, &a, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &ok[1]));
  assert_cl_success(clEnqueueNativeKernel(env->queue, native_add_one, &native_target, sizeof native_target, 0, NULL,
                                          NULL, 0, NULL, &ok[2]));
  assert_cl_success(clEnqueueWaitForEvents(env->queue, 1, &done));
  assert_cl_success(clEnqueueMarker(env->queue, &ok[3]));
  assert_cl_success(clWaitForEvents(4, ok));
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseEvent(ok[i]));
  assert_int_equal(51, host[0]);
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* A finalized command buffer created on `queue`, running `put` once. */
static cl_command_buffer_khr command_buffer_putting(cl_command_queue queue, cl_kernel put) {
  cl_command_buffer_khr cb = kcb_create(queue, 0);
  const size_t one = 1;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put, 1, NULL, &one, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  return cb;
}

static void test_other_enqueues_refused(void **state) {
  struct kiln_test_env *env = *state;
  /* An ended recording (it puts 5 in `ready_out`), to try to replay on the recordable
   * queue, and a command buffer on the recordable queue putting 6 there. */
  cl_command_queue q = qrq_recordable_queue(env);
  cl_mem ready_out = qrq_buffer_filled(env->queue, env->context, 1, 0);
  cl_kernel put = qrq_kernel(program, "put");
  qrq_arg_mem(put, 0, ready_out);
  qrq_arg_int(put, 1, 6);
  cl_command_buffer_khr cb = command_buffer_putting(q, put);
  qrq_arg_int(put, 1, 5);
  cl_command_queue other_q = qrq_recordable_queue(env);
  cl_recording_qcom ready = qrq_new(other_q);
  assert_cl_success(clEnqueueTask(other_q, put, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(ready));

  expect_other_enqueues_refused(env, q, ready, cb, "no recording");
  cl_mem counter;
  cl_kernel k = qrq_counting_kernel(env, program, &counter);
  cl_recording_qcom r = qrq_new(q);
  assert_cl_success(clEnqueueTask(q, k, 0, NULL, NULL));
  expect_other_enqueues_refused(env, q, ready, cb, "active recording");
  assert_cl_success(clEnqueueTask(q, k, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  expect_other_enqueues_refused(env, q, ready, cb, "ended recording");
  assert_int_equal(0, read_int(env->queue, counter));
  assert_int_equal(0, read_int(env->queue, ready_out));
  qrq_replay(env->queue, r);
  assert_int_equal(2, read_int(env->queue, counter));
  assert_false(dispatch_exists(env->queue, r, 2, counter));
  qrq_replay(env->queue, ready);
  assert_int_equal(5, read_int(env->queue, ready_out));
  /* The command buffer itself was fine: it runs on an ordinary substitute queue. */
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &env->queue, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(6, read_int(env->queue, ready_out));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(qrq.clReleaseRecordingQCOM(ready));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(counter));
  assert_cl_success(clReleaseMemObject(ready_out));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseCommandQueue(other_q));
}

/* A dispatch is recorded with the kernel's arguments as set at that moment (buffers,
 * scalars, local-memory sizes); later clSetKernelArg calls, or releasing the kernel, do
 * not change the recording. */
static void test_arguments_captured_when_recorded(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 128, GROUP = 16 };
  cl_mem a = qrq_buffer_filled(env->queue, env->context, N, 0);
  cl_mem b = qrq_buffer_filled(env->queue, env->context, N, 0);
  cl_kernel put = qrq_kernel(program, "put");
  cl_command_queue q = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(q);
  const size_t n = N;
  qrq_arg_mem(put, 0, a);
  qrq_arg_int(put, 1, 11);
  assert_cl_success(clEnqueueNDRangeKernel(q, put, 1, NULL, &n, NULL, 0, NULL, NULL));
  qrq_arg_mem(put, 0, b);
  qrq_arg_int(put, 1, 22);
  assert_cl_success(clEnqueueNDRangeKernel(q, put, 1, NULL, &n, NULL, 0, NULL, NULL));
  qrq_arg_mem(put, 0, a);
  qrq_arg_int(put, 1, 33); /* after the last dispatch: never recorded */

  /* A local-memory argument keeps its recorded size. */
  cl_int host[N];
  qrq_random_ints(5, host, N, 1000);
  cl_mem in = qrq_buffer(env->context, sizeof host);
  qrq_write(env->queue, in, sizeof host, host);
  cl_mem out = qrq_buffer_filled(env->queue, env->context, N / GROUP, -1);
  cl_kernel sum = qrq_kernel(program, "group_sum");
  kiln_test_group_sum_args(sum, in, out, GROUP);
  const size_t group = GROUP;
  assert_cl_success(clEnqueueNDRangeKernel(q, sum, 1, NULL, &n, &group, 0, NULL, NULL));
  assert_cl_success(clSetKernelArg(sum, 2, 1, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_arg_int(put, 1, 44);
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(sum));

  for (int round = 0; round < 2; round++) {
    qrq_fill(env->queue, a, N, 0);
    qrq_fill(env->queue, b, N, 0);
    qrq_replay(env->queue, r);
    qrq_expect_all(env->queue, a, N, 11, "first dispatch's buffer");
    qrq_expect_all(env->queue, b, N, 22, "second dispatch's buffer");
    kiln_test_expect_group_sums(env->queue, out, host, N, GROUP, "group sums (the recorded local-memory size)");
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      QRQ_TEST(test_header_types),
      QRQ_TEST(test_extension_advertised),
      QRQ_TEST(test_device_max_size),
      QRQ_TEST(test_function_addresses),
      QRQ_TEST(test_create_queue_legacy),
      QRQ_TEST(test_create_queue_with_properties),
      QRQ_TEST(test_new_recording_errors),
      QRQ_TEST(test_one_active_recording_per_queue),
      QRQ_TEST(test_end_recording),
      QRQ_TEST(test_retain_release),
      QRQ_TEST(test_recording_holds_queue),
      QRQ_TEST(test_two_queues_recording),
      QRQ_TEST(test_size_limit),
      QRQ_TEST(test_record_wait_list_and_event),
      QRQ_TEST(test_record_launch_errors),
      QRQ_TEST(test_record_printf_kernel),
      QRQ_TEST(test_record_enqueueing_kernel),
      QRQ_TEST(test_record_without_active_recording),
      QRQ_TEST(test_other_enqueues_refused),
      QRQ_TEST(test_arguments_captured_when_recorded),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
