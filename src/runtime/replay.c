/* replay.c: see replay.h. */
#include "runtime/replay.h"

#include "device/cpu/executor.h"
#include "runtime/command_state.h"
#include "runtime/event.h"
#include "runtime/queue.h"

#include <stdlib.h>

static bool step_of(struct kiln_command *command, struct kiln_replay_step *step) {
  *step = (struct kiln_replay_step){.command = command, .launch = command->launch};
  if (command->launch) step->batch_count = command->batch_count;
  else step->run = command->run;
  return step->run || step->launch;
}

struct kiln_replay_step *kiln_replay_steps_new(struct kiln_command *const *commands, size_t count,
                                               size_t *step_count, uint64_t *stack_bytes) {
  struct kiln_replay_step *steps = calloc(count ? count : 1, sizeof *steps);
  if (!steps) return NULL;
  size_t n = 0;
  *stack_bytes = 0;
  for (size_t i = 0; i < count; i++) {
    if (!commands[i] || !step_of(commands[i], &steps[n])) continue;
    if (commands[i]->stack_bytes > *stack_bytes) *stack_bytes = commands[i]->stack_bytes;
    n++;
  }
  *step_count = n;
  return steps;
}

struct kiln_replay_version *kiln_replay_version_new(struct kiln_command **commands, size_t count) {
  struct kiln_replay_version *version = calloc(1, sizeof *version);
  struct kiln_replay_step *steps =
      version ? kiln_replay_steps_new(commands, count, &version->step_count, &version->stack_bytes) : NULL;
  if (!steps) {
    free(version);
    return NULL;
  }
  atomic_init(&version->refs, 1);
  version->commands = commands;
  version->count = count;
  version->steps = steps;
  return version;
}

struct kiln_replay_version *kiln_replay_version_replace(const struct kiln_replay_version *base,
                                                        struct kiln_command *const *replacements) {
  struct kiln_command **commands = malloc((base->count ? base->count : 1) * sizeof *commands);
  if (!commands) return NULL;
  for (size_t i = 0; i < base->count; i++) commands[i] = replacements[i] ? replacements[i] : base->commands[i];
  struct kiln_replay_version *version = kiln_replay_version_new(commands, base->count);
  if (!version) {
    free(commands);
    return NULL;
  }
  for (size_t i = 0; i < base->count; i++)
    if (!replacements[i] && commands[i]) kiln_command_retain(commands[i]);
  return version;
}

void kiln_replay_version_release(struct kiln_replay_version *version) {
  if (!version || atomic_fetch_sub(&version->refs, 1) != 1) return;
  for (size_t i = 0; i < version->count; i++)
    if (version->commands[i]) kiln_command_discard(version->commands[i]);
  free(version->commands);
  free(version->steps);
  free(version);
}

/* The execution command's payload. */
struct replay_payload {
  struct kiln_replay_execution execution;
  cl_command_queue queue; /* the command's own (its event holds it) */
};

/* Runs on a pool thread holding a place of the queue's compute-unit limit, if any: the
 * launches share that limit. */
static cl_int run_steps(struct kiln_command *command, unsigned worker_id) {
  const struct replay_payload *payload = kiln_command_payload(command);
  const struct kiln_replay_version *version = payload->execution.version;
  struct kiln_worker_limit *limit = kiln_queue_worker_limit(payload->queue);
  unsigned lane = payload->queue->config.placement.lane;
  for (size_t i = 0; i < version->step_count; i++) {
    const struct kiln_replay_step *step = &version->steps[i];
    cl_int status = step->run ? step->run(step->command)
                              : kiln_execution_run_launch(step->launch, step->batch_count, worker_id, limit, lane, NULL);
    if (status < 0) return status;
  }
  return CL_SUCCESS;
}

static void execution_end(const struct kiln_replay_execution *execution) {
  kiln_replay_version_release(execution->version);
  if (execution->complete) execution->complete(execution->owner);
}

static void execution_complete(struct kiln_command *command, cl_int status) {
  (void)status;
  const struct replay_payload *payload = kiln_command_payload(command);
  execution_end(&payload->execution);
}

cl_int kiln_replay_submit(cl_command_queue queue, cl_command_type type, const struct kiln_replay_execution *execution,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  cl_int err;
  struct kiln_command *command = kiln_command_create(queue, type, NULL, &err);
  if (!command) {
    execution_end(execution);
    return err;
  }
  *(struct replay_payload *)kiln_command_payload(command) = (struct replay_payload){*execution, queue};
  kiln_command_set_worker_run(command, run_steps);
  /* The thread that runs the execution runs its kernels' launchers too. */
  kiln_command_set_stack(command, execution->version->stack_bytes);
  kiln_command_set_completion(command, execution_complete);
  command->event->after_earlier_commands = execution->after_earlier_commands;
  return kiln_command_submit(command, num_events, wait_list, event, CL_FALSE);
}
