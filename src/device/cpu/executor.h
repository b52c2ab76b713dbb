/* executor.h: the CPU device's execution interface, what the runtime's scheduler and
 * replays hand work to. An execution is one task (a call of `task`) or one NDRange launch
 * (its batches: ndrange_executor.h); the runtime says where it runs (a worker-pool lane
 * under a compute-unit limit, or a copy engine) and is told once when it has ended. The
 * executor owns the worker-pool job, the first failure of a launch's batches, which
 * waiting threads may help, and the KILN_TRACE=sched line of every launch it runs. */
#ifndef KILN_DEVICE_CPU_EXECUTOR_H
#define KILN_DEVICE_CPU_EXECUTOR_H

#include "device/cpu/ndrange_executor.h"
#include "device/cpu/worker_pool.h"

struct kiln_execution;
/* A task's work: 0 or a negative CL error. `worker_id` is the thread's pool id
 * (worker_pool.h), or KILN_COPY_ENGINE_WORKER_ID on a copy engine. */
typedef int (*kiln_execution_task_fn)(struct kiln_execution *execution, unsigned worker_id);
/* Called once, when the task or every batch has run and no device thread touches the
 * execution any more (its memory may go from here): 0 or the first negative status. */
typedef void (*kiln_execution_done_fn)(struct kiln_execution *execution, int status);

struct kiln_execution {
  kiln_execution_task_fn task;              /* a task; NULL for a launch */
  const struct kiln_ndrange_launch *launch; /* a launch */
  kiln_execution_done_fn done;
  /* Executor-private. */
  struct kiln_job job;
  atomic_int status;
};

/* How and where an execution runs (only read by the submitting call). */
struct kiln_execution_setup {
  size_t batch_count;              /* a launch's (its plan's); a task has one */
  uint64_t stack_bytes;            /* what its kernels' code needs (which threads may help) */
  struct kiln_worker_limit *limit; /* compute-unit limit, or NULL */
  unsigned lane;                   /* worker-pool submission lane, or copy engine */
};

/* Queues the execution on the worker pool (defer_wake: see kiln_worker_pool_submit). */
void kiln_execution_submit(struct kiln_execution *execution, const struct kiln_execution_setup *setup, bool defer_wake);
/* Queues a task on copy engine `engine` (copy_engine.h). */
void kiln_execution_submit_copy(struct kiln_execution *execution, unsigned engine);

/* Runs `launch` (`batch_count` batches) to its end from a thread that runs a task as
 * `worker_id` on the pool (a replay of recorded commands, one launch after another): a
 * one-batch launch in place, a larger one shared with the workers on `lane` under `limit`
 * (the calling thread holds one of its places already) with the caller running batches
 * too. A kernel that calls printf gets a printf buffer of its own for this run, so that
 * concurrent replays never share one. Writes the launch's trace line. A kernel that
 * enqueues kernels runs with everything it enqueues (device_enqueue.h); `end_ns`, when
 * not NULL, receives the time (CLOCK_MONOTONIC) its own work-groups had all run, before
 * what it enqueued (CL_PROFILING_COMMAND_END, where the return is COMPLETE). Returns 0 or
 * the launch's negative status. */
int kiln_execution_run_launch(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                              struct kiln_worker_limit *limit, unsigned lane, uint64_t *end_ns);

/* Nanoseconds of CLOCK_MONOTONIC (runtime/clock.h's clock). */
uint64_t kiln_monotonic_ns(void);

/* The same, for the launch alone (device_enqueue.c runs its commands with it). */
int kiln_execution_run_launch_alone(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                                    struct kiln_worker_limit *limit, unsigned lane);

#endif
