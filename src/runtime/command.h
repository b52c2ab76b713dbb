/* command.h: commands are data. Every enqueue entry point validates its arguments,
 * builds one command with a run function and a small payload, and hands it to its sink:
 * submitted with its wait list (the command then gets an event, which the queue links to
 * its dependencies and the scheduler completes), or taken by a recorder (a command
 * buffer, a recording), which replays it later. This header is the whole interface
 * enqueue code needs; the struct is in command_state.h. */
#ifndef KILN_RUNTIME_COMMAND_H
#define KILN_RUNTIME_COMMAND_H

#include "runtime/object.h"

struct kiln_command;
struct kiln_command_sink;

/* Does the command's work on a worker (or a thread waiting for it). Returns CL_SUCCESS,
 * or a negative error code that becomes the event's execution status. */
typedef cl_int (*kiln_command_run_fn)(struct kiln_command *command);

/* Bytes of payload every command carries inline (16-byte aligned), enough for the
 * arguments of any transfer command. */
#define KILN_COMMAND_PAYLOAD_BYTES 256
/* Objects a command keeps alive inline until it completes (memory objects it touches);
 * more spill into an array allocated with the command (kernels with many buffers). */
#define KILN_COMMAND_MAX_HOLDS 4

/* The identity of clEnqueueWaitForEvents for the enqueue check, whose command (a barrier)
 * does not tell it apart (never a command's type). */
#define KILN_ENQUEUE_WAIT_FOR_EVENTS ((cl_command_type)0x7F000001)

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

/* Creates a command of `type` to submit to a valid `queue`, with its event. NULL and
 * *errcode = CL_OUT_OF_HOST_MEMORY on failure. */
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

/* An NDRange command: instead of `run`, the device runs `launch` (which lives in the
 * payload) in `batch_count` batches (device/cpu/executor.h); the command completes once
 * every batch has run, failed when one could not. */
struct kiln_ndrange_launch;
void kiln_command_set_launch(struct kiln_command *command, const struct kiln_ndrange_launch *launch,
                             size_t batch_count);
/* A task that runs on a worker-pool thread, as `worker_id` (worker_pool.h), instead of
 * `run`: a replay, whose launches share their batches with the workers. */
typedef cl_int (*kiln_command_worker_fn)(struct kiln_command *command, unsigned worker_id);
void kiln_command_set_worker_run(struct kiln_command *command, kiln_command_worker_fn run_on_worker);
/* The stack the command's kernel code needs (kiln_jit_launcher_stack): the scheduler keeps
 * commands that need more than a helping application thread may give to the workers. */
void kiln_command_set_stack(struct kiln_command *command, uint64_t bytes);

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
 * or drops one reference to a recorded command. kiln_command_retain adds one to a
 * recorded command (versions of a recording share them); a submitted one belongs to its
 * queue. */
void kiln_command_discard(struct kiln_command *command);
void kiln_command_retain(struct kiln_command *command);

/* What an NDRange enqueue was asked (valid during the record call only), for recorders
 * that keep the call besides its command: a recording's updates rebuild a dispatch from it. */
struct kiln_ndrange_call {
  cl_kernel kernel;
  cl_uint work_dim;
  const size_t *global_work_offset, *global_work_size, *local_work_size;
};

/* Where an enqueue's validated command goes. The enqueue entry points submit it to
 * `queue` after its wait list; a recorder (a command buffer, or the recording a
 * recordable queue carries) takes it instead. A recorded command is never submitted: the
 * recorder replays it (replay.h). */
struct kiln_command_recorder {
  /* Where the wait list would be checked: the recorder's own dependencies, and what it
   * allows of the sink's wait list and event for a command of `type`. */
  cl_int (*check)(const struct kiln_command_recorder *recorder, const struct kiln_command_sink *sink,
                  cl_command_type type);
  /* Takes `command` (on failure the recorder discards it); `call` for NDRange commands, else NULL. */
  cl_int (*record)(const struct kiln_command_recorder *recorder, struct kiln_command *command,
                   const struct kiln_ndrange_call *call);
};

struct kiln_command_sink {
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event *event;
  const struct kiln_command_recorder *recorder; /* NULL: submit */
};

/* The sink of an enqueue that always submits (the queue's own sink, kiln_queue_sink_open
 * in queue.h, may record instead). */
static inline struct kiln_command_sink kiln_command_sink_of_queue(cl_command_queue queue, cl_uint num_events,
                                                                  const cl_event *wait_list, cl_event *event) {
  struct kiln_command_sink sink = {queue, num_events, wait_list, event, NULL};
  return sink;
}

/* kiln_command_check_enqueue for a command of `type`, or for a recorder its check and the
 * extensions' enqueue checks. */
cl_int kiln_command_sink_check(const struct kiln_command_sink *sink, cl_command_type type);
/* A bare command for a recorder (never submitted; freed with its last owner). */
struct kiln_command *kiln_command_create_recorded(kiln_command_run_fn run, cl_int *errcode);

/* Inline below: every enqueue passes through them. */
/* kiln_command_create for a submitting sink; a bare command for a recorder (a recorded
 * command has no type of its own). */
static inline struct kiln_command *kiln_command_sink_create(const struct kiln_command_sink *sink,
                                                            cl_command_type type, kiln_command_run_fn run,
                                                            cl_int *errcode) {
  if (sink->recorder) return kiln_command_create_recorded(run, errcode);
  return kiln_command_create(sink->queue, type, run, errcode);
}
/* kiln_command_submit (with the sink's wait list and event), or the recorder's record. */
static inline cl_int kiln_command_sink_take(const struct kiln_command_sink *sink, struct kiln_command *command,
                                            cl_bool blocking) {
  if (sink->recorder) return sink->recorder->record(sink->recorder, command, NULL);
  return kiln_command_submit(command, sink->num_events, sink->wait_list, sink->event, blocking);
}
/* The same for an NDRange command, with its call for the recorder. */
static inline cl_int kiln_command_sink_take_ndrange(const struct kiln_command_sink *sink,
                                                    struct kiln_command *command,
                                                    const struct kiln_ndrange_call *call) {
  if (sink->recorder) return sink->recorder->record(sink->recorder, command, call);
  return kiln_command_submit(command, sink->num_events, sink->wait_list, sink->event, CL_FALSE);
}

/* The queue's context (for validating memory objects against it). */
cl_context kiln_queue_context(cl_command_queue queue);
static inline bool kiln_queue_is_valid(cl_command_queue queue) {
  return kiln_object_is_valid(queue, KILN_OBJECT_QUEUE);
}

#endif
