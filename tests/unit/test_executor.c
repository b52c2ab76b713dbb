/* The device execution interface (device/cpu/executor.h): a launch runs every work-group
 * exactly once and reports once, after the last; a failing batch fails the launch; a
 * task runs once with a pool id (or the copy engine's); a launch run from inside a task
 * shares its batches under the compute-unit limit and returns only once all have run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/copy_engine.h"
#include "device/cpu/executor.h"

#include <CL/cl.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define GROUPS 600

/* What the fake launcher counts; the launch's argument block points here. */
struct group_counts {
  atomic_uint hits[GROUPS];
  atomic_uint running, most_running;
  uint64_t failing_group; /* GROUPS: none fails */
  uint64_t spin_ns;       /* work per group */
  bool await_company;     /* the first batches wait (5 s in all) until two threads run at once */
  atomic_bool gave_up;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fake_launcher(const void *args, const struct kiln_ndrange *range, uint64_t first, uint64_t count,
                         void *local) {
  (void)range, (void)local;
  struct group_counts *counts = *(struct group_counts *const *)args;
  unsigned running = atomic_fetch_add(&counts->running, 1) + 1;
  for (unsigned most = atomic_load(&counts->most_running); running > most;)
    if (atomic_compare_exchange_weak(&counts->most_running, &most, running)) break;
  uint64_t deadline = now_ns() + 5000000000u;
  while (counts->await_company && atomic_load(&counts->most_running) < 2 && !atomic_load(&counts->gave_up))
    if (now_ns() > deadline) atomic_store(&counts->gave_up, true);
  int status = 0;
  for (uint64_t g = first; g < first + count; g++) {
    atomic_fetch_add(&counts->hits[g], 1);
    if (g == counts->failing_group) status = 1;
    for (uint64_t end = now_ns() + counts->spin_ns; now_ns() < end;) {
    }
  }
  atomic_fetch_sub(&counts->running, 1);
  return status;
}

struct fake_launch {
  struct kiln_ndrange_launch launch;
  struct kiln_kernel_profile profile;
  struct group_counts *counts; /* the argument block */
  size_t batches;
};

static struct fake_launch *fake_launch_new(unsigned threads) {
  struct fake_launch *f = calloc(1, sizeof *f);
  f->counts = calloc(1, sizeof *f->counts);
  f->counts->failing_group = GROUPS;
  f->profile.name = "fake";
  struct kiln_ndrange *r = &f->launch.range;
  r->work_dim = 1;
  r->global_size[0] = r->num_groups[0] = GROUPS;
  r->local_size[0] = r->global_size[1] = r->global_size[2] = r->local_size[1] = r->local_size[2] = 1;
  r->num_groups[1] = r->num_groups[2] = 1;
  f->launch.launcher = fake_launcher;
  f->launch.args = &f->counts;
  f->launch.profile = &f->profile;
  struct kiln_plan_request request = {
      .groups = GROUPS, .items = GROUPS, .group_items = 1, .threads = threads, .long_items = true};
  f->batches = (size_t)kiln_batch_plan_make(&f->launch.plan, &request);
  return f;
}

static void fake_launch_check_free(struct fake_launch *f) {
  for (size_t g = 0; g < GROUPS; g++) assert_int_equal(1, atomic_load(&f->counts->hits[g]));
  free(f->counts);
  free(f);
}

/* An execution and what its done saw. */
struct observed {
  struct kiln_execution execution;
  atomic_uint done_calls;
  atomic_int status;
  atomic_uint groups_run_at_done;
  struct group_counts *counts;
};

static void observed_done(struct kiln_execution *execution, int status) {
  struct observed *o = (struct observed *)execution;
  unsigned run = 0;
  for (size_t g = 0; o->counts && g < GROUPS; g++) run += atomic_load(&o->counts->hits[g]);
  atomic_store(&o->groups_run_at_done, run);
  atomic_store(&o->status, status);
  atomic_fetch_add(&o->done_calls, 1);
}

static void observed_wait(struct observed *o) {
  kiln_worker_pool_flush();
  while (atomic_load(&o->done_calls) == 0) sched_yield();
}

static void test_launch_runs_every_group_once(void **state) {
  (void)state;
  struct fake_launch *f = fake_launch_new(kiln_worker_pool_size());
  assert_true(f->batches > 1);
  struct observed o = {.counts = f->counts};
  o.execution = (struct kiln_execution){.launch = &f->launch, .done = observed_done};
  kiln_execution_submit(&o.execution, &(struct kiln_execution_setup){.batch_count = f->batches}, false);
  observed_wait(&o);
  assert_int_equal(1, atomic_load(&o.done_calls));
  assert_int_equal(0, atomic_load(&o.status));
  assert_int_equal(GROUPS, atomic_load(&o.groups_run_at_done));
  fake_launch_check_free(f);
}

static void test_failing_batch_fails_the_launch(void **state) {
  (void)state;
  struct fake_launch *f = fake_launch_new(kiln_worker_pool_size());
  f->counts->failing_group = GROUPS / 2;
  struct observed o = {.counts = f->counts};
  o.execution = (struct kiln_execution){.launch = &f->launch, .done = observed_done};
  kiln_execution_submit(&o.execution, &(struct kiln_execution_setup){.batch_count = f->batches}, false);
  observed_wait(&o);
  assert_int_equal(CL_OUT_OF_RESOURCES, atomic_load(&o.status));
  fake_launch_check_free(f); /* the other batches still ran */
}

static atomic_uint task_calls, task_bad_ids;
static unsigned expected_copy_id;

static int task_status(struct kiln_execution *execution, unsigned worker_id) {
  (void)execution;
  atomic_fetch_add(&task_calls, 1);
  bool pool_id = worker_id < kiln_worker_pool_id_count();
  if (expected_copy_id ? worker_id != expected_copy_id : !pool_id) atomic_fetch_add(&task_bad_ids, 1);
  return CL_INVALID_VALUE;
}

static void test_task_runs_once_and_passes_its_status(void **state) {
  (void)state;
  atomic_store(&task_calls, 0);
  expected_copy_id = 0;
  struct observed o = {0};
  o.execution = (struct kiln_execution){.task = task_status, .done = observed_done};
  kiln_execution_submit(&o.execution, &(struct kiln_execution_setup){0}, false);
  observed_wait(&o);
  assert_int_equal(1, atomic_load(&task_calls));
  assert_int_equal(0, atomic_load(&task_bad_ids));
  assert_int_equal(CL_INVALID_VALUE, atomic_load(&o.status));

  atomic_store(&task_calls, 0);
  expected_copy_id = KILN_COPY_ENGINE_WORKER_ID;
  struct observed copy = {0};
  copy.execution = (struct kiln_execution){.task = task_status, .done = observed_done};
  kiln_execution_submit_copy(&copy.execution, 0);
  observed_wait(&copy);
  assert_int_equal(1, atomic_load(&task_calls));
  assert_int_equal(0, atomic_load(&task_bad_ids));
  assert_int_equal(1, atomic_load(&copy.done_calls));
}

/* A replay: a task on the pool that runs a launch to its end, under a limit of 2. */
static struct kiln_worker_limit limit_of_two = {.max = 2};
static struct fake_launch *replayed;
static atomic_uint groups_at_return;

static int replay_task(struct kiln_execution *execution, unsigned worker_id) {
  (void)execution;
  int status = kiln_execution_run_launch(&replayed->launch, replayed->batches, worker_id, &limit_of_two, 0, NULL);
  unsigned run = 0;
  for (size_t g = 0; g < GROUPS; g++) run += atomic_load(&replayed->counts->hits[g]);
  atomic_store(&groups_at_return, run);
  return status;
}

static void test_launch_within_a_task_shares_under_the_limit(void **state) {
  (void)state;
  replayed = fake_launch_new(2);
  replayed->counts->await_company = true; /* a launch run alone fails after 5 s */
  assert_true(replayed->batches > 2);
  struct observed o = {0};
  o.execution = (struct kiln_execution){.task = replay_task, .done = observed_done};
  kiln_execution_submit(&o.execution, &(struct kiln_execution_setup){.limit = &limit_of_two}, false);
  observed_wait(&o);
  assert_int_equal(0, atomic_load(&o.status));
  assert_int_equal(GROUPS, atomic_load(&groups_at_return));
  assert_true(atomic_load(&replayed->counts->most_running) <= 2);
  assert_int_equal(2, atomic_load(&replayed->counts->most_running)); /* shared, not run alone */
  assert_int_equal(0, atomic_load(&limit_of_two.active));
  fake_launch_check_free(replayed);
}

int main(void) {
  kiln_worker_pool_configure(3);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_launch_runs_every_group_once),
      cmocka_unit_test(test_failing_batch_fails_the_launch),
      cmocka_unit_test(test_task_runs_once_and_passes_its_status),
      cmocka_unit_test(test_launch_within_a_task_shares_under_the_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
