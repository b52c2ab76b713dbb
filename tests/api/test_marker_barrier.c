/* Markers, barriers and clEnqueueWaitForEvents: ordering on in-order and out-of-order
 * queues, cross-queue dependencies and wait-list validation. */
#include "kiln_test.h"

#include <pthread.h>
#include <unistd.h>

static cl_int status_of(cl_event e) {
  cl_int status = 99;
  assert_cl_success(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  return status;
}

/* Waits for `e` by polling, failing instead of hanging when it does not complete in time. */
static void assert_completes(cl_event e) {
  for (int i = 0; i < 5000 && status_of(e) > CL_COMPLETE; i++) usleep(1000);
  if (status_of(e) != CL_COMPLETE) fail_msg("event did not complete within 5 s (status %d)", status_of(e));
}

static cl_event user_event(struct kiln_test_env *env) {
  cl_int err;
  cl_event u = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  return u;
}

static cl_command_queue out_of_order_queue(struct kiln_test_env *env) {
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  return q;
}

static void test_types_and_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_event m, b, m11;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &m));
  assert_cl_success(clEnqueueBarrierWithWaitList(env->queue, 0, NULL, &b));
  assert_cl_success(clEnqueueMarker(env->queue, &m11));
  assert_cl_success(clEnqueueBarrier(env->queue));
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, NULL));
  assert_cl_success(clEnqueueBarrierWithWaitList(env->queue, 0, NULL, NULL));
  cl_command_type type;
  assert_cl_success(clGetEventInfo(m, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_MARKER, type);
  assert_cl_success(clGetEventInfo(m11, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_MARKER, type);
  assert_cl_success(clGetEventInfo(b, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_BARRIER, type);

  assert_int_equal(CL_INVALID_VALUE, clEnqueueMarker(env->queue, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueMarker(NULL, &m11));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrier(NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrierWithWaitList(NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueWaitForEvents(NULL, 1, &m));
  /* Count / list mismatch and invalid events. */
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(env->queue, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(env->queue, 0, &m, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueBarrierWithWaitList(env->queue, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueBarrierWithWaitList(env->queue, 0, &m, NULL));
  cl_event bad[2] = {m, (cl_event)env->queue};
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(env->queue, 2, bad, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueBarrierWithWaitList(env->queue, 2, bad, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueWaitForEvents(env->queue, 0, &m));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueWaitForEvents(env->queue, 1, NULL));
  assert_int_equal(CL_INVALID_EVENT, clEnqueueWaitForEvents(env->queue, 2, bad));
  /* An event of another context. */
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event foreign = clCreateUserEvent(other, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueMarkerWithWaitList(env->queue, 1, &foreign, NULL));
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueBarrierWithWaitList(env->queue, 1, &foreign, NULL));
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueWaitForEvents(env->queue, 1, &foreign));
  assert_cl_success(clSetUserEventStatus(foreign, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseContext(other));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseEvent(m));
  assert_cl_success(clReleaseEvent(b));
  assert_cl_success(clReleaseEvent(m11));
}

static void test_in_order_chain(void **state) {
  struct kiln_test_env *env = *state;
  cl_event gate = user_event(env);
  cl_event e[100];
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &e[0]));
  for (int i = 1; i < 100; i++) assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &e[i]));
  for (int i = 0; i < 100; i++) assert_true(status_of(e[i]) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &e[99]));
  for (int i = 0; i < 100; i++) {
    assert_int_equal(CL_COMPLETE, status_of(e[i]));
    assert_cl_success(clReleaseEvent(e[i]));
  }
  assert_cl_success(clReleaseEvent(gate));
}

static void test_out_of_order_with_barrier(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = out_of_order_queue(env);
  cl_event gate = user_event(env);
  cl_event gated, free_marker, barrier, after_barrier;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &gated));
  /* Out of order, a marker with its own wait list does not wait for earlier commands. */
  cl_event done_gate = user_event(env);
  assert_cl_success(clSetUserEventStatus(done_gate, CL_COMPLETE));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &done_gate, &free_marker));
  assert_cl_success(clWaitForEvents(1, &free_marker));
  assert_true(status_of(gated) > CL_COMPLETE);
  /* A barrier waits for everything before it, and everything after waits for the barrier. */
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, &barrier));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &done_gate, &after_barrier));
  assert_true(status_of(barrier) > CL_COMPLETE);
  assert_true(status_of(after_barrier) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &after_barrier));
  assert_int_equal(CL_COMPLETE, status_of(gated));
  assert_int_equal(CL_COMPLETE, status_of(barrier));
  cl_event evs[6] = {gate, gated, free_marker, barrier, after_barrier, done_gate};
  for (int i = 0; i < 6; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* clEnqueueBarrierWithWaitList: "The barrier command either waits for a list of events to
 * complete, or if the list is empty it waits for all commands previously enqueued". With a
 * list, an unrelated earlier command that is still gated must not hold the barrier (or the
 * commands after it) back; clEnqueueWaitForEvents behaves the same. */
static void test_out_of_order_barrier_with_wait_list_waits_for_list_only(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = out_of_order_queue(env);
  cl_event g1 = user_event(env), g2 = user_event(env), g3 = user_event(env);
  cl_event a, unrelated, barrier, after_barrier, after_wait;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g1, &a));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g2, &unrelated));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 1, &a, &barrier));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g3, &after_barrier));
  assert_cl_success(clSetUserEventStatus(g3, CL_COMPLETE));
  /* Later commands still wait for the barrier, which waits for `a`. */
  assert_true(status_of(barrier) > CL_COMPLETE);
  assert_true(status_of(after_barrier) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(g1, CL_COMPLETE));
  assert_completes(after_barrier);
  assert_int_equal(CL_COMPLETE, status_of(barrier));
  assert_true(status_of(unrelated) > CL_COMPLETE);
  /* clEnqueueWaitForEvents on a list: later commands wait for the list only. */
  assert_cl_success(clEnqueueWaitForEvents(q, 1, &a));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g3, &after_wait));
  assert_completes(after_wait);
  assert_true(status_of(unrelated) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(g2, CL_COMPLETE));
  assert_cl_success(clFinish(q));
  assert_int_equal(CL_COMPLETE, status_of(unrelated));
  cl_event evs[8] = {g1, g2, g3, a, unrelated, barrier, after_barrier, after_wait};
  for (int i = 0; i < 8; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* A barrier with a list still follows an earlier barrier without one. */
static void test_out_of_order_barrier_with_wait_list_after_barrier(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = out_of_order_queue(env);
  cl_event gate = user_event(env), done = user_event(env);
  assert_cl_success(clSetUserEventStatus(done, CL_COMPLETE));
  cl_event gated, first, second;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &gated));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, &first));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 1, &done, &second));
  assert_true(status_of(second) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &second));
  assert_int_equal(CL_COMPLETE, status_of(first));
  cl_event evs[5] = {gate, done, gated, first, second};
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_out_of_order_marker_without_wait_list_waits_for_all(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = out_of_order_queue(env);
  cl_event g1 = user_event(env), g2 = user_event(env);
  cl_event a, b, marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g1, &a));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &g2, &b));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker));
  assert_cl_success(clSetUserEventStatus(g2, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &b));
  assert_true(status_of(marker) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(g1, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &marker));
  assert_int_equal(CL_COMPLETE, status_of(a));
  cl_event evs[5] = {g1, g2, a, b, marker};
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_cross_queue_and_wait_for_events(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue q2 = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  cl_event gate = user_event(env);
  cl_event on_q1, after_wait;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &on_q1));
  /* q2 waits for q1's marker, then a marker on q2 must follow it. */
  assert_cl_success(clEnqueueWaitForEvents(q2, 1, &on_q1));
  assert_cl_success(clEnqueueMarkerWithWaitList(q2, 0, NULL, &after_wait));
  assert_true(status_of(after_wait) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(q2));
  assert_int_equal(CL_COMPLETE, status_of(on_q1));
  assert_int_equal(CL_COMPLETE, status_of(after_wait));
  assert_cl_success(clReleaseEvent(on_q1));
  assert_cl_success(clReleaseEvent(after_wait));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(q2));
}

static void test_legacy_barrier_orders_out_of_order_queue(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = out_of_order_queue(env);
  cl_event gate = user_event(env);
  cl_event gated, later;
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &gate, &gated));
  assert_cl_success(clEnqueueBarrier(q));
  cl_event done = user_event(env);
  assert_cl_success(clSetUserEventStatus(done, CL_COMPLETE));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 1, &done, &later));
  assert_true(status_of(later) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &later));
  cl_event evs[4] = {gate, gated, later, done};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clReleaseCommandQueue(q));
}

#define ENQUEUERS 4
#define PER_THREAD 300

struct enqueuer_args {
  cl_command_queue queue;
  cl_event gate;
  cl_event events[PER_THREAD];
};

static void *enqueuer(void *arg) {
  struct enqueuer_args *a = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    if (i % 3 == 0) clEnqueueMarkerWithWaitList(a->queue, 1, &a->gate, &a->events[i]);
    else if (i % 3 == 1) clEnqueueBarrierWithWaitList(a->queue, 0, NULL, &a->events[i]);
    else clEnqueueMarkerWithWaitList(a->queue, 0, NULL, &a->events[i]);
  }
  return NULL;
}

/* Several threads enqueue on one queue while a user event gates part of the work. */
static void test_concurrent_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue queues[2] = {env->queue, out_of_order_queue(env)};
  for (int qi = 0; qi < 2; qi++) {
    cl_event gate = user_event(env);
    struct enqueuer_args args[ENQUEUERS];
    pthread_t threads[ENQUEUERS];
    for (int t = 0; t < ENQUEUERS; t++) {
      args[t].queue = queues[qi];
      args[t].gate = gate;
      assert_int_equal(0, pthread_create(&threads[t], NULL, enqueuer, &args[t]));
    }
    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    for (int t = 0; t < ENQUEUERS; t++) assert_int_equal(0, pthread_join(threads[t], NULL));
    assert_cl_success(clFinish(queues[qi]));
    for (int t = 0; t < ENQUEUERS; t++)
      for (int i = 0; i < PER_THREAD; i++) {
        assert_int_equal(CL_COMPLETE, status_of(args[t].events[i]));
        assert_cl_success(clReleaseEvent(args[t].events[i]));
      }
    assert_cl_success(clReleaseEvent(gate));
  }
  assert_cl_success(clReleaseCommandQueue(queues[1]));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types_and_errors),
      cmocka_unit_test(test_in_order_chain),
      cmocka_unit_test(test_out_of_order_with_barrier),
      cmocka_unit_test(test_out_of_order_marker_without_wait_list_waits_for_all),
      cmocka_unit_test(test_out_of_order_barrier_with_wait_list_waits_for_list_only),
      cmocka_unit_test(test_out_of_order_barrier_with_wait_list_after_barrier),
      cmocka_unit_test(test_cross_queue_and_wait_for_events),
      cmocka_unit_test(test_legacy_barrier_orders_out_of_order_queue),
      cmocka_unit_test(test_concurrent_enqueue),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
