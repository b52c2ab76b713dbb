/* replay.h: running recorded commands again. Command buffers and QCOM recordings keep the
 * commands their recording calls built (bare commands, never submitted: see the
 * recorders of command.h) and run them, in order, inside one queue command of their own.
 * A step is one recorded command reduced to what running it takes; the payloads are only
 * read, so concurrent replays may share steps. */
#ifndef KILN_RUNTIME_REPLAY_H
#define KILN_RUNTIME_REPLAY_H

#include "runtime/command.h"

/* Exactly one of run / launch is set. */
struct kiln_replay_step {
  kiln_command_run_fn run;
  const struct kiln_ndrange_launch *launch; /* run in `batch_count` batches (device/cpu/executor.h) */
  size_t batch_count;
  struct kiln_command *command;
};

/* A replay version: recorded commands (NULL entries are barriers) and their steps,
 * shared by reference count with the executions that run it. The commands are kept in
 * chunks of KILN_REPLAY_CHUNK, each with its steps and reference-counted: an update makes
 * a new version that copies only the chunks holding the commands it replaces and shares
 * the others, so its cost grows with the commands it names (and a pointer per chunk), not
 * with the command buffer. Executions already enqueued keep their version. */
#define KILN_REPLAY_CHUNK 32

struct kiln_replay_chunk {
  atomic_uint refs;
  size_t count;                                         /* commands in it (the last chunk may be short) */
  struct kiln_command *commands[KILN_REPLAY_CHUNK];     /* each held by the chunk */
  size_t step_count;                                    /* NULL entries and empty commands have none */
  struct kiln_replay_step steps[KILN_REPLAY_CHUNK];
  uint64_t stack_bytes;                                 /* the most stack a step's kernels need */
};

struct kiln_replay_version {
  atomic_uint refs;
  size_t count;                      /* commands */
  size_t chunk_count;
  struct kiln_replay_chunk **chunks; /* each held by the version */
  uint64_t stack_bytes;              /* the most of its chunks', for the executions' command */
};

/* A version of `count` commands, taking over the caller's references to them (and freeing
 * the array); NULL on allocation failure (the caller keeps both). */
struct kiln_replay_version *kiln_replay_version_new(struct kiln_command **commands, size_t count);
/* A version like `base` where commands[j] takes the place of command indices[j] (distinct
 * indices; the version takes over those references), sharing everything else. NULL on
 * allocation failure (the replacements stay the caller's). */
struct kiln_replay_version *kiln_replay_version_replace(const struct kiln_replay_version *base, const size_t *indices,
                                                        struct kiln_command *const *commands, size_t replaced);
void kiln_replay_version_release(struct kiln_replay_version *version);

/* What an execution runs and who is told when it ends. The execution takes over one
 * reference to `version`, dropped when it ends (unless `version_borrowed`: the owner keeps
 * the version alive and unchanged until `complete`); then `complete(owner)` is called, if set. */
struct kiln_replay_execution {
  struct kiln_replay_version *version;
  bool version_borrowed;
  void (*complete)(void *owner);
  void *owner;
  /* On an out-of-order queue, start after every command enqueued before (event.h). */
  bool after_earlier_commands;
};

/* Submits one command of `type` to a valid `queue` (after the checked wait list) that
 * runs the steps in order on one worker-pool thread: tasks in place, launches through
 * kiln_execution_run_launch on the queue's lane under its compute-unit limit (each
 * finished before the next starts); it stops at the first negative status, which becomes
 * the command's. `complete` is called exactly once: when the command completes however
 * it ends, or before returning when it cannot be created (the version's reference
 * likewise). */
cl_int kiln_replay_submit(cl_command_queue queue, cl_command_type type, const struct kiln_replay_execution *execution,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event);

#endif
