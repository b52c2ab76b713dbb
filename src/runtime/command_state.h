/* command_state.h: the fields of a command, for the files that build, run, replay and
 * free commands (command.c, event.c, scheduler.c, replay.c). Enqueue code sees command.h
 * only. A command is what to run — a task on any thread (`run`), a task that needs a
 * worker-pool thread (`run_on_worker`: replays), an NDRange launch (`launch`), or nothing
 * (markers, barriers, empty launches) — with its payload and the objects it holds. A
 * submitted command lives in one allocation with its event (submission.h); a recorded
 * command (command buffers, recordings) is a bare command that its recorder replays and
 * that versions of a recording may share by reference count. */
#ifndef KILN_RUNTIME_COMMAND_STATE_H
#define KILN_RUNTIME_COMMAND_STATE_H

#include "runtime/command.h"

#include <stdalign.h>
#include <stdlib.h>

struct kiln_command {
  struct _cl_event *event; /* submitted: the event it completes; recorded: NULL */
  atomic_uint refs;        /* recorded: its owners; a submitted one follows its event */
  unsigned hold_count;
  kiln_command_run_fn run;
  kiln_command_worker_fn run_on_worker;
  const struct kiln_ndrange_launch *launch; /* in the payload; run in `batch_count` batches */
  size_t batch_count;
  uint64_t stack_bytes; /* what its kernels' code needs (kiln_command_set_stack) */
  kiln_command_complete_fn on_complete;
  struct kiln_object *holds[KILN_COMMAND_MAX_HOLDS];
  struct kiln_object **extra_holds; /* holds beyond the inline ones */
  unsigned extra_hold_count, extra_hold_capacity;
  void *side_block; /* kiln_command_side_alloc */
  alignas(16) unsigned char payload[KILN_COMMAND_PAYLOAD_BYTES];
};

/* Inline below: every submitted command passes through them. */
static inline void kiln_command_release_holds(struct kiln_command *command) {
  for (unsigned i = 0; i < command->hold_count; i++) kiln_object_release(command->holds[i]);
  command->hold_count = 0;
  for (unsigned i = 0; i < command->extra_hold_count; i++) kiln_object_release(command->extra_holds[i]);
  command->extra_hold_count = 0;
}

/* The command's end, however it ended: its completion callback, then its holds go. */
static inline void kiln_command_finish(struct kiln_command *command, cl_int status) {
  if (command->on_complete) command->on_complete(command, status);
  kiln_command_release_holds(command);
}

/* Frees what the command allocated besides itself (and the holds of one that never ran). */
static inline void kiln_command_free_parts(struct kiln_command *command) {
  if (command->hold_count) kiln_command_release_holds(command);
  if (command->extra_holds) free(command->extra_holds);
  if (command->side_block) free(command->side_block);
}

#endif
