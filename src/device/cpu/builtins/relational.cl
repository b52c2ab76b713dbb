/* Relational functions (OpenCL C 3.0 §6.15.6). Comparisons of scalars give 1/0 and of
 * vectors -1/0 (all bits set), exactly what C-style comparison of clang's OpenCL vectors
 * gives, so one expression serves both. */
#include "kiln_cl.h"

/* G: value type; I: the signed integer type of the same shape (the result type). */
#define RELATIONAL(G, I, S, B)                                                                     \
  OVLI I isequal(G x, G y) { return x == y; }                                                     \
  OVLI I isnotequal(G x, G y) { return x != y; }                                                  \
  OVLI I isgreater(G x, G y) { return x > y; }                                                    \
  OVLI I isgreaterequal(G x, G y) { return x >= y; }                                              \
  OVLI I isless(G x, G y) { return x < y; }                                                       \
  OVLI I islessequal(G x, G y) { return x <= y; }                                                 \
  OVLI I islessgreater(G x, G y) { return (x < y) | (x > y); }                                    \
  OVLI I isfinite(G x) { return __builtin_elementwise_abs(x) < (G)(S)INFINITY; }                  \
  OVLI I isinf(G x) { return __builtin_elementwise_abs(x) == (G)(S)INFINITY; }                    \
  OVLI I isnan(G x) { return x != x; }                                                            \
  OVLI I isnormal(G x) {                                                                          \
    G a = __builtin_elementwise_abs(x);                                                           \
    return (a >= (G)(S)MIN_##S) & (a < (G)(S)INFINITY);                                           \
  }                                                                                               \
  OVLI I isordered(G x, G y) { return (x == x) & (y == y); }                                      \
  OVLI I isunordered(G x, G y) { return (x != x) | (y != y); }                                    \
  OVLI I signbit(G x) { return KILN_AS(B, x) < (B)0; }
#define MIN_float FLT_MIN
#define MIN_double DBL_MIN
#define MIN_half 0x1p-14h
RELATIONAL(float, int, float, int)
RELATIONAL(double, int, double, long)
RELATIONAL(half, int, half, short)
#define RELATIONAL_N(N, S, I) RELATIONAL(S##N, I##N, S, I##N)
KILN_FOR_VECTOR_SIZES(RELATIONAL_N, float, int)
KILN_FOR_VECTOR_SIZES(RELATIONAL_N, double, long)
KILN_FOR_VECTOR_SIZES(RELATIONAL_N, half, short)

/* any/all: the most significant bit of signed integer components. */
#define ANY_ALL_N(N, T)                                                                    \
  OVL int any(T##N x) { for (int i = 0; i < N; ++i) if (x[i] < 0) return 1; return 0; }    \
  OVL int all(T##N x) { for (int i = 0; i < N; ++i) if (x[i] >= 0) return 0; return 1; }
#define ANY_ALL(T, unused) \
  OVLI int any(T x) { return x < 0; } OVLI int all(T x) { return x < 0; } KILN_FOR_VECTOR_SIZES(ANY_ALL_N, T)
KILN_FOR_SIGNED(ANY_ALL, 0)

/* bitselect and select for every gentype G whose same-width integer types are I (signed)
 * and U (unsigned). select picks b where c is non-zero (scalars) or has its MSB set
 * (vectors). */
#define SELECTS(G, I, U, SCALAR)                                                                  \
  OVLI G bitselect(G a, G b, G c) {                                                               \
    U ua = KILN_AS(U, a), ub = KILN_AS(U, b), uc = KILN_AS(U, c);                                 \
    return KILN_AS(G, (U)((ua & ~uc) | (ub & uc)));                                                \
  }                                                                                               \
  OVLI G select(G a, G b, I c) { return SCALAR ? (c ? b : a) : (c < (I)0 ? b : a); }               \
  OVLI G select(G a, G b, U c) { return SCALAR ? (c ? b : a) : (KILN_AS(I, c) < (I)0 ? b : a); }
#define SELECTS_N(N, S, I, U) SELECTS(S##N, I##N, U##N, 0)
#define SELECTS_ALL(S, I, U)                            \
  SELECTS(S, I, U, 1)                                   \
  KILN_FOR_VECTOR_SIZES(SELECTS_N, S, I, U)
SELECTS_ALL(char, char, uchar)
SELECTS_ALL(uchar, char, uchar)
SELECTS_ALL(short, short, ushort)
SELECTS_ALL(ushort, short, ushort)
SELECTS_ALL(int, int, uint)
SELECTS_ALL(uint, int, uint)
SELECTS_ALL(long, long, ulong)
SELECTS_ALL(ulong, long, ulong)
SELECTS_ALL(float, int, uint)
SELECTS_ALL(double, long, ulong)
SELECTS_ALL(half, short, ushort)
