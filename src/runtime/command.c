/* The command model's entry points for enqueue code (see command.h). */
#include "runtime/command.h"
#include "runtime/debug_err.h"

#include "runtime/clock.h"
#include "runtime/command_state.h"
#include "runtime/event.h"
#include "runtime/extension.h"
#include "runtime/platform.h"
#include "runtime/queue.h"
#include "runtime/scheduler.h"
#include "runtime/submission.h"

#include <stdlib.h>
#include <string.h>

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
  if ((wait_list == NULL) != (num_events == 0))
    return KILN_FAIL(CL_INVALID_EVENT_WAIT_LIST, "num_events_in_wait_list is %u but event_wait_list is %s", num_events,
                     wait_list ? "not NULL" : "NULL");
  for (cl_uint i = 0; i < num_events; i++)
    if (!kiln_event_is_valid(wait_list[i]))
      return KILN_FAIL(CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u] (%p) is not a valid cl_event", i,
                       (void *)wait_list[i]);
  for (cl_uint i = 0; i < num_events; i++)
    if (wait_list[i]->context != queue->context)
      return KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "wait_list[i]->context != queue->context");
  struct kiln_enqueue_check check = {queue, type, num_events, wait_list, event != NULL, false};
  return run_enqueue_checks(&check);
}

static void command_init(struct kiln_command *command, kiln_command_run_fn run) {
  command->run = run;
  atomic_init(&command->refs, 1);
}

struct kiln_command *kiln_command_create(cl_command_queue queue, cl_command_type type, kiln_command_run_fn run,
                                         cl_int *errcode) {
  cl_int err;
  cl_event event = kiln_event_create(queue->context, queue, type, &err);
  if (errcode) *errcode = err;
  if (!event) return NULL;
  struct kiln_command *command = &kiln_submission_of_event(event)->command;
  command_init(command, run);
  command->event = event;
  return command;
}

struct kiln_command *kiln_command_create_recorded(kiln_command_run_fn run, cl_int *errcode) {
  struct kiln_command *command = aligned_alloc(_Alignof(struct kiln_command), sizeof *command);
  if (errcode) *errcode = command ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  if (!command) return NULL;
  memset(command, 0, sizeof *command);
  command_init(command, run);
  return command;
}

void *kiln_command_payload(struct kiln_command *command) { return command->payload; }

bool kiln_command_reserve_holds(struct kiln_command *command, unsigned count) {
  if (count <= KILN_COMMAND_MAX_HOLDS) return true;
  unsigned extra = count - KILN_COMMAND_MAX_HOLDS;
  if (extra <= command->extra_hold_capacity) return true;
  struct kiln_object **holds = realloc(command->extra_holds, extra * sizeof *holds);
  if (!holds) return false;
  command->extra_holds = holds;
  command->extra_hold_capacity = extra;
  return true;
}

void kiln_command_hold(struct kiln_command *command, struct kiln_object *object) {
  if (command->hold_count < KILN_COMMAND_MAX_HOLDS) {
    kiln_object_retain(object);
    command->holds[command->hold_count++] = object;
    return;
  }
  if (command->extra_hold_count == command->extra_hold_capacity &&
      !kiln_command_reserve_holds(command, KILN_COMMAND_MAX_HOLDS + 2 * command->extra_hold_capacity + 4))
    abort(); /* a hold cannot be dropped silently; callers that can fail reserve first */
  kiln_object_retain(object);
  command->extra_holds[command->extra_hold_count++] = object;
}

void *kiln_command_side_alloc(struct kiln_command *command, size_t size, size_t alignment) {
  if (command->side_block) abort(); /* one side block per command */
  size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  command->side_block = aligned_alloc(alignment, rounded ? rounded : alignment);
  return command->side_block;
}

void kiln_command_set_launch(struct kiln_command *command, const struct kiln_ndrange_launch *launch,
                             size_t batch_count) {
  command->launch = launch;
  command->batch_count = batch_count;
}

void kiln_command_set_worker_run(struct kiln_command *command, kiln_command_worker_fn run_on_worker) {
  command->run_on_worker = run_on_worker;
}

void kiln_command_set_stack(struct kiln_command *command, uint64_t bytes) { command->stack_bytes = bytes; }

void kiln_command_set_completion(struct kiln_command *command, kiln_command_complete_fn on_complete) {
  command->on_complete = on_complete;
}

void kiln_command_retain(struct kiln_command *command) {
  atomic_fetch_add_explicit(&command->refs, 1, memory_order_relaxed);
}

void kiln_command_discard(struct kiln_command *command) {
  if (command->event) {
    kiln_object_release(&command->event->obj); /* frees the command with its event */
  } else if (atomic_fetch_sub_explicit(&command->refs, 1, memory_order_acq_rel) == 1) {
    kiln_command_free_parts(command);
    free(command);
  }
}

cl_int kiln_command_submit(struct kiln_command *command, cl_uint num_events, const cl_event *wait_list,
                           cl_event *event_ret, cl_bool blocking) {
  cl_event event = command->event;
  if (!event) abort(); /* a recorded command is replayed, never submitted */
  cl_command_queue queue = event->queue;
  if (event->profiling) event->time_queued = kiln_time_now_ns();
  for (cl_uint i = 0; i < num_events; i++)
    if (wait_list[i] != event) kiln_event_add_dependent(wait_list[i], event, true);
  bool is_barrier = event->type == CL_COMMAND_BARRIER;
  /* A marker or barrier waits for its wait list, or for every earlier command only when the
   * list is empty; a barrier with a list still holds back every later command. */
  bool wait_for_all =
      ((is_barrier || event->type == CL_COMMAND_MARKER) && num_events == 0) || event->after_earlier_commands;
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
  cl_int err = sink->recorder->check(sink->recorder, sink, type);
  struct kiln_enqueue_check check = {sink->queue, type, 0, NULL, false, true};
  return err != CL_SUCCESS ? err : run_enqueue_checks(&check);
}

