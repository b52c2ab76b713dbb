/* src/ext/khr_command_buffer/ — cl_khr_command_buffer 0.9.7: command-buffer objects
 * (command_buffer.c), recording (command_buffer_record.c), finalize and replay
 * (command_buffer_replay.c), device queries and the entry-point table
 * (command_buffer_device.c). It talks to the core through the command sinks of
 * runtime/command.h: each recording entry point runs the enqueue path's own validation
 * and command building, and keeps the built command instead of submitting it.
 *
 * A command buffer replays its commands in recording order, which is a topological order
 * of its sync-point DAG (a command can only wait for sync points recorded before it), so
 * every dependency, barrier and in-order rule holds; each kernel command still spreads
 * its work-groups over all workers. Finalize compacts the recording into an array of run
 * functions over resolved payloads; an enqueue is one queue command that runs it. */
#ifndef KILN_EXT_KHR_COMMAND_BUFFER_H
#define KILN_EXT_KHR_COMMAND_BUFFER_H

#include <CL/kiln_command_buffer.h>

#include "runtime/command.h"
#include "runtime/object.h"
#include "runtime/platform.h"
#include "runtime/replay.h"

#include <pthread.h>

struct _cl_command_buffer_khr {
  struct kiln_object obj;
  cl_context context;        /* internal reference */
  cl_command_queue queue;    /* internal reference: the one queue given at creation */
  cl_command_buffer_flags_khr flags;
  cl_command_buffer_properties_khr properties[3];
  size_t properties_size;    /* bytes of `properties` clGetCommandBufferInfoKHR returns */

  pthread_mutex_t lock;      /* recording and finalize */
  atomic_bool finalized;      /* set under the lock once steps are built; enqueues read it without */
  atomic_uint pending;       /* enqueued executions not yet complete */
  /* Recorded commands; entry i has sync point i + 1. NULL entries are barriers (nothing
   * to run: replaying in order already waits for everything before them). */
  struct kiln_command **commands;
  size_t count, capacity;

  struct kiln_replay_step *steps; /* set by finalize */
  size_t step_count;
  uint64_t stack_bytes;           /* the most stack a step's kernels need (replay.h) */
};

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

/* Builds the replay steps (command_buffer_replay.c). CL_OUT_OF_HOST_MEMORY on failure. */
cl_int kiln_command_buffer_build_steps(cl_command_buffer_khr command_buffer);

/* The extension's descriptor (command_buffer_device.c; src/ext/extensions.c lists it). */
extern const struct kiln_extension kiln_ext_khr_command_buffer;

#endif
