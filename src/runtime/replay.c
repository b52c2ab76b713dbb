/* replay.c: see replay.h. */
#include "runtime/replay.h"

#include "device/cpu/executor.h"
#include "runtime/command_state.h"
#include "runtime/event.h"
#include "runtime/queue.h"

#include <stdlib.h>
#include <string.h>

static bool step_of(struct kiln_command *command, struct kiln_replay_step *step) {
  *step = (struct kiln_replay_step){.command = command, .launch = command->launch};
  if (command->launch) step->batch_count = command->batch_count;
  else step->run = command->run;
  return step->run || step->launch;
}

/* The chunk's steps from its commands. */
static void chunk_build_steps(struct kiln_replay_chunk *chunk) {
  chunk->step_count = 0;
  chunk->stack_bytes = 0;
  for (size_t i = 0; i < chunk->count; i++) {
    struct kiln_command *command = chunk->commands[i];
    if (!command || !step_of(command, &chunk->steps[chunk->step_count])) continue;
    if (command->stack_bytes > chunk->stack_bytes) chunk->stack_bytes = command->stack_bytes;
    chunk->step_count++;
  }
}

static void chunk_release(struct kiln_replay_chunk *chunk) {
  if (atomic_fetch_sub(&chunk->refs, 1) != 1) return;
  for (size_t i = 0; i < chunk->count; i++)
    if (chunk->commands[i]) kiln_command_discard(chunk->commands[i]);
  free(chunk);
}

static void version_set_stack(struct kiln_replay_version *version) {
  version->stack_bytes = 0;
  for (size_t c = 0; c < version->chunk_count; c++)
    if (version->chunks[c]->stack_bytes > version->stack_bytes) version->stack_bytes = version->chunks[c]->stack_bytes;
}

/* A version with room for the chunks of `count` commands (chunks not allocated). */
static struct kiln_replay_version *version_alloc(size_t count) {
  struct kiln_replay_version *version = calloc(1, sizeof *version);
  if (!version) return NULL;
  version->count = count;
  version->chunk_count = (count + KILN_REPLAY_CHUNK - 1) / KILN_REPLAY_CHUNK;
  version->chunks = calloc(version->chunk_count ? version->chunk_count : 1, sizeof *version->chunks);
  if (!version->chunks) {
    free(version);
    return NULL;
  }
  atomic_init(&version->refs, 1);
  return version;
}

/* Frees a version whose chunks were allocated but never filled (an allocation failed). */
static void version_free_unfilled(struct kiln_replay_version *version, const struct kiln_replay_version *base) {
  for (size_t c = 0; c < version->chunk_count; c++)
    if (!base || version->chunks[c] != base->chunks[c]) free(version->chunks[c]);
  free(version->chunks);
  free(version);
}

struct kiln_replay_version *kiln_replay_version_new(struct kiln_command **commands, size_t count) {
  struct kiln_replay_version *version = version_alloc(count);
  if (!version) return NULL;
  for (size_t c = 0; c < version->chunk_count; c++)
    if (!(version->chunks[c] = malloc(sizeof *version->chunks[c]))) {
      version_free_unfilled(version, NULL);
      return NULL;
    }
  for (size_t c = 0; c < version->chunk_count; c++) {
    struct kiln_replay_chunk *chunk = version->chunks[c];
    atomic_init(&chunk->refs, 1);
    chunk->count = count - c * KILN_REPLAY_CHUNK < KILN_REPLAY_CHUNK ? count - c * KILN_REPLAY_CHUNK : KILN_REPLAY_CHUNK;
    memcpy(chunk->commands, commands + c * KILN_REPLAY_CHUNK, chunk->count * sizeof *commands);
    chunk_build_steps(chunk);
  }
  version_set_stack(version);
  free(commands);
  return version;
}

struct kiln_replay_version *kiln_replay_version_replace(const struct kiln_replay_version *base, const size_t *indices,
                                                        struct kiln_command *const *commands, size_t replaced) {
  struct kiln_replay_version *version = version_alloc(base->count);
  if (!version) return NULL;
  /* Allocate first (the chunks holding a replaced command get new ones), so that nothing
   * is held or changed before everything needed exists. */
  memcpy(version->chunks, base->chunks, base->chunk_count * sizeof *base->chunks);
  for (size_t j = 0; j < replaced; j++) {
    size_t c = indices[j] / KILN_REPLAY_CHUNK;
    if (version->chunks[c] != base->chunks[c]) continue;
    if (!(version->chunks[c] = malloc(sizeof *version->chunks[c]))) {
      version->chunks[c] = base->chunks[c];
      version_free_unfilled(version, base);
      return NULL;
    }
    memcpy(version->chunks[c], base->chunks[c], sizeof *base->chunks[c]); /* commands and count; steps redone */
  }
  for (size_t j = 0; j < replaced; j++) {
    struct kiln_replay_chunk *chunk = version->chunks[indices[j] / KILN_REPLAY_CHUNK];
    chunk->commands[indices[j] % KILN_REPLAY_CHUNK] = NULL; /* marked: its reference is the caller's */
  }
  for (size_t c = 0; c < version->chunk_count; c++) {
    struct kiln_replay_chunk *chunk = version->chunks[c];
    if (chunk == base->chunks[c]) {
      atomic_fetch_add(&chunk->refs, 1);
      continue;
    }
    atomic_init(&chunk->refs, 1);
    for (size_t i = 0; i < chunk->count; i++)
      if (chunk->commands[i]) kiln_command_retain(chunk->commands[i]);
  }
  for (size_t j = 0; j < replaced; j++)
    version->chunks[indices[j] / KILN_REPLAY_CHUNK]->commands[indices[j] % KILN_REPLAY_CHUNK] = commands[j];
  for (size_t c = 0; c < version->chunk_count; c++)
    if (version->chunks[c] != base->chunks[c]) chunk_build_steps(version->chunks[c]);
  version_set_stack(version);
  return version;
}

void kiln_replay_version_release(struct kiln_replay_version *version) {
  if (!version || atomic_fetch_sub(&version->refs, 1) != 1) return;
  for (size_t c = 0; c < version->chunk_count; c++) chunk_release(version->chunks[c]);
  free(version->chunks);
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
  for (size_t c = 0; c < version->chunk_count; c++) {
    const struct kiln_replay_chunk *chunk = version->chunks[c];
    for (size_t i = 0; i < chunk->step_count; i++) {
      const struct kiln_replay_step *step = &chunk->steps[i];
      cl_int status = step->run ? step->run(step->command)
                                : kiln_execution_run_launch(step->launch, step->batch_count, worker_id, limit, lane, NULL);
      if (status < 0) return status;
    }
  }
  return CL_SUCCESS;
}

static void execution_end(const struct kiln_replay_execution *execution) {
  if (!execution->version_borrowed) kiln_replay_version_release(execution->version);
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
