/* Synchronization and fences (OpenCL C 3.0 §6.15.8, §6.15.11). Barriers call the
 * __kiln_barrier intrinsic, which the compiler turns into work-group region boundaries; the
 * intrinsic itself guarantees memory visibility between the work-items of the group.
 * Fences are C11 fences: every address space is ordinary host memory. */
#include "kiln_cl.h"

OVLI void barrier(cl_mem_fence_flags flags) { __kiln_barrier(flags); }
OVLI void work_group_barrier(cl_mem_fence_flags flags) { __kiln_barrier(flags); }
OVLI void work_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  (void)scope;
  __kiln_barrier(flags);
}

OVLI void mem_fence(cl_mem_fence_flags flags) {
  if (flags) __atomic_thread_fence(__ATOMIC_ACQ_REL);
}
OVLI void read_mem_fence(cl_mem_fence_flags flags) {
  if (flags) __atomic_thread_fence(__ATOMIC_ACQUIRE);
}
OVLI void write_mem_fence(cl_mem_fence_flags flags) {
  if (flags) __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Orders other than relaxed need a fence; relaxed and work-item scope need none. */
OVLI void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order, memory_scope scope) {
  if (!flags || scope == memory_scope_work_item) return;
  switch (order) {
    case memory_order_relaxed: break;
    case memory_order_acquire: __atomic_thread_fence(__ATOMIC_ACQUIRE); break;
    case memory_order_release: __atomic_thread_fence(__ATOMIC_RELEASE); break;
    case memory_order_acq_rel: __atomic_thread_fence(__ATOMIC_ACQ_REL); break;
    default: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
  }
}
