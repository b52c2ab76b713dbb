/* submission.h: a submitted command's one allocation — its event (first: the allocation
 * is the event object), the command, and the device execution that runs it. Only the
 * event's allocator (event.c) and the scheduler see this layout, and so the device's
 * execution type; every event, user events too, is allocated at this size, so that freed
 * event blocks always fit the next command. */
#ifndef KILN_RUNTIME_SUBMISSION_H
#define KILN_RUNTIME_SUBMISSION_H

#include "device/cpu/executor.h"
#include "runtime/command_state.h"
#include "runtime/event.h"

struct kiln_submission {
  struct _cl_event event;
  struct kiln_command command;
  struct kiln_execution execution;
};

static inline struct kiln_submission *kiln_submission_of_event(cl_event event) {
  return (struct kiln_submission *)event;
}

/* The command an event completes; NULL for a user event. */
static inline struct kiln_command *kiln_event_command(cl_event event) {
  return event->type == CL_COMMAND_USER ? NULL : &kiln_submission_of_event(event)->command;
}

#endif
