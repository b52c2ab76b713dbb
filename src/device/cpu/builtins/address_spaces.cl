/* The generic address space's functions (OpenCL C 3.0 §6.15.8 "Address Space Qualifier
 * Functions"): to_global, to_local, to_private and get_fence. Every address space is host
 * memory here, so where a generic pointer points is told from addresses (kernel_abi.h's
 * KILN_BOUND_*): the group's __local block, the work-item's private memory (the worker's
 * stack from the current frame up to the launcher's, and the launcher call's barrier
 * frames), another group's block or another worker's stack (pointers a kernel passed
 * through global memory), and global memory, which is everything else (buffers, SVM,
 * imported host memory, program-scope variables). clang calls __to_global/__to_local/__to_private
 * (unmangled) for the three casts. */
#include "kiln_cl.h"

int __kiln_memory_kind(size_t p, size_t stack_top); /* host helper (kernel_abi.h) */

static bool in_range(size_t p, uint begin, uint end) {
  return p >= __kiln_memory_bound(begin) && p < __kiln_memory_bound(end);
}

/* KILN_MEMORY_*: the running group's own block and frames without a call. */
static int kind_of(size_t p) {
  if (in_range(p, KILN_BOUND_LOCAL_BEGIN, KILN_BOUND_LOCAL_END)) return KILN_MEMORY_LOCAL;
  if (in_range(p, KILN_BOUND_FRAMES_BEGIN, KILN_BOUND_FRAMES_END)) return KILN_MEMORY_PRIVATE;
  return __kiln_memory_kind(p, __kiln_memory_bound(KILN_BOUND_STACK_TOP));
}

/* A null generic pointer converts to a null pointer of every address space. */
__global void *__to_global(__generic void *p) {
  size_t a = (size_t)p;
  return a && kind_of(a) == KILN_MEMORY_GLOBAL ? (__global void *)p : (__global void *)0;
}

__local void *__to_local(__generic void *p) {
  size_t a = (size_t)p;
  return a && kind_of(a) == KILN_MEMORY_LOCAL ? (__local void *)p : (__local void *)0;
}

__private void *__to_private(__generic void *p) {
  size_t a = (size_t)p;
  return a && kind_of(a) == KILN_MEMORY_PRIVATE ? (__private void *)p : (__private void *)0;
}

/* A fence for the memory the pointer points to: local or global (private memory needs
 * none; the global fence covers it, as it does on this device any memory). */
OVL cl_mem_fence_flags get_fence(__generic void *p) {
  return kind_of((size_t)p) == KILN_MEMORY_LOCAL ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}
OVL cl_mem_fence_flags get_fence(__generic const void *p) { return get_fence((__generic void *)p); }
