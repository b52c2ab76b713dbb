/* The OpenCL 1.x atomic functions (OpenCL C 3.0 §6.15.12.9 atomic_*, and the atom_* of
 * cl_khr_{global,local}_int32_{base,extended}_atomics and cl_khr_int64_{base,extended}_atomics)
 * on __global and __local memory: sequentially consistent read-modify-write operations
 * returning the old value. */
#include "kiln_cl.h"

#define SC __ATOMIC_SEQ_CST
#define LEGACY_OPS(PREFIX, AS, T)                                                                     \
  OVL T PREFIX##add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, SC); }                   \
  OVL T PREFIX##sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, SC); }                   \
  OVL T PREFIX##xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, SC); }                 \
  OVL T PREFIX##inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, SC); }                     \
  OVL T PREFIX##dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, SC); }                     \
  OVL T PREFIX##cmpxchg(volatile AS T *p, T cmp, T v) {                                               \
    __atomic_compare_exchange_n(p, &cmp, v, false, SC, SC);                                           \
    return cmp;                                                                                       \
  }                                                                                                   \
  OVL T PREFIX##min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, SC); }                   \
  OVL T PREFIX##max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, SC); }                   \
  OVL T PREFIX##and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, SC); }                   \
  OVL T PREFIX##or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, SC); }                     \
  OVL T PREFIX##xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, SC); }
#define LEGACY_AS(AS, T) LEGACY_OPS(atomic_, AS, T) LEGACY_OPS(atom_, AS, T)
#define LEGACY_64_AS(AS, T) LEGACY_OPS(atom_, AS, T)
LEGACY_AS(__global, int)
LEGACY_AS(__global, uint)
LEGACY_AS(__local, int)
LEGACY_AS(__local, uint)
LEGACY_64_AS(__global, long)
LEGACY_64_AS(__global, ulong)
LEGACY_64_AS(__local, long)
LEGACY_64_AS(__local, ulong)

/* atomic_xchg for float: an exchange of the bits. */
#define FLOAT_XCHG(AS, unused)                                                                         \
  OVL float atomic_xchg(volatile AS float *p, float v) {                                              \
    return KILN_AS(float, __atomic_exchange_n((volatile AS uint *)p, KILN_AS(uint, v), SC));          \
  }
FLOAT_XCHG(__global, 0)
FLOAT_XCHG(__local, 0)
