/* event.h: events — what the API sees of submitted work (status, profiling, callbacks)
 * and what the queue and scheduler order it by (dependency links, the queue's list). An
 * event exists only for submitted work: its command (command_state.h) lives in the same
 * allocation (submission.h). A user event has no command and no queue. */
#ifndef KILN_RUNTIME_EVENT_H
#define KILN_RUNTIME_EVENT_H

#include "runtime/command.h"

#include <pthread.h>

struct kiln_event_callback {
  void (CL_CALLBACK *notify)(cl_event event, cl_int status, void *user_data);
  void *user_data;
  cl_int type;                        /* CL_SUBMITTED, CL_RUNNING or CL_COMPLETE */
  cl_int fire_status;                 /* status passed when posted to the callback thread */
  cl_event event;                     /* set when posted */
  struct kiln_event_callback *next;
};

/* "dependent waits for the event whose list this node is on". */
struct kiln_event_link {
  struct _cl_event *dependent;
  struct kiln_event_link *next;       /* on the dependency's list */
  struct kiln_event_link *owned_next; /* heap links of the dependent, for freeing */
  bool propagate_failure;             /* explicit wait-list dependency */
};

/* Links live inline for the first few dependencies of a command (no allocation). */
#define KILN_EVENT_INLINE_LINKS 4

struct _cl_event {
  struct kiln_object obj;
  cl_command_type type;               /* CL_COMMAND_USER: a user event, without command */
  /* CL_QUEUED > CL_SUBMITTED > CL_RUNNING > CL_COMPLETE (0) > errors; also the futex word
   * waiters sleep on. */
  atomic_int status;
  atomic_uint waiters;
  /* Unresolved dependencies + 1 while the submission is still linking them. */
  atomic_uint pending;
  atomic_bool dependency_failed;      /* an explicit wait-list dependency ended negative */
  bool profiling;
  bool user_status_set;               /* user events: clSetUserEventStatus was called */
  bool in_queue_list;
  /* On an out-of-order queue: starts after every command enqueued before it (as a marker
   * with no wait list does), without holding back later ones. */
  bool after_earlier_commands;
  unsigned inline_links_used;
  cl_command_queue queue;             /* internal reference; NULL for user events */
  cl_context context;                 /* internal reference */
  cl_ulong time_queued, time_submit, time_start, time_end, time_complete;

  pthread_mutex_t lock;               /* guards status transitions, dependents, callbacks */
  struct kiln_event_link *dependents;
  struct kiln_event_callback *callbacks, **callbacks_tail;

  struct kiln_event_link inline_links[KILN_EVENT_INLINE_LINKS];
  struct kiln_event_link *heap_links; /* overflow links, freed with the event */

  struct _cl_event *queue_prev, *queue_next; /* the queue's list of incomplete commands */
  struct _cl_event *ready_next;       /* scheduler's per-thread ready list */
  /* The command it completes follows it in the same allocation (submission.h). */
};

static inline bool kiln_event_is_valid(cl_event event) {
  return kiln_object_is_valid(event, KILN_OBJECT_EVENT);
}
static inline bool kiln_event_is_complete(cl_event event) {
  return atomic_load_explicit(&event->status, memory_order_acquire) <= CL_COMPLETE;
}

/* Allocates an internal event (refs = 1, not published) for `context`; queue may be NULL. */
cl_event kiln_event_create(cl_context context, cl_command_queue queue, cl_command_type type, cl_int *errcode);

/* Moves the event to a new non-final status (CL_SUBMITTED, CL_RUNNING), firing callbacks. */
void kiln_event_set_status(cl_event event, cl_int status);
/* Final transition to CL_COMPLETE or a negative status: releases held objects, leaves the
 * queue's list, fires callbacks, drops the caller's reference when `drop_reference` (before
 * waking waiters, so a woken clFinish finds the command's holds gone), wakes waiters and
 * resolves dependents. */
void kiln_event_complete(cl_event event, cl_int status, bool drop_reference);

/* Makes `dependent` wait for `event` (which must stay alive during the call). Returns
 * true when a dependency was added, false when `event` had completed already (then a
 * negative status marks the dependent failed when `propagate_failure`). */
bool kiln_event_add_dependent(cl_event event, cl_event dependent, bool propagate_failure);

/* Blocks until complete (helping the worker pool meanwhile); returns the final status. */
cl_int kiln_event_wait(cl_event event);

/* Queues a callback for the callback thread; it holds an internal reference on `event`
 * until the callback has run. */
void kiln_event_callbacks_post(cl_event event, struct kiln_event_callback *callback, cl_int status);

#endif
