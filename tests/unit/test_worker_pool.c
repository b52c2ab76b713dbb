/* The worker pool: every batch of every job runs exactly once, done runs once after all
 * batches, worker ids stay in range, and concurrent submitters do not lose jobs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/worker_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#define BATCHES 5000

struct counted_job {
  struct kiln_job job;
  atomic_uint *hits;       /* one counter per batch */
  atomic_uint done_calls;
  atomic_uint bad_ids;
  atomic_size_t batches_seen_at_done;
  atomic_size_t batches_run;
};

static void counted_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  struct counted_job *c = (struct counted_job *)job;
  if (worker_id >= kiln_worker_pool_id_count()) atomic_fetch_add(&c->bad_ids, 1);
  atomic_fetch_add(&c->hits[batch], 1);
  atomic_fetch_add(&c->batches_run, 1);
}

static void counted_done(struct kiln_job *job) {
  struct counted_job *c = (struct counted_job *)job;
  atomic_store(&c->batches_seen_at_done, atomic_load(&c->batches_run));
  atomic_fetch_add(&c->done_calls, 1);
}

static struct counted_job *counted_new(size_t batches) {
  struct counted_job *c = calloc(1, sizeof *c);
  c->hits = calloc(batches, sizeof *c->hits);
  kiln_job_init(&c->job, counted_run, counted_done, batches);
  return c;
}

/* Without helping, the waiter flushes (a lone one-batch job's wake-up waits for it) and
 * leaves the work to the workers. */
static void counted_wait(struct counted_job *c, bool help) {
  if (!help) kiln_worker_pool_flush();
  while (atomic_load(&c->done_calls) == 0)
    if (!help || !kiln_worker_pool_help()) sched_yield();
}

static void counted_check_free(struct counted_job *c, size_t batches) {
  assert_int_equal(1, atomic_load(&c->done_calls));
  assert_int_equal(batches, atomic_load(&c->batches_seen_at_done));
  assert_int_equal(0, atomic_load(&c->bad_ids));
  for (size_t i = 0; i < batches; i++) assert_int_equal(1, atomic_load(&c->hits[i]));
  free(c->hits);
  free(c);
}

static void test_pool_size(void **state) {
  (void)state;
  assert_int_equal(3, kiln_worker_pool_size());
  assert_true(kiln_worker_pool_id_count() > kiln_worker_pool_size());
}

static void test_many_batches_exactly_once(void **state) {
  (void)state;
  struct counted_job *c = counted_new(BATCHES);
  kiln_worker_pool_submit(&c->job, true);
  counted_wait(c, false);
  counted_check_free(c, BATCHES);
}

/* A bound on the workers' queues (cl_arm_scheduling_controls): still every batch once. */
static void test_bounded_queues_exactly_once(void **state) {
  (void)state;
  const uint32_t bounds[] = {1, 2, 7, BATCHES};
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
    struct counted_job *c = counted_new(BATCHES);
    c->job.queue_bound = bounds[i];
    assert_true(kiln_worker_pool_queues_for(&c->job));
    kiln_worker_pool_submit(&c->job, true);
    counted_wait(c, i % 2 == 0);
    counted_check_free(c, BATCHES);
  }
}

static void test_single_batch_jobs_back_to_back(void **state) {
  (void)state;
  for (int i = 0; i < 2000; i++) {
    struct counted_job *c = counted_new(1);
    kiln_worker_pool_submit(&c->job, true);
    counted_wait(c, i % 2 == 0);
    counted_check_free(c, 1);
  }
}

/* A job made ready outside an enqueue (a user event set by another thread) wakes a worker
 * at once: nobody may flush for it. */
static void test_job_without_flushing_caller_wakes_a_worker(void **state) {
  (void)state;
  for (int i = 0; i < 200; i++) {
    struct counted_job *c = counted_new(1);
    kiln_worker_pool_submit(&c->job, false);
    while (atomic_load(&c->done_calls) == 0) sched_yield();
    counted_check_free(c, 1);
  }
}

static void test_helping_thread_runs_batches(void **state) {
  (void)state;
  struct counted_job *c = counted_new(BATCHES);
  kiln_worker_pool_submit(&c->job, true);
  counted_wait(c, true);
  counted_check_free(c, BATCHES);
}

#define SUBMITTERS 4
#define JOBS_PER_SUBMITTER 200

static void *submitter(void *arg) {
  (void)arg;
  struct counted_job *jobs[JOBS_PER_SUBMITTER];
  for (int i = 0; i < JOBS_PER_SUBMITTER; i++) {
    jobs[i] = counted_new((size_t)(i % 7) + 1);
    kiln_worker_pool_submit(&jobs[i]->job, true);
  }
  for (int i = 0; i < JOBS_PER_SUBMITTER; i++) {
    counted_wait(jobs[i], true);
    counted_check_free(jobs[i], (size_t)(i % 7) + 1);
  }
  return NULL;
}

static void test_concurrent_submitters(void **state) {
  (void)state;
  pthread_t threads[SUBMITTERS];
  for (int i = 0; i < SUBMITTERS; i++) assert_int_equal(0, pthread_create(&threads[i], NULL, submitter, NULL));
  for (int i = 0; i < SUBMITTERS; i++) assert_int_equal(0, pthread_join(threads[i], NULL));
}

int main(void) {
  kiln_worker_pool_configure(3);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_size),
      cmocka_unit_test(test_many_batches_exactly_once),
      cmocka_unit_test(test_bounded_queues_exactly_once),
      cmocka_unit_test(test_single_batch_jobs_back_to_back),
      cmocka_unit_test(test_job_without_flushing_caller_wakes_a_worker),
      cmocka_unit_test(test_helping_thread_runs_batches),
      cmocka_unit_test(test_concurrent_submitters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
