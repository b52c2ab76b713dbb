/* executor.c: see executor.h. */
#include "device/cpu/executor.h"

#include "device/cpu/bounds_check.h"
#include "device/cpu/copy_engine.h"
#include "device/cpu/device_enqueue.h"
#include "runtime/trace.h"

#include <CL/cl.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

uint64_t kiln_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct kiln_execution *execution_of(struct kiln_job *job) {
  return (struct kiln_execution *)((char *)job - offsetof(struct kiln_execution, job));
}

/* Whether `status` is the execution's first failure. */
static bool record_failure(struct kiln_execution *execution, int status) {
  if (status >= 0) return false;
  int expected = 0;
  return atomic_compare_exchange_strong(&execution->status, &expected, status);
}

/* The KILN_TRACE=sched line of one executed launch (callers check that the topic is on):
 * its kernel, work-groups, batch sizes, batches, how many threads ran batches and the
 * compute-unit limit it ran under. */
static void trace_launch(const struct kiln_ndrange_launch *launch, size_t batches, unsigned threads,
                         const struct kiln_worker_limit *limit, uint64_t queue_depth) {
  uint64_t largest, smallest;
  kiln_batch_plan_sizes(&launch->plan, &largest, &smallest);
  /* One size, or the first batch's and the last round's: "batch_size=8..1". */
  char sizes[48];
  if (largest == smallest)
    snprintf(sizes, sizeof sizes, "%llu", (unsigned long long)largest);
  else
    snprintf(sizes, sizeof sizes, "%llu..%llu", (unsigned long long)largest, (unsigned long long)smallest);
  kiln_trace(KILN_TRACE_SCHED,
             "ndrange kernel=%s groups=%llu batch_size=%s batches=%zu workers=%u cu_limit=%u queue_depth=%llu",
             launch->profile->name, (unsigned long long)launch->plan.groups, sizes, batches, threads,
             limit ? limit->max : 0u, (unsigned long long)queue_depth);
}

static void task_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  (void)batch;
  struct kiln_execution *execution = execution_of(job);
  record_failure(execution, execution->task(execution, worker_id));
}

static void launch_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  struct kiln_execution *execution = execution_of(job);
  /* A bounds violation is reported by the batch that failed the command first. */
  if (!kiln_ndrange_run_batch(execution->launch, batch, worker_id) && record_failure(execution, CL_OUT_OF_RESOURCES))
    kiln_bounds_report();
}

/* The trace comes before `done`, so that a thread woken by the completion finds it written. */
static void execution_done(struct kiln_job *job) {
  struct kiln_execution *execution = execution_of(job);
  if (execution->launch && kiln_trace_enabled(KILN_TRACE_SCHED))
    trace_launch(execution->launch, job->batch_count, atomic_load(&job->threads), job->limit,
                 kiln_worker_pool_queue_depth(job));
  execution->done(execution, atomic_load(&execution->status));
}

/* Threads that help while they wait run an execution whose kernels' stack fits them: a
 * one-batch one however long (it saves a wake-up), a larger launch only when it is
 * estimated short (ndrange_executor.h). */
static bool welcomes_helpers(const struct kiln_execution *execution, size_t batch_count, uint64_t stack_bytes) {
  if (!kiln_worker_pool_helpers_fit(stack_bytes)) return false;
  return batch_count <= 1 || !execution->launch || kiln_ndrange_welcomes_helpers(execution->launch);
}

static inline void prepare(struct kiln_execution *execution, const struct kiln_execution_setup *setup) {
  bool launch = execution->task == NULL;
  size_t batch_count = launch ? setup->batch_count : 1;
  kiln_job_init(&execution->job, launch ? launch_run : task_run, execution_done, batch_count);
  execution->job.limit = setup->limit;
  execution->job.lane = setup->lane;
  execution->job.helpers = welcomes_helpers(execution, batch_count, setup->stack_bytes);
  if (launch && execution->launch) execution->job.queue_bound = execution->launch->plan.queue_bound;
  atomic_init(&execution->status, 0);
}

void kiln_execution_submit(struct kiln_execution *execution, const struct kiln_execution_setup *setup,
                           bool defer_wake) {
  prepare(execution, setup);
  kiln_worker_pool_submit(&execution->job, defer_wake);
}

void kiln_execution_submit_copy(struct kiln_execution *execution, unsigned engine) {
  struct kiln_execution_setup setup = {.lane = engine};
  prepare(execution, &setup);
  kiln_copy_engine_submit(engine, &execution->job);
}

/* A launch shared from a replaying thread; lives on that thread's stack until `finished`. */
struct shared_launch {
  struct kiln_execution execution;
  atomic_bool finished;
  int status;
};

static void shared_done(struct kiln_execution *execution, int status) {
  struct shared_launch *shared = (struct shared_launch *)execution;
  shared->status = status;
  atomic_store_explicit(&shared->finished, true, memory_order_release);
}

static int run_shared(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                      struct kiln_worker_limit *limit, unsigned lane) {
  struct shared_launch shared = {.execution = {.launch = launch, .done = shared_done}};
  atomic_init(&shared.finished, false);
  struct kiln_execution_setup setup = {batch_count, launch->profile->stack_bytes, limit, lane};
  prepare(&shared.execution, &setup);
  kiln_worker_pool_run(&shared.execution.job, worker_id);
  /* The batches left were claimed by running threads: they finish within a batch's time. */
  for (unsigned spins = 0; !atomic_load_explicit(&shared.finished, memory_order_acquire); spins++)
    if (spins > 1000) sched_yield();
  return shared.status;
}

int kiln_execution_run_launch_alone(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                                    struct kiln_worker_limit *limit, unsigned lane) {
  struct kiln_ndrange_launch own;
  struct kiln_printf_buffer output;
  if (launch->printf_buffer) {
    own = *launch;
    kiln_printf_buffer_init(&output, KILN_PRINTF_BUFFER_SIZE, batch_count);
    own.printf_buffer = &output;
    launch = &own;
  }
  if (batch_count > 1) return run_shared(launch, batch_count, worker_id, limit, lane);
  bool ran = kiln_ndrange_run_batch(launch, 0, worker_id);
  if (!ran) kiln_bounds_report();
  if (kiln_trace_enabled(KILN_TRACE_SCHED)) trace_launch(launch, 1, 1, limit, 1);
  return ran ? 0 : CL_OUT_OF_RESOURCES;
}

int kiln_execution_run_launch(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                              struct kiln_worker_limit *limit, unsigned lane, uint64_t *end_ns) {
  if (launch->profile->enqueue) return kiln_device_enqueue_run(launch, batch_count, worker_id, limit, lane, end_ns);
  int status = kiln_execution_run_launch_alone(launch, batch_count, worker_id, limit, lane);
  if (end_ns) *end_ns = kiln_monotonic_ns();
  return status;
}
