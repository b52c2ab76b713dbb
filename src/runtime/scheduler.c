/* The scheduler: a command whose dependencies resolved either completes at once (failed
 * wait list, nothing to run), runs in a blocking caller or, for a queue placed on the
 * calling thread, in the thread that made it ready; a transfer of a queue placed on a
 * copy engine goes to that engine; anything else becomes a job of the worker pool on its
 * queue's lane (kernels: one batch per range of work-groups). Commands made ready while another is being processed on the same
 * thread go on a per-thread list, so long chains of markers do not recurse. */
#include "runtime/scheduler.h"

#include "device/cpu/copy_engine.h"
#include "device/cpu/ndrange_executor.h"

#include "runtime/clock.h"
#include "runtime/kernel.h"
#include "runtime/ndrange.h"
#include "runtime/platform.h"
#include "runtime/queue.h"
#include "runtime/trace.h"

static _Thread_local cl_event ready_head, ready_tail;
static _Thread_local bool draining;
static _Thread_local bool enqueueing; /* inside kiln_scheduler_submit */

/* Kernel batching (the default; CL_QUEUE_KERNEL_BATCHING_ARM): work the application's
 * thread enqueues waits for its next flush or wait before workers are woken for it. */
static bool defer_wake(cl_event event) {
  return enqueueing && event->queue && !event->queue->config.scheduling.no_kernel_batching;
}

/* Runs the command and completes it; `drop_reference` drops the execution reference it
 * was created with. */
static void command_execute(cl_event event, bool drop_reference) {
  if (event->profiling) event->time_start = kiln_time_now_ns();
  kiln_event_set_status(event, CL_RUNNING);
  cl_int status = event->run ? event->run(KILN_EVENT_COMMAND(event)) : CL_SUCCESS;
  if (event->profiling) event->time_end = kiln_time_now_ns();
  kiln_event_complete(event, status < 0 ? status : CL_COMPLETE, drop_reference);
}

static cl_event event_of_job(struct kiln_job *job) {
  return (cl_event)((char *)job - offsetof(struct _cl_event, job));
}

/* The job lives inside the event, and the pool still touches it after the last batch:
 * the execution reference is dropped in job_done, once the pool is finished with it. */
static void job_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  (void)batch;
  (void)worker_id;
  command_execute(event_of_job(job), false);
}

static void job_done(struct kiln_job *job) { kiln_object_release(&event_of_job(job)->obj); }

/* Multi-batch commands: every batch runs the command's run_batch; the command completes
 * (and its execution reference goes) in batch_job_done, once the pool is finished with it. */
static void batch_job_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  cl_event event = event_of_job(job);
  cl_int status = event->run_batch(KILN_EVENT_COMMAND(event), batch, worker_id);
  if (status < 0) {
    int expected = 0;
    atomic_compare_exchange_strong(&event->batch_status, &expected, status);
  }
}

static void batch_job_done(struct kiln_job *job) {
  cl_event event = event_of_job(job);
  if (event->profiling) event->time_end = kiln_time_now_ns();
  /* Before completion, so that a thread woken by it finds the line written. */
  const struct kiln_ndrange_launch *launch;
  if (kiln_trace_enabled(KILN_TRACE_SCHED) && (launch = kiln_ndrange_command_launch(KILN_EVENT_COMMAND(event))))
    kiln_ndrange_trace(launch, job->batch_count, atomic_load(&job->threads), job->limit);
  cl_int status = atomic_load(&event->batch_status);
  kiln_event_complete(event, status < 0 ? status : CL_COMPLETE, true);
}

/* A blocking caller does not run the batches itself here: it helps the pool while it
 * waits, so the batches spread over the workers and the caller alike. */
static void submit_batches(cl_event event) {
  if (event->profiling) event->time_start = kiln_time_now_ns();
  kiln_event_set_status(event, CL_RUNNING);
  kiln_job_init(&event->job, batch_job_run, batch_job_done, event->batch_count);
  event->job.limit = kiln_queue_worker_limit(event->queue);
  event->job.lane = event->queue->config.placement.lane;
  /* A one-batch job whose stack fits stays open to a waiting thread, however long. */
  if (event->batch_count > 1 || !kiln_worker_pool_helpers_fit(event->stack_bytes))
    event->job.helpers = kiln_ndrange_command_welcomes_helpers(KILN_EVENT_COMMAND(event));
  kiln_worker_pool_submit(&event->job, defer_wake(event));
}

/* Multi-batch commands (kernels) always run on the worker pool: copy engines and callers
 * only ever get transfers and synchronization commands (their families' capabilities). */
static enum kiln_queue_engine engine_of(cl_event event) {
  return event->queue ? event->queue->config.placement.engine : KILN_ENGINE_WORKERS;
}

static void process(cl_event event, bool inline_run) {
  if (atomic_load(&event->dependency_failed)) {
    kiln_event_complete(event, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, true);
  } else if (event->run_batch) {
    submit_batches(event);
  } else if (!event->run || inline_run || engine_of(event) == KILN_ENGINE_CALLER) {
    command_execute(event, true);
  } else {
    kiln_job_init(&event->job, job_run, job_done, 1);
    if (engine_of(event) == KILN_ENGINE_COPY_THREAD) {
      kiln_copy_engine_submit(event->queue->config.placement.lane, &event->job);
    } else {
      event->job.lane = event->queue->config.placement.lane;
      kiln_worker_pool_submit(&event->job, defer_wake(event));
    }
  }
}

void kiln_scheduler_ready(cl_event event, bool inline_run) {
  if (draining) {
    event->ready_next = NULL;
    if (ready_tail) ready_tail->ready_next = event;
    else ready_head = event;
    ready_tail = event;
    return;
  }
  draining = true;
  process(event, inline_run);
  while (ready_head) {
    cl_event next = ready_head;
    ready_head = next->ready_next;
    if (!ready_head) ready_tail = NULL;
    process(next, false);
  }
  draining = false;
}

void kiln_scheduler_resolve(cl_event event, bool inline_run) {
  if (atomic_fetch_sub_explicit(&event->pending, 1, memory_order_acq_rel) == 1)
    kiln_scheduler_ready(event, inline_run);
}

void kiln_scheduler_submit(cl_event event, bool inline_run) {
  enqueueing = true;
  kiln_scheduler_resolve(event, inline_run);
  enqueueing = false;
}
