/* The scheduler: a command whose dependencies resolved either completes at once (failed
 * wait list, nothing to run), runs in a blocking caller or, for a queue placed on the
 * calling thread, in the thread that made it ready; anything else becomes an execution of
 * the CPU device (device/cpu/executor.h): a launch's batches or a replay on its queue's
 * worker-pool lane, a task on that lane or on its queue's copy engine. Commands made
 * ready while another is being processed on the same thread go on a per-thread list, so
 * long chains of markers do not recurse. */
#include "runtime/scheduler.h"

#include "runtime/clock.h"
#include "runtime/platform.h"
#include "runtime/queue.h"
#include "runtime/submission.h"

static _Thread_local cl_event ready_head, ready_tail;
static _Thread_local bool draining;
static _Thread_local bool enqueueing; /* inside kiln_scheduler_submit */

/* Kernel batching (the default; CL_QUEUE_KERNEL_BATCHING_ARM): work the application's
 * thread enqueues waits for its next flush or wait before workers are woken for it. */
static bool defer_wake(cl_event event) {
  return enqueueing && event->queue && !event->queue->config.scheduling.no_kernel_batching;
}

static void mark_running(cl_event event) {
  if (event->profiling) event->time_start = kiln_time_now_ns();
  kiln_event_set_status(event, CL_RUNNING);
}

/* Runs the command in this thread and completes it, dropping the execution reference it
 * was created with. */
static void command_execute(cl_event event) {
  mark_running(event);
  struct kiln_command *command = kiln_event_command(event);
  cl_int status = command->run ? command->run(command) : CL_SUCCESS;
  if (event->profiling) event->time_end = kiln_time_now_ns();
  kiln_event_complete(event, status < 0 ? status : CL_COMPLETE, true);
}

static struct kiln_submission *submission_of(struct kiln_execution *execution) {
  return (struct kiln_submission *)((char *)execution - offsetof(struct kiln_submission, execution));
}

static int task_run(struct kiln_execution *execution, unsigned worker_id) {
  struct kiln_submission *submission = submission_of(execution);
  struct kiln_command *command = &submission->command;
  mark_running(&submission->event);
  if (command->launch) { /* a kernel that enqueues kernels: they run from this thread */
    cl_command_queue queue = submission->event.queue;
    cl_event event = &submission->event;
    return kiln_execution_run_launch(command->launch, command->batch_count, worker_id, kiln_queue_worker_limit(queue),
                                     queue->config.placement.lane, event->profiling ? &event->time_end : NULL);
  }
  return command->run ? command->run(command) : command->run_on_worker(command, worker_id);
}

/* Launches go to the workers as batches, except those of kernels that enqueue kernels
 * (device/cpu/device_enqueue.h): one thread runs the launch and its children as a task,
 * sharing each launch's batches with the workers. */
static bool runs_as_task(const struct kiln_command *command) {
  return !command->launch || command->launch->profile->enqueue;
}

/* The execution lives in the event's allocation, and the device is finished with it here:
 * the execution reference goes with the completion. */
static void execution_done(struct kiln_execution *execution, int status) {
  cl_event event = &submission_of(execution)->event;
  if (event->profiling && !event->time_end) event->time_end = kiln_time_now_ns(); /* a task may have set it */
  kiln_event_complete(event, status < 0 ? status : CL_COMPLETE, true);
}

/* Launches and replays run on the worker pool (copy engines and callers only ever get
 * transfers and synchronization commands: their families' capabilities); a blocking
 * caller does not run them itself but helps the pool while it waits, so the batches
 * spread over the workers and the caller alike. */
static void submit_execution(cl_event event, bool to_copy_engine) {
  struct kiln_submission *submission = kiln_submission_of_event(event);
  struct kiln_command *command = &submission->command;
  struct kiln_execution *execution = &submission->execution;
  bool task = runs_as_task(command);
  execution->task = task ? task_run : NULL;
  execution->launch = task ? NULL : command->launch;
  execution->done = execution_done;
  if (to_copy_engine) {
    kiln_execution_submit_copy(execution, event->queue->config.placement.lane);
    return;
  }
  /* The compute-unit limit governs kernels: launches and the replays that run them. */
  struct kiln_execution_setup setup = {command->batch_count, command->stack_bytes,
                                       command->run ? NULL : kiln_queue_worker_limit(event->queue),
                                       event->queue->config.placement.lane};
  if (!task) mark_running(event); /* its batches may start on several threads at once */
  kiln_execution_submit(execution, &setup, defer_wake(event));
}

static enum kiln_queue_engine engine_of(cl_event event) {
  return event->queue ? event->queue->config.placement.engine : KILN_ENGINE_WORKERS;
}

static void process(cl_event event, bool inline_run) {
  struct kiln_command *command = kiln_event_command(event);
  if (atomic_load(&event->dependency_failed)) {
    kiln_event_complete(event, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, true);
  } else if (command->launch || command->run_on_worker) {
    submit_execution(event, false);
  } else if (!command->run || inline_run || engine_of(event) == KILN_ENGINE_CALLER) {
    command_execute(event);
  } else {
    submit_execution(event, engine_of(event) == KILN_ENGINE_COPY_THREAD);
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
