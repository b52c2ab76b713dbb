/* Event entry points: info, retain/release, clWaitForEvents, profiling, callbacks. */
#include "kiln_test.h"

#include <pthread.h>
#include <sched.h>

static cl_int status_of(cl_event e) {
  cl_int status = 99;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  return status;
}

static void test_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_event e;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &e));
  assert_cl_success(clWaitForEvents(1, &e));
  cl_command_queue q = NULL;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL));
  assert_ptr_equal(env->queue, q);
  cl_context c = NULL;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_CONTEXT, sizeof c, &c, NULL));
  assert_ptr_equal(env->context, c);
  cl_command_type type = 0;
  size_t size = 0;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, &size));
  assert_int_equal(CL_COMMAND_MARKER, type);
  assert_int_equal(sizeof type, size);
  assert_int_equal(CL_COMPLETE, status_of(e));
  cl_uint refs = 0;
  assert_cl_success(clRetainEvent(e));
  assert_cl_success(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(2, refs);
  assert_cl_success(clReleaseEvent(e));
  assert_cl_success(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  assert_int_equal(CL_INVALID_VALUE, clGetEventInfo(e, CL_EVENT_CONTEXT, 1, &c, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetEventInfo(e, 0x7fff, sizeof c, &c, NULL));
  assert_int_equal(CL_INVALID_EVENT, clGetEventInfo(NULL, CL_EVENT_CONTEXT, sizeof c, &c, NULL));
  assert_int_equal(CL_INVALID_EVENT,
                   clGetEventInfo((cl_event)env->queue, CL_EVENT_CONTEXT, sizeof c, &c, NULL));
  assert_cl_success(clReleaseEvent(e));
  assert_int_equal(CL_INVALID_EVENT, clRetainEvent(NULL));
  assert_int_equal(CL_INVALID_EVENT, clReleaseEvent(NULL));
}

static void test_wait_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_event e;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &e));
  assert_int_equal(CL_INVALID_VALUE, clWaitForEvents(0, &e));
  assert_int_equal(CL_INVALID_VALUE, clWaitForEvents(1, NULL));
  cl_event with_null[2] = {e, NULL};
  assert_int_equal(CL_INVALID_EVENT, clWaitForEvents(2, with_null));
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event foreign = clCreateUserEvent(other, &err);
  assert_cl_success(err);
  cl_event mixed[2] = {e, foreign};
  assert_int_equal(CL_INVALID_CONTEXT, clWaitForEvents(2, mixed));
  assert_cl_success(clSetUserEventStatus(foreign, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseContext(other));
  /* A released event whose memory a retained copy keeps alive is invalid for the API. */
  cl_event alias = e;
  assert_cl_success(clWaitForEvents(1, &alias));
  assert_cl_success(clReleaseEvent(e));
}

static void test_released_event_is_invalid(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &marker));
  /* The pending marker keeps the command alive internally; the handle is gone for the API. */
  assert_cl_success(clReleaseEvent(marker));
  assert_int_equal(CL_INVALID_EVENT, clRetainEvent(marker));
  assert_int_equal(CL_INVALID_EVENT, clWaitForEvents(1, &marker));
  cl_int status;
  assert_int_equal(CL_INVALID_EVENT,
                   clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseEvent(gate));
}

static void test_profiling(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event e;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &e));
  cl_ulong t[5];
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, sizeof t[0], &t[0], NULL));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &e));
  const cl_profiling_info names[5] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END,
                                      CL_PROFILING_COMMAND_COMPLETE};
  for (int i = 0; i < 5; i++) {
    size_t size = 0;
    assert_cl_success(clGetEventProfilingInfo(e, names[i], sizeof t[i], &t[i], &size));
    assert_int_equal(sizeof(cl_ulong), size);
    assert_true(t[i] != 0);
    if (i) assert_true(t[i - 1] <= t[i]);
  }
  assert_int_equal(CL_INVALID_VALUE, clGetEventProfilingInfo(e, 0x7fff, sizeof t[0], &t[0], NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 4, &t[0], NULL));
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(gate, CL_PROFILING_COMMAND_END, sizeof t[0], &t[0], NULL));
  assert_int_equal(CL_INVALID_EVENT, clGetEventProfilingInfo(NULL, CL_PROFILING_COMMAND_END, sizeof t[0], &t[0], NULL));
  assert_cl_success(clReleaseEvent(e));
  /* Without CL_QUEUE_PROFILING_ENABLE. */
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &e));
  assert_cl_success(clWaitForEvents(1, &e));
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t[0], &t[0], NULL));
  assert_cl_success(clReleaseEvent(e));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(q));
}

#define MAX_CALLS 16
struct callback_log {
  pthread_mutex_t lock;
  int count;
  cl_int statuses[MAX_CALLS];
  cl_event events[MAX_CALLS];
  pthread_t threads[MAX_CALLS];
};

static void CL_CALLBACK log_callback(cl_event e, cl_int status, void *user_data) {
  struct callback_log *log = user_data;
  pthread_mutex_lock(&log->lock);
  if (log->count < MAX_CALLS) {
    log->statuses[log->count] = status;
    log->events[log->count] = e;
    log->threads[log->count] = pthread_self();
    log->count++;
  }
  pthread_mutex_unlock(&log->lock);
}

static void wait_for_calls(struct callback_log *log, int n) {
  for (long spins = 0; spins < 20000000; spins++) {
    pthread_mutex_lock(&log->lock);
    int count = log->count;
    pthread_mutex_unlock(&log->lock);
    if (count >= n) return;
    sched_yield();
  }
  fail_msg("callbacks did not arrive");
}

static void test_callbacks(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event e;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &e));
  struct callback_log log = {.lock = PTHREAD_MUTEX_INITIALIZER};
  assert_cl_success(clSetEventCallback(e, CL_COMPLETE, log_callback, &log));
  assert_cl_success(clSetEventCallback(e, CL_RUNNING, log_callback, &log));
  assert_cl_success(clSetEventCallback(e, CL_SUBMITTED, log_callback, &log)); /* reached already */
  wait_for_calls(&log, 1);
  assert_int_equal(CL_SUBMITTED, log.statuses[0]);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &e));
  wait_for_calls(&log, 3);
  assert_int_equal(CL_RUNNING, log.statuses[1]);
  assert_int_equal(CL_COMPLETE, log.statuses[2]);
  for (int i = 0; i < 3; i++) {
    assert_ptr_equal(e, log.events[i]);
    assert_false(pthread_equal(pthread_self(), log.threads[i]));
  }
  /* Registered after completion: still called, on the callback thread. */
  assert_cl_success(clSetEventCallback(e, CL_COMPLETE, log_callback, &log));
  wait_for_calls(&log, 4);
  assert_int_equal(CL_COMPLETE, log.statuses[3]);
  assert_false(pthread_equal(pthread_self(), log.threads[3]));

  assert_int_equal(CL_INVALID_VALUE, clSetEventCallback(e, CL_COMPLETE, NULL, &log));
  assert_int_equal(CL_INVALID_VALUE, clSetEventCallback(e, CL_QUEUED, log_callback, &log));
  assert_int_equal(CL_INVALID_VALUE, clSetEventCallback(e, -5, log_callback, &log));
  assert_int_equal(CL_INVALID_EVENT, clSetEventCallback(NULL, CL_COMPLETE, log_callback, &log));
  assert_cl_success(clReleaseEvent(e));
  assert_cl_success(clReleaseEvent(gate));
}

static void test_callback_negative_status(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event e;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &e));
  struct callback_log log = {.lock = PTHREAD_MUTEX_INITIALIZER};
  assert_cl_success(clSetEventCallback(e, CL_COMPLETE, log_callback, &log));
  assert_cl_success(clSetEventCallback(gate, CL_COMPLETE, log_callback, &log));
  assert_cl_success(clSetUserEventStatus(gate, -42));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &e));
  wait_for_calls(&log, 2);
  for (int i = 0; i < 2; i++) {
    if (log.events[i] == gate) assert_int_equal(-42, log.statuses[i]);
    else assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, log.statuses[i]);
  }
  assert_true(log.events[0] != log.events[1]);
  assert_cl_success(clReleaseEvent(e));
  assert_cl_success(clReleaseEvent(gate));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_info),
      cmocka_unit_test(test_wait_errors),
      cmocka_unit_test(test_released_event_is_invalid),
      cmocka_unit_test(test_profiling),
      cmocka_unit_test(test_callbacks),
      cmocka_unit_test(test_callback_negative_status),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
