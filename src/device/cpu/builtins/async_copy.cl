/* async_work_group_copy, async_work_group_strided_copy, wait_group_events, prefetch
 * (OpenCL C 3.0 §6.15.10). The spec requires every work-item of the group to reach the
 * copy with the same arguments, and the data to be visible to all of them only after
 * wait_group_events. So the copy is split: work-item l copies elements l, l + L, l + 2L,
 * ... (L = the group's size), which is correct for any number of work-items, needs no
 * shared state and leaves the events unused; wait_group_events is a work-group barrier
 * with both fences, after which every element is visible to every work-item. prefetch
 * is a hint and does nothing.
 *
 * Compiled with the generic address space enabled (CMakeLists.txt): clang declares
 * wait_group_events with a __generic event_t pointer in every OpenCL C version. */
#include "kiln_cl.h"

static size_t kiln_group_linear_size(void) {
  return __kiln_local_size(0) * __kiln_local_size(1) * __kiln_local_size(2);
}
static size_t kiln_group_linear_id(void) {
  return (__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) + __kiln_local_id(0);
}

#define ASYNC_COPY(G)                                                                            \
  OVL event_t async_work_group_copy(__local G *dst, const __global G *src, size_t n, event_t e) {  \
    for (size_t i = kiln_group_linear_id(), l = kiln_group_linear_size(); i < n; i += l) dst[i] = src[i]; \
    return e;                                                                                    \
  }                                                                                              \
  OVL event_t async_work_group_copy(__global G *dst, const __local G *src, size_t n, event_t e) {  \
    for (size_t i = kiln_group_linear_id(), l = kiln_group_linear_size(); i < n; i += l) dst[i] = src[i]; \
    return e;                                                                                    \
  }                                                                                              \
  OVL event_t async_work_group_strided_copy(__local G *dst, const __global G *src, size_t n,      \
                                            size_t stride, event_t e) {                          \
    for (size_t i = kiln_group_linear_id(), l = kiln_group_linear_size(); i < n; i += l)           \
      dst[i] = src[i * stride];                                                                  \
    return e;                                                                                    \
  }                                                                                              \
  OVL event_t async_work_group_strided_copy(__global G *dst, const __local G *src, size_t n,      \
                                            size_t stride, event_t e) {                          \
    for (size_t i = kiln_group_linear_id(), l = kiln_group_linear_size(); i < n; i += l)           \
      dst[i * stride] = src[i];                                                                  \
    return e;                                                                                    \
  }                                                                                              \
  OVL void prefetch(const __global G *p, size_t n) {}
#define ASYNC_COPY_N(N, T) ASYNC_COPY(T##N)
#define ASYNC_COPY_ALL(T, unused) ASYNC_COPY(T) KILN_FOR_VECTOR_SIZES(ASYNC_COPY_N, T)
KILN_FOR_INTEGERS(ASYNC_COPY_ALL, 0)
KILN_FOR_FLOATS(ASYNC_COPY_ALL, 0)
ASYNC_COPY_ALL(half, 0)

OVL void wait_group_events(int n, __generic event_t *events) {
  __kiln_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
