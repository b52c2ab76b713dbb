/* kernel_profile.h: what a kernel's launches cost, measured. The NDRange executor times
 * the batches of multi-batch launches and keeps a running estimate of the nanoseconds a
 * work-item takes; the batch planner sizes the smallest batches from it, and the
 * scheduler lets a waiting application thread run batches of a launch only when the
 * launch is short (the thread then saves the workers' wake-up latency; beside the workers
 * of a long launch it would only share a core). Estimates are approximate by design:
 * threads update them without a lock, and a launch whose work-items cost more than the
 * last ones is mispredicted once, at most coarsening its batches (never to fewer batches
 * than threads). */
#ifndef KILN_DEVICE_CPU_KERNEL_PROFILE_H
#define KILN_DEVICE_CPU_KERNEL_PROFILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct kiln_enqueue_program;

struct kiln_kernel_profile {
  const char *name;                  /* the kernel's (traces) */
  uint64_t stack_bytes;              /* its code's stack need (kiln_jit_launcher_stack); 0: unknown */
  bool fibers;                       /* its launcher runs work-items as fibers (kiln_jit_launcher_uses_fibers) */
  _Atomic uint64_t ns_per_kilo_item; /* nanoseconds per 1024 work-items; 0: never measured */
  /* Its program's block kernels when it enqueues kernels (device_enqueue.h), else NULL:
   * such a launch runs with its children (kiln_execution_run_launch). */
  const struct kiln_enqueue_program *enqueue;
};

/* Whether the stack its code needs fits the thread running the launcher or, for a fiber
 * launcher, each work-item's fiber (fibers.h). */
bool kiln_kernel_profile_stack_fits(const struct kiln_kernel_profile *profile);

/* Folds one measurement (`ns` for `items` work-items) into the estimate. */
void kiln_kernel_profile_record(struct kiln_kernel_profile *profile, uint64_t ns, uint64_t items);

/* Estimated nanoseconds for `items` work-items; 0 when never measured. */
uint64_t kiln_kernel_profile_estimate(const struct kiln_kernel_profile *profile, uint64_t items);

#endif
