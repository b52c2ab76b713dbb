/* command_buffer_replay.c: finalize's executable form and clEnqueueCommandBufferKHR. An
 * enqueue validates the queue and wait list, then submits one queue command whose single
 * batch runs the steps in order: a run function, a one-batch kernel called in place, or a
 * multi-batch kernel shared with the workers (kiln_worker_pool_run) and waited for before
 * the next step. Nothing is allocated or validated per replay beyond that one command;
 * the recorded payloads are only read, so simultaneous executions may share them. */
#include "ext/khr_command_buffer/khr_command_buffer.h"

#include "device/cpu/ndrange_executor.h"
#include "device/cpu/worker_pool.h"
#include "runtime/event.h"
#include "runtime/kernel.h"
#include "runtime/queue.h"

#include <sched.h>
#include <stdlib.h>

cl_int kiln_command_buffer_build_steps(cl_command_buffer_khr command_buffer) {
  struct kiln_replay_step *steps = calloc(command_buffer->count ? command_buffer->count : 1, sizeof *steps);
  if (!steps) return CL_OUT_OF_HOST_MEMORY;
  size_t n = 0;
  for (size_t i = 0; i < command_buffer->count; i++) {
    struct kiln_command *command = command_buffer->commands[i];
    if (!command) continue; /* a barrier: running in order already waits for everything before it */
    struct kiln_replay_step step = {.command = command};
    step.run_batch = kiln_command_batch_function(command, &step.batch_count);
    if (!step.run_batch) step.run = kiln_command_run_function(command);
    const struct kiln_ndrange_launch *launch = kiln_ndrange_command_launch(command);
    if (launch && launch->printf_buffer) step.printf_launch = launch;
    if (step.run || step.run_batch) steps[n++] = step; /* else nothing to do (an empty NDRange) */
  }
  command_buffer->steps = steps;
  command_buffer->step_count = n;
  return CL_SUCCESS;
}

/* One execution of a step: a kernel that calls printf gets a printf buffer of its own, in a
 * copy of its launch, so that executions never share one. */
struct step_execution {
  const struct kiln_replay_step *step;
  const struct kiln_ndrange_launch *launch; /* the copy, for printf kernels */
};

static cl_int run_step_batch(const struct step_execution *execution, size_t batch, unsigned worker_id) {
  if (execution->launch)
    return kiln_ndrange_run_batch(execution->launch, batch, worker_id) ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
  return execution->step->run_batch(execution->step->command, batch, worker_id);
}

/* A multi-batch step shared with the workers; lives on the replaying thread's stack. */
struct shared_step {
  struct kiln_job job;
  const struct step_execution *execution;
  atomic_int status;
  atomic_bool done;
};

static void shared_step_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  struct shared_step *shared = (struct shared_step *)job;
  cl_int status = run_step_batch(shared->execution, batch, worker_id);
  if (status < 0) {
    int expected = CL_SUCCESS;
    atomic_compare_exchange_strong(&shared->status, &expected, status);
  }
}

static void shared_step_done(struct kiln_job *job) {
  atomic_store_explicit(&((struct shared_step *)job)->done, true, memory_order_release);
}

static cl_int run_shared(const struct step_execution *execution, unsigned worker_id) {
  struct shared_step shared = {.execution = execution};
  atomic_init(&shared.status, CL_SUCCESS);
  atomic_init(&shared.done, false);
  kiln_job_init(&shared.job, shared_step_run, shared_step_done, execution->step->batch_count);
  kiln_worker_pool_run(&shared.job, worker_id);
  /* The batches left were claimed by running threads: they finish within a batch's time. */
  for (unsigned spins = 0; !atomic_load_explicit(&shared.done, memory_order_acquire); spins++)
    if (spins > 1000) sched_yield();
  return atomic_load(&shared.status);
}

static cl_int replay(struct kiln_command *command, size_t batch, unsigned worker_id) {
  (void)batch;
  cl_command_buffer_khr command_buffer = *(cl_command_buffer_khr *)kiln_command_payload(command);
  const struct kiln_replay_step *steps = command_buffer->steps;
  for (size_t i = 0; i < command_buffer->step_count; i++) {
    const struct kiln_replay_step *step = &steps[i];
    if (step->run) {
      cl_int status = step->run(step->command);
      if (status < 0) return status;
      continue;
    }
    struct step_execution execution = {.step = step};
    struct kiln_ndrange_launch launch;
    struct kiln_printf_buffer output;
    if (step->printf_launch) {
      launch = *step->printf_launch;
      kiln_printf_buffer_init(&output, KILN_PRINTF_BUFFER_SIZE, step->batch_count);
      launch.printf_buffer = &output;
      execution.launch = &launch;
    }
    cl_int status = step->batch_count == 1 ? run_step_batch(&execution, 0, worker_id) : run_shared(&execution, worker_id);
    if (status < 0) return status;
  }
  return CL_SUCCESS;
}

static void execution_complete(struct kiln_command *command, cl_int status) {
  (void)status;
  cl_command_buffer_khr command_buffer = *(cl_command_buffer_khr *)kiln_command_payload(command);
  atomic_fetch_sub(&command_buffer->pending, 1);
}

/* The queue an execution goes to: the creation queue, or a substitute for it. */
static cl_int execution_queue(cl_command_buffer_khr command_buffer, cl_uint num_queues,
                              cl_command_queue *queues, cl_command_queue *queue) {
  if ((queues == NULL) != (num_queues == 0)) return CL_INVALID_VALUE;
  if (num_queues > 1) return CL_INVALID_VALUE; /* created with one queue */
  /* The creation queue is held by the command buffer: usable even once the application
   * released its handle. A substitute must be a live handle. */
  if (!queues) {
    *queue = command_buffer->queue;
    return CL_SUCCESS;
  }
  *queue = queues[0];
  if (!kiln_queue_is_valid(*queue)) return CL_INVALID_COMMAND_QUEUE;
  cl_command_queue_properties properties = (*queue)->config.properties;
  if ((properties & ~KILN_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES) ||
      (properties & KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES) != KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES)
    return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
  if ((*queue)->device != command_buffer->queue->device) return CL_INVALID_DEVICE;
  if ((*queue)->context != command_buffer->context) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

/* Counts one more pending execution unless that breaks sequential use. */
static bool pending_acquire(cl_command_buffer_khr command_buffer) {
  if (command_buffer->flags & CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR) {
    atomic_fetch_add(&command_buffer->pending, 1);
    return true;
  }
  unsigned expected = 0;
  return atomic_compare_exchange_strong(&command_buffer->pending, &expected, 1);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCommandBufferKHR(cl_uint num_queues, cl_command_queue *queues,
                                                          cl_command_buffer_khr command_buffer,
                                                          cl_uint num_events_in_wait_list,
                                                          const cl_event *event_wait_list, cl_event *event) {
  if (!kiln_command_buffer_is_valid(command_buffer)) return CL_INVALID_COMMAND_BUFFER_KHR;
  pthread_mutex_lock(&command_buffer->lock);
  bool finalized = command_buffer->finalized;
  pthread_mutex_unlock(&command_buffer->lock);
  if (!finalized) return CL_INVALID_OPERATION;
  cl_command_queue queue;
  cl_int err = execution_queue(command_buffer, num_queues, queues, &queue);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_command_check_wait_list(queue, num_events_in_wait_list, event_wait_list)) != CL_SUCCESS)
    return err;
  if (!pending_acquire(command_buffer)) return CL_INVALID_OPERATION;

  struct kiln_command *command = kiln_command_create(queue, CL_COMMAND_COMMAND_BUFFER_KHR, NULL, &err);
  if (!command) {
    atomic_fetch_sub(&command_buffer->pending, 1);
    return err;
  }
  *(cl_command_buffer_khr *)kiln_command_payload(command) = command_buffer;
  kiln_command_hold(command, &command_buffer->obj); /* a release while pending waits for the end */
  kiln_command_set_batches(command, 1, replay);
  kiln_command_set_completion(command, execution_complete);
  return kiln_command_submit(command, num_events_in_wait_list, event_wait_list, event, CL_FALSE);
}
