/* shuffle / shuffle2 (OpenCL C 3.0 §6.15.13, miscellaneous vector functions) for every
 * element type and every input/output size in 2, 4, 8, 16. Only the low log2(2m) bits of
 * each mask component select (the spec ignores the others). */
#include "kiln_cl.h"

#define SHUFFLE(N, M, T, U)                                                                  \
  OVL T##N shuffle(T##M x, U##N mask) {                                                      \
    T##N r;                                                                                  \
    for (int i = 0; i < N; ++i) r[i] = x[mask[i] & (U)(M - 1)];                              \
    return r;                                                                                \
  }                                                                                          \
  OVL T##N shuffle2(T##M x, T##M y, U##N mask) {                                             \
    T##N r;                                                                                  \
    for (int i = 0; i < N; ++i) {                                                            \
      U k = mask[i] & (U)(2 * M - 1);                                                        \
      r[i] = k < (U)M ? x[k] : y[k - (U)M];                                                  \
    }                                                                                        \
    return r;                                                                                \
  }
#define SHUFFLE_OUT(M, T, U) SHUFFLE(2, M, T, U) SHUFFLE(4, M, T, U) SHUFFLE(8, M, T, U) SHUFFLE(16, M, T, U)
#define SHUFFLE_ALL(T, U) SHUFFLE_OUT(2, T, U) SHUFFLE_OUT(4, T, U) SHUFFLE_OUT(8, T, U) SHUFFLE_OUT(16, T, U)
SHUFFLE_ALL(char, uchar)
SHUFFLE_ALL(uchar, uchar)
SHUFFLE_ALL(short, ushort)
SHUFFLE_ALL(ushort, ushort)
SHUFFLE_ALL(int, uint)
SHUFFLE_ALL(uint, uint)
SHUFFLE_ALL(long, ulong)
SHUFFLE_ALL(ulong, ulong)
SHUFFLE_ALL(float, uint)
SHUFFLE_ALL(double, ulong)
SHUFFLE_ALL(half, ushort)
