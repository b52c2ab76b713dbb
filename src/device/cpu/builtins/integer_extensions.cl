/* Integer extensions: cl_khr_extended_bit_ops (bitfield_insert, bitfield_extract_signed,
 * bitfield_extract_unsigned, bit_reverse for every integer type and vector size) and
 * cl_khr_integer_dot_product (dot and dot_acc_sat of 4x8-bit vectors, plain and packed).
 * Offsets and counts beyond the element's width are undefined (OpenCL C spec); they are
 * computed in 64 bits so that a count equal to the width is exact. */
#include "kiln_cl.h"

#define U(T) KILN_U(T)
#define S(T) KILN_S(T)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* The low `count` bits set (count 0..64). */
static inline ulong low_bits(uint count) { return count >= 64 ? ~0UL : (1UL << count) - 1; }

#define BIT_OPS_SCALAR(T)                                                                 \
  OVL T bitfield_insert(T base, T insert, uint offset, uint count) {                      \
    if (count == 0) return base;                                                          \
    ulong mask = low_bits(count) << offset;                                               \
    ulong b = (ulong)(U(T))base, i = (ulong)(U(T))insert << offset;                       \
    return (T)(U(T))((b & ~mask) | (i & mask));                                           \
  }                                                                                       \
  OVL S(T) bitfield_extract_signed(T base, uint offset, uint count) {                     \
    if (count == 0) return 0;                                                             \
    return (S(T))((long)((ulong)(U(T))base << (64 - offset - count)) >> (64 - count));    \
  }                                                                                       \
  OVL U(T) bitfield_extract_unsigned(T base, uint offset, uint count) {                   \
    if (count == 0) return 0;                                                             \
    return (U(T))(((ulong)(U(T))base << (64 - offset - count)) >> (64 - count));          \
  }                                                                                       \
  OVL T bit_reverse(T base) {                                                             \
    return (T)(U(T))(__builtin_bitreverse64((ulong)(U(T))base) >> (64 - KILN_BITS_##T));       \
  }

#define BIT_OPS_VECTOR(N, T)                                                              \
  OVL T##N bitfield_insert(T##N base, T##N insert, uint offset, uint count) {             \
    T##N r;                                                                               \
    for (int k = 0; k < N; ++k) r[k] = bitfield_insert(base[k], insert[k], offset, count); \
    return r;                                                                             \
  }                                                                                       \
  OVL CAT(S(T), N) bitfield_extract_signed(T##N base, uint offset, uint count) {          \
    CAT(S(T), N) r;                                                                       \
    for (int k = 0; k < N; ++k) r[k] = bitfield_extract_signed(base[k], offset, count);   \
    return r;                                                                             \
  }                                                                                       \
  OVL CAT(U(T), N) bitfield_extract_unsigned(T##N base, uint offset, uint count) {        \
    CAT(U(T), N) r;                                                                       \
    for (int k = 0; k < N; ++k) r[k] = bitfield_extract_unsigned(base[k], offset, count); \
    return r;                                                                             \
  }                                                                                       \
  OVL T##N bit_reverse(T##N base) {                                                       \
    T##N r;                                                                               \
    for (int k = 0; k < N; ++k) r[k] = bit_reverse(base[k]);                              \
    return r;                                                                             \
  }

#define BIT_OPS(T, unused) BIT_OPS_SCALAR(T) KILN_FOR_VECTOR_SIZES(BIT_OPS_VECTOR, T)
KILN_FOR_INTEGERS(BIT_OPS)

/* Dot products: components widened to 32 bits (sign or zero as their type says). */
OVL uint add_sat(uint x, uint y); /* integer.cl */
OVL int add_sat(int x, int y);
#define DOT(R, A, B)                                                                      \
  OVL R dot(A##4 a, B##4 b) {                                                             \
    return (R)a.x * (R)b.x + (R)a.y * (R)b.y + (R)a.z * (R)b.z + (R)a.w * (R)b.w;         \
  }                                                                                       \
  OVL R dot_acc_sat(A##4 a, B##4 b, R acc) { return add_sat(dot(a, b), acc); }
DOT(uint, uchar, uchar)
DOT(int, char, char)
DOT(int, uchar, char)
DOT(int, char, uchar)

/* Packed: component 0 in the least significant byte. */
#define DOT_PACKED(SUFFIX, R, A, B)                                                                          \
  OVL R dot_4x8packed_##SUFFIX(uint a, uint b) { return dot(KILN_AS(A##4, a), KILN_AS(B##4, b)); }           \
  OVL R dot_acc_sat_4x8packed_##SUFFIX(uint a, uint b, R acc) {                                              \
    return dot_acc_sat(KILN_AS(A##4, a), KILN_AS(B##4, b), acc);                                              \
  }
DOT_PACKED(uu_uint, uint, uchar, uchar)
DOT_PACKED(ss_int, int, char, char)
DOT_PACKED(us_int, int, uchar, char)
DOT_PACKED(su_int, int, char, uchar)
