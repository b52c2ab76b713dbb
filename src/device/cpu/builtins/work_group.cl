/* Work-group collective functions (OpenCL C 3.0 §6.15.14, __opencl_c_work_group_collective_functions):
 * work_group_all/any/broadcast and the reduce and inclusive/exclusive scan of add, min and
 * max for int, uint, long, ulong, float, double and half.
 *
 * Every work-item of the group meets each call (OpenCL's rule), so each is written with
 * barriers and the compiler splits the kernel there like at any barrier: each work-item
 * stores its value in a scratch array of the group's local memory, the first work-item
 * combines them in linear-id order, and each reads its result. The runtime reserves the scratch
 * (one 8-byte slot per work-item and one more) after the kernel's own local memory,
 * where KILN_BOUND_LOCAL_END points, for kernels that call these functions
 * (kiln_kernel_desc.uses_work_group_scratch). The first barrier of each call lets the
 * previous call's readers finish before the scratch is written again. */
#include "kiln_cl.h"

static size_t group_items(void) { return __kiln_local_size(0) * __kiln_local_size(1) * __kiln_local_size(2); }

static size_t linear_id(void) {
  return (__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) + __kiln_local_id(0);
}

#define OP_add(a, b) ((a) + (b))
#define OP_min(a, b) ((b) < (a) ? (b) : (a))
#define OP_max(a, b) ((b) > (a) ? (b) : (a))
#define OP_all(a, b) ((a) && (b))
#define OP_any(a, b) ((a) || (b))

/* Exclusive scans' first value (OpenCL C: 0, the type's largest or smallest value, or
 * +/-INFINITY for floating point). */
#define ID_add(T) ((T)0)
#define ID_min_int 2147483647
#define ID_min_uint 4294967295u
#define ID_min_long 9223372036854775807L
#define ID_min_ulong 18446744073709551615UL
#define ID_min_float INFINITY
#define ID_min_double ((double)INFINITY)
#define ID_min_half ((half)INFINITY)
#define ID_max_int (-2147483647 - 1)
#define ID_max_uint 0u
#define ID_max_long (-9223372036854775807L - 1)
#define ID_max_ulong 0UL
#define ID_max_float (-INFINITY)
#define ID_max_double (-(double)INFINITY)
#define ID_max_half (-(half)INFINITY)
#define ID_min(T) ID_min_##T
#define ID_max(T) ID_max_##T

/* Every work-item's value into its slot; returns the scratch. */
#define GATHER(T, x, s, id, n)                \
  __local T *s = KILN_GROUP_SCRATCH(T);                  \
  size_t id = linear_id(), n = group_items(); \
  __kiln_barrier(CLK_LOCAL_MEM_FENCE);        \
  s[id] = x;                                  \
  __kiln_barrier(CLK_LOCAL_MEM_FENCE);

#define LOAD8(T, s, i) ((T##8)(s[i], s[i + 1], s[i + 2], s[i + 3], s[i + 4], s[i + 5], s[i + 6], s[i + 7]))

/* The whole group's combination, in s[n]. OpenCL C leaves the order of a reduction
 * unspecified: eight independent partial results (one vector) instead of one chain, so the
 * first work-item's loop is vector operations rather than n dependent ones, which cost more
 * than the rest of the call (kiln_bench collectives). */
#define REDUCE_BODY(T, OP, x)                                                                  \
  GATHER(T, x, s, id, n)                                                                       \
  if (kiln_first_work_item()) {                                                                     \
    T acc = s[0];                                                                              \
    size_t i = 1;                                                                              \
    if (n >= 16) {                                                                             \
      T##8 v = LOAD8(T, s, 0);                                                                 \
      for (i = 8; i + 8 <= n; i += 8) v = OP(v, LOAD8(T, s, i));                               \
      acc = OP(OP(OP(v.s0, v.s1), OP(v.s2, v.s3)), OP(OP(v.s4, v.s5), OP(v.s6, v.s7)));       \
    }                                                                                          \
    for (; i < n; i++) acc = OP(acc, s[i]);                                                    \
    s[n] = acc;                                                                                \
  }                                                                                            \
  __kiln_barrier(CLK_LOCAL_MEM_FENCE);                                                         \
  return s[n];

#define COLLECTIVES(T, OPNAME)                                                  \
  OVL T work_group_reduce_##OPNAME(T x) { REDUCE_BODY(T, OP_##OPNAME, x) }      \
  OVL T work_group_scan_inclusive_##OPNAME(T x) {                               \
    GATHER(T, x, s, id, n)                                                      \
    if (kiln_first_work_item()) {                                                              \
      T acc = s[0];                                                             \
      for (size_t i = 1; i < n; i++) s[i] = acc = OP_##OPNAME(acc, s[i]);       \
    }                                                                           \
    __kiln_barrier(CLK_LOCAL_MEM_FENCE);                                        \
    return s[id];                                                               \
  }                                                                             \
  OVL T work_group_scan_exclusive_##OPNAME(T x) {                               \
    GATHER(T, x, s, id, n)                                                      \
    if (kiln_first_work_item()) {                                                              \
      T acc = ID_##OPNAME(T);                                                   \
      for (size_t i = 0; i < n; i++) {                                          \
        T v = s[i];                                                             \
        s[i] = acc;                                                             \
        acc = OP_##OPNAME(acc, v);                                              \
      }                                                                         \
    }                                                                           \
    __kiln_barrier(CLK_LOCAL_MEM_FENCE);                                        \
    return s[id];                                                               \
  }

/* The value of the work-item whose linear local id is `from` (undefined unless the same
 * for all and inside the group: read within the scratch all the same). */
#define BROADCAST(T)                                                                  \
  static T broadcast_##T(T a, size_t from) {                                          \
    GATHER(T, a, s, id, n)                                                            \
    return s[from < n ? from : 0];                                                    \
  }                                                                                   \
  OVL T work_group_broadcast(T a, size_t x) { return broadcast_##T(a, x); }           \
  OVL T work_group_broadcast(T a, size_t x, size_t y) {                               \
    return broadcast_##T(a, y * __kiln_local_size(0) + x);                            \
  }                                                                                   \
  OVL T work_group_broadcast(T a, size_t x, size_t y, size_t z) {                     \
    return broadcast_##T(a, (z * __kiln_local_size(1) + y) * __kiln_local_size(0) + x); \
  }

#define ALL_COLLECTIVES(T, unused) COLLECTIVES(T, add) COLLECTIVES(T, min) COLLECTIVES(T, max) BROADCAST(T)
ALL_COLLECTIVES(int, 0)
ALL_COLLECTIVES(uint, 0)
ALL_COLLECTIVES(long, 0)
ALL_COLLECTIVES(ulong, 0)
ALL_COLLECTIVES(float, 0)
ALL_COLLECTIVES(double, 0)
ALL_COLLECTIVES(half, 0) /* cl_khr_fp16 */

OVL int work_group_all(int predicate) { REDUCE_BODY(int, OP_all, predicate != 0) }
OVL int work_group_any(int predicate) { REDUCE_BODY(int, OP_any, predicate != 0) }
