/* User events: creation, status rules, gating commands on several queues, failure propagation. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static cl_int status_of(cl_event e) {
  cl_int status = 99;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  return status;
}

static void test_create_and_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_INVALID_VALUE;
  cl_event u = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  assert_int_equal(CL_SUBMITTED, status_of(u));
  cl_command_queue q = env->queue;
  assert_cl_success(clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL));
  assert_null(q);
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(u, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_USER, type);
  cl_context c = NULL;
  assert_cl_success(clGetEventInfo(u, CL_EVENT_CONTEXT, sizeof c, &c, NULL));
  assert_ptr_equal(env->context, c);
  assert_null(clCreateUserEvent(NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clCreateUserEvent((cl_context)env->queue, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_cl_success(clSetUserEventStatus(u, CL_COMPLETE));
  assert_int_equal(CL_COMPLETE, status_of(u));
  assert_cl_success(clWaitForEvents(1, &u));
  assert_cl_success(clReleaseEvent(u));
}

static void test_set_status_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event u = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_VALUE, clSetUserEventStatus(u, CL_SUBMITTED));
  assert_int_equal(CL_INVALID_VALUE, clSetUserEventStatus(u, CL_RUNNING));
  assert_int_equal(CL_INVALID_VALUE, clSetUserEventStatus(u, 7));
  assert_int_equal(CL_SUBMITTED, status_of(u));
  assert_cl_success(clSetUserEventStatus(u, CL_COMPLETE));
  assert_int_equal(CL_INVALID_OPERATION, clSetUserEventStatus(u, CL_COMPLETE));
  assert_int_equal(CL_INVALID_OPERATION, clSetUserEventStatus(u, -1));
  cl_event marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &marker));
  assert_int_equal(CL_INVALID_EVENT, clSetUserEventStatus(marker, CL_COMPLETE));
  assert_int_equal(CL_INVALID_EVENT, clSetUserEventStatus(NULL, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &marker));
  assert_cl_success(clReleaseEvent(marker));
  assert_cl_success(clReleaseEvent(u));
}

static void test_gates_commands_on_two_queues(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue q2 = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  cl_event u = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event a, b, after_a;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &a));
  assert_cl_success(clEnqueueMarkerWithWaitList(q2, 1, &u, &b));
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &after_a)); /* in order after a */
  assert_true(status_of(a) > CL_COMPLETE);
  assert_true(status_of(b) > CL_COMPLETE);
  assert_true(status_of(after_a) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(u, CL_COMPLETE));
  cl_event all[3] = {a, b, after_a};
  assert_cl_success(clWaitForEvents(3, all));
  for (int i = 0; i < 3; i++) {
    assert_int_equal(CL_COMPLETE, status_of(all[i]));
    assert_cl_success(clReleaseEvent(all[i]));
  }
  assert_cl_success(clReleaseEvent(u));
  assert_cl_success(clReleaseCommandQueue(q2));
}

static void test_negative_status_propagates(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event u = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event first, second, unrelated;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &first));
  assert_cl_success(clEnqueueBarrierWithWaitList(env->queue, 1, &first, &second));
  assert_cl_success(clSetUserEventStatus(u, -1234));
  assert_int_equal(-1234, status_of(u));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &second));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, status_of(first));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, status_of(second));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &u));
  cl_event pair[2] = {u, first};
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(2, pair));
  /* Waiting on an already failed event fails the new command too. */
  cl_event late;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &u, &late));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &late));
  /* Only the wait list propagates failure: a later command without one runs normally. */
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &unrelated));
  assert_cl_success(clWaitForEvents(1, &unrelated));
  assert_int_equal(CL_COMPLETE, status_of(unrelated));
  cl_event evs[5] = {u, first, second, late, unrelated};
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseEvent(evs[i]));
}

/* Commands gated on a user event that another thread sets while this one sleeps in
 * clWaitForEvents, or waits for an event callback without calling OpenCL: the gated
 * work (a kernel and a copy, both run by worker threads) must start without any flush. */
static void *set_complete_later(void *arg) {
  usleep(50000);
  clSetUserEventStatus((cl_event)arg, CL_COMPLETE);
  return NULL;
}

static void CL_CALLBACK note_complete(cl_event e, cl_int status, void *data) {
  (void)e;
  atomic_store((atomic_int *)data, status == CL_COMPLETE ? 1 : -1);
}

static void test_set_by_another_thread_starts_gated_work(void **state) {
  struct kiln_test_env *env = *state;
  const char *source = "kernel void put(global int *p, int v) { p[0] = v; }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 1, &env->device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "put", &err);
  assert_cl_success(err);
  cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  cl_mem b = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof a, &a));
  size_t one = 1;
  for (int round = 0; round < 2; round++) {
    cl_int value = 17 + round;
    assert_cl_success(clSetKernelArg(kernel, 1, sizeof value, &value));
    cl_event gate = clCreateUserEvent(env->context, &err);
    assert_cl_success(err);
    cl_event done[2];
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 1, &gate, &done[0]));
    assert_cl_success(clEnqueueCopyBuffer(env->queue, a, b, 0, 0, sizeof(cl_int), 0, NULL, &done[1]));
    atomic_int called = 0;
    if (round == 1) assert_cl_success(clSetEventCallback(done[1], CL_COMPLETE, note_complete, &called));
    pthread_t setter;
    assert_int_equal(0, pthread_create(&setter, NULL, set_complete_later, gate));
    if (round == 0) {
      assert_cl_success(clWaitForEvents(2, done));
    } else {
      struct timespec start, now;
      clock_gettime(CLOCK_MONOTONIC, &start);
      do clock_gettime(CLOCK_MONOTONIC, &now);
      while (atomic_load(&called) == 0 && now.tv_sec - start.tv_sec < 20);
      assert_int_equal(1, atomic_load(&called));
    }
    assert_int_equal(0, pthread_join(setter, NULL));
    cl_int got = 0;
    assert_cl_success(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    assert_int_equal(value, got);
    assert_cl_success(clReleaseEvent(done[0]));
    assert_cl_success(clReleaseEvent(done[1]));
    assert_cl_success(clReleaseEvent(gate));
  }
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_and_info),
      cmocka_unit_test(test_set_status_errors),
      cmocka_unit_test(test_gates_commands_on_two_queues),
      cmocka_unit_test(test_negative_status_propagates),
      cmocka_unit_test(test_set_by_another_thread_starts_gated_work),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
