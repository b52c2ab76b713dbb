/* ndrange_executor.h: runs an NDRange on the worker pool. The work-groups (linear ids,
 * x fastest) are cut into batches of consecutive groups; each batch is one call of the
 * kernel's launcher on a worker, with that worker's local-memory block. The blocks are
 * allocated per worker id once and grown only when a kernel needs more, never per launch. */
#ifndef KILN_DEVICE_CPU_NDRANGE_EXECUTOR_H
#define KILN_DEVICE_CPU_NDRANGE_EXECUTOR_H

#include "device/cpu/kernel_abi.h"
#include "device/cpu/printf_buffer.h"

#include <stdbool.h>

struct kiln_ndrange_launch {
  struct kiln_ndrange range;
  kiln_launcher_fn launcher;
  const void *args;            /* the packed argument block, snapshotted at enqueue */
  uint64_t local_mem_bytes;    /* per work-group: static + dynamic __local */
  uint64_t total_groups;
  uint64_t groups_per_batch;
  struct kiln_printf_buffer *printf_buffer; /* kernels that call printf; else NULL */
  const char *kernel_name;     /* for traces; the command holds the kernel */
};

/* Scheduling hints of a launch (cl_arm_scheduling_controls' work-group batch size and its
 * modifier). All zero: the executor's own choice. */
struct kiln_batch_hint {
  uint64_t groups;             /* work-groups per batch; 0: the executor picks */
  int64_t modifier;            /* added to the groups per batch, picked or given */
};

/* Fills total_groups and groups_per_batch for `launch->range` and returns the number of
 * batches (>= 1). The groups per batch are the hint's, or when it gives none a default: a
 * few batches per worker so that the dynamic claiming evens out uneven groups, one batch
 * for tiny ranges; plus the hint's modifier; at least 1, at most the work-groups. */
size_t kiln_ndrange_plan(struct kiln_ndrange_launch *launch, const struct kiln_batch_hint *hint);

/* Runs batch `batch` on the thread with pool id `worker_id`. Returns false when the
 * worker's local memory could not be allocated (nothing ran). With a printf buffer (set up
 * with kiln_printf_buffer_init for the plan's batch count), the batch's printf calls go to
 * it, and the launch's last batch writes its output to stdout before returning. */
bool kiln_ndrange_run_batch(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id);

#endif
