/* The OpenCL 2.0/3.0 C11-style atomics (OpenCL C 3.0 §6.15.12) for atomic_int, atomic_uint,
 * atomic_long, atomic_ulong, atomic_float and atomic_double (fetch operations: integers
 * only), each without order, with an order, and with an order and a scope, plus
 * atomic_flag. Clang declares them with __generic pointers for OpenCL C 2.0 and with
 * __global/__local pointers (explicit forms only; the expected value of compare-exchange
 * in __global, __local or __private memory) for OpenCL C 3.0 without the generic address
 * space: all are defined, so this file is compiled with that feature on (CMakeLists.txt).
 * Every address space is ordinary host memory, so clang's __opencl_atomic_* builtins map
 * each order onto the host's atomic instructions; the scope only narrows visibility and is
 * honoured by the strongest (device-wide) behaviour. */
#include "kiln_cl.h"

#define SC memory_order_seq_cst
#define DEV memory_scope_device
#define A(AS, T) volatile AS atomic_##T *

/* load/store/exchange/compare-exchange/init for every atomic type T with value type V. */
#define ACCESS(AS, T, V)                                                                                   \
  OVL void atomic_init(A(AS, T) p, V v) { __opencl_atomic_init(p, v); }                                     \
  OVL void atomic_store(A(AS, T) p, V v) { __opencl_atomic_store(p, v, SC, DEV); }                          \
  OVL void atomic_store_explicit(A(AS, T) p, V v, memory_order o) { __opencl_atomic_store(p, v, o, DEV); }   \
  OVL void atomic_store_explicit(A(AS, T) p, V v, memory_order o, memory_scope s) {                         \
    __opencl_atomic_store(p, v, o, s);                                                                  \
  }                                                                                                     \
  OVL V atomic_load(A(AS, T) p) { return __opencl_atomic_load(p, SC, DEV); }                               \
  OVL V atomic_load_explicit(A(AS, T) p, memory_order o) { return __opencl_atomic_load(p, o, DEV); }         \
  OVL V atomic_load_explicit(A(AS, T) p, memory_order o, memory_scope s) { return __opencl_atomic_load(p, o, s); } \
  OVL V atomic_exchange(A(AS, T) p, V v) { return __opencl_atomic_exchange(p, v, SC, DEV); }                \
  OVL V atomic_exchange_explicit(A(AS, T) p, V v, memory_order o) { return __opencl_atomic_exchange(p, v, o, DEV); } \
  OVL V atomic_exchange_explicit(A(AS, T) p, V v, memory_order o, memory_scope s) {                         \
    return __opencl_atomic_exchange(p, v, o, s);                                                        \
  }                                                                                                     \
  CMPXCHG_FOR_##AS(T, V, strong) CMPXCHG_FOR_##AS(T, V, weak)
#define CMPXCHG_FOR___generic(T, V, KIND) CMPXCHG(__generic, __generic, T, V, KIND)
#define CMPXCHG_FOR___global(T, V, KIND) \
  CMPXCHG(__global, __global, T, V, KIND) CMPXCHG(__global, __local, T, V, KIND) CMPXCHG(__global, __private, T, V, KIND)
#define CMPXCHG_FOR___local(T, V, KIND) \
  CMPXCHG(__local, __global, T, V, KIND) CMPXCHG(__local, __local, T, V, KIND) CMPXCHG(__local, __private, T, V, KIND)
#define CMPXCHG(AS, EAS, T, V, KIND)                                                                            \
  OVL bool atomic_compare_exchange_##KIND(A(AS, T) p, EAS V *expected, V desired) {                  \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired, SC, SC, DEV);                  \
  }                                                                                                     \
  OVL bool atomic_compare_exchange_##KIND##_explicit(A(AS, T) p, EAS V *expected, V desired,           \
                                                     memory_order success, memory_order failure) {      \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired, success, failure, DEV);        \
  }                                                                                                     \
  OVL bool atomic_compare_exchange_##KIND##_explicit(A(AS, T) p, EAS V *expected, V desired,           \
                                                     memory_order success, memory_order failure,        \
                                                     memory_scope s) {                                  \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired, success, failure, s);          \
  }
#define ACCESS_ALL(AS, unused) \
  ACCESS(AS, int, int) ACCESS(AS, uint, uint) ACCESS(AS, long, long) ACCESS(AS, ulong, ulong) \
  ACCESS(AS, float, float) ACCESS(AS, double, double)

/* fetch_<op> for integer atomic type T with operand type V. */
#define FETCH(AS, OP, T, V)                                                                                \
  OVL V##_RESULT_##T atomic_fetch_##OP(A(AS, T) p, V v) { return __opencl_atomic_fetch_##OP(p, v, SC, DEV); } \
  OVL V##_RESULT_##T atomic_fetch_##OP##_explicit(A(AS, T) p, V v, memory_order o) {                         \
    return __opencl_atomic_fetch_##OP(p, v, o, DEV);                                                    \
  }                                                                                                     \
  OVL V##_RESULT_##T atomic_fetch_##OP##_explicit(A(AS, T) p, V v, memory_order o, memory_scope s) {         \
    return __opencl_atomic_fetch_##OP(p, v, o, s);                                                      \
  }
/* The result is the atomic's value type, also for the intptr_t/uintptr_t operand forms. */
#define int_RESULT_int int
#define uint_RESULT_uint uint
#define long_RESULT_long long
#define ulong_RESULT_ulong ulong
#define long_RESULT_ulong ulong
#define ulong_RESULT_long long
#define FETCH_OP(AS, OP) \
  FETCH(AS, OP, int, int) FETCH(AS, OP, uint, uint) FETCH(AS, OP, long, long) FETCH(AS, OP, ulong, ulong)
/* atomic_uintptr_t with a ptrdiff_t operand (add, sub); atomic_intptr_t/atomic_uintptr_t with
 * the other signedness (bitwise, min, max), as opencl-c.h declares them. */
#define FETCH_ALL(AS, unused)                                                                          \
  FETCH_OP(AS, add) FETCH_OP(AS, sub) FETCH_OP(AS, or) FETCH_OP(AS, xor) FETCH_OP(AS, and)             \
  FETCH_OP(AS, min) FETCH_OP(AS, max)                                                                  \
  FETCH(AS, add, ulong, long) FETCH(AS, sub, ulong, long) FETCH(AS, or, ulong, long)                   \
  FETCH(AS, xor, ulong, long) FETCH(AS, and, ulong, long) FETCH(AS, min, ulong, long)                  \
  FETCH(AS, max, ulong, long) FETCH(AS, or, long, ulong) FETCH(AS, xor, long, ulong)                   \
  FETCH(AS, and, long, ulong) FETCH(AS, min, long, ulong) FETCH(AS, max, long, ulong)

/* atomic_flag: an atomic_int holding 0 (clear) or 1 (set). */
#define FLAG(AS, unused)                                                                                \
  OVL bool atomic_flag_test_and_set(volatile AS atomic_flag *f) {                                \
    return __opencl_atomic_exchange((A(AS, int))f, 1, SC, DEV) != 0;                                        \
  }                                                                                                     \
  OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *f, memory_order o) {        \
    return __opencl_atomic_exchange((A(AS, int))f, 1, o, DEV) != 0;                                         \
  }                                                                                                     \
  OVL bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *f, memory_order o, memory_scope s) { \
    return __opencl_atomic_exchange((A(AS, int))f, 1, o, s) != 0;                                           \
  }                                                                                                     \
  OVL void atomic_flag_clear(volatile AS atomic_flag *f) { __opencl_atomic_store((A(AS, int))f, 0, SC, DEV); } \
  OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *f, memory_order o) {              \
    __opencl_atomic_store((A(AS, int))f, 0, o, DEV);                                                        \
  }                                                                                                     \
  OVL void atomic_flag_clear_explicit(volatile AS atomic_flag *f, memory_order o, memory_scope s) { \
    __opencl_atomic_store((A(AS, int))f, 0, o, s);                                                          \
  }
#define ALL(AS, unused) ACCESS_ALL(AS, 0) FETCH_ALL(AS, 0) FLAG(AS, 0)
ALL(__generic, 0)
ALL(__global, 0)
ALL(__local, 0)
