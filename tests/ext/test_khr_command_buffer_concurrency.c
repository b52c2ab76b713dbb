/* cl_khr_command_buffer 0.9.7, more than one thing at a time: simultaneous use (several
 * pending executions of one command buffer, gated and free-running), queue substitution
 * (in-order, out-of-order, profiling substitutes), releasing a command buffer and
 * everything it uses while executions are pending, and threads recording into one
 * command buffer, racing finalize, and enqueueing one command buffer. Worker threads
 * only collect results; the checks run on the test's thread. */
#include "khr_command_buffer_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

static const char *source = KILN_TEST_COUNT_SOURCE KILN_TEST_GROUP_SUM_SOURCE KILN_TEST_SCALE_SOURCE;

#define COUNT_ITEMS 64 /* work-items of a `count` launch: each adds one */

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, kcb_setup, &program, source, NULL); }

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* A command buffer that adds COUNT_ITEMS to `counter` and writes out = in * mul + add
 * (n elements) with a kernel of its own. */
struct counting {
  cl_command_buffer_khr cb;
  cl_mem counter, in, out;
};

static struct counting counting_create(struct kiln_test_env *env, cl_command_queue queue,
                                       cl_command_buffer_flags_khr flags, size_t n, cl_int mul, cl_int add) {
  struct counting c;
  c.counter = kcb_buffer(env->context, sizeof(cl_int));
  c.in = kcb_buffer(env->context, n * sizeof(cl_int));
  c.out = kcb_buffer(env->context, n * sizeof(cl_int));
  const cl_int zero = 0;
  kcb_write(env->queue, c.counter, sizeof zero, &zero);
  cl_kernel count = kcb_kernel(program, "count"), scale = kcb_kernel(program, "scale");
  kcb_arg_mem(count, 0, c.counter);
  kiln_test_scale_args(scale, c.in, c.out, mul, add);
  c.cb = kcb_create(queue, flags);
  const size_t items = COUNT_ITEMS;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(c.cb, NULL, NULL, count, 1, NULL, &items, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(c.cb, NULL, NULL, scale, 1, NULL, &n, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(c.cb));
  assert_cl_success(clReleaseKernel(count));
  assert_cl_success(clReleaseKernel(scale));
  return c;
}

static void counting_release(struct counting *c) {
  assert_cl_success(kcb.clReleaseCommandBufferKHR(c->cb));
  assert_cl_success(clReleaseMemObject(c->counter));
  assert_cl_success(clReleaseMemObject(c->in));
  assert_cl_success(clReleaseMemObject(c->out));
}

static cl_int read_counter(cl_command_queue queue, cl_mem counter) { return kiln_test_read_int(queue, counter, 0); }

static void expect_scaled(cl_command_queue queue, cl_mem out, const cl_int *in, size_t n, cl_int mul, cl_int add) {
  kiln_test_expect_scaled(queue, out, in, n, mul, add, "scaled output");
}

/* `n` random ints in [-1000000, 1000000], written to `in` (the caller frees them). */
static cl_int *random_input(cl_command_queue queue, cl_mem in, size_t n, cl_uint seed) {
  cl_int *host = malloc(n * sizeof *host);
  kcb_random_ints(&seed, host, n, 2000001);
  kcb_write(queue, in, n * sizeof *host, host);
  return host;
}

/* ---- simultaneous use ---- */

/* Eight executions pending at once behind one user event, on the creation queue and on an
 * out-of-order substitute; all of them run once it is set. */
static void test_simultaneous_use_gated(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096, ON_DEFAULT = 5, ON_SUBSTITUTE = 3 };
  struct counting c = counting_create(env, env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, N, 3, -2);
  cl_int *host = random_input(env->queue, c.in, N, 11);
  cl_command_queue ooo = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_event gate = kcb_user_event(env->context);
  cl_event events[ON_DEFAULT + ON_SUBSTITUTE];
  for (int i = 0; i < ON_DEFAULT; i++)
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, c.cb, 1, &gate, &events[i]));
  for (int i = 0; i < ON_SUBSTITUTE; i++)
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &ooo, c.cb, 1, &gate, &events[ON_DEFAULT + i]));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(c.cb));
  assert_cl_success(clFlush(env->queue));
  assert_cl_success(clFlush(ooo));
  usleep(10000);
  for (int i = 0; i < ON_DEFAULT + ON_SUBSTITUTE; i++) assert_true(kcb_event_status(events[i]) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(ON_DEFAULT + ON_SUBSTITUTE, events));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clFinish(ooo));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(c.cb));
  assert_int_equal((ON_DEFAULT + ON_SUBSTITUTE) * COUNT_ITEMS, read_counter(env->queue, c.counter));
  expect_scaled(env->queue, c.out, host, N, 3, -2);
  for (int i = 0; i < ON_DEFAULT + ON_SUBSTITUTE; i++) {
    cl_command_queue q = NULL;
    assert_cl_success(clGetEventInfo(events[i], CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL));
    assert_ptr_equal(i < ON_DEFAULT ? env->queue : ooo, q);
    assert_int_equal(CL_COMPLETE, kcb_event_status(events[i]));
    assert_cl_success(clReleaseEvent(events[i]));
  }
  /* The pending state lasts while any execution is pending. */
  cl_event second_gate = kcb_user_event(env->context), late;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &ooo, c.cb, 0, NULL, NULL));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &ooo, c.cb, 1, &second_gate, &late));
  assert_cl_success(clFinish(env->queue));
  usleep(10000);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(c.cb));
  assert_cl_success(clSetUserEventStatus(second_gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &late));
  assert_cl_success(clFinish(ooo));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(c.cb));
  assert_int_equal((ON_DEFAULT + ON_SUBSTITUTE + 2) * COUNT_ITEMS, read_counter(env->queue, c.counter));
  assert_cl_success(clReleaseEvent(late));
  assert_cl_success(clReleaseEvent(second_gate));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(ooo));
  counting_release(&c);
  free(host);
}

/* Executions of one command buffer running at the same time on several out-of-order
 * queues, each with a kernel large enough to be shared by the workers. */
static void test_simultaneous_use_concurrent(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 18, QUEUES = 4, ROUNDS = 4 };
  struct counting c = counting_create(env, env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, N, -7, 5);
  cl_int *host = random_input(env->queue, c.in, N, 23);
  cl_command_queue queues[QUEUES];
  for (int q = 0; q < QUEUES; q++)
    queues[q] = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  for (int round = 0; round < ROUNDS; round++)
    for (int q = 0; q < QUEUES; q++)
      assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &queues[q], c.cb, 0, NULL, NULL));
  for (int q = 0; q < QUEUES; q++) assert_cl_success(clFinish(queues[q]));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(c.cb));
  assert_int_equal(QUEUES * ROUNDS * COUNT_ITEMS, read_counter(env->queue, c.counter));
  expect_scaled(env->queue, c.out, host, N, -7, 5);
  for (int q = 0; q < QUEUES; q++) assert_cl_success(clReleaseCommandQueue(queues[q]));
  counting_release(&c);
  free(host);
}

/* Simultaneous executions of a kernel using local memory and work-group barriers: each
 * execution's work-groups have local memory of their own. Two command buffers also
 * write different results into their own outputs at the same time. */
static void test_simultaneous_local_memory(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 16, GROUP = 64, GROUPS = N / GROUP, QUEUES = 4, ROUNDS = 3 };
  const size_t global = N, local = GROUP;
  static cl_int host[2][N];
  cl_mem in[2], out[2];
  cl_command_buffer_khr cb[2];
  for (int b = 0; b < 2; b++) {
    cl_uint seed = 61 + (cl_uint)b;
    kcb_random_ints(&seed, host[b], N, 20001);
    in[b] = kcb_buffer(env->context, sizeof host[b]);
    kcb_write(env->queue, in[b], sizeof host[b], host[b]);
    out[b] = kcb_buffer(env->context, GROUPS * sizeof(cl_int));
    cl_kernel k = kcb_kernel(program, "group_sum");
    kiln_test_group_sum_args(k, in[b], out[b], GROUP);
    cb[b] = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
    assert_cl_success(
        kcb.clCommandNDRangeKernelKHR(cb[b], NULL, NULL, k, 1, NULL, &global, &local, 0, NULL, NULL, NULL));
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb[b]));
    assert_cl_success(clReleaseKernel(k));
  }
  cl_command_queue queues[QUEUES];
  for (int q = 0; q < QUEUES; q++)
    queues[q] = kcb_queue(env->context, env->device, q % 2 ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
  cl_event gate = kcb_user_event(env->context);
  for (int round = 0; round < ROUNDS; round++)
    for (int q = 0; q < QUEUES; q++)
      assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &queues[q], cb[(round + q) % 2], 1, &gate, NULL));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  for (int q = 0; q < QUEUES; q++) assert_cl_success(clFinish(queues[q]));
  for (int b = 0; b < 2; b++) {
    kiln_test_expect_group_sums(env->queue, out[b], host[b], N, GROUP,
                                b ? "second command buffer" : "first command buffer");
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb[b]));
    assert_cl_success(clReleaseMemObject(in[b]));
    assert_cl_success(clReleaseMemObject(out[b]));
  }
  for (int q = 0; q < QUEUES; q++) assert_cl_success(clReleaseCommandQueue(queues[q]));
  assert_cl_success(clReleaseEvent(gate));
}

/* ---- queue substitution ---- */

static void test_queue_substitution(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 2048 };
  struct counting c = counting_create(env, env->queue, 0, N, 2, 1);
  cl_int *host = random_input(env->queue, c.in, N, 31);
  const cl_command_queue_properties variants[] = {0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE};
  int executions = 0;
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    cl_command_queue q = kcb_queue(env->context, env->device, variants[v]);
    /* The execution belongs to the substitute queue: a read enqueued behind it there
     * (ordered by the queue when in order, by its event otherwise) sees its result. */
    cl_int zeros[N] = {0}, got[N];
    kcb_write(env->queue, c.out, sizeof zeros, zeros);
    cl_event gate = kcb_user_event(env->context), ran, read;
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &q, c.cb, 1, &gate, &ran));
    bool in_order = !(variants[v] & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_cl_success(
        clEnqueueReadBuffer(q, c.out, CL_FALSE, 0, sizeof got, got, in_order ? 0 : 1, in_order ? NULL : &ran, &read));
    assert_true(kcb_event_status(read) > CL_COMPLETE);
    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    assert_cl_success(clWaitForEvents(1, &read));
    executions++;
    cl_int want[N];
    for (int i = 0; i < N; i++) want[i] = host[i] * 2 + 1;
    kcb_expect_ints(want, got, N, "substitute queue");
    cl_command_queue event_queue = NULL;
    assert_cl_success(clGetEventInfo(ran, CL_EVENT_COMMAND_QUEUE, sizeof event_queue, &event_queue, NULL));
    assert_ptr_equal(q, event_queue);
    cl_ulong start;
    cl_int profiled = clGetEventProfilingInfo(ran, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    assert_int_equal(variants[v] & CL_QUEUE_PROFILING_ENABLE ? CL_SUCCESS : CL_PROFILING_INFO_NOT_AVAILABLE, profiled);
    assert_cl_success(clReleaseEvent(gate));
    assert_cl_success(clReleaseEvent(ran));
    assert_cl_success(clReleaseEvent(read));
    /* The creation queue still works as the default afterwards. */
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, c.cb, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    executions++;
    /* The command buffer still names its creation queue. */
    cl_command_queue named = NULL;
    assert_cl_success(kcb.clGetCommandBufferInfoKHR(c.cb, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof named, &named, NULL));
    assert_ptr_equal(env->queue, named);
    assert_cl_success(clReleaseCommandQueue(q));
  }
  assert_int_equal(executions * COUNT_ITEMS, read_counter(env->queue, c.counter));

  /* Created on an out-of-order queue, run on an in-order one. */
  cl_command_queue ooo = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  struct counting d = counting_create(env, ooo, 0, N, -1, 0);
  cl_int *host_d = random_input(env->queue, d.in, N, 37);
  cl_command_queue in_order = kcb_queue(env->context, env->device, 0);
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &in_order, d.cb, 0, NULL, NULL));
  assert_cl_success(clFinish(in_order));
  expect_scaled(env->queue, d.out, host_d, N, -1, 0);
  assert_int_equal(COUNT_ITEMS, read_counter(env->queue, d.counter));
  assert_cl_success(clReleaseCommandQueue(in_order));
  assert_cl_success(clReleaseCommandQueue(ooo));
  counting_release(&d);
  counting_release(&c);
  free(host);
  free(host_d);
}

/* ---- release while pending ---- */

/* The application releases the command buffer, its kernel, program and buffers (all but
 * the output) while executions wait for a user event; they still run, correctly, and
 * everything is freed afterwards (the suite's leak check at exit). */
static void test_release_while_pending(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 8192, PENDING = 3 };
  for (int simultaneous = 0; simultaneous < 2; simultaneous++) {
    cl_program own = kcb_program(env->context, env->device, source, NULL);
    cl_kernel scale = kcb_kernel(own, "scale");
    cl_mem in = kcb_buffer(env->context, N * sizeof(cl_int)), mid = kcb_buffer(env->context, N * sizeof(cl_int));
    cl_mem out = kcb_buffer(env->context, N * sizeof(cl_int));
    cl_int *host = random_input(env->queue, in, N, 41 + simultaneous);
    cl_command_queue substitute = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    kiln_test_scale_args(scale, in, mid, 5, -3);
    cl_command_buffer_khr cb = kcb_create(env->queue, simultaneous ? CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR : 0);
    const size_t global = N;
    cl_sync_point_khr s;
    assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 0, NULL, &s, NULL));
    assert_cl_success(
        kcb.clCommandCopyBufferKHR(cb, NULL, NULL, mid, out, 0, 0, N * sizeof(cl_int), 1, &s, NULL, NULL));
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

    cl_event gate = kcb_user_event(env->context), done[PENDING];
    int executions = simultaneous ? PENDING : 1;
    /* Each execution after the previous one: they are pending together, but they write
     * the same buffers, so running them at once would be the test's own data race. */
    for (int i = 0; i < executions; i++) {
      cl_command_queue q = i == 1 ? substitute : env->queue;
      cl_event wait[2] = {gate, i ? done[i - 1] : NULL};
      assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &q, cb, i ? 2 : 1, wait, &done[i]));
    }
    assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
    assert_cl_success(kcb.clRetainCommandBufferKHR(cb));
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
    assert_cl_success(clReleaseKernel(scale));
    assert_cl_success(clReleaseProgram(own));
    assert_cl_success(clReleaseMemObject(in));
    assert_cl_success(clReleaseMemObject(mid));
    assert_cl_success(clReleaseCommandQueue(substitute));
    /* The handle is gone for the application even though executions are pending. */
    cl_command_buffer_state_khr st;
    assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                     kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof st, &st, NULL));
    assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    for (int i = 0; i < executions; i++) assert_true(kcb_event_status(done[i]) > CL_COMPLETE);

    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    assert_cl_success(clWaitForEvents(executions, done));
    assert_cl_success(clFinish(env->queue));
    expect_scaled(env->queue, out, host, N, 5, -3);
    for (int i = 0; i < executions; i++) {
      assert_int_equal(CL_COMPLETE, kcb_event_status(done[i]));
      assert_cl_success(clReleaseEvent(done[i]));
    }
    assert_cl_success(clReleaseEvent(gate));
    assert_cl_success(clReleaseMemObject(out));
    free(host);
  }
}

/* ---- threads ---- */

enum { RECORD_THREADS = 4, FILLS_PER_THREAD = 100, FILL_INTS = 4 };

struct recorder_args {
  cl_command_buffer_khr cb;
  cl_mem buffer;
  int index;
  cl_int first_error;
  int error_at;
  cl_sync_point_khr points[FILLS_PER_THREAD];
};

/* Fills of the thread's own ranges, each waiting for the thread's previous one. */
static void *record_fills(void *arg) {
  struct recorder_args *a = arg;
  a->first_error = CL_SUCCESS;
  for (int i = 0; i < FILLS_PER_THREAD; i++) {
    cl_int value = a->index * 1000 + i;
    size_t element = ((size_t)i * RECORD_THREADS + (size_t)a->index) * FILL_INTS;
    cl_int err = kcb.clCommandFillBufferKHR(a->cb, NULL, NULL, a->buffer, &value, sizeof value,
                                            element * sizeof(cl_int), FILL_INTS * sizeof(cl_int), i ? 1 : 0,
                                            i ? &a->points[i - 1] : NULL, &a->points[i], NULL);
    if (err != CL_SUCCESS) {
      a->first_error = err;
      a->error_at = i;
      return NULL;
    }
  }
  return NULL;
}

static void test_concurrent_recording(void **state) {
  struct kiln_test_env *env = *state;
  enum { TOTAL = RECORD_THREADS * FILLS_PER_THREAD * FILL_INTS };
  cl_mem buffer = kcb_buffer(env->context, TOTAL * sizeof(cl_int));
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  static struct recorder_args args[RECORD_THREADS];
  pthread_t threads[RECORD_THREADS];
  for (int t = 0; t < RECORD_THREADS; t++) {
    args[t] = (struct recorder_args){.cb = cb, .buffer = buffer, .index = t};
    assert_int_equal(0, pthread_create(&threads[t], NULL, record_fills, &args[t]));
  }
  for (int t = 0; t < RECORD_THREADS; t++) assert_int_equal(0, pthread_join(threads[t], NULL));
  for (int t = 0; t < RECORD_THREADS; t++)
    if (args[t].first_error != CL_SUCCESS) fail_msg("thread %d, fill %d: %d", t, args[t].error_at, args[t].first_error);
  /* Sync points: non-zero and unique across the threads. */
  static cl_sync_point_khr all[RECORD_THREADS * FILLS_PER_THREAD];
  size_t n = 0;
  for (int t = 0; t < RECORD_THREADS; t++)
    for (int i = 0; i < FILLS_PER_THREAD; i++) all[n++] = args[t].points[i];
  for (size_t i = 0; i < n; i++) {
    assert_int_not_equal(0, all[i]);
    for (size_t j = 0; j < i; j++)
      if (all[i] == all[j]) fail_msg("sync point %u returned twice", all[i]);
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  static cl_int got[TOTAL], zeros[TOTAL], want[TOTAL];
  for (int i = 0; i < FILLS_PER_THREAD; i++)
    for (int t = 0; t < RECORD_THREADS; t++)
      for (int k = 0; k < FILL_INTS; k++) want[(i * RECORD_THREADS + t) * FILL_INTS + k] = t * 1000 + i;
  for (int round = 0; round < 2; round++) {
    kcb_write(env->queue, buffer, sizeof zeros, zeros);
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, buffer, sizeof got, got);
    kcb_expect_ints(want, got, TOTAL, "fills recorded by several threads");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(buffer));
}

struct racer_args {
  cl_command_buffer_khr cb;
  cl_mem buffer;
  int index, limit;
  atomic_int *started;
  int recorded;
  cl_int stop_error;
};

/* Records fills of consecutive elements until the command buffer is finalized. */
static void *record_until_finalized(void *arg) {
  struct racer_args *a = arg;
  const cl_int one = 1;
  a->recorded = 0;
  a->stop_error = CL_SUCCESS;
  for (int i = 0; i < a->limit; i++) {
    cl_int err = kcb.clCommandFillBufferKHR(a->cb, NULL, NULL, a->buffer, &one, sizeof one,
                                            ((size_t)a->index * (size_t)a->limit + (size_t)i) * sizeof(cl_int),
                                            sizeof(cl_int), 0, NULL, NULL, NULL);
    if (err != CL_SUCCESS) {
      a->stop_error = err;
      break;
    }
    a->recorded++;
    if (i == 10) atomic_fetch_add(a->started, 1);
  }
  if (a->recorded <= 10) atomic_fetch_add(a->started, 1);
  return NULL;
}

/* Finalize racing recording threads: every recording either happened before it (and runs
 * in each replay) or failed with CL_INVALID_OPERATION (and never runs). */
static void test_finalize_races_recording(void **state) {
  struct kiln_test_env *env = *state;
  enum { THREADS = 3, LIMIT = 20000 };
  cl_mem buffer = kcb_buffer(env->context, THREADS * LIMIT * sizeof(cl_int));
  static cl_int zeros[THREADS * LIMIT], got[THREADS * LIMIT];
  kcb_write(env->queue, buffer, sizeof zeros, zeros);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  atomic_int started = 0;
  struct racer_args args[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    args[t] = (struct racer_args){.cb = cb, .buffer = buffer, .index = t, .limit = LIMIT, .started = &started};
    assert_int_equal(0, pthread_create(&threads[t], NULL, record_until_finalized, &args[t]));
  }
  while (atomic_load(&started) < THREADS) sched_yield();
  cl_int finalize_err = kcb.clFinalizeCommandBufferKHR(cb);
  for (int t = 0; t < THREADS; t++) assert_int_equal(0, pthread_join(threads[t], NULL));
  assert_cl_success(finalize_err);
  for (int t = 0; t < THREADS; t++)
    if (args[t].recorded < LIMIT && args[t].stop_error != CL_INVALID_OPERATION)
      fail_msg("thread %d stopped after %d fills with %d", t, args[t].recorded, args[t].stop_error);
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  kcb_read(env->queue, buffer, sizeof got, got);
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < LIMIT; i++) {
      cl_int want = i < args[t].recorded ? 1 : 0;
      if (got[t * LIMIT + i] != want)
        fail_msg("thread %d, fill %d (of %d recorded): %d, expected %d", t, i, args[t].recorded, got[t * LIMIT + i],
                 want);
    }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(buffer));
}

struct enqueuer_args {
  cl_command_buffer_khr cb;
  cl_command_queue queue; /* NULL: the creation queue */
  int attempts;
  bool wait; /* for each successful execution */
  int succeeded, busy;
  cl_int unexpected;
};

/* Enqueues `attempts` times. A simultaneous-use buffer piles executions up; for a
 * sequential-use one each successful execution is waited for (so that other threads'
 * attempts find it pending, or not). */
static void *enqueue_repeatedly(void *arg) {
  struct enqueuer_args *a = arg;
  a->succeeded = a->busy = 0;
  a->unexpected = CL_SUCCESS;
  for (int i = 0; i < a->attempts; i++) {
    cl_event event = NULL;
    cl_event *want_event = a->wait ? &event : NULL;
    cl_int err = a->queue ? kcb.clEnqueueCommandBufferKHR(1, &a->queue, a->cb, 0, NULL, want_event)
                          : kcb.clEnqueueCommandBufferKHR(0, NULL, a->cb, 0, NULL, want_event);
    if (err == CL_SUCCESS)
      a->succeeded++;
    else if (err == CL_INVALID_OPERATION)
      a->busy++;
    else if (a->unexpected == CL_SUCCESS)
      a->unexpected = err;
    if (event) {
      cl_int wait_err = clWaitForEvents(1, &event);
      if (wait_err != CL_SUCCESS && a->unexpected == CL_SUCCESS) a->unexpected = wait_err;
      clReleaseEvent(event);
    }
  }
  if (a->queue) clFinish(a->queue);
  return NULL;
}

static void test_concurrent_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  enum { THREADS = 5, ATTEMPTS = 40, N = 1024 };
  for (int simultaneous = 1; simultaneous >= 0; simultaneous--) {
    struct counting c =
        counting_create(env, env->queue, simultaneous ? CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR : 0, N, 9, 9);
    cl_int *host = random_input(env->queue, c.in, N, 53);
    struct enqueuer_args args[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
      /* Thread 0 uses the creation queue; the others substitute queues of their own. */
      args[t] = (struct enqueuer_args){.cb = c.cb, .attempts = ATTEMPTS, .wait = !simultaneous};
      args[t].queue =
          t == 0 ? NULL : kcb_queue(env->context, env->device, t % 2 ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
    }
    for (int t = 0; t < THREADS; t++)
      assert_int_equal(0, pthread_create(&threads[t], NULL, enqueue_repeatedly, &args[t]));
    for (int t = 0; t < THREADS; t++) assert_int_equal(0, pthread_join(threads[t], NULL));
    assert_cl_success(clFinish(env->queue));
    int succeeded = 0;
    for (int t = 0; t < THREADS; t++) {
      if (args[t].unexpected != CL_SUCCESS) fail_msg("thread %d: enqueue returned %d", t, args[t].unexpected);
      if (simultaneous && args[t].busy) fail_msg("thread %d: simultaneous-use buffer reported busy", t);
      succeeded += args[t].succeeded;
      if (args[t].queue) assert_cl_success(clReleaseCommandQueue(args[t].queue));
    }
    if (simultaneous) assert_int_equal(THREADS * ATTEMPTS, succeeded);
    assert_true(succeeded >= 1);
    /* Each successful enqueue ran exactly once. */
    assert_int_equal(succeeded * COUNT_ITEMS, read_counter(env->queue, c.counter));
    assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(c.cb));
    expect_scaled(env->queue, c.out, host, N, 9, 9);
    counting_release(&c);
    free(host);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_simultaneous_use_gated),
      KCB_TEST(test_simultaneous_use_concurrent),
      KCB_TEST(test_simultaneous_local_memory),
      KCB_TEST(test_queue_substitution),
      KCB_TEST(test_release_while_pending),
      KCB_TEST(test_concurrent_recording),
      KCB_TEST(test_finalize_races_recording),
      KCB_TEST(test_concurrent_enqueue),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
