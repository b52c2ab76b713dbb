/* replay.c: see replay.h. */
#include "runtime/replay.h"

#include "device/cpu/ndrange_executor.h"
#include "device/cpu/printf_buffer.h"
#include "device/cpu/worker_pool.h"
#include "runtime/event.h"
#include "runtime/kernel.h"
#include "runtime/ndrange.h"
#include "runtime/queue.h"
#include "runtime/trace.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static bool step_of(struct kiln_command *command, struct kiln_replay_step *step) {
  *step = (struct kiln_replay_step){.command = command};
  step->run_batch = kiln_command_batch_function(command, &step->batch_count);
  if (!step->run_batch) step->run = kiln_command_run_function(command);
  step->launch = kiln_ndrange_command_launch(command);
  return step->run || step->run_batch;
}

struct kiln_replay_step *kiln_replay_steps_new(struct kiln_command *const *commands, size_t count,
                                               size_t *step_count, uint64_t *stack_bytes) {
  struct kiln_replay_step *steps = calloc(count ? count : 1, sizeof *steps);
  if (!steps) return NULL;
  size_t n = 0;
  *stack_bytes = 0;
  for (size_t i = 0; i < count; i++) {
    if (!commands[i] || !step_of(commands[i], &steps[n])) continue;
    uint64_t need = kiln_command_stack(commands[i]);
    if (need > *stack_bytes) *stack_bytes = need;
    n++;
  }
  *step_count = n;
  return steps;
}

/* One execution of a step: a kernel that calls printf gets a printf buffer of its own, in a
 * copy of its launch, so that executions never share one. */
struct step_execution {
  const struct kiln_replay_step *step;
  const struct kiln_ndrange_launch *launch; /* the copy, for printf kernels */
};

static cl_int run_step_batch(const struct step_execution *execution, size_t batch, unsigned worker_id) {
  if (execution->launch)
    return kiln_ndrange_run_batch(execution->launch, batch, worker_id) ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
  return execution->step->run_batch(execution->step->command, batch, worker_id);
}

/* A multi-batch step shared with the workers; lives on the replaying thread's stack. */
struct shared_step {
  struct kiln_job job;
  const struct step_execution *execution;
  atomic_int status;
  atomic_bool done;
};

static void shared_step_run(struct kiln_job *job, size_t batch, unsigned worker_id) {
  struct shared_step *shared = (struct shared_step *)job;
  cl_int status = run_step_batch(shared->execution, batch, worker_id);
  if (status < 0) {
    int expected = CL_SUCCESS;
    atomic_compare_exchange_strong(&shared->status, &expected, status);
  }
}

static void shared_step_done(struct kiln_job *job) {
  atomic_store_explicit(&((struct shared_step *)job)->done, true, memory_order_release);
}

static cl_int run_shared(const struct step_execution *execution, unsigned worker_id, cl_command_queue queue,
                         unsigned *threads) {
  struct shared_step shared = {.execution = execution};
  atomic_init(&shared.status, CL_SUCCESS);
  atomic_init(&shared.done, false);
  kiln_job_init(&shared.job, shared_step_run, shared_step_done, execution->step->batch_count);
  shared.job.limit = kiln_queue_worker_limit(queue); /* the executing thread holds one of its places */
  shared.job.lane = queue->config.placement.lane;
  /* Other threads that help while they wait follow the rules of an enqueued launch. */
  shared.job.helpers = kiln_ndrange_command_welcomes_helpers(execution->step->command);
  kiln_worker_pool_run(&shared.job, worker_id);
  /* The batches left were claimed by running threads: they finish within a batch's time. */
  for (unsigned spins = 0; !atomic_load_explicit(&shared.done, memory_order_acquire); spins++)
    if (spins > 1000) sched_yield();
  *threads = atomic_load(&shared.job.threads);
  return atomic_load(&shared.status);
}

cl_int kiln_replay_run(const struct kiln_replay_step *steps, size_t count, unsigned worker_id,
                       cl_command_queue queue) {
  for (size_t i = 0; i < count; i++) {
    const struct kiln_replay_step *step = &steps[i];
    if (step->run) {
      cl_int status = step->run(step->command);
      if (status < 0) return status;
      continue;
    }
    struct step_execution execution = {.step = step};
    struct kiln_ndrange_launch launch;
    struct kiln_printf_buffer output;
    if (step->launch && step->launch->printf_buffer) {
      launch = *step->launch;
      kiln_printf_buffer_init(&output, KILN_PRINTF_BUFFER_SIZE, step->batch_count);
      launch.printf_buffer = &output;
      execution.launch = &launch;
    }
    unsigned threads = 1;
    cl_int status = step->batch_count == 1 ? run_step_batch(&execution, 0, worker_id)
                                           : run_shared(&execution, worker_id, queue, &threads);
    if (status < 0) return status;
    if (step->launch && kiln_trace_enabled(KILN_TRACE_SCHED))
      kiln_ndrange_trace(step->launch, step->batch_count, threads, kiln_queue_worker_limit(queue));
  }
  return CL_SUCCESS;
}

static cl_int run_execution(struct kiln_command *command, size_t batch, unsigned worker_id) {
  (void)batch;
  const struct kiln_replay_execution *execution = kiln_command_payload(command);
  return kiln_replay_run(execution->steps, execution->step_count, worker_id, KILN_COMMAND_EVENT(command)->queue);
}

static void execution_complete(struct kiln_command *command, cl_int status) {
  (void)status;
  const struct kiln_replay_execution *execution = kiln_command_payload(command);
  execution->complete(execution->owner);
}

cl_int kiln_replay_submit(cl_command_queue queue, cl_command_type type, const struct kiln_replay_execution *execution,
                          cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  cl_int err;
  struct kiln_command *command = kiln_command_create(queue, type, NULL, &err);
  if (!command) {
    execution->complete(execution->owner);
    return err;
  }
  *(struct kiln_replay_execution *)kiln_command_payload(command) = *execution;
  kiln_command_set_batches(command, 1, run_execution);
  /* The thread that runs the execution runs its kernels' launchers too. */
  kiln_command_set_stack(command, execution->stack_bytes);
  kiln_command_set_completion(command, execution_complete);
  return kiln_command_submit(command, num_events, wait_list, event, CL_FALSE);
}

