/* Integer functions (OpenCL C 3.0 §6.15.3) for every integer type and vector size.
 * Most are written once as expressions that work element-wise on scalars and vectors;
 * the ones that need a wider type or a per-element loop use KILN_VMAP*. */
#include "kiln_cl.h"

#define U(T) KILN_U(T)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)


#define MIN_char ((char)-128)
#define MAX_char ((char)127)
#define MIN_uchar ((uchar)0)
#define MAX_uchar ((uchar)255)
#define MIN_short ((short)-32768)
#define MAX_short ((short)32767)
#define MIN_ushort ((ushort)0)
#define MAX_ushort ((ushort)65535)
#define MIN_int (-2147483647 - 1)
#define MAX_int 2147483647
#define MIN_uint 0u
#define MAX_uint 4294967295u
#define MIN_long (-9223372036854775807L - 1)
#define MAX_long 9223372036854775807L
#define MIN_ulong 0UL
#define MAX_ulong 18446744073709551615UL

#define SIGNED_char 1
#define SIGNED_uchar 0
#define SIGNED_short 1
#define SIGNED_ushort 0
#define SIGNED_int 1
#define SIGNED_uint 0
#define SIGNED_long 1
#define SIGNED_ulong 0

/* Definitions for one (possibly vector) type G with element type T, unsigned UG. */
#define ELEMENTWISE(G, UG, T)                                                                     \
  OVLI UG abs(G x) { UG u = KILN_AS(UG, x); return SIGNED_##T ? (x < (G)0 ? (UG)-u : u) : u; }         \
  OVLI UG abs_diff(G x, G y) {                                                                    \
    UG ux = KILN_AS(UG, x), uy = KILN_AS(UG, y);                                                  \
    return x > y ? (UG)(ux - uy) : (UG)(uy - ux);                                                             \
  }                                                                                               \
  OVLI G hadd(G x, G y) { return (G)((x >> (G)1) + (y >> (G)1) + (x & y & (G)1)); }                    \
  OVLI G rhadd(G x, G y) { return (G)((x >> (G)1) + (y >> (G)1) + ((x | y) & (G)1)); }                \
  OVLI G max(G x, G y) { return __builtin_elementwise_max(x, y); }                                \
  OVLI G min(G x, G y) { return __builtin_elementwise_min(x, y); }                                \
  OVLI G clamp(G x, G lo, G hi) { return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); } \
  OVLI G rotate(G v, G i) {                                                                       \
    UG u = KILN_AS(UG, v), s = KILN_AS(UG, i) & (UG)(KILN_BITS_##T - 1);                               \
    return KILN_AS(G, (UG)((u << s) | (u >> (((UG)KILN_BITS_##T - s) & (UG)(KILN_BITS_##T - 1)))));               \
  }

/* Scalar add_sat/sub_sat: __builtin_elementwise_*_sat promotes char and short scalars to
 * int (and then saturates at int's limits), so scalars use the overflow builtins. */
#define SCALAR_ONLY(T)                                                                            \
  OVL T add_sat(T x, T y) { T r; return __builtin_add_overflow(x, y, &r) ? (y > 0 ? MAX_##T : MIN_##T) : r; } \
  OVL T sub_sat(T x, T y) { T r; return __builtin_sub_overflow(x, y, &r) ? (y > 0 ? MIN_##T : MAX_##T) : r; } \
  OVL T clz(T x) {                                                                                \
    return x == 0 ? (T)KILN_BITS_##T : (T)(__builtin_clzl((ulong)(U(T))x) - (64 - KILN_BITS_##T));          \
  }                                                                                               \
  OVL T ctz(T x) { return x == 0 ? (T)KILN_BITS_##T : (T)__builtin_ctzl((ulong)(U(T))x); }            \
  OVL T popcount(T x) { return (T)__builtin_popcountl((ulong)(U(T))x); }                          \
  KILN_VMAP1(T, popcount, T)                                                                      \
  OVL T mad_hi(T a, T b, T c) { return mul_hi(a, b) + c; }                                        \
  KILN_VMAP1(T, clz, T)                                                                           \
  KILN_VMAP1(T, ctz, T)                                                                           \
  KILN_VMAP2(T, mul_hi, T, T)                                                                     \
  KILN_VMAP3(T, mad_hi, T, T, T)                                                                  \
  KILN_VMAP3(T, mad_sat, T, T, T)

#define VECTOR_N(N, T)                                                                            \
  OVLI T##N add_sat(T##N x, T##N y) { return __builtin_elementwise_add_sat(x, y); }               \
  OVLI T##N sub_sat(T##N x, T##N y) { return __builtin_elementwise_sub_sat(x, y); }               \
  ELEMENTWISE(T##N, CAT(U(T), N), T)                                                                   \
  OVLI T##N max(T##N x, T y) { return max(x, (T##N)y); }                                          \
  OVLI T##N min(T##N x, T y) { return min(x, (T##N)y); }                                          \
  OVLI T##N clamp(T##N x, T lo, T hi) { return clamp(x, (T##N)lo, (T##N)hi); }

#define INTEGER_TYPE(T, unused)    \
  ELEMENTWISE(T, U(T), T)         \
  KILN_FOR_VECTOR_SIZES(VECTOR_N, T) \
  SCALAR_ONLY(T)

/* mul_hi and mad_sat through a type twice as wide. */
#define WIDE(T, W, MINV, MAXV)                                                                    \
  OVL T mul_hi(T a, T b) { return (T)(((W)a * (W)b) >> KILN_BITS_##T); }                               \
  OVL T mad_sat(T a, T b, T c) {                                                                  \
    W r = (W)a * (W)b + (W)c;                                                                     \
    return r > (W)(MAXV) ? (T)(MAXV) : r < (W)(MINV) ? (T)(MINV) : (T)r;                          \
  }
WIDE(char, int, -128, 127)
WIDE(uchar, uint, 0, 255)
WIDE(short, int, -32768, 32767)
WIDE(ushort, uint, 0, 65535)
WIDE(int, long, -2147483647 - 1, 2147483647)
WIDE(uint, ulong, 0, 4294967295u)
/* 64-bit: the 128-bit product from 32-bit halves (no __int128 on the SPIR target). */
OVL ulong mul_hi(ulong a, ulong b) {
  ulong al = a & 0xffffffffUL, ah = a >> 32, bl = b & 0xffffffffUL, bh = b >> 32;
  ulong ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  ulong mid = (ll >> 32) + (lh & 0xffffffffUL) + (hl & 0xffffffffUL);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
OVL long mul_hi(long a, long b) {
  ulong hi = mul_hi((ulong)a, (ulong)b);
  hi -= a < 0 ? (ulong)b : 0;
  hi -= b < 0 ? (ulong)a : 0;
  return (long)hi;
}
OVL long mad_sat(long a, long b, long c) {
  long hi = mul_hi(a, b);
  ulong lo = (ulong)a * (ulong)b;
  ulong sum = lo + (ulong)c;
  hi += (long)(sum < lo) + (c < 0 ? -1L : 0L); /* carry and c's sign extension */
  if (hi == ((long)sum >> 63)) return (long)sum;
  return hi < 0 ? (-0x7fffffffffffffffL - 1) : 0x7fffffffffffffffL;
}
OVL ulong mad_sat(ulong a, ulong b, ulong c) {
  if (mul_hi(a, b)) return ~0UL;
  ulong lo = a * b;
  return lo + c < lo ? ~0UL : lo + c;
}

KILN_FOR_INTEGERS(INTEGER_TYPE, 0)

/* upsample: hi << bits(lo) | lo. */
#define UPSAMPLE(R, H, L)                                                                    \
  OVL R upsample(H hi, L lo) { return (R)(((R)hi << (sizeof(L) * 8)) | (R)lo); }             \
  KILN_VMAP2(R, upsample, H, L)
UPSAMPLE(short, char, uchar)
UPSAMPLE(ushort, uchar, uchar)
UPSAMPLE(int, short, ushort)
UPSAMPLE(uint, ushort, ushort)
UPSAMPLE(long, int, uint)
UPSAMPLE(ulong, uint, uint)

/* mul24/mad24: the spec leaves results undefined outside 24-bit operands; the full
 * product's low 32 bits are exact within range. */
#define FAST24(G)                                                         \
  OVLI G mul24(G x, G y) { return x * y; }                                \
  OVLI G mad24(G x, G y, G z) { return x * y + z; }
#define FAST24_N(N, T) FAST24(T##N)
FAST24(int)
FAST24(uint)
KILN_FOR_VECTOR_SIZES(FAST24_N, int)
KILN_FOR_VECTOR_SIZES(FAST24_N, uint)
