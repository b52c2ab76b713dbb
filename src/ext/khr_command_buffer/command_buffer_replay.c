/* command_buffer_replay.c: finalize's executable form and clEnqueueCommandBufferKHR. An
 * enqueue validates the queue and wait list, then submits one queue command that runs the
 * current version's steps (runtime/replay.h), holding the version. Nothing is allocated
 * or validated per replay beyond that one command. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/queue.h"

cl_int kiln_command_buffer_build_version(cl_command_buffer_khr command_buffer) {
  /* NULL entries are barriers: running in order already waits for everything before them. */
  command_buffer->version = kiln_replay_version_new(command_buffer->commands, command_buffer->count);
  if (!command_buffer->version) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for the command buffer's steps");
  command_buffer->commands = NULL; /* the version's now */
  return CL_SUCCESS;
}

/* The execution's end (its version was released): one pending execution less, and the
 * reference it held on the command buffer goes. */
static void execution_complete(void *owner) {
  cl_command_buffer_khr command_buffer = owner;
  atomic_fetch_sub(&command_buffer->pending, 1);
  kiln_object_release(&command_buffer->obj);
}

/* The queue an execution goes to: the creation queue, or a substitute for it. */
static cl_int execution_queue(cl_command_buffer_khr command_buffer, cl_uint num_queues,
                              cl_command_queue *queues, cl_command_queue *queue) {
  if ((queues == NULL) != (num_queues == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(queues == NULL) != (num_queues == 0)");
  if (num_queues > 1)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "num_queues > 1"); /* created with one queue */
  /* The creation queue is held by the command buffer: usable even once the application
   * released its handle. A substitute must be a live handle. */
  *queue = queues ? queues[0] : command_buffer->queue;
  if (queues && !kiln_queue_is_valid(*queue))
    return KILN_FAIL(CL_INVALID_COMMAND_QUEUE, "rejected since (%s)", "queues && !kiln_queue_is_valid(*queue)");
  /* Extension bits count too: a recordable queue (cl_qcom_recordable_queues) is not supported. */
  cl_command_queue_properties properties = (*queue)->config.properties | (*queue)->config.ext_property_bits;
  if ((properties & ~KILN_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES) ||
      (properties & KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES) != KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES)
    return CL_INCOMPATIBLE_COMMAND_QUEUE_KHR;
  if ((*queue)->device != command_buffer->queue->device)
    return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "(*queue)->device != command_buffer->queue->device");
  if ((*queue)->context != command_buffer->context)
    return KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "(*queue)->context != command_buffer->context");
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
  KILN_API_CALL;
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  if (!atomic_load_explicit(&command_buffer->finalized, memory_order_acquire))
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "!atomic_load_explicit(&command_buffer->finalized, memory_order_acquire)");
  cl_command_queue queue;
  cl_int err = execution_queue(command_buffer, num_queues, queues, &queue);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_command_check_enqueue(queue, CL_COMMAND_COMMAND_BUFFER_KHR, num_events_in_wait_list,
                                        event_wait_list, event)) != CL_SUCCESS)
    return err;
  if (!pending_acquire(command_buffer))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command buffer is pending and was not created for simultaneous use");
  kiln_object_retain(&command_buffer->obj); /* a release while pending waits for the end */
  /* A mutable command buffer's version changes under the lock, and the execution holds the
   * one it got. Any other's is fixed once finalized: the command buffer, which the
   * execution holds, keeps it. */
  bool mutable = command_buffer->flags & CL_COMMAND_BUFFER_MUTABLE_KHR;
  struct kiln_replay_version *version;
  if (mutable) {
    pthread_mutex_lock(&command_buffer->lock);
    version = command_buffer->version;
    atomic_fetch_add(&version->refs, 1);
    pthread_mutex_unlock(&command_buffer->lock);
  } else {
    version = command_buffer->version;
  }
  /* On an out-of-order queue an execution starts after every command enqueued before it,
   * as GPU queues run command buffers: the CTS's mutable_dispatch_simultaneous_out_of_order
   * reads one execution's output while the next execution of the same command buffer,
   * enqueued after the read, overwrites it. */
  struct kiln_replay_execution execution = {version, !mutable, execution_complete, command_buffer, true};
  return kiln_replay_submit(queue, CL_COMMAND_COMMAND_BUFFER_KHR, &execution, num_events_in_wait_list,
                            event_wait_list, event);
}
