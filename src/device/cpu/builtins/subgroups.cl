/* Sub-group functions (OpenCL C 3.0 §6.15.18, __opencl_c_subgroups) and the
 * cl_khr_subgroup_* extensions: extended_types, non_uniform_vote, ballot,
 * non_uniform_arithmetic, shuffle, shuffle_relative, clustered_reduce and rotate.
 *
 * A sub-group is one work-item on this device (CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE is 1,
 * the size that really runs): the group's work-items are sub-groups 0 .. n-1 in linear-id
 * order, and every function is exact for a sub-group of one — a reduction or inclusive scan
 * is the value itself, an exclusive scan the operation's identity, a ballot bit 0, a
 * shuffle, rotation or broadcast from local id 0 the value. Sub-groups as whole vectors of
 * work-items (docs/vectorization.md) are to replace this mapping. */
#include "kiln_cl.h"

OVL uint get_sub_group_size(void) { return 1; }
OVL uint get_max_sub_group_size(void) { return 1; }
OVL uint get_num_sub_groups(void) {
  return (uint)(__kiln_local_size(0) * __kiln_local_size(1) * __kiln_local_size(2));
}
OVL uint get_enqueued_num_sub_groups(void) {
  return (uint)(__kiln_enqueued_local_size(0) * __kiln_enqueued_local_size(1) * __kiln_enqueued_local_size(2));
}
OVL uint get_sub_group_id(void) {
  return (uint)((__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) +
                __kiln_local_id(0));
}
OVL uint get_sub_group_local_id(void) { return 0; }

/* One work-item: program order already orders its memory accesses. */
OVL void sub_group_barrier(cl_mem_fence_flags flags) {}
OVL void sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {}

OVL int sub_group_all(int predicate) { return predicate != 0; }
OVL int sub_group_any(int predicate) { return predicate != 0; }
OVL int sub_group_elect(void) { return 1; }
OVL int sub_group_non_uniform_all(int predicate) { return predicate != 0; }
OVL int sub_group_non_uniform_any(int predicate) { return predicate != 0; }

/* Ballots: bit i of the uint4 (x holds bits 0-31) is sub-group local id i; only bit 0 exists. */
OVL uint4 sub_group_ballot(int predicate) { return (uint4)(predicate != 0, 0, 0, 0); }
OVL int sub_group_inverse_ballot(uint4 value) { return (int)(value.x & 1u); }
OVL int sub_group_ballot_bit_extract(uint4 value, uint index) {
  uint word = index / 32 == 0 ? value.x : index / 32 == 1 ? value.y : index / 32 == 2 ? value.z : value.w;
  return (int)((word >> (index % 32)) & 1u);
}
OVL uint sub_group_ballot_bit_count(uint4 value) { return value.x & 1u; }
OVL uint sub_group_ballot_inclusive_scan(uint4 value) { return value.x & 1u; }
OVL uint sub_group_ballot_exclusive_scan(uint4 value) { return 0; }
/* Undefined when no valid bit is set; 0, the only local id, otherwise. */
OVL uint sub_group_ballot_find_lsb(uint4 value) { return 0; }
OVL uint sub_group_ballot_find_msb(uint4 value) { return 0; }
OVL uint4 get_sub_group_eq_mask(void) { return (uint4)(1, 0, 0, 0); }
OVL uint4 get_sub_group_ge_mask(void) { return (uint4)(1, 0, 0, 0); }
OVL uint4 get_sub_group_gt_mask(void) { return (uint4)(0, 0, 0, 0); }
OVL uint4 get_sub_group_le_mask(void) { return (uint4)(1, 0, 0, 0); }
OVL uint4 get_sub_group_lt_mask(void) { return (uint4)(0, 0, 0, 0); }

/* Identities of exclusive scans (OpenCL C: the type's largest value for min, smallest for
 * max, +/-INFINITY for floating point; 1 for mul, all ones for and). */
#define MAX_char ((char)127)
#define MIN_char ((char)-128)
#define MAX_uchar ((uchar)255)
#define MIN_uchar ((uchar)0)
#define MAX_short ((short)32767)
#define MIN_short ((short)-32768)
#define MAX_ushort ((ushort)65535)
#define MIN_ushort ((ushort)0)
#define MAX_int 2147483647
#define MIN_int (-2147483647 - 1)
#define MAX_uint 4294967295u
#define MIN_uint 0u
#define MAX_long 9223372036854775807L
#define MIN_long (-9223372036854775807L - 1)
#define MAX_ulong 18446744073709551615UL
#define MIN_ulong 0UL
#define MAX_float INFINITY
#define MIN_float (-INFINITY)
#define MAX_double ((double)INFINITY)
#define MIN_double (-(double)INFINITY)
#define MAX_half ((half)INFINITY)
#define MIN_half (-(half)INFINITY)
#define ID_add(T) ((T)0)
#define ID_mul(T) ((T)1)
#define ID_min(T) MAX_##T
#define ID_max(T) MIN_##T
#define ID_and(T) ((T)~(T)0)
#define ID_or(T) ((T)0)
#define ID_xor(T) ((T)0)

/* The reduce/scan family of one operation for type T, with `prefix` "" (sub_group_reduce_op,
 * and extended types) or "non_uniform_". */
#define SCANS(T, PREFIX, OP)                                                      \
  OVL T sub_group_##PREFIX##reduce_##OP(T x) { return x; }                        \
  OVL T sub_group_##PREFIX##scan_inclusive_##OP(T x) { return x; }                \
  OVL T sub_group_##PREFIX##scan_exclusive_##OP(T x) { return ID_##OP(T); }

/* Everything that takes one scalar value of type T. */
#define SCALAR_FUNCTIONS(T, unused)                                               \
  SCANS(T, , add) SCANS(T, , min) SCANS(T, , max)                                 \
  SCANS(T, non_uniform_, add) SCANS(T, non_uniform_, min)                         \
  SCANS(T, non_uniform_, max) SCANS(T, non_uniform_, mul)                         \
  OVL int sub_group_non_uniform_all_equal(T x) { return 1; }                      \
  OVL T sub_group_broadcast_first(T x) { return x; }                              \
  OVL T sub_group_shuffle(T x, uint id) { return x; }                             \
  OVL T sub_group_shuffle_xor(T x, uint mask) { return x; }                       \
  OVL T sub_group_shuffle_up(T x, uint delta) { return x; }                       \
  OVL T sub_group_shuffle_down(T x, uint delta) { return x; }                     \
  OVL T sub_group_rotate(T x, int delta) { return x; }                            \
  OVL T sub_group_clustered_rotate(T x, int delta, uint cluster_size) { return x; } \
  OVL T sub_group_clustered_reduce_add(T x, uint cluster_size) { return x; }      \
  OVL T sub_group_clustered_reduce_mul(T x, uint cluster_size) { return x; }      \
  OVL T sub_group_clustered_reduce_min(T x, uint cluster_size) { return x; }      \
  OVL T sub_group_clustered_reduce_max(T x, uint cluster_size) { return x; }

#define BITWISE_FUNCTIONS(T, unused)                                              \
  SCANS(T, non_uniform_, and) SCANS(T, non_uniform_, or) SCANS(T, non_uniform_, xor) \
  OVL T sub_group_clustered_reduce_and(T x, uint cluster_size) { return x; }      \
  OVL T sub_group_clustered_reduce_or(T x, uint cluster_size) { return x; }       \
  OVL T sub_group_clustered_reduce_xor(T x, uint cluster_size) { return x; }

/* Broadcasts from local id 0 (any other id is undefined), for scalars and vectors. */
#define BROADCAST_N(N, T)                                                          \
  OVL T##N sub_group_broadcast(T##N x, uint id) { return x; }                      \
  OVL T##N sub_group_non_uniform_broadcast(T##N x, uint id) { return x; }
#define BROADCASTS(T, unused)                                                      \
  OVL T sub_group_broadcast(T x, uint id) { return x; }                            \
  OVL T sub_group_non_uniform_broadcast(T x, uint id) { return x; }                \
  KILN_FOR_VECTOR_SIZES(BROADCAST_N, T)

KILN_FOR_INTEGERS(SCALAR_FUNCTIONS)
KILN_FOR_FLOATS(SCALAR_FUNCTIONS)
KILN_FOR_INTEGERS(BITWISE_FUNCTIONS)
KILN_FOR_INTEGERS(BROADCASTS)
KILN_FOR_FLOATS(BROADCASTS)
SCALAR_FUNCTIONS(half, 0) /* cl_khr_fp16 */
BROADCASTS(half, 0)

/* The logical operations take and give int: 0 or 1. */
#define ID_logical_and(T) 1
#define ID_logical_or(T) 0
#define ID_logical_xor(T) 0
#define LOGICAL(OP)                                                                       \
  OVL int sub_group_non_uniform_reduce_logical_##OP(int p) { return p != 0; }             \
  OVL int sub_group_non_uniform_scan_inclusive_logical_##OP(int p) { return p != 0; }     \
  OVL int sub_group_non_uniform_scan_exclusive_logical_##OP(int p) { return ID_logical_##OP(int); } \
  OVL int sub_group_clustered_reduce_logical_##OP(int p, uint cluster_size) { return p != 0; }
LOGICAL(and)
LOGICAL(or)
LOGICAL(xor)
