/* replay.h: running recorded commands again. Command buffers and QCOM recordings keep the
 * commands their recording calls built (never submitted: see the sinks of command.h) and
 * run them, in order, inside one queue command of their own. A step is one recorded
 * command reduced to what running it takes; the payloads are only read, so concurrent
 * replays may share steps. */
#ifndef KILN_RUNTIME_REPLAY_H
#define KILN_RUNTIME_REPLAY_H

#include "runtime/command.h"

struct kiln_ndrange_launch;

/* Exactly one of run / run_batch is set. */
struct kiln_replay_step {
  kiln_command_run_fn run;
  kiln_command_batch_fn run_batch;
  size_t batch_count;
  struct kiln_command *command;
  const struct kiln_ndrange_launch *launch; /* NDRange steps: their launch (trace, printf); else NULL */
};

/* The steps of `count` recorded commands (NULL entries and commands with nothing to run,
 * such as empty NDRanges, are left out); NULL on allocation failure. Free with free().
 * *stack_bytes: the most stack a step's kernels need (kiln_command_stack), for the
 * executions' command. */
struct kiln_replay_step *kiln_replay_steps_new(struct kiln_command *const *commands, size_t count,
                                               size_t *step_count, uint64_t *stack_bytes);

/* Runs `count` steps in order on the calling thread, which runs a job batch of a command
 * of `queue` as `worker_id` (holding a place of the queue's compute-unit limit, if any):
 * one-batch steps in place, multi-batch steps shared with the workers on the queue's lane
 * under the same limit (each finished before the next starts); a kernel that calls printf
 * gets a printf buffer of its own for this run. Stops at the first negative status and
 * returns it. */
cl_int kiln_replay_run(const struct kiln_replay_step *steps, size_t count, unsigned worker_id,
                       cl_command_queue queue);

/* What an execution runs and who is told when it ends: `steps` must stay valid until
 * `complete(owner)` is called. */
struct kiln_replay_execution {
  const struct kiln_replay_step *steps;
  size_t step_count;
  uint64_t stack_bytes; /* kiln_replay_steps_new's */
  void (*complete)(void *owner);
  void *owner;
};

/* Submits one command of `type` to a valid `queue` (after the checked wait list) whose
 * single batch runs the steps with kiln_replay_run. `complete` is called exactly once:
 * when the command completes however it ends, or before returning when it cannot be
 * created. */
cl_int kiln_replay_submit(cl_command_queue queue, cl_command_type type, const struct kiln_replay_execution *execution,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event);

#endif
