/* Synchronization commands: markers, barriers, clEnqueueWaitForEvents, clFlush, clFinish. */
#include "runtime/event.h"
#include "runtime/debug_err.h"
#include "runtime/queue.h"

#include "device/cpu/worker_pool.h"
#include "runtime/context.h"

#include <stdlib.h>

cl_int kiln_queue_enqueue_sync(cl_command_queue queue, cl_command_type type, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event, cl_bool blocking) {
  cl_int err;
  struct kiln_command *command = kiln_command_create(queue, type, NULL, &err);
  if (!command) return err;
  return kiln_command_submit(command, num_events, wait_list, event, blocking);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  cl_int err = kiln_command_check_enqueue(command_queue, CL_COMMAND_MARKER, num_events_in_wait_list,
                                          event_wait_list, event);
  if (err != CL_SUCCESS) return err;
  return kiln_queue_enqueue_sync(command_queue, CL_COMMAND_MARKER, num_events_in_wait_list, event_wait_list, event,
                                 CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue command_queue,
                                                             cl_uint num_events_in_wait_list,
                                                             const cl_event *event_wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  cl_int err = kiln_command_check_enqueue(command_queue, CL_COMMAND_BARRIER, num_events_in_wait_list,
                                          event_wait_list, event);
  if (err != CL_SUCCESS) return err;
  return kiln_queue_enqueue_sync(command_queue, CL_COMMAND_BARRIER, num_events_in_wait_list, event_wait_list, event,
                                 CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarker(cl_command_queue command_queue, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  if (!event) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!event");
  cl_int err = kiln_command_check_enqueue(command_queue, CL_COMMAND_MARKER, 0, NULL, event);
  if (err != CL_SUCCESS) return err;
  return kiln_queue_enqueue_sync(command_queue, CL_COMMAND_MARKER, 0, NULL, event, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue command_queue) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  cl_int err = kiln_command_check_enqueue(command_queue, CL_COMMAND_BARRIER, 0, NULL, NULL);
  if (err != CL_SUCCESS) return err;
  return kiln_queue_enqueue_sync(command_queue, CL_COMMAND_BARRIER, 0, NULL, NULL, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue command_queue, cl_uint num_events,
                                                       const cl_event *event_list) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  if (num_events == 0 || !event_list)
    return KILN_FAIL(CL_INVALID_VALUE, "num_events is %u and event_list is %s: a non-empty list is required",
                     num_events, event_list ? "not NULL" : "NULL");
  cl_int err = kiln_command_check_enqueue(command_queue, KILN_ENQUEUE_WAIT_FOR_EVENTS, num_events, event_list, NULL);
  if (err == CL_INVALID_EVENT_WAIT_LIST) return KILN_RECODE(CL_INVALID_EVENT); /* the 1.0 name for a bad event */
  if (err != CL_SUCCESS) return err;
  /* Later commands must wait for these events: a barrier on the list does exactly that. */
  return kiln_queue_enqueue_sync(command_queue, CL_COMMAND_BARRIER, num_events, event_list, NULL, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue command_queue) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  /* Commands are handed to the pool when their dependencies resolve; with kernel batching
   * their workers' wake-up waits for this flush. Without deferred flush
   * (CL_QUEUE_DEFERRED_FLUSH_ARM = CL_FALSE) this thread runs what it can claim itself. */
  if (command_queue->config.scheduling.flush_in_caller) kiln_worker_pool_help();
  kiln_worker_pool_flush();
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue command_queue) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  return kiln_queue_finish(command_queue);
}

cl_int kiln_context_finish(cl_context context) {
  pthread_mutex_lock(&context->lock);
  size_t count = 0, held_count = 0;
  for (cl_command_queue q = context->queues; q; q = q->context_next) count++;
  cl_command_queue *held = count ? malloc(count * sizeof *held) : NULL;
  /* A queue already being destroyed has no incomplete command left (they hold it). */
  for (cl_command_queue q = context->queues; held && q; q = q->context_next)
    if (kiln_object_try_retain(&q->obj)) held[held_count++] = q;
  pthread_mutex_unlock(&context->lock);
  if (count && !held) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "count && !held");
  cl_int result = CL_SUCCESS;
  for (size_t i = 0; i < held_count; i++) {
    cl_int err = kiln_queue_finish(held[i]);
    if (err != CL_SUCCESS) result = err;
    kiln_object_release(&held[i]->obj);
  }
  free(held);
  return result;
}

cl_int kiln_queue_finish(cl_command_queue command_queue) {
  pthread_mutex_lock(&command_queue->lock);
  cl_event last = command_queue->tail;
  bool empty = last == NULL;
  bool in_order = !kiln_queue_is_out_of_order(command_queue);
  if (last && in_order) kiln_object_retain(&last->obj);
  pthread_mutex_unlock(&command_queue->lock);
  if (empty) return CL_SUCCESS;
  if (in_order) {
    /* In order, the last command completes after all others. */
    kiln_event_wait(last);
    kiln_object_release(&last->obj);
    return CL_SUCCESS;
  }
  /* A blocking marker waits for every incomplete command; its own status is irrelevant. */
  cl_int err = kiln_queue_enqueue_sync(command_queue, CL_COMMAND_MARKER, 0, NULL, NULL, CL_TRUE);
  return err == CL_OUT_OF_HOST_MEMORY ? err : CL_SUCCESS;
}
