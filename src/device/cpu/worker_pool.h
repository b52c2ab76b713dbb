/* worker_pool.h: the CPU device's pinned worker threads. One thread per compute unit,
 * started lazily, each pinned to its core. A job is cut into batches, and each batch runs
 * exactly once. A job that every worker may run gets one queue per worker: a contiguous
 * range of its batches, which that worker runs from the front; a thread whose queue is
 * empty steals the back half of the fullest other queue (a helping thread has a queue too,
 * empty at first). Launch after launch of the same shape, a worker so runs the same groups and
 * finds their data in its own caches (cl_arm_scheduling_controls may bound the queues:
 * batch_queue.h). Jobs under a compute-unit limit that leaves workers
 * out share one atomic counter instead, and so do all jobs when the queues cannot be
 * allocated. Threads blocked in a wait "help": they run one-batch
 * jobs themselves (no wake-up for a small kernel), and batches of the other jobs that
 * welcome helpers (short ones); long jobs are the workers' alone (one thread per core).
 * Idle workers sleep on a futex. Work an application thread enqueues may leave them asleep
 * until kiln_worker_pool_flush (kernel batching: the application's next flush or wait hands
 * it over, and a lone small job is then usually run by the waiting thread itself). Jobs
 * may share a kiln_worker_limit: at most its `max` threads run their batches at once.
 * Jobs are queued on submission lanes (kiln_worker_pool_lane_count). */
#ifndef KILN_DEVICE_CPU_WORKER_POOL_H
#define KILN_DEVICE_CPU_WORKER_POOL_H

#include "device/cpu/worker_limit.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kiln_job;
struct kiln_batch_queues;
/* Runs batch `batch` (0 .. batch_count-1) on the thread identified by `worker_id`
 * (0 .. kiln_worker_pool_id_count()-1; ids are unique among threads running at once). */
typedef void (*kiln_job_run_fn)(struct kiln_job *job, size_t batch, unsigned worker_id);
/* Called once, after every batch has run and no thread touches the job any more;
 * the job's memory may be reused or freed from here. */
typedef void (*kiln_job_done_fn)(struct kiln_job *job);

struct kiln_job {
  kiln_job_run_fn run;
  kiln_job_done_fn done;
  size_t batch_count;          /* >= 1 */
  struct kiln_worker_limit *limit; /* NULL (kiln_job_init's default): no limit */
  unsigned lane;               /* submission lane, < kiln_worker_pool_lane_count(); 0 by default */
  bool helpers;                /* helping threads may run batches of it (true by default;
                                  never when it needs more stack than KILN_HELPER_STACK_BYTES) */
  /* Pool-private from here on (kiln_job_init sets them up), except `threads`; packed so
   * that a job is 88 bytes (it lives in every submitted command). */
  atomic_bool queued;          /* in its lane (changed under the pool's lock, read without) */
  /* Threads that ran at least one batch; final when `done` runs (scheduling trace). */
  atomic_uint threads;
  atomic_uint holds;           /* one for the unfinished batches + one per thread holding the job */
  atomic_size_t next_batch;
  atomic_size_t batches_done;
  struct kiln_job *next;
  struct kiln_batch_queues *queues; /* per-worker queues, or NULL: batches come from next_batch */
  uint32_t queue_bound;        /* most batches a worker's queue holds (0: no bound); set before submitting */
};

static inline void kiln_job_init(struct kiln_job *job, kiln_job_run_fn run, kiln_job_done_fn done,
                                 size_t batch_count) {
  job->run = run;
  job->done = done;
  job->batch_count = batch_count;
  job->limit = NULL;
  job->lane = 0;
  job->helpers = true;
  atomic_init(&job->threads, 0);
  atomic_init(&job->next_batch, 0);
  atomic_init(&job->holds, 1);
  atomic_init(&job->batches_done, 0);
  job->next = NULL;
  atomic_init(&job->queued, false);
  job->queues = NULL;
  job->queue_bound = 0;
}

/* Stacks: a worker's is KILN_WORKER_STACK_BYTES (address space; pages are committed as
 * they are touched); a kernel's private memory lives on it. A thread that helps (an
 * application thread, whose stack Kiln does not choose) runs only jobs that need at most
 * KILN_HELPER_STACK_BYTES, and helps only while it has that much stack left and more. */
#define KILN_WORKER_STACK_BYTES (64u << 20)
#define KILN_HELPER_STACK_BYTES (1u << 20)
/* What library code called from kernels (libm, SLEEF, printf, malloc) and the runtime's
 * own frames may add to a kernel's stack need. */
#define KILN_STACK_RESERVE_BYTES (256u << 10)

/* Whether a launcher needing `code_bytes` of stack for its own code fits a worker. */
static inline bool kiln_worker_pool_stack_fits(uint64_t code_bytes) {
  return code_bytes <= KILN_WORKER_STACK_BYTES - KILN_STACK_RESERVE_BYTES;
}
/* Whether helping threads may run a job whose kernels need `code_bytes` of stack. */
static inline bool kiln_worker_pool_helpers_fit(uint64_t code_bytes) {
  return code_bytes <= KILN_HELPER_STACK_BYTES - KILN_STACK_RESERVE_BYTES;
}

/* Sets the worker count before the pool starts (tests; 0 = the device's compute units).
 * Has no effect once the pool runs. */
void kiln_worker_pool_configure(unsigned worker_count);

/* Queues `job` (initialized with kiln_job_init) and wakes as many workers as it has
 * batches. With `defer_wake` (an application thread enqueueing on a queue with kernel
 * batching: it flushes or waits later) the wake-up waits for kiln_worker_pool_flush or a
 * helping thread. A lone one-batch job submitted by a worker or a helping thread wakes
 * nobody: that thread takes it next. Starts the pool on first use. */
void kiln_worker_pool_submit(struct kiln_job *job, bool defer_wake);

/* Wakes workers for the jobs whose wake-up was deferred. Called by clFlush and the
 * implicit flushes (before a thread sleeps in a wait, event status queries and callbacks,
 * queue release), so queued work always starts. */
void kiln_worker_pool_flush(void);

/* Shares `job` with the workers from a thread that is running a batch itself as
 * `worker_id` (a command-buffer replay running its commands one after another): workers
 * are woken, the caller runs batches too and returns when none is left to claim. Other
 * threads may still be running batches then: the caller waits for its job->done, which
 * is the last access to the job. A limited job must share the limit of the job the
 * caller is running: the caller already holds one of its places. */
void kiln_worker_pool_run(struct kiln_job *job, unsigned worker_id);

/* For a thread about to block, or flushing in its own thread: hands deferred work beyond
 * one one-batch job to the workers and runs batches of queued jobs it may help with
 * (one-batch jobs, and jobs that welcome helpers) until none is left to claim.
 * Returns true when it ran at least one batch (a waiter then re-checks its condition
 * before sleeping). */
bool kiln_worker_pool_help(void);

/* Submission lanes (one per compute unit): each keeps its queued jobs in order, and
 * threads take jobs from the lanes in turn, so work submitted on one lane never waits
 * behind the backlog of another (cl_intel_command_queue_families' queue indices). */
unsigned kiln_worker_pool_lane_count(void);

/* Whether `threads` threads running a launch at once are every worker: then it runs on
 * per-worker queues (the batch planner's request.queues asks this). */
bool kiln_worker_pool_every_worker(unsigned threads);
/* Whether `job` runs on per-worker queues (submitted, or about to be): it has several
 * batches and every worker may run it. */
bool kiln_worker_pool_queues_for(const struct kiln_job *job);
/* The most batches one thread held queued at a time for `job`: its queue's depth, or 1 on
 * the shared counter (a thread claims one batch at a time). For the scheduling trace, from
 * `done` (the queues are freed after it). */
uint64_t kiln_worker_pool_queue_depth(const struct kiln_job *job);

/* Worker threads in the pool (starts it). */
unsigned kiln_worker_pool_size(void);
/* Upper bound of worker_id + 1 (workers and helping threads), for per-thread scratch. */
unsigned kiln_worker_pool_id_count(void);

/* Whether `p` lies in the stack of a thread running jobs (a worker, or a helper while it
 * helps): another work-item's private memory, for the generic address space's to_private. */
bool kiln_worker_pool_on_job_stack(uintptr_t p);

#endif
