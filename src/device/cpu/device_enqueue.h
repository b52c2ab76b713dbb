/* device_enqueue.h: device-side enqueue (OpenCL C 2.0 §6.13.17: enqueue_kernel,
 * enqueue_marker, clk_event_t, queue_t) on the CPU device.
 *
 * A launch whose kernel enqueues runs in a scope: the launch is the scope's root
 * command; every enqueue_kernel or enqueue_marker a work-item calls while a command of the
 * scope runs adds a child command of that command. Children run after the command that
 * enqueued them has finished executing (which satisfies every kernel_enqueue_flags_t:
 * NO_WAIT and WAIT_WORK_GROUP allow earlier starts, none requires one), in enqueue order
 * among those whose wait lists have completed, one at a time, each child's work-groups
 * shared with the workers like any launch. A command completes (its clk_event_t, and for
 * the root the host's event) once it and all its descendants have; a failed one fails its
 * ancestors. The thread that runs the root runs the whole tree (kiln_execution_run_launch),
 * so the device needs no thread of its own for it.
 *
 * The functions JIT code calls (registered by kiln_device_enqueue_register) find the
 * running command through a thread-local pointer that kiln_ndrange_run_batch sets while a
 * batch of a scope's launch runs. */
#ifndef KILN_DEVICE_CPU_DEVICE_ENQUEUE_H
#define KILN_DEVICE_CPU_DEVICE_ENQUEUE_H

#include "device/cpu/device_enqueue_symbols.h"
#include "device/cpu/kernel_abi.h"
#include "device/cpu/kernel_profile.h"
#include "device/cpu/worker_limit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kiln_kernel_desc;
struct kiln_ndrange_launch;

/* What the device reports (device_info.c) and enforces. A device queue of CL_QUEUE_SIZE
 * bytes holds size / KILN_DEVICE_QUEUE_COMMAND_BYTES commands that have not completed;
 * one more is CLK_DEVICE_QUEUE_FULL. */
#define KILN_DEVICE_QUEUE_COMMAND_BYTES 128u
#define KILN_DEVICE_QUEUE_PREFERRED_SIZE (1u << 20)
#define KILN_DEVICE_QUEUE_MAX_SIZE (16u << 20)
#define KILN_MAX_ON_DEVICE_QUEUES 64u
/* Live (not released) device events of one scope at once; one more is
 * CLK_EVENT_ALLOCATION_FAILURE (create_user_event: an invalid event). */
#define KILN_MAX_ON_DEVICE_EVENTS 4096u

/* An on-device queue as kernels see it: a queue_t is a pointer to one. Reference-counted:
 * its command-queue object holds one reference, every scope that may enqueue to it one. */
struct kiln_device_queue {
  atomic_uint refs;
  uint32_t capacity;        /* commands not yet complete it holds at once */
  atomic_uint outstanding;
  bool profiling;           /* CL_QUEUE_PROFILING_ENABLE: its events capture profiling info */
};
struct kiln_device_queue *kiln_device_queue_create(uint32_t size_bytes, bool profiling);
void kiln_device_queue_retain(struct kiln_device_queue *queue);
void kiln_device_queue_release(struct kiln_device_queue *queue);

/* A context's default device queue (get_default_queue), which clCreateCommandQueueWith-
 * Properties and clSetDefaultDeviceCommandQueue set; a scope takes a reference to the one
 * set when it starts. */
struct kiln_default_device_queue {
  pthread_mutex_t lock;
  struct kiln_device_queue *queue; /* NULL: none (CLK_NULL_QUEUE) */
};
struct kiln_device_queue *kiln_default_device_queue_get(struct kiln_default_device_queue *slot);

/* A block kernel a program's kernels may enqueue (its index is its kernel index in the
 * module; the compiler passes that index instead of the block's function). */
struct kiln_block_kernel {
  kiln_launcher_fn launcher;            /* NULL: not a block kernel */
  const struct kiln_kernel_desc *desc;
  struct kiln_kernel_profile profile;
  uint32_t max_work_group_size;         /* get_kernel_work_group_size */
  uint32_t preferred_multiple;          /* get_kernel_preferred_work_group_size_multiple */
  uint32_t max_work_item_sizes[3];
  bool uniform_work_groups;             /* the program's: -cl-uniform-work-group-size or OpenCL C 1.x */
};
/* A program's block kernels and its context's default device queue; the program owns it.
 * The profile (kernel_profile.h) of every kernel of the program that enqueues points at
 * it, so launches carry it at no cost. */
struct kiln_enqueue_program {
  size_t count;
  struct kiln_block_kernel *kernels;
  struct kiln_default_device_queue *default_queue;
  uint64_t local_mem_size; /* CL_DEVICE_LOCAL_MEM_SIZE */
  uint64_t stack_bytes;    /* the most any block kernel's code needs: the thread running a tree needs it too */
  bool blocks_fit;         /* every block kernel's code fits its stacks (kiln_kernel_profile_stack_fits) */
  bool detailed_errors;    /* built with -g: enqueues return why they failed (else CLK_ENQUEUE_FAILURE) */
};

/* Runs `launch` (an enqueueing kernel's: launch->profile->enqueue set) and everything it
 * enqueues, as kiln_execution_run_launch (executor.h) does for a plain launch. Returns 0
 * or the first negative status of the tree. */
int kiln_device_enqueue_run(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                            struct kiln_worker_limit *limit, unsigned lane, uint64_t *end_ns);

/* The scope command a batch runs for (ndrange_executor.c): makes it the calling thread's
 * current one and returns the previous, to be restored after the batch. */
struct kiln_enqueue_command;
struct kiln_enqueue_command *kiln_device_enqueue_enter(struct kiln_enqueue_command *command);

#endif
