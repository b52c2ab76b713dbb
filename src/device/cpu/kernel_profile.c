#include "device/cpu/kernel_profile.h"

#include "device/cpu/fibers.h"
#include "device/cpu/worker_pool.h"

/* A new measurement weighs a quarter: a change of arguments shows within a few launches,
 * one preempted batch does not swing the estimate. */
#define NEW_SAMPLE_SHIFT 2

void kiln_kernel_profile_record(struct kiln_kernel_profile *profile, uint64_t ns, uint64_t items) {
  if (items == 0) return;
  unsigned __int128 scaled = (unsigned __int128)ns * 1024 / items;
  uint64_t sample = scaled > UINT64_MAX ? UINT64_MAX : (uint64_t)scaled;
  if (sample == 0) sample = 1; /* 0 means "never measured" */
  uint64_t old = atomic_load_explicit(&profile->ns_per_kilo_item, memory_order_relaxed);
  uint64_t blended = old ? old - (old >> NEW_SAMPLE_SHIFT) + (sample >> NEW_SAMPLE_SHIFT) : sample;
  atomic_store_explicit(&profile->ns_per_kilo_item, blended ? blended : 1, memory_order_relaxed);
}

uint64_t kiln_kernel_profile_estimate(const struct kiln_kernel_profile *profile, uint64_t items) {
  uint64_t per_kilo = atomic_load_explicit(&profile->ns_per_kilo_item, memory_order_relaxed);
  if (per_kilo == 0) return 0;
  unsigned __int128 ns = (unsigned __int128)per_kilo * items / 1024;
  return ns > UINT64_MAX ? UINT64_MAX : ns ? (uint64_t)ns : 1;
}

/* A fiber launcher's own frame is on the thread too, but a fiber is the smaller stack. */
bool kiln_kernel_profile_stack_fits(const struct kiln_kernel_profile *profile) {
  return profile->fibers ? kiln_fibers_stack_fits(profile->stack_bytes) : kiln_worker_pool_stack_fits(profile->stack_bytes);
}
