/* src/ext/arm_sched/ — cl_arm_scheduling_controls (0.6.0): the device query, the queue
 * properties and the kernel execution info (scheduling_controls.c). This folder only
 * validates and translates; the CPU scheduler acts:
 * - CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM and ..._MODIFIER_ARM are kept with the
 *   kernel (the core's exec-info store); each NDRange enqueue or recording reads them
 *   into its batch plan (runtime/ndrange.c, device/cpu/ndrange_executor.h);
 * - the queue properties become the queue's kiln_queue_scheduling (runtime/queue.h):
 *   a compute-unit limit (worker_pool.h's kiln_worker_limit), kernel batching (deferred
 *   worker wake-up, runtime/scheduler.c) and deferred flush (clFlush, queue_sync.c).
 * - CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM, kept the same way, bounds
 *   the workers' batch queues (device/cpu/batch_queue.h).
 * Register allocation and warp throttling have no meaning on Kiln's CPU scheduler: they
 * are not reported and their names are refused. */
#ifndef KILN_EXT_ARM_SCHED_H
#define KILN_EXT_ARM_SCHED_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/kiln_arm_scheduling_controls.h>

/* The extension's descriptor (scheduling_controls.c; src/ext/extensions.c lists it). */
extern const struct kiln_extension kiln_ext_arm_scheduling_controls;

#endif
