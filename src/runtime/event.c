#include "runtime/event.h"
#include "runtime/debug_err.h"

#include "runtime/clock.h"
#include "runtime/context.h"
#include "runtime/info.h"
#include "runtime/platform.h"
#include "runtime/queue.h"
#include "runtime/scheduler.h"
#include "runtime/submission.h"

#include "device/cpu/worker_pool.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void event_destroy(struct kiln_object *object) {
  cl_event event = (cl_event)object;
  /* A user event released before its status was set: commands waiting on it would wait
   * forever, so they fail instead (the spec calls this undefined behavior). */
  struct kiln_event_link *link = event->dependents;
  event->dependents = NULL;
  while (link) {
    struct kiln_event_link *next = link->next;
    atomic_store(&link->dependent->dependency_failed, true);
    kiln_scheduler_resolve(link->dependent, false);
    link = next;
  }
  struct kiln_command *command = kiln_event_command(event);
  if (command) kiln_command_free_parts(command);
  struct kiln_event_callback *callback = event->callbacks;
  while (callback) {
    struct kiln_event_callback *next = callback->next;
    free(callback);
    callback = next;
  }
  for (struct kiln_event_link *owned = event->heap_links; owned;) {
    struct kiln_event_link *next = owned->owned_next;
    free(owned);
    owned = next;
  }
  pthread_mutex_destroy(&event->lock);
  if (event->queue) kiln_object_release(&event->queue->obj);
  kiln_object_release(&event->context->obj);
  kiln_object_free(&event->obj);
}

cl_event kiln_event_create(cl_context context, cl_command_queue queue, cl_command_type type, cl_int *errcode) {
  cl_event event = kiln_object_alloc(KILN_OBJECT_EVENT, sizeof(struct kiln_submission));
  if (!event) {
    *errcode = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!event");
    return NULL;
  }
  kiln_object_init_internal(&event->obj, KILN_OBJECT_EVENT, event_destroy);
  event->type = type;
  event->queue = queue;
  if (queue) kiln_object_retain(&queue->obj);
  event->context = context;
  kiln_object_retain(&context->obj);
  atomic_init(&event->status, queue ? CL_QUEUED : CL_SUBMITTED);
  atomic_init(&event->waiters, 0);
  atomic_init(&event->pending, 1);
  atomic_init(&event->dependency_failed, false);
  event->profiling = queue && (queue->config.properties & CL_QUEUE_PROFILING_ENABLE);
  pthread_mutex_init(&event->lock, NULL);
  event->callbacks_tail = &event->callbacks;
  *errcode = CL_SUCCESS;
  return event;
}

/* Unlinks the callbacks due at `status` (all of them for a final status) from the event. */
static struct kiln_event_callback *take_due_callbacks_locked(cl_event event, cl_int status) {
  struct kiln_event_callback *due = NULL, **due_tail = &due;
  struct kiln_event_callback **link = &event->callbacks;
  while (*link) {
    struct kiln_event_callback *callback = *link;
    if (status <= callback->type) {
      *link = callback->next;
      callback->next = NULL;
      callback->fire_status = status < 0 ? status : callback->type;
      *due_tail = callback;
      due_tail = &callback->next;
    } else {
      link = &callback->next;
    }
  }
  event->callbacks_tail = link;
  return due;
}

static void post_callbacks(cl_event event, struct kiln_event_callback *due) {
  while (due) {
    struct kiln_event_callback *next = due->next;
    kiln_event_callbacks_post(event, due, due->fire_status);
    due = next;
  }
}

void kiln_event_set_status(cl_event event, cl_int status) {
  pthread_mutex_lock(&event->lock);
  atomic_store(&event->status, status);
  struct kiln_event_callback *due = event->callbacks ? take_due_callbacks_locked(event, status) : NULL;
  pthread_mutex_unlock(&event->lock);
  post_callbacks(event, due);
}

void kiln_event_complete(cl_event event, cl_int status, bool drop_reference) {
  struct kiln_command *command = kiln_event_command(event);
  if (command) kiln_command_finish(command, status);
  if (event->profiling) {
    cl_ulong now = kiln_time_now_ns();
    if (!event->time_start) event->time_start = now;
    if (!event->time_end) event->time_end = now;
    event->time_complete = now;
  }

  pthread_mutex_lock(&event->lock);
  atomic_store(&event->status, status);
  struct kiln_event_link *dependents = event->dependents;
  event->dependents = NULL;
  struct kiln_event_callback *due = event->callbacks ? take_due_callbacks_locked(event, status) : NULL;
  pthread_mutex_unlock(&event->lock);
  /* Unlinked only once final, so an in-order successor always depends on it until then. */
  if (event->queue) kiln_queue_unlink_command(event->queue, event);
  post_callbacks(event, due);

  /* A waiter holds its own reference, so the event outlives the wake whenever one was
   * registered; a waiter arriving later sees the final status and does not sleep. */
  bool wake = atomic_load(&event->waiters) != 0;
  if (drop_reference) kiln_object_release(&event->obj);
  if (wake) syscall(SYS_futex, &event->status, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);

  while (dependents) {
    struct kiln_event_link *next = dependents->next; /* the link may go with its dependent */
    cl_event dependent = dependents->dependent;
    if (status < 0 && dependents->propagate_failure) atomic_store(&dependent->dependency_failed, true);
    kiln_scheduler_resolve(dependent, false);
    dependents = next;
  }
}

static struct kiln_event_link *link_alloc(cl_event dependent) {
  if (dependent->inline_links_used < KILN_EVENT_INLINE_LINKS)
    return &dependent->inline_links[dependent->inline_links_used++];
  struct kiln_event_link *link = malloc(sizeof *link);
  if (!link) abort(); /* a dependency cannot be dropped silently */
  link->owned_next = dependent->heap_links;
  dependent->heap_links = link;
  return link;
}

bool kiln_event_add_dependent(cl_event event, cl_event dependent, bool propagate_failure) {
  pthread_mutex_lock(&event->lock);
  cl_int status = atomic_load(&event->status);
  if (status <= CL_COMPLETE) {
    pthread_mutex_unlock(&event->lock);
    if (status < 0 && propagate_failure) atomic_store(&dependent->dependency_failed, true);
    return false;
  }
  /* Links are only allocated by the thread submitting `dependent`. */
  struct kiln_event_link *link = link_alloc(dependent);
  link->dependent = dependent;
  link->propagate_failure = propagate_failure;
  atomic_fetch_add(&dependent->pending, 1);
  link->next = event->dependents;
  event->dependents = link;
  pthread_mutex_unlock(&event->lock);
  return true;
}

/* How long a waiter with nothing to help with watches the event before it sleeps: a
 * short command taken by a worker completes within this, and sleeping would add a futex
 * wake and a context switch (microseconds) to its latency. */
#define WAIT_SPIN_NS 10000

/* True when the event completed (or failed) within WAIT_SPIN_NS. */
static bool spin_until_done(cl_event event) {
  cl_ulong end = kiln_time_now_ns() + WAIT_SPIN_NS;
  do {
    for (int i = 0; i < 64; i++) {
      if (atomic_load_explicit(&event->status, memory_order_acquire) <= CL_COMPLETE) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause(); /* lets a sibling hyperthread run while this one watches */
#endif
    }
  } while (kiln_time_now_ns() < end);
  return false;
}

cl_int kiln_event_wait(cl_event event) {
  cl_int status;
  while ((status = atomic_load(&event->status)) > CL_COMPLETE) {
    if (kiln_worker_pool_help()) continue;
    if (spin_until_done(event)) continue;
    kiln_worker_pool_flush(); /* whatever this event waits for may be queued behind other work */
    atomic_fetch_add(&event->waiters, 1);
    status = atomic_load(&event->status);
    if (status > CL_COMPLETE) syscall(SYS_futex, &event->status, FUTEX_WAIT_PRIVATE, status, NULL, NULL, 0);
    atomic_fetch_sub(&event->waiters, 1);
  }
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list) {
  KILN_API_CALL;
  if (num_events == 0 || !event_list)
    return KILN_FAIL(CL_INVALID_VALUE, "num_events is %u and event_list is %s: a non-empty list is required",
                     num_events, event_list ? "not NULL" : "NULL");
  for (cl_uint i = 0; i < num_events; i++)
    if (!kiln_event_is_valid(event_list[i]))
      return KILN_FAIL(CL_INVALID_EVENT, "event_list[%u] (%p) is not a valid cl_event", i, (void *)event_list[i]);
  for (cl_uint i = 1; i < num_events; i++)
    if (event_list[i]->context != event_list[0]->context)
      return KILN_FAIL(CL_INVALID_CONTEXT, "event_list[%u] belongs to another context than event_list[0]", i);
  /* Submission is eager, so the implicit flush of the events' queues has nothing to do. */
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < num_events; i++) {
    cl_event event = event_list[i];
    kiln_object_retain(&event->obj);
    if (kiln_event_wait(event) < 0) result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    kiln_object_release(&event->obj);
  }
  return result;
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name, size_t param_value_size,
                                               void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_event_is_valid(event)) return KILN_FAIL_HANDLE(CL_INVALID_EVENT, event, cl_event);
  switch (param_name) {
  case CL_EVENT_COMMAND_QUEUE:
    KILN_INFO_VALUE(cl_command_queue, event->queue);
  case CL_EVENT_CONTEXT:
    KILN_INFO_VALUE(cl_context, event->context);
  case CL_EVENT_COMMAND_TYPE:
    KILN_INFO_VALUE(cl_command_type, event->type);
  case CL_EVENT_COMMAND_EXECUTION_STATUS:
    kiln_worker_pool_flush(); /* an application polling the status expects progress */
    KILN_INFO_VALUE(cl_int, atomic_load(&event->status));
  case CL_EVENT_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&event->obj.api_refs));
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetEventInfo knows", (unsigned)param_name);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event event) {
  KILN_API_CALL;
  return kiln_object_api_retain(event, KILN_OBJECT_EVENT, CL_INVALID_EVENT);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  KILN_API_CALL;
  return kiln_object_api_release(event, KILN_OBJECT_EVENT, CL_INVALID_EVENT);
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name,
                                                        size_t param_value_size, void *param_value,
                                                        size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_event_is_valid(event)) return KILN_FAIL_HANDLE(CL_INVALID_EVENT, event, cl_event);
  cl_ulong value;
  switch (param_name) {
  case CL_PROFILING_COMMAND_QUEUED: value = event->time_queued; break;
  case CL_PROFILING_COMMAND_SUBMIT: value = event->time_submit; break;
  case CL_PROFILING_COMMAND_START: value = event->time_start; break;
  case CL_PROFILING_COMMAND_END: value = event->time_end; break;
  case CL_PROFILING_COMMAND_COMPLETE: value = event->time_complete; break;
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetEventProfilingInfo knows",
                     (unsigned)param_name);
  }
  if (!event->profiling || atomic_load(&event->status) != CL_COMPLETE)
    return KILN_FAIL(CL_PROFILING_INFO_NOT_AVAILABLE, "rejected since (%s)",
                     "!event->profiling || atomic_load(&event->status) != CL_COMPLETE");
  return kiln_info_copy(param_value_size, param_value, param_value_size_ret, &value, sizeof value);
}
