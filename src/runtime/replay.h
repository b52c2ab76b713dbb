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
  const struct kiln_ndrange_launch *printf_launch; /* kernels that call printf: their launch */
};

/* The step for `command`; false when running it does nothing (a marker, an empty NDRange). */
bool kiln_replay_step_of(struct kiln_command *command, struct kiln_replay_step *step);

/* Runs `count` steps in order on the calling thread, which runs a job batch as
 * `worker_id`: one-batch steps in place, multi-batch steps shared with the workers (each
 * finished before the next starts); a kernel that calls printf gets a printf buffer of its
 * own for this run. Stops at the first negative status and returns it. */
cl_int kiln_replay_run(const struct kiln_replay_step *steps, size_t count, unsigned worker_id);

#endif
