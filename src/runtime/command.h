/* command.h: commands are data. Every enqueue entry point validates its arguments,
 * builds one command with a run function and a small payload, and submits it with its
 * wait list. The queue links it to its dependencies and the scheduler runs it on the
 * CPU device. This header is the whole interface enqueue code needs; the command's
 * struct itself lives with events (event.h), since a command's completion is its event. */
#ifndef KILN_RUNTIME_COMMAND_H
#define KILN_RUNTIME_COMMAND_H

#include "runtime/object.h"

struct kiln_command;

/* Does the command's work on a worker (or a thread waiting for it). Returns CL_SUCCESS,
 * or a negative error code that becomes the event's execution status. */
typedef cl_int (*kiln_command_run_fn)(struct kiln_command *command);

/* Bytes of payload every command carries inline (16-byte aligned), enough for the
 * arguments of any transfer command. */
#define KILN_COMMAND_PAYLOAD_BYTES 256
/* Objects a command keeps alive inline until it completes (memory objects it touches);
 * more spill into an array allocated with the command (kernels with many buffers). */
#define KILN_COMMAND_MAX_HOLDS 4

/* Identities of enqueue calls whose command type does not tell them apart, for the
 * enqueue check (never a command's type). */
#define KILN_ENQUEUE_WAIT_FOR_EVENTS ((cl_command_type)0x7F000001) /* clEnqueueWaitForEvents */
#define KILN_ENQUEUE_RECORDING ((cl_command_type)0x7F000002)       /* clEnqueueRecording[SVM]QCOM */

/* What an enqueue call is about to do, as the extension checks see it (queue.h's
 * kiln_queue_enqueue_hooks.check_enqueue). */
struct kiln_enqueue_check {
  cl_command_queue queue;
  cl_command_type type;        /* of the command the call creates, or a KILN_ENQUEUE_* identity */
  cl_uint num_events;
  const cl_event *wait_list;   /* already validated */
  bool returns_event;          /* the call's `event` argument is not NULL */
  bool recording;              /* recorded into a command buffer (no wait list, no event) */
};

/* The checks of an enqueue on a valid `queue` before it creates its command `type`: the
 * wait list (CL_INVALID_EVENT_WAIT_LIST when (list == NULL) != (count == 0) or an event is
 * invalid, CL_INVALID_CONTEXT when an event belongs to another context), then the
 * extensions' enqueue checks (which see `event` != NULL as a request for an event). */
cl_int kiln_command_check_enqueue(cl_command_queue queue, cl_command_type type, cl_uint num_events,
                                  const cl_event *wait_list, const cl_event *event);

/* Creates a command of `type` for a valid `queue`. NULL and *errcode = CL_OUT_OF_HOST_MEMORY on failure. */
struct kiln_command *kiln_command_create(cl_command_queue queue, cl_command_type type, kiln_command_run_fn run,
                                         cl_int *errcode);

void *kiln_command_payload(struct kiln_command *command);

/* Keeps `object` alive (internal reference) until the command has completed. The first
 * KILN_COMMAND_MAX_HOLDS holds are inline; beyond that an array is allocated. */
void kiln_command_hold(struct kiln_command *command, struct kiln_object *object);
/* Preallocates room for `count` holds in total; false on allocation failure. */
bool kiln_command_reserve_holds(struct kiln_command *command, unsigned count);

/* Memory that lives as long as the command (for payloads larger than the inline one),
 * aligned to `alignment` (a power of two, at most 4096). NULL on allocation failure. */
void *kiln_command_side_alloc(struct kiln_command *command, size_t size, size_t alignment);

/* A multi-batch command (NDRange): instead of `run`, the scheduler submits one worker-pool
 * job of `batch_count` batches, each calling `run_batch` on the thread identified by
 * `worker_id` (see worker_pool.h). A negative return fails the command with that status;
 * the command completes once every batch has run. */
typedef cl_int (*kiln_command_batch_fn)(struct kiln_command *command, size_t batch, unsigned worker_id);
void kiln_command_set_batches(struct kiln_command *command, size_t batch_count, kiln_command_batch_fn run_batch);
/* The stack the command's kernel code needs (kiln_jit_launcher_stack): the scheduler keeps
 * commands that need more than a helping application thread may give to the workers. */
void kiln_command_set_stack(struct kiln_command *command, uint64_t bytes);
uint64_t kiln_command_stack(struct kiln_command *command);

/* Called once when the command completes with its final status (whether it ran or a
 * failed dependency skipped it), before its holds are dropped and its event is seen
 * complete. */
typedef void (*kiln_command_complete_fn)(struct kiln_command *command, cl_int status);
void kiln_command_set_completion(struct kiln_command *command, kiln_command_complete_fn on_complete);

/* Links the command after its dependencies (wait list, in-order predecessor, barriers)
 * and hands it to the scheduler. The wait list must have been checked. When `event` is
 * non-NULL it receives a new API reference to the command's event. When `blocking`, it
 * returns after the command has completed: CL_SUCCESS, or
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if a dependency failed, or the command's
 * own negative status. The command belongs to the queue afterwards. */
cl_int kiln_command_submit(struct kiln_command *command, cl_uint num_events, const cl_event *wait_list,
                           cl_event *event, cl_bool blocking);

/* Frees a created command that will not be submitted (a later validation step failed),
 * or drops one reference to a recorded command (kiln_command_retain adds one). */
void kiln_command_discard(struct kiln_command *command);
void kiln_command_retain(struct kiln_command *command);

/* Where an enqueue's validated command goes. The enqueue entry points submit it to
 * `queue` after a wait list; a recorder (a command buffer) takes it instead, checking its
 * own dependency list where the wait list would be checked. A recorded command is never
 * submitted: the recorder calls its run functions on its payload at each replay. */
struct kiln_command_recorder {
  cl_int (*check_dependencies)(const struct kiln_command_recorder *recorder);
  /* Takes `command` (on failure the recorder discards it). */
  cl_int (*record)(const struct kiln_command_recorder *recorder, struct kiln_command *command);
};

struct kiln_command_sink {
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event *event;
  const struct kiln_command_recorder *recorder; /* NULL: submit */
};

static inline struct kiln_command_sink kiln_command_sink_of_queue(cl_command_queue queue, cl_uint num_events,
                                                                  const cl_event *wait_list, cl_event *event) {
  struct kiln_command_sink sink = {queue, num_events, wait_list, event, NULL};
  return sink;
}

/* kiln_command_check_enqueue for a command of `type`, or for a recorder its dependency
 * check and the extensions' enqueue checks. */
cl_int kiln_command_sink_check(const struct kiln_command_sink *sink, cl_command_type type);
/* kiln_command_submit (with the sink's wait list and event), or the recorder's record. */
cl_int kiln_command_sink_take(const struct kiln_command_sink *sink, struct kiln_command *command, cl_bool blocking);

/* Recorded commands (command buffers): what a replay calls. A command has a run function,
 * or batches (kiln_command_set_batches), or neither (nothing to do: an empty NDRange). */
kiln_command_run_fn kiln_command_run_function(struct kiln_command *command);
kiln_command_batch_fn kiln_command_batch_function(struct kiln_command *command, size_t *batch_count);

/* The queue's context (for validating memory objects against it). */
cl_context kiln_queue_context(cl_command_queue queue);
static inline bool kiln_queue_is_valid(cl_command_queue queue) {
  return kiln_object_is_valid(queue, KILN_OBJECT_QUEUE);
}

#endif
