/* src/ext/khr_command_buffer/ — cl_khr_command_buffer 0.9.7 and
 * cl_khr_command_buffer_mutable_dispatch 0.9.3: command-buffer objects
 * (command_buffer.c), recording (command_buffer_record.c), finalize and replay
 * (command_buffer_replay.c), device queries and the entry-point table
 * (command_buffer_device.c); mutable-command handles and their queries
 * (mutable_command.c), clUpdateMutableCommandsKHR (mutable_update.c). It talks to the
 * core through the command sinks of runtime/command.h: each recording entry point runs the
 * enqueue path's own validation and command building, and keeps the built command instead
 * of submitting it.
 *
 * A command buffer replays its commands in recording order, which is a topological order
 * of its sync-point DAG (a command can only wait for sync points recorded before it), so
 * every dependency, barrier and in-order rule holds; each kernel command still spreads
 * its work-groups over all workers. Finalize compacts the recording into a replay version
 * (runtime/replay.h): run functions over resolved payloads; an enqueue is one queue
 * command that runs the current version, holding it.
 *
 * Mutable dispatch: an NDRange recorded into a CL_COMMAND_BUFFER_MUTABLE_KHR command
 * buffer with a mutable handle keeps a recorded dispatch (runtime/recorded_dispatch.h: a
 * clone of the kernel and its geometry). An update builds new commands for the
 * dispatches it names, then swaps in a version sharing every other command: executions
 * already enqueued keep the version they hold, later enqueues see the update, and a
 * failing update changes nothing. */
#ifndef KILN_EXT_KHR_COMMAND_BUFFER_H
#define KILN_EXT_KHR_COMMAND_BUFFER_H

#include <CL/kiln_command_buffer.h>

#include "runtime/command.h"
#include "runtime/object.h"
#include "runtime/platform.h"
#include "runtime/recorded_dispatch.h"
#include "runtime/replay.h"

#include <pthread.h>

struct _cl_command_buffer_khr {
  struct kiln_object obj;
  cl_context context;        /* internal reference */
  cl_command_queue queue;    /* internal reference: the one queue given at creation */
  cl_command_buffer_flags_khr flags;
  cl_mutable_dispatch_asserts_khr asserts; /* CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR */
  cl_command_buffer_properties_khr properties[5];
  size_t properties_size;    /* bytes of `properties` clGetCommandBufferInfoKHR returns */

  pthread_mutex_t lock;      /* recording, finalize, updates, and reading `version` of a mutable one */
  atomic_bool finalized;      /* set under the lock once the version is built; enqueues read it without */
  atomic_uint pending;       /* enqueued executions not yet complete */
  /* Recorded commands; entry i has sync point i + 1. NULL entries are barriers (nothing
   * to run: replaying in order already waits for everything before them). Finalize hands
   * them to the version. */
  struct kiln_command **commands;
  size_t count, capacity;

  struct kiln_replay_version *version; /* set by finalize; replaced by updates */

  /* The mutable-command handles recording returned: they live as long as the command buffer. */
  cl_mutable_command_khr *mutables;
  size_t mutable_count, mutable_capacity;
};

/* A mutable-command handle: an NDRange of a command buffer, as recorded and as updated. */
struct _cl_mutable_command_khr {
  struct kiln_object obj;
  cl_command_buffer_khr command_buffer; /* not held: the command buffer frees its handles */
  cl_command_queue queue;               /* the command buffer's (for the query, without reading it) */
  size_t index;                         /* its command's position (sync point - 1) */
  cl_kernel kernel;                     /* the application's kernel (an internal reference), for the query */
  cl_mutable_dispatch_fields_khr updatable;
  cl_command_properties_khr properties[5];
  size_t properties_size; /* 0 when recorded with NULL properties */
  pthread_mutex_t lock;   /* `dispatch`, which updates replace while queries read it */
  /* The geometry, and in a mutable command buffer the kernel clone updates start from. */
  struct kiln_recorded_dispatch dispatch;
  struct kiln_pending_update *pending; /* during an update naming it (mutable_update.c), else NULL */
};

static inline bool kiln_mutable_command_is_valid(cl_mutable_command_khr command) {
  return kiln_object_is_valid(command, KILN_OBJECT_MUTABLE_COMMAND);
}

/* A handle for the NDRange `call` about to become command `index` of the locked
 * `command_buffer` (mutable_command.c), with the recording's properties (`properties_length`
 * entries, its terminating 0 included; 0 for NULL) and updatable fields. */
cl_int kiln_mutable_command_new(cl_command_buffer_khr command_buffer, size_t index,
                                const struct kiln_ndrange_call *call, const cl_command_properties_khr *properties,
                                size_t properties_length, cl_mutable_dispatch_fields_khr updatable,
                                cl_mutable_command_khr *command);
/* Frees a handle (recording failed after it was made, or its command buffer goes). */
void kiln_mutable_command_free(cl_mutable_command_khr command);

static inline bool kiln_command_buffer_is_valid(cl_command_buffer_khr command_buffer) {
  return kiln_object_is_valid(command_buffer, KILN_OBJECT_COMMAND_BUFFER);
}

/* The device's command-buffer capabilities and queue-property rules. A replayed kernel
 * that enqueues kernels runs with them like a submitted one (kiln_execution_run_launch). */
#define KILN_COMMAND_BUFFER_CAPABILITIES                                                                   \
  ((cl_device_command_buffer_capabilities_khr)(CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |          \
                                               CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |             \
                                               CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR))
#define KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES ((cl_command_queue_properties)0)
#define KILN_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES \
  ((cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))

/* What CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR reports: every field can be updated. */
#define KILN_MUTABLE_DISPATCH_CAPABILITIES                                                                  \
  ((cl_mutable_dispatch_fields_khr)(CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR | \
                                    CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR |      \
                                    CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))
#define KILN_MUTABLE_DISPATCH_ASSERTS ((cl_mutable_dispatch_asserts_khr)CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR)

/* Builds the first version from the recorded commands (command_buffer_replay.c).
 * CL_OUT_OF_HOST_MEMORY on failure. */
cl_int kiln_command_buffer_build_version(cl_command_buffer_khr command_buffer);

/* The extensions' descriptors (command_buffer_device.c; src/ext/extensions.c lists them). */
extern const struct kiln_extension kiln_ext_khr_command_buffer;
extern const struct kiln_extension kiln_ext_khr_command_buffer_mutable_dispatch;

#endif
