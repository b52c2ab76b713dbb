/* Stress: 8 host threads, each with its own queue (half in-order, half out-of-order),
 * enqueue 10 000 commands in all — writes, fills, copies, reads, markers, barriers —
 * chained by events, depending on markers published by the neighbouring thread's queue
 * and gated by user events. Every round's data is verified; everything is released. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 8, ENQUEUES_PER_THREAD = 1250, ELEMS = 4096, ENQUEUES_PER_ROUND = 8 };
enum { ROUNDS = ENQUEUES_PER_THREAD / ENQUEUES_PER_ROUND }; /* 156 rounds x 8 = 1248, + 2 final */

struct stress_shared {
  cl_context context;
  cl_device_id device;
  pthread_mutex_t lock;
  cl_event published[THREADS]; /* newest marker of each thread's queue, or NULL */
  pthread_barrier_t started;
  cl_event start_gate;         /* user event every thread's first command waits on */
};

struct stress_thread {
  struct stress_shared *shared;
  int index;
  int enqueues;
  int wrong_values;
  cl_int first_error;
};

static cl_uint pattern_value(int thread, int round, int i) {
  return (cl_uint)(thread * 1000003 + round * 7919 + i);
}

static void note(struct stress_thread *t, cl_int err) {
  if (err != CL_SUCCESS && t->first_error == CL_SUCCESS) t->first_error = err;
}

static cl_event take_neighbour_marker(struct stress_thread *t) {
  struct stress_shared *s = t->shared;
  pthread_mutex_lock(&s->lock);
  cl_event e = s->published[(t->index + 1) % THREADS];
  if (e) clRetainEvent(e);
  pthread_mutex_unlock(&s->lock);
  return e;
}

static void publish_marker(struct stress_thread *t, cl_event marker) {
  struct stress_shared *s = t->shared;
  clRetainEvent(marker);
  pthread_mutex_lock(&s->lock);
  cl_event old = s->published[t->index];
  s->published[t->index] = marker;
  pthread_mutex_unlock(&s->lock);
  if (old) clReleaseEvent(old);
}

static void *stress_thread_main(void *arg) {
  struct stress_thread *t = arg;
  struct stress_shared *s = t->shared;
  cl_int err;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 (t->index % 2) ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(s->context, s->device, props, &err);
  note(t, err);
  cl_mem a = clCreateBuffer(s->context, CL_MEM_READ_WRITE, ELEMS * sizeof(cl_uint), NULL, &err);
  note(t, err);
  cl_mem b = clCreateBuffer(s->context, CL_MEM_READ_WRITE, ELEMS * sizeof(cl_uint), NULL, &err);
  note(t, err);
  cl_uint *source = malloc(ELEMS * sizeof *source), *result = malloc(ELEMS * sizeof *result);

  /* The first command waits on the shared start gate, which the main thread opens only
   * after every thread has enqueued behind it. */
  cl_event gated;
  note(t, clEnqueueMarkerWithWaitList(q, 1, &s->start_gate, &gated));
  t->enqueues++;
  pthread_barrier_wait(&s->started);

  cl_event previous = gated;
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < ELEMS; i++) source[i] = pattern_value(t->index, round, i);
    cl_event written, filled, copied, user_gate = NULL, marker, neighbour = take_neighbour_marker(t);
    note(t, clEnqueueWriteBuffer(q, a, CL_FALSE, 0, ELEMS * sizeof(cl_uint), source, 1, &previous, &written));
    cl_uint zero = 0;
    note(t, clEnqueueFillBuffer(q, b, &zero, sizeof zero, 0, ELEMS * sizeof(cl_uint), 1, &previous, &filled));
    /* Every fourth round the copy is also held back by a user event set a few commands later. */
    if (round % 4 == 0) {
      user_gate = clCreateUserEvent(s->context, &err);
      note(t, err);
    }
    cl_event copy_waits[4] = {written, filled};
    cl_uint n_waits = 2;
    if (neighbour) copy_waits[n_waits++] = neighbour;
    if (user_gate) copy_waits[n_waits++] = user_gate;
    note(t, clEnqueueCopyBuffer(q, a, b, 0, 0, ELEMS * sizeof(cl_uint), n_waits, copy_waits, &copied));
    note(t, clEnqueueMarkerWithWaitList(q, 1, &copied, &marker));
    publish_marker(t, marker);
    cl_event barrier;
    note(t, clEnqueueBarrierWithWaitList(q, 1, &marker, &barrier));
    if (user_gate) {
      cl_int status = 0;
      note(t, clGetEventInfo(copied, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
      if (status == CL_COMPLETE) t->wrong_values++; /* ran before its user event was set */
      note(t, clSetUserEventStatus(user_gate, CL_COMPLETE));
    }
    cl_event read;
    cl_bool blocking = round % 3 == 0;
    note(t, clEnqueueReadBuffer(q, b, blocking, 0, ELEMS * sizeof(cl_uint), result, 1, &barrier, &read));
    if (!blocking) note(t, clWaitForEvents(1, &read));
    for (int i = 0; i < ELEMS; i++) t->wrong_values += result[i] != pattern_value(t->index, round, i);
    note(t, clEnqueueMarkerWithWaitList(q, 0, NULL, NULL)); /* waits for everything before it */
    note(t, clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
    t->enqueues += ENQUEUES_PER_ROUND;

    clReleaseEvent(previous);
    previous = read;
    cl_event done[] = {written, filled, copied, marker, barrier};
    for (size_t i = 0; i < sizeof done / sizeof *done; i++) clReleaseEvent(done[i]);
    if (user_gate) clReleaseEvent(user_gate);
    if (neighbour) clReleaseEvent(neighbour);
  }
  note(t, clEnqueueBarrierWithWaitList(q, 1, &previous, NULL));
  note(t, clFlush(q));
  t->enqueues += 1;
  note(t, clFinish(q));
  clReleaseEvent(previous);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseCommandQueue(q);
  free(source);
  free(result);
  return NULL;
}

static void CL_CALLBACK context_destroyed(cl_context context, void *user_data) {
  (void)context;
  atomic_store((atomic_int *)user_data, 1);
}

static void test_stress_eight_threads(void **state) {
  (void)state;
  struct stress_shared shared = {0};
  cl_int err;
  shared.device = kiln_test_device();
  shared.context = clCreateContext(NULL, 1, &shared.device, NULL, NULL, &err);
  assert_cl_success(err);
  shared.start_gate = clCreateUserEvent(shared.context, &err);
  assert_cl_success(err);
  pthread_mutex_init(&shared.lock, NULL);
  pthread_barrier_init(&shared.started, NULL, THREADS + 1);

  pthread_t threads[THREADS];
  struct stress_thread work[THREADS];
  for (int i = 0; i < THREADS; i++) {
    work[i] = (struct stress_thread){.shared = &shared, .index = i, .first_error = CL_SUCCESS};
    assert_int_equal(0, pthread_create(&threads[i], NULL, stress_thread_main, &work[i]));
  }
  pthread_barrier_wait(&shared.started);
  assert_cl_success(clSetUserEventStatus(shared.start_gate, CL_COMPLETE));
  int total = 0;
  for (int i = 0; i < THREADS; i++) {
    assert_int_equal(0, pthread_join(threads[i], NULL));
    assert_int_equal(CL_SUCCESS, work[i].first_error);
    assert_int_equal(0, work[i].wrong_values);
    total += work[i].enqueues;
  }
  assert_int_equal(THREADS * ENQUEUES_PER_THREAD, total);

  for (int i = 0; i < THREADS; i++)
    if (shared.published[i]) assert_cl_success(clReleaseEvent(shared.published[i]));
  assert_cl_success(clReleaseEvent(shared.start_gate));
  cl_uint refs = 0;
  assert_cl_success(clGetContextInfo(shared.context, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  /* The context is destroyed only once every queue, buffer and event made in it is gone,
   * so its destructor callback firing shows that the run released everything. */
  atomic_int destroyed = 0;
  assert_cl_success(clSetContextDestructorCallback(shared.context, context_destroyed, &destroyed));
  assert_cl_success(clReleaseContext(shared.context));
  for (int waited_ms = 0; !atomic_load(&destroyed) && waited_ms < 5000; waited_ms++) usleep(1000);
  assert_int_equal(1, atomic_load(&destroyed));
  pthread_barrier_destroy(&shared.started);
  pthread_mutex_destroy(&shared.lock);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_stress_eight_threads)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
