/* ndrange_executor.h: runs an NDRange on the worker pool. The work-groups (linear ids,
 * x fastest) are cut into batches of consecutive groups (batch_plan.h); each batch is one
 * call of the kernel's launcher on a worker, with that worker's local-memory block. The blocks are
 * allocated per worker id once and grown only when a kernel needs more, never per launch. */
#ifndef KILN_DEVICE_CPU_NDRANGE_EXECUTOR_H
#define KILN_DEVICE_CPU_NDRANGE_EXECUTOR_H

#include "device/cpu/batch_plan.h"
#include "device/cpu/kernel_abi.h"
#include "device/cpu/kernel_profile.h"
#include "device/cpu/printf_buffer.h"

#include <stdbool.h>

struct kiln_ndrange_launch {
  struct kiln_ndrange range;
  kiln_launcher_fn launcher;
  const void *args;            /* the packed argument block, snapshotted at enqueue */
  uint64_t local_mem_bytes;    /* per work-group: static + dynamic __local */
  struct kiln_batch_plan plan;
  struct kiln_printf_buffer *printf_buffer; /* kernels that call printf; else NULL */
  struct kiln_kernel_profile *profile; /* the kernel's (held by the command): name, cost */
};

/* The work-group collective functions' scratch (builtins/work_group.cl) a launch adds to
 * its local memory: a slot per work-item and one more, 8-byte aligned after the kernel's
 * own local memory. Not part of CL_KERNEL_LOCAL_MEM_SIZE: Kiln's, not the kernel's. */
static inline uint64_t kiln_work_group_scratch_bytes(uint64_t group_items) { return 8 + 8 * (group_items + 1); }

/* The largest divisor of n not above limit (>= 1): a local size that divides a global one,
 * for launches that do not give one (host and device-side enqueue alike). */
static inline uint64_t kiln_largest_divisor_at_most(uint64_t n, uint64_t limit) {
  if (limit >= n) return n;
  for (uint64_t d = limit; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* Runs batch `batch` on the thread with pool id `worker_id`. Returns false when the
 * worker's local memory could not be allocated (nothing ran). With a printf buffer (set up
 * with kiln_printf_buffer_init for the plan's batch count), the batch's printf calls go to
 * it, and the launch's last batch writes its output to stdout before returning. */
bool kiln_ndrange_run_batch(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id);

/* Whether `p` lies in some thread's block of local memory (another work-group's __local
 * memory, for the generic address space's to_local). */
bool kiln_ndrange_is_local_memory(uintptr_t p);

/* Whether a thread waiting for the launch should run its batches beside the workers: only
 * for a launch estimated short (or never measured), where it saves the workers' wake-up
 * latency; the workers of a long one each have a core, which it would share. */
bool kiln_ndrange_welcomes_helpers(const struct kiln_ndrange_launch *launch);

#endif
