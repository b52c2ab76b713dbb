/* Released handles passed through the real ICD loader: the loader reads the handle's
 * dispatch pointer itself before Kiln sees the call, so this checks that a released
 * handle stays readable and that Kiln answers with the CL_INVALID_* code for it. */
#include "kiln_test.h"

static void test_released_context(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(context));
  cl_uint refs;
  assert_int_equal(CL_INVALID_CONTEXT, clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(CL_INVALID_CONTEXT, clRetainContext(context));
  assert_int_equal(CL_INVALID_CONTEXT, clReleaseContext(context));
  clCreateCommandQueueWithProperties(context, device, NULL, &err);
  assert_int_equal(CL_INVALID_CONTEXT, err);
  clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_int_equal(CL_INVALID_CONTEXT, err);
  clCreateUserEvent(context, &err);
  assert_int_equal(CL_INVALID_CONTEXT, err);
}

static void test_released_queue_buffer_event(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  assert_cl_success(err);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, NULL, &err);
  assert_cl_success(err);
  cl_event marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker));
  assert_cl_success(clFinish(queue));

  assert_cl_success(clReleaseEvent(marker));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseCommandQueue(queue));

  char host[256];
  assert_int_equal(CL_INVALID_EVENT, clWaitForEvents(1, &marker));
  assert_int_equal(CL_INVALID_EVENT, clRetainEvent(marker));
  cl_int status;
  assert_int_equal(CL_INVALID_EVENT,
                   clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  size_t size;
  assert_int_equal(CL_INVALID_MEM_OBJECT, clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL));
  assert_int_equal(CL_INVALID_MEM_OBJECT, clReleaseMemObject(buffer));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish(queue));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, 256, host, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(queue));

  /* A live queue with the released buffer and the released event in its wait list. */
  cl_command_queue live = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(live, buffer, CL_TRUE, 0, 256, host, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(live, 1, &marker, NULL));
  assert_cl_success(clReleaseCommandQueue(live));
  assert_cl_success(clReleaseContext(context));
}

/* Many create/release cycles reuse handle memory; a stale handle must never be taken for
 * a live object of another type. */
static void test_stale_handles_after_reuse(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event stale = clCreateUserEvent(context, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseEvent(stale));
  for (int i = 0; i < 100; i++) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &err);
    assert_cl_success(err);
    assert_int_equal(CL_INVALID_MEM_OBJECT, clReleaseMemObject((cl_mem)stale));
    assert_cl_success(clReleaseMemObject(m));
  }
  assert_cl_success(clReleaseContext(context));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_released_context),
      cmocka_unit_test(test_released_queue_buffer_event),
      cmocka_unit_test(test_stale_handles_after_reuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
