/* The command model's entry points for enqueue code (see command.h). */
#include "runtime/command.h"

#include "runtime/clock.h"
#include "runtime/event.h"
#include "runtime/extension.h"
#include "runtime/platform.h"
#include "runtime/queue.h"
#include "runtime/scheduler.h"

#include <stdlib.h>

/* Every extension's check sees every enqueue: an event of a queue with extension
 * properties may restrict queues without any. */
static cl_int run_enqueue_checks(const struct kiln_enqueue_check *check) {
  unsigned count;
  const kiln_enqueue_check_fn *checks = kiln_extension_enqueue_checks(&count);
  for (unsigned i = 0; i < count; i++) {
    cl_int err = checks[i](check);
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int kiln_command_check_enqueue(cl_command_queue queue, cl_command_type type, cl_uint num_events,
                                  const cl_event *wait_list, const cl_event *event) {
  if ((wait_list == NULL) != (num_events == 0)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < num_events; i++)
    if (!kiln_event_is_valid(wait_list[i])) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < num_events; i++)
    if (wait_list[i]->context != queue->context) return CL_INVALID_CONTEXT;
  struct kiln_enqueue_check check = {queue, type, num_events, wait_list, event != NULL, false};
  return run_enqueue_checks(&check);
}

struct kiln_command *kiln_command_create(cl_command_queue queue, cl_command_type type, kiln_command_run_fn run,
                                         cl_int *errcode) {
  cl_int err;
  cl_event event = kiln_event_create(queue->context, queue, type, &err);
  if (errcode) *errcode = err;
  if (!event) return NULL;
  event->run = run;
  return KILN_EVENT_COMMAND(event);
}

void *kiln_command_payload(struct kiln_command *command) { return KILN_COMMAND_EVENT(command)->payload; }

bool kiln_command_reserve_holds(struct kiln_command *command, unsigned count) {
  cl_event event = KILN_COMMAND_EVENT(command);
  if (count <= KILN_COMMAND_MAX_HOLDS) return true;
  unsigned extra = count - KILN_COMMAND_MAX_HOLDS;
  if (extra <= event->extra_hold_capacity) return true;
  struct kiln_object **holds = realloc(event->extra_holds, extra * sizeof *holds);
  if (!holds) return false;
  event->extra_holds = holds;
  event->extra_hold_capacity = extra;
  return true;
}

void kiln_command_hold(struct kiln_command *command, struct kiln_object *object) {
  cl_event event = KILN_COMMAND_EVENT(command);
  if (event->hold_count < KILN_COMMAND_MAX_HOLDS) {
    kiln_object_retain(object);
    event->holds[event->hold_count++] = object;
    return;
  }
  if (event->extra_hold_count == event->extra_hold_capacity &&
      !kiln_command_reserve_holds(command, KILN_COMMAND_MAX_HOLDS + 2 * event->extra_hold_capacity + 4))
    abort(); /* a hold cannot be dropped silently; callers that can fail reserve first */
  kiln_object_retain(object);
  event->extra_holds[event->extra_hold_count++] = object;
}

void *kiln_command_side_alloc(struct kiln_command *command, size_t size, size_t alignment) {
  cl_event event = KILN_COMMAND_EVENT(command);
  if (event->side_block) abort(); /* one side block per command */
  size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  event->side_block = aligned_alloc(alignment, rounded ? rounded : alignment);
  return event->side_block;
}

void kiln_command_set_batches(struct kiln_command *command, size_t batch_count, kiln_command_batch_fn run_batch) {
  cl_event event = KILN_COMMAND_EVENT(command);
  event->run_batch = run_batch;
  event->batch_count = batch_count;
  atomic_init(&event->batch_status, 0);
}

void kiln_command_set_stack(struct kiln_command *command, uint64_t bytes) {
  KILN_COMMAND_EVENT(command)->stack_bytes = bytes;
}

uint64_t kiln_command_stack(struct kiln_command *command) { return KILN_COMMAND_EVENT(command)->stack_bytes; }

void kiln_command_set_completion(struct kiln_command *command, kiln_command_complete_fn on_complete) {
  KILN_COMMAND_EVENT(command)->on_complete = on_complete;
}

void kiln_command_retain(struct kiln_command *command) { kiln_object_retain(&KILN_COMMAND_EVENT(command)->obj); }

void kiln_command_discard(struct kiln_command *command) { kiln_object_release(&KILN_COMMAND_EVENT(command)->obj); }

cl_int kiln_command_submit(struct kiln_command *command, cl_uint num_events, const cl_event *wait_list,
                           cl_event *event_ret, cl_bool blocking) {
  cl_event event = KILN_COMMAND_EVENT(command);
  cl_command_queue queue = event->queue;
  if (event->profiling) event->time_queued = kiln_time_now_ns();
  for (cl_uint i = 0; i < num_events; i++)
    if (wait_list[i] != event) kiln_event_add_dependent(wait_list[i], event, true);
  bool is_barrier = event->type == CL_COMMAND_BARRIER;
  /* A marker or barrier waits for its wait list, or for every earlier command only when the
   * list is empty; a barrier with a list still holds back every later command. */
  bool wait_for_all = (is_barrier || event->type == CL_COMMAND_MARKER) && num_events == 0;
  kiln_queue_link_command(queue, event, wait_for_all, is_barrier);
  if (event_ret) {
    kiln_object_publish(&event->obj);
    *event_ret = event;
  }
  if (blocking) kiln_object_retain(&event->obj); /* the wait's own hold */
  if (event->profiling) event->time_submit = kiln_time_now_ns();
  kiln_event_set_status(event, CL_SUBMITTED);
  /* Drops the submission's guard: ready now or when the last dependency completes. */
  kiln_scheduler_submit(event, blocking);
  if (!blocking) return CL_SUCCESS;
  cl_int status = kiln_event_wait(event);
  kiln_object_release(&event->obj);
  return status < 0 ? status : CL_SUCCESS;
}

cl_int kiln_command_sink_check(const struct kiln_command_sink *sink, cl_command_type type) {
  if (!sink->recorder)
    return kiln_command_check_enqueue(sink->queue, type, sink->num_events, sink->wait_list, sink->event);
  cl_int err = sink->recorder->check_dependencies(sink->recorder);
  struct kiln_enqueue_check check = {sink->queue, type, 0, NULL, false, true};
  return err != CL_SUCCESS ? err : run_enqueue_checks(&check);
}

cl_int kiln_command_sink_take(const struct kiln_command_sink *sink, struct kiln_command *command, cl_bool blocking) {
  if (sink->recorder) return sink->recorder->record(sink->recorder, command);
  return kiln_command_submit(command, sink->num_events, sink->wait_list, sink->event, blocking);
}

kiln_command_run_fn kiln_command_run_function(struct kiln_command *command) { return KILN_COMMAND_EVENT(command)->run; }

kiln_command_batch_fn kiln_command_batch_function(struct kiln_command *command, size_t *batch_count) {
  cl_event event = KILN_COMMAND_EVENT(command);
  *batch_count = event->batch_count;
  return event->run_batch;
}
