/* Command-queue entry points: creation (both APIs), properties, info, retain/release,
 * the deprecated and device-queue entry points, flush and finish. */
#include "kiln_test.h"

#include <string.h>
#include <time.h>

static void test_create_with_properties_null(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  assert_non_null(q);
  cl_command_queue_properties props = 99;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
  assert_int_equal(0, props);
  size_t size = 99;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
  assert_int_equal(0, size);
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_create_with_properties_array_returned_as_given(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_properties given[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, given, &err);
  assert_cl_success(err);
  cl_queue_properties back[8] = {0};
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &size));
  assert_int_equal(sizeof given, size);
  assert_memory_equal(given, back, sizeof given);
  cl_command_queue_properties props = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
  assert_int_equal(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, props);
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_create_legacy(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
  assert_cl_success(err);
  cl_command_queue_properties props = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
  assert_int_equal(CL_QUEUE_PROFILING_ENABLE, props);
  size_t size = 99;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
  assert_int_equal(0, size);
  assert_cl_success(clReleaseCommandQueue(q));
}

static void expect_create_error(struct kiln_test_env *env, const cl_queue_properties *props, cl_int expected) {
  cl_int err = CL_SUCCESS;
  assert_null(clCreateCommandQueueWithProperties(env->context, env->device, props, &err));
  assert_int_equal(expected, err);
}

static void test_create_bad_properties(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties unknown_name[] = {0x7fff1234, 1, 0};
  expect_create_error(env, unknown_name, CL_INVALID_VALUE);
  const cl_queue_properties unknown_bit[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)1 << 40, 0};
  expect_create_error(env, unknown_bit, CL_INVALID_VALUE);
  const cl_queue_properties duplicate[] = {CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PROPERTIES, 0, 0};
  expect_create_error(env, duplicate, CL_INVALID_VALUE);
  const cl_queue_properties on_device_in_order[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  expect_create_error(env, on_device_in_order, CL_INVALID_VALUE);
  const cl_queue_properties default_without_device[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  expect_create_error(env, default_without_device, CL_INVALID_VALUE);
  const cl_queue_properties size_on_host_queue[] = {CL_QUEUE_SIZE, 1024, 0};
  expect_create_error(env, size_on_host_queue, CL_INVALID_VALUE);

  cl_int err = CL_SUCCESS;
  assert_null(clCreateCommandQueue(env->context, env->device, (cl_command_queue_properties)1 << 40, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateCommandQueue(env->context, env->device,
                                   CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
}

static void test_create_bad_handles(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_SUCCESS;
  assert_null(clCreateCommandQueueWithProperties(NULL, env->device, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clCreateCommandQueueWithProperties(env->context, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_DEVICE, err);
  assert_null(clCreateCommandQueueWithProperties(env->context, (cl_device_id)env->context, NULL, &err));
  assert_int_equal(CL_INVALID_DEVICE, err);
  assert_null(clCreateCommandQueue(NULL, env->device, 0, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clCreateCommandQueue(env->context, NULL, 0, &err));
  assert_int_equal(CL_INVALID_DEVICE, err);
  /* A released context is no longer valid (kept alive by a queue so that the loader,
   * which reads the handle's dispatch table, does not touch freed memory). */
  cl_context gone = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue keeper = clCreateCommandQueueWithProperties(gone, env->device, NULL, &err);
  assert_cl_success(err);
  cl_event hold;
  assert_cl_success(clEnqueueMarkerWithWaitList(keeper, 0, NULL, &hold));
  assert_cl_success(clReleaseCommandQueue(keeper));
  assert_cl_success(clReleaseContext(gone));
  assert_null(clCreateCommandQueueWithProperties(gone, env->device, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_cl_success(clWaitForEvents(1, &hold));
  assert_cl_success(clReleaseEvent(hold));
  /* errcode_ret may be NULL. */
  assert_null(clCreateCommandQueueWithProperties(NULL, env->device, NULL, NULL));
}

static void test_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_context ctx = NULL;
  assert_cl_success(clGetCommandQueueInfo(env->queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL));
  assert_ptr_equal(env->context, ctx);
  cl_device_id dev = NULL;
  assert_cl_success(clGetCommandQueueInfo(env->queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL));
  assert_ptr_equal(env->device, dev);
  cl_command_queue dflt = env->queue;
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(env->queue, CL_QUEUE_DEVICE_DEFAULT, sizeof dflt, &dflt, &size));
  assert_int_equal(sizeof dflt, size);
  assert_null(dflt);
  cl_uint size_value;
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clGetCommandQueueInfo(env->queue, CL_QUEUE_SIZE, sizeof size_value, &size_value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetCommandQueueInfo(env->queue, CL_QUEUE_CONTEXT, 1, &ctx, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetCommandQueueInfo(env->queue, 0x7fff, sizeof ctx, &ctx, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo(NULL, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clGetCommandQueueInfo((cl_command_queue)env->context, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL));
}

static void test_retain_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  cl_uint refs = 0;
  assert_cl_success(clRetainCommandQueue(q));
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(2, refs);
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  /* Commands still pending keep the queue's memory alive after the last release. */
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &marker));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(q));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(q));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFlush(q));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish(q));
  cl_command_queue from_event = NULL;
  assert_cl_success(clGetEventInfo(marker, CL_EVENT_COMMAND_QUEUE, sizeof from_event, &from_event, NULL));
  assert_ptr_equal(q, from_event);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &marker));
  assert_cl_success(clReleaseEvent(marker));
  assert_cl_success(clReleaseEvent(gate));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(NULL));
}

static void test_deprecated_and_device_queue_entry_points(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue_properties old = 0;
  assert_int_equal(CL_INVALID_OPERATION,
                   clSetCommandQueueProperty(env->queue, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clSetCommandQueueProperty(NULL, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old));
  assert_int_equal(CL_INVALID_CONTEXT, clSetDefaultDeviceCommandQueue(NULL, env->device, env->queue));
  assert_int_equal(CL_INVALID_DEVICE, clSetDefaultDeviceCommandQueue(env->context, NULL, env->queue));
  /* A host queue is no device queue (test_device_enqueue covers device queues). */
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clSetDefaultDeviceCommandQueue(env->context, env->device, env->queue));
}

static void test_flush_finish(void **state) {
  struct kiln_test_env *env = *state;
  assert_cl_success(clFlush(env->queue));
  assert_cl_success(clFinish(env->queue)); /* empty queue */
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFlush(NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish(NULL));
  cl_event events[64];
  for (int i = 0; i < 64; i++) assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &events[i]));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < 64; i++) {
    cl_int status = 1;
    assert_cl_success(clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    assert_int_equal(CL_COMPLETE, status);
    assert_cl_success(clReleaseEvent(events[i]));
  }
}

static void test_finish_out_of_order_waits_for_gated_commands(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event gated, free_marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &gated));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gated, &free_marker));
  cl_int status;
  assert_cl_success(clGetEventInfo(free_marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(q));
  assert_cl_success(clGetEventInfo(free_marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_COMPLETE, status);
  assert_cl_success(clGetEventInfo(gated, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_COMPLETE, status);
  clReleaseEvent(gated);
  clReleaseEvent(free_marker);
  clReleaseEvent(gate);
  assert_cl_success(clReleaseCommandQueue(q));
}

/* A lone one-work-item kernel may wait for a flush before it starts; clFlush and the
 * implicit flush of clReleaseCommandQueue must start it. Its write to a USE_HOST_PTR
 * buffer (Kiln's buffer is the host memory) shows up without any further OpenCL call. */
static bool host_int_becomes(volatile cl_int *p, cl_int want) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    if (*p == want) return true;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec - start.tv_sec < 20);
  return false;
}

static void test_flush_starts_queued_work(void **state) {
  struct kiln_test_env *env = *state;
  const char *source = "kernel void mark(global volatile int *p, int v) { p[0] = v; }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 1, &env->device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "mark", &err);
  assert_cl_success(err);
  static volatile cl_int host_value;
  host_value = 0;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, sizeof(cl_int), (void *)&host_value, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  size_t one = 1;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  for (cl_int round = 1; round <= 50; round++) {
    assert_cl_success(clSetKernelArg(kernel, 1, sizeof round, &round));
    assert_cl_success(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    assert_cl_success(clFlush(q));
    if (!host_int_becomes(&host_value, round)) fail_msg("round %d: the kernel did not run after clFlush", round);
  }
  cl_int last = 99;
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof last, &last));
  assert_cl_success(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  assert_cl_success(clReleaseCommandQueue(q));
  if (!host_int_becomes(&host_value, last)) fail_msg("the kernel did not run after clReleaseCommandQueue");
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_with_properties_null),
      cmocka_unit_test(test_create_with_properties_array_returned_as_given),
      cmocka_unit_test(test_create_legacy),
      cmocka_unit_test(test_create_bad_properties),
      cmocka_unit_test(test_create_bad_handles),
      cmocka_unit_test(test_info),
      cmocka_unit_test(test_retain_release),
      cmocka_unit_test(test_deprecated_and_device_queue_entry_points),
      cmocka_unit_test(test_flush_finish),
      cmocka_unit_test(test_finish_out_of_order_waits_for_gated_commands),
      cmocka_unit_test(test_flush_starts_queued_work),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
