/* executor.c: see executor.h. */
#include "device/cpu/executor.h"

#include "device/cpu/copy_engine.h"
#include "runtime/trace.h"

#include <CL/cl.h>
#include <sched.h>
#include <stdio.h>

static struct kiln_execution *execution_of(struct kiln_job *job) {
  return (struct kiln_execution *)((char *)job - offsetof(struct kiln_execution, job));
}

static void record_failure(struct kiln_execution *execution, int status) {
  if (status >= 0) return;
  int expected = 0;
  atomic_compare_exchange_strong(&execution->status, &expected, status);
}

/* The KILN_TRACE=sched line of one executed launch: its kernel, work-groups, batch sizes,
 * batches, how many threads ran batches and the compute-unit limit it ran under. */
static void trace_launch(const struct kiln_ndrange_launch *launch, size_t batches, unsigned threads,
                         const struct kiln_worker_limit *limit) {
  if (!kiln_trace_enabled(KILN_TRACE_SCHED)) return;
  uint64_t largest, smallest;
  kiln_batch_plan_sizes(&launch->plan, &largest, &smallest);
  /* One size, or the first batch's and the last round's: "batch_size=8..1". */
  char sizes[48];
  if (largest == smallest)
    snprintf(sizes, sizeof sizes, "%llu", (unsigned long long)largest);
  else
    snprintf(sizes, sizeof sizes, "%llu..%llu", (unsigned long long)largest, (unsigned long long)smallest);
  kiln_trace(KILN_TRACE_SCHED, "ndrange kernel=%s groups=%llu batch_size=%s batches=%zu workers=%u cu_limit=%u",
             launch->profile->name, (unsigned long long)launch->plan.groups, sizes, batches, threads,
             limit ? limit->max : 0u);
}

static void task_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  (void)batch;
  struct kiln_execution *execution = execution_of(job);
  record_failure(execution, execution->task(execution, worker_id));
}

static void launch_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  struct kiln_execution *execution = execution_of(job);
  if (!kiln_ndrange_run_batch(execution->launch, batch, worker_id)) record_failure(execution, CL_OUT_OF_RESOURCES);
}

/* The trace comes before `done`, so that a thread woken by the completion finds it written. */
static void execution_done(struct kiln_job *job) {
  struct kiln_execution *execution = execution_of(job);
  if (execution->launch)
    trace_launch(execution->launch, job->batch_count, atomic_load(&job->threads), execution->limit);
  execution->done(execution, atomic_load(&execution->status));
}

/* Threads that help while they wait run an execution whose kernels' stack fits them: a
 * one-batch one however long (it saves a wake-up), a larger launch only when it is
 * estimated short (ndrange_executor.h). */
static bool welcomes_helpers(const struct kiln_execution *execution) {
  if (!kiln_worker_pool_helpers_fit(execution->stack_bytes)) return false;
  if (execution->batch_count <= 1) return true;
  return !execution->launch || kiln_ndrange_welcomes_helpers(execution->launch);
}

static void prepare(struct kiln_execution *execution) {
  bool launch = execution->task == NULL;
  if (!launch) execution->batch_count = 1;
  kiln_job_init(&execution->job, launch ? launch_run : task_run, execution_done, execution->batch_count);
  execution->job.limit = execution->limit;
  execution->job.lane = execution->lane;
  execution->job.helpers = welcomes_helpers(execution);
  atomic_init(&execution->status, 0);
}

void kiln_execution_submit(struct kiln_execution *execution, bool defer_wake) {
  prepare(execution);
  kiln_worker_pool_submit(&execution->job, defer_wake);
}

void kiln_execution_submit_copy(struct kiln_execution *execution, unsigned engine) {
  prepare(execution);
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
  struct shared_launch shared = {
      .execution = {.launch = launch,
                    .batch_count = batch_count,
                    .done = shared_done,
                    .stack_bytes = launch->profile->stack_bytes,
                    .limit = limit,
                    .lane = lane},
  };
  atomic_init(&shared.finished, false);
  prepare(&shared.execution);
  kiln_worker_pool_run(&shared.execution.job, worker_id);
  /* The batches left were claimed by running threads: they finish within a batch's time. */
  for (unsigned spins = 0; !atomic_load_explicit(&shared.finished, memory_order_acquire); spins++)
    if (spins > 1000) sched_yield();
  return shared.status;
}

int kiln_execution_run_launch(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
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
  trace_launch(launch, 1, 1, limit);
  return ran ? 0 : CL_OUT_OF_RESOURCES;
}
