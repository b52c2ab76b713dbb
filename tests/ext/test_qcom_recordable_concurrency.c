/* cl_qcom_recordable_queues, more than one thing at a time: threads replaying one
 * recording, some with updates of a dispatch each of them alone updates, others without
 * updates; threads recording into one active recording, also while it is being ended;
 * threads racing clNewRecordingQCOM on one queue; threads each recording on a recordable
 * queue of their own; concurrent retain and release. Worker threads only call OpenCL and
 * collect results; every check runs on the test's thread, and each is exact. */
#include "qcom_recordable_test.h"

#include <pthread.h>
#include <stdatomic.h>

static const char *source = "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
                            KILN_TEST_COUNT_SOURCE
                            "kernel void count_at(global int *c, int index) { atomic_inc(&c[index]); }\n";

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, qrq_setup, &program, source, NULL); }

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

static void start_threads(pthread_t *threads, size_t count, void *(*run)(void *), void *args, size_t arg_size) {
  for (size_t i = 0; i < count; i++)
    if (pthread_create(&threads[i], NULL, run, (char *)args + i * arg_size) != 0) fail_msg("pthread_create %zu", i);
}

static void join_threads(pthread_t *threads, size_t count) {
  for (size_t i = 0; i < count; i++) pthread_join(threads[i], NULL);
}

/* ---- replays with and without updates ---- */

enum { UPDATERS = 4, PLAIN = 2, ITERATIONS = 40, PUT_N = 1024 };

/* Dispatch t (t < UPDATERS) is put(out, value), updated only by thread t; dispatch
 * UPDATERS counts executions. */
struct replay_shared {
  cl_context context;
  cl_device_id device;
  cl_recording_qcom recording;
  pthread_barrier_t start;
  cl_mem outputs[UPDATERS][ITERATIONS];
};

struct replay_worker {
  struct replay_shared *shared;
  int index; /* < UPDATERS: updates dispatch `index`; else plain replays */
  cl_int errors[ITERATIONS];
  cl_int setup_error;
};

static cl_int value_of(int thread, int iteration) { return 1 + thread * 1000 + iteration; }

static void *replay_worker_run(void *arg) {
  struct replay_worker *w = arg;
  struct replay_shared *s = w->shared;
  cl_command_queue queue = clCreateCommandQueueWithProperties(s->context, s->device, NULL, &w->setup_error);
  pthread_barrier_wait(&s->start);
  for (int i = 0; i < ITERATIONS; i++) {
    if (!queue) {
      w->errors[i] = w->setup_error;
      continue;
    }
    cl_event done = NULL;
    if (w->index < UPDATERS) {
      cl_int value = value_of(w->index, i);
      cl_array_arg_qcom args[] = {qrq_arg((cl_uint)w->index, 0, sizeof(cl_mem), &s->outputs[w->index][i]),
                                  qrq_arg((cl_uint)w->index, 1, sizeof value, &value)};
      w->errors[i] =
          qrq.clEnqueueRecordingQCOM(queue, s->recording, 2, args, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &done);
    } else {
      /* Alternate the two entry points. */
      w->errors[i] =
          i % 2 ? qrq.clEnqueueRecordingQCOM(queue, s->recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &done)
                : qrq.clEnqueueRecordingSVMQCOM(queue, s->recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0,
                                                NULL, 0, NULL, &done);
    }
    if (w->errors[i] == CL_SUCCESS) {
      w->errors[i] = clWaitForEvents(1, &done);
      clReleaseEvent(done);
    }
  }
  if (queue) clReleaseCommandQueue(queue);
  return NULL;
}

/* Thread t's update at iteration i names a buffer no other update names, with a value no
 * other update uses: every execution that writes that buffer writes that value, and
 * thread t's own execution does write it. So each such buffer ends up holding exactly its
 * value; and the counting dispatch ran once per execution. */
static void test_threads_replay_with_updates(void **state) {
  struct kiln_test_env *env = *state;
  static struct replay_shared s;
  s.context = env->context;
  s.device = env->device;
  cl_mem recorded[UPDATERS];
  cl_kernel put = qrq_kernel(program, "put");
  cl_mem counter;
  cl_kernel count = qrq_counting_kernel(env, program, &counter);
  cl_command_queue rq = qrq_recordable_queue(env);
  s.recording = qrq_new(rq);
  const size_t n = PUT_N, one = 1;
  for (int t = 0; t < UPDATERS; t++) {
    recorded[t] = qrq_buffer_filled(env->queue, env->context, PUT_N, -1);
    qrq_arg_mem(put, 0, recorded[t]);
    qrq_arg_int(put, 1, -100 - t);
    assert_cl_success(clEnqueueNDRangeKernel(rq, put, 1, NULL, &n, NULL, 0, NULL, NULL));
    for (int i = 0; i < ITERATIONS; i++) s.outputs[t][i] = qrq_buffer_filled(env->queue, env->context, PUT_N, -1);
  }
  assert_cl_success(clEnqueueNDRangeKernel(rq, count, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(s.recording));

  struct replay_worker workers[UPDATERS + PLAIN];
  pthread_t threads[UPDATERS + PLAIN];
  memset(workers, 0, sizeof workers);
  pthread_barrier_init(&s.start, NULL, UPDATERS + PLAIN);
  for (int t = 0; t < UPDATERS + PLAIN; t++) {
    workers[t].shared = &s;
    workers[t].index = t;
  }
  start_threads(threads, UPDATERS + PLAIN, replay_worker_run, workers, sizeof workers[0]);
  join_threads(threads, UPDATERS + PLAIN);
  pthread_barrier_destroy(&s.start);

  for (int t = 0; t < UPDATERS + PLAIN; t++)
    for (int i = 0; i < ITERATIONS; i++)
      if (workers[t].errors[i] != CL_SUCCESS) fail_msg("thread %d, iteration %d: %d", t, i, workers[t].errors[i]);
  assert_int_equal((UPDATERS + PLAIN) * ITERATIONS, qrq_read_int(env->queue, counter, 0));
  cl_int *got = malloc(PUT_N * sizeof *got);
  for (int t = 0; t < UPDATERS; t++) {
    for (int i = 0; i < ITERATIONS; i++) {
      qrq_read(env->queue, s.outputs[t][i], PUT_N * sizeof *got, got);
      for (int j = 0; j < PUT_N; j++)
        if (got[j] != value_of(t, i)) {
          cl_int bad = got[j];
          free(got);
          fail_msg("thread %d, iteration %d, element %d: %d, expected %d", t, i, j, bad, value_of(t, i));
        }
    }
    /* The recorded buffer: written only by executions before thread t's first update. */
    qrq_read(env->queue, recorded[t], PUT_N * sizeof *got, got);
    for (int j = 0; j < PUT_N; j++)
      if (got[j] != got[0] || (got[0] != -1 && got[0] != -100 - t)) {
        cl_int bad = got[j];
        free(got);
        fail_msg("dispatch %d's recorded buffer, element %d: %d", t, j, bad);
      }
  }
  /* The last updates persist: one more plain replay writes them again. */
  for (int t = 0; t < UPDATERS; t++) qrq_fill(env->queue, s.outputs[t][ITERATIONS - 1], PUT_N, 0);
  qrq_replay(env->queue, s.recording);
  for (int t = 0; t < UPDATERS; t++)
    qrq_expect_all(env->queue, s.outputs[t][ITERATIONS - 1], PUT_N, value_of(t, ITERATIONS - 1), "last update kept");
  assert_int_equal((UPDATERS + PLAIN) * ITERATIONS + 1, qrq_read_int(env->queue, counter, 0));
  free(got);

  assert_cl_success(qrq.clReleaseRecordingQCOM(s.recording));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(count));
  assert_cl_success(clReleaseMemObject(counter));
  for (int t = 0; t < UPDATERS; t++) {
    assert_cl_success(clReleaseMemObject(recorded[t]));
    for (int i = 0; i < ITERATIONS; i++) assert_cl_success(clReleaseMemObject(s.outputs[t][i]));
  }
}

/* ---- recording from several threads ---- */

enum { RECORDERS = 4, PER_RECORDER = 500 };

struct record_shared {
  cl_command_queue recordable;
  cl_mem counters;
  pthread_barrier_t start;
  atomic_bool stop_on_error; /* keep going until the first refusal */
};

struct record_worker {
  struct record_shared *shared;
  int index;
  cl_kernel kernel; /* count_at(counters, index): the thread's own kernel object */
  int recorded;
  cl_int first_error;
  cl_int other_error; /* a refusal other than CL_INVALID_OPERATION */
};

static void *record_worker_run(void *arg) {
  struct record_worker *w = arg;
  struct record_shared *s = w->shared;
  const size_t one = 1;
  pthread_barrier_wait(&s->start);
  for (int i = 0; i < PER_RECORDER; i++) {
    cl_int err = i % 3 ? clEnqueueNDRangeKernel(s->recordable, w->kernel, 1, NULL, &one, NULL, 0, NULL, NULL)
                       : clEnqueueTask(s->recordable, w->kernel, 0, NULL, NULL);
    if (err == CL_SUCCESS) {
      w->recorded++;
      continue;
    }
    if (!w->first_error) w->first_error = err;
    if (err != CL_INVALID_OPERATION) w->other_error = err;
    if (atomic_load(&s->stop_on_error)) break;
  }
  return NULL;
}

static void record_workers_prepare(struct kiln_test_env *env, struct record_shared *s, struct record_worker *workers) {
  s->recordable = qrq_recordable_queue(env);
  s->counters = qrq_buffer_filled(env->queue, env->context, RECORDERS, 0);
  pthread_barrier_init(&s->start, NULL, RECORDERS + 1);
  for (int t = 0; t < RECORDERS; t++) {
    memset(&workers[t], 0, sizeof workers[t]);
    workers[t].shared = s;
    workers[t].index = t;
    workers[t].kernel = qrq_kernel(program, "count_at");
    qrq_arg_mem(workers[t].kernel, 0, s->counters);
    qrq_arg_int(workers[t].kernel, 1, t);
  }
}

static void record_workers_release(struct record_shared *s, struct record_worker *workers) {
  pthread_barrier_destroy(&s->start);
  for (int t = 0; t < RECORDERS; t++) assert_cl_success(clReleaseKernel(workers[t].kernel));
  assert_cl_success(clReleaseMemObject(s->counters));
  assert_cl_success(clReleaseCommandQueue(s->recordable));
}

/* Each thread's successful records are in the recording, once: a replay counts exactly
 * that many executions of each thread's kernel, and the recording has exactly their sum
 * of dispatches. */
static void expect_recorded(struct kiln_test_env *env, struct record_shared *s, struct record_worker *workers,
                            cl_recording_qcom r) {
  qrq_replay(env->queue, r);
  int total = 0;
  for (int t = 0; t < RECORDERS; t++) {
    cl_int got = qrq_read_int(env->queue, s->counters, (size_t)t);
    if (got != workers[t].recorded)
      fail_msg("thread %d recorded %d dispatches, the replay ran %d", t, workers[t].recorded, got);
    total += workers[t].recorded;
  }
  /* Dispatch total - 1 exists, dispatch total does not. */
  cl_int index_value = 0;
  cl_array_arg_qcom last = qrq_arg((cl_uint)total - 1, 1, sizeof index_value, &index_value);
  cl_array_arg_qcom past = qrq_arg((cl_uint)total, 1, sizeof index_value, &index_value);
  assert_int_equal(CL_INVALID_KERNEL_ARGS, qrq_replay_args(env->queue, r, 1, &past));
  assert_cl_success(qrq_replay_args(env->queue, r, 1, &last));
  assert_cl_success(clFinish(env->queue));
}

static void test_threads_record_into_one_recording(void **state) {
  struct kiln_test_env *env = *state;
  static struct record_shared s;
  struct record_worker workers[RECORDERS];
  pthread_t threads[RECORDERS];
  record_workers_prepare(env, &s, workers);
  atomic_init(&s.stop_on_error, false);
  cl_recording_qcom r = qrq_new(s.recordable);
  start_threads(threads, RECORDERS, record_worker_run, workers, sizeof workers[0]);
  pthread_barrier_wait(&s.start);
  join_threads(threads, RECORDERS);
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  for (int t = 0; t < RECORDERS; t++) {
    assert_int_equal(0, workers[t].first_error);
    assert_int_equal(PER_RECORDER, workers[t].recorded);
  }
  expect_recorded(env, &s, workers, r);
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  record_workers_release(&s, workers);
}

/* The recording is ended while the threads record: a record call either lands in it or
 * is refused with CL_INVALID_OPERATION (no active recording), never half of each. */
static void test_end_while_threads_record(void **state) {
  struct kiln_test_env *env = *state;
  static struct record_shared s;
  struct record_worker workers[RECORDERS];
  pthread_t threads[RECORDERS];
  for (int round = 0; round < 3; round++) {
    record_workers_prepare(env, &s, workers);
    atomic_init(&s.stop_on_error, true);
    cl_recording_qcom r = qrq_new(s.recordable);
    start_threads(threads, RECORDERS, record_worker_run, workers, sizeof workers[0]);
    pthread_barrier_wait(&s.start);
    /* Let them record a little, then end. */
    for (int spin = 0; spin < 20000 * round; spin++) __asm__ volatile("");
    assert_cl_success(qrq.clEndRecordingQCOM(r));
    join_threads(threads, RECORDERS);
    int total = 0;
    for (int t = 0; t < RECORDERS; t++) {
      if (workers[t].other_error) fail_msg("round %d, thread %d: refused with %d", round, t, workers[t].other_error);
      assert_true(workers[t].first_error == 0 || workers[t].first_error == CL_INVALID_OPERATION);
      total += workers[t].recorded;
    }
    if (total > 0) {
      expect_recorded(env, &s, workers, r);
    } else {
      cl_event ev = NULL;
      assert_int_equal(CL_INVALID_OPERATION,
                       qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &ev));
      assert_null(ev);
    }
    /* After the end, nothing more is recorded anywhere. */
    const size_t one = 1;
    assert_int_equal(CL_INVALID_OPERATION,
                     clEnqueueNDRangeKernel(s.recordable, workers[0].kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
    assert_cl_success(qrq.clReleaseRecordingQCOM(r));
    record_workers_release(&s, workers);
  }
}

/* ---- racing clNewRecordingQCOM ---- */

enum { RACERS = 6 };

struct race_shared {
  cl_command_queue recordable;
  pthread_barrier_t start;
};

struct race_worker {
  struct race_shared *shared;
  cl_recording_qcom recording;
  cl_int err;
};

static void *race_worker_run(void *arg) {
  struct race_worker *w = arg;
  pthread_barrier_wait(&w->shared->start);
  w->recording = qrq.clNewRecordingQCOM(w->shared->recordable, &w->err);
  return NULL;
}

static void test_racing_new_recording(void **state) {
  struct kiln_test_env *env = *state;
  static struct race_shared s;
  s.recordable = qrq_recordable_queue(env);
  for (int round = 0; round < 20; round++) {
    struct race_worker workers[RACERS];
    pthread_t threads[RACERS];
    memset(workers, 0, sizeof workers);
    pthread_barrier_init(&s.start, NULL, RACERS);
    for (int t = 0; t < RACERS; t++) workers[t].shared = &s;
    start_threads(threads, RACERS, race_worker_run, workers, sizeof workers[0]);
    join_threads(threads, RACERS);
    pthread_barrier_destroy(&s.start);
    int winners = 0;
    cl_recording_qcom won = NULL;
    for (int t = 0; t < RACERS; t++) {
      if (workers[t].err == CL_SUCCESS) {
        assert_non_null(workers[t].recording);
        winners++;
        won = workers[t].recording;
      } else {
        assert_int_equal(CL_INVALID_OPERATION, workers[t].err);
        assert_null(workers[t].recording);
      }
    }
    if (winners != 1) fail_msg("round %d: %d threads got a recording", round, winners);
    assert_int_equal(2, qrq_queue_refcount(s.recordable));
    assert_cl_success(qrq.clEndRecordingQCOM(won));
    assert_int_equal(1, qrq_queue_refcount(s.recordable));
    assert_cl_success(qrq.clReleaseRecordingQCOM(won));
  }
  assert_cl_success(clReleaseCommandQueue(s.recordable));
}

/* Threads ending one recording at once: exactly one succeeds (and the queue's reference is
 * dropped once); then threads releasing its last reference at once: exactly one succeeds. */
struct end_worker {
  cl_recording_qcom recording;
  pthread_barrier_t *start;
  bool release; /* clReleaseRecordingQCOM instead of clEndRecordingQCOM */
  cl_int err;
};

static void *end_worker_run(void *arg) {
  struct end_worker *w = arg;
  pthread_barrier_wait(w->start);
  w->err = w->release ? qrq.clReleaseRecordingQCOM(w->recording) : qrq.clEndRecordingQCOM(w->recording);
  return NULL;
}

static void test_racing_end_and_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel count = qrq_counting_kernel(env, program, &counter);
  cl_command_queue rq = qrq_recordable_queue(env);
  for (int round = 0; round < 20; round++) {
    cl_recording_qcom r = qrq_new(rq);
    assert_cl_success(clEnqueueTask(rq, count, 0, NULL, NULL));
    for (int phase = 0; phase < 2; phase++) {
      pthread_barrier_t start;
      struct end_worker workers[RACERS];
      pthread_t threads[RACERS];
      pthread_barrier_init(&start, NULL, RACERS);
      for (int t = 0; t < RACERS; t++) workers[t] = (struct end_worker){r, &start, phase == 1, 99};
      start_threads(threads, RACERS, end_worker_run, workers, sizeof workers[0]);
      join_threads(threads, RACERS);
      pthread_barrier_destroy(&start);
      int successes = 0;
      for (int t = 0; t < RACERS; t++) {
        if (workers[t].err == CL_SUCCESS)
          successes++;
        else if (workers[t].err != CL_INVALID_OPERATION)
          fail_msg("round %d, %s: %d", round, phase ? "release" : "end", workers[t].err);
      }
      if (successes != 1)
        fail_msg("round %d: %d threads %s the recording", round, successes, phase ? "released" : "ended");
      assert_int_equal(1, qrq_queue_refcount(rq));
      if (phase == 0) qrq_replay(env->queue, r);
    }
  }
  assert_int_equal(20, qrq_read_int(env->queue, counter, 0));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(count));
  assert_cl_success(clReleaseMemObject(counter));
}

/* ---- a recordable queue per thread ---- */

enum { OWNERS = 4, OWNER_ROUNDS = 10, OWNER_N = 256 };

struct owner_shared {
  cl_context context;
  cl_device_id device;
  cl_kernel put; /* shared kernel object: each thread records it with arguments it sets under the lock */
  pthread_mutex_t kernel_lock;
  pthread_barrier_t start;
};

struct owner_worker {
  struct owner_shared *shared;
  int index;
  cl_mem out;
  cl_int err; /* first failure */
  int line;   /* where it happened */
  cl_int mismatches;
};

#define OWNER_CHECK(expr)                                                                                              \
  do {                                                                                                                 \
    cl_int e_ = (expr);                                                                                                \
    if (e_ != CL_SUCCESS && w->err == CL_SUCCESS) {                                                                    \
      w->err = e_;                                                                                                     \
      w->line = __LINE__;                                                                                              \
    }                                                                                                                  \
  } while (0)

static void *owner_worker_run(void *arg) {
  struct owner_worker *w = arg;
  struct owner_shared *s = w->shared;
  cl_int err = CL_SUCCESS;
  cl_command_queue live = clCreateCommandQueueWithProperties(s->context, s->device, NULL, &err);
  OWNER_CHECK(err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_RECORDABLE_QCOM, 0};
  cl_command_queue rq = clCreateCommandQueueWithProperties(s->context, s->device, props, &err);
  OWNER_CHECK(err);
  pthread_barrier_wait(&s->start);
  if (!live || !rq) return NULL;
  cl_int host[OWNER_N];
  for (int round = 0; round < OWNER_ROUNDS && w->err == CL_SUCCESS; round++) {
    cl_recording_qcom r = qrq.clNewRecordingQCOM(rq, &err);
    OWNER_CHECK(err);
    if (!r) break;
    const size_t n = OWNER_N;
    cl_int value = w->index * 100 + round;
    pthread_mutex_lock(&s->kernel_lock);
    OWNER_CHECK(clSetKernelArg(s->put, 0, sizeof w->out, &w->out));
    OWNER_CHECK(clSetKernelArg(s->put, 1, sizeof value, &value));
    OWNER_CHECK(clEnqueueNDRangeKernel(rq, s->put, 1, NULL, &n, NULL, 0, NULL, NULL));
    pthread_mutex_unlock(&s->kernel_lock);
    OWNER_CHECK(qrq.clRetainRecordingQCOM(r));
    OWNER_CHECK(qrq.clEndRecordingQCOM(r));
    cl_event done = NULL;
    OWNER_CHECK(qrq.clEnqueueRecordingQCOM(live, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &done));
    OWNER_CHECK(qrq.clReleaseRecordingQCOM(r)); /* while the execution may be pending */
    if (done) {
      OWNER_CHECK(clWaitForEvents(1, &done));
      OWNER_CHECK(clReleaseEvent(done));
    }
    OWNER_CHECK(clEnqueueReadBuffer(live, w->out, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    for (int i = 0; i < OWNER_N; i++)
      if (host[i] != value) w->mismatches++;
    OWNER_CHECK(qrq.clReleaseRecordingQCOM(r));
  }
  clReleaseCommandQueue(rq);
  clReleaseCommandQueue(live);
  return NULL;
}

static void test_threads_with_own_recordable_queues(void **state) {
  struct kiln_test_env *env = *state;
  static struct owner_shared s;
  s.context = env->context;
  s.device = env->device;
  s.put = qrq_kernel(program, "put");
  pthread_mutex_init(&s.kernel_lock, NULL);
  pthread_barrier_init(&s.start, NULL, OWNERS);
  struct owner_worker workers[OWNERS];
  pthread_t threads[OWNERS];
  memset(workers, 0, sizeof workers);
  for (int t = 0; t < OWNERS; t++) {
    workers[t].shared = &s;
    workers[t].index = t;
    workers[t].out = qrq_buffer_filled(env->queue, env->context, OWNER_N, -1);
  }
  start_threads(threads, OWNERS, owner_worker_run, workers, sizeof workers[0]);
  join_threads(threads, OWNERS);
  for (int t = 0; t < OWNERS; t++) {
    if (workers[t].err != CL_SUCCESS) fail_msg("thread %d: %d at line %d", t, workers[t].err, workers[t].line);
    assert_int_equal(0, workers[t].mismatches);
    qrq_expect_all(env->queue, workers[t].out, OWNER_N, t * 100 + OWNER_ROUNDS - 1, "the thread's last recording");
    assert_cl_success(clReleaseMemObject(workers[t].out));
  }
  pthread_barrier_destroy(&s.start);
  pthread_mutex_destroy(&s.kernel_lock);
  assert_cl_success(clReleaseKernel(s.put));
}

/* ---- retain and release ---- */

enum { RETAINERS = 4, RETAINS = 1000 };

struct retain_worker {
  cl_recording_qcom recording;
  pthread_barrier_t *start;
  int failures;
};

static void *retain_worker_run(void *arg) {
  struct retain_worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < RETAINS; i++)
    if (qrq.clRetainRecordingQCOM(w->recording) != CL_SUCCESS) w->failures++;
  return NULL;
}

static void *release_worker_run(void *arg) {
  struct retain_worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int i = 0; i < RETAINS; i++)
    if (qrq.clReleaseRecordingQCOM(w->recording) != CL_SUCCESS) w->failures++;
  return NULL;
}

/* Concurrent retains then concurrent releases (with replays running meanwhile) leave
 * exactly the one reference the test holds. */
static void test_concurrent_retain_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem counter;
  cl_kernel count = qrq_counting_kernel(env, program, &counter);
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  assert_cl_success(clEnqueueTask(rq, count, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  pthread_barrier_t start;
  struct retain_worker workers[RETAINERS];
  pthread_t threads[RETAINERS];
  for (int phase = 0; phase < 2; phase++) {
    pthread_barrier_init(&start, NULL, RETAINERS);
    for (int t = 0; t < RETAINERS; t++) workers[t] = (struct retain_worker){r, &start, 0};
    start_threads(threads, RETAINERS, phase ? release_worker_run : retain_worker_run, workers, sizeof workers[0]);
    for (int i = 0; i < 10; i++)
      assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
    join_threads(threads, RETAINERS);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < RETAINERS; t++) assert_int_equal(0, workers[t].failures);
  }
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(20, qrq_read_int(env->queue, counter, 0));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r)); /* the last one */
  assert_int_equal(CL_INVALID_OPERATION, qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(count));
  assert_cl_success(clReleaseMemObject(counter));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      QRQ_TEST(test_threads_replay_with_updates), QRQ_TEST(test_threads_record_into_one_recording),
      QRQ_TEST(test_end_while_threads_record),    QRQ_TEST(test_racing_new_recording),
      QRQ_TEST(test_racing_end_and_release),      QRQ_TEST(test_threads_with_own_recordable_queues),
      QRQ_TEST(test_concurrent_retain_release),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
