/* command_buffer_replay.c: finalize's executable form and clEnqueueCommandBufferKHR. An
 * enqueue validates the queue and wait list, then submits one queue command whose single
 * batch runs the replay steps (runtime/replay.h). Nothing is allocated or validated per
 * replay beyond that one command. */
#include "ext/khr_command_buffer/khr_command_buffer.h"

#include "runtime/event.h"
#include "runtime/queue.h"

#include <stdlib.h>

cl_int kiln_command_buffer_build_steps(cl_command_buffer_khr command_buffer) {
  struct kiln_replay_step *steps = calloc(command_buffer->count ? command_buffer->count : 1, sizeof *steps);
  if (!steps) return CL_OUT_OF_HOST_MEMORY;
  size_t n = 0;
  for (size_t i = 0; i < command_buffer->count; i++)
    /* NULL: a barrier; running in order already waits for everything before it. */
    if (command_buffer->commands[i] && kiln_replay_step_of(command_buffer->commands[i], &steps[n])) n++;
  command_buffer->steps = steps;
  command_buffer->step_count = n;
  return CL_SUCCESS;
}

static cl_int replay(struct kiln_command *command, size_t batch, unsigned worker_id) {
  (void)batch;
  cl_command_buffer_khr command_buffer = *(cl_command_buffer_khr *)kiln_command_payload(command);
  return kiln_replay_run(command_buffer->steps, command_buffer->step_count, worker_id);
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
  *queue = queues ? queues[0] : command_buffer->queue;
  if (queues && !kiln_queue_is_valid(*queue)) return CL_INVALID_COMMAND_QUEUE;
  /* Extension bits count too: a recordable queue (cl_qcom_recordable_queues) is not supported. */
  cl_command_queue_properties properties = (*queue)->config.properties | (*queue)->config.ext_property_bits;
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
