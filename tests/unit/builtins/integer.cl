/* Test kernels for test_builtins_integer.c: t_<function>_<type><n> applies one integer
 * builtin to every element (n = 1 for scalars; vectors through vloadn/vstoren). */
#define LOAD_1(i, p) (p)[i]
#define LOAD_2(i, p) vload2(i, p)
#define LOAD_3(i, p) vload3(i, p)
#define LOAD_4(i, p) vload4(i, p)
#define LOAD_8(i, p) vload8(i, p)
#define LOAD_16(i, p) vload16(i, p)
#define STORE_1(v, i, p) ((p)[i] = (v))
#define STORE_2(v, i, p) vstore2(v, i, p)
#define STORE_3(v, i, p) vstore3(v, i, p)
#define STORE_4(v, i, p) vstore4(v, i, p)
#define STORE_8(v, i, p) vstore8(v, i, p)
#define STORE_16(v, i, p) vstore16(v, i, p)

#define K1(F, T, R, N) \
  kernel void t_##F##_##T##N(global const T *a, global R *r) { size_t i = get_global_id(0); STORE_##N(F(LOAD_##N(i, a)), i, r); }
#define K2(F, T, R, N)                                                                 \
  kernel void t_##F##_##T##N(global const T *a, global const T *b, global R *r) {      \
    size_t i = get_global_id(0); STORE_##N(F(LOAD_##N(i, a), LOAD_##N(i, b)), i, r);   \
  }
#define K3(F, T, R, N)                                                                                 \
  kernel void t_##F##_##T##N(global const T *a, global const T *b, global const T *c, global R *r) {   \
    size_t i = get_global_id(0); STORE_##N(F(LOAD_##N(i, a), LOAD_##N(i, b), LOAD_##N(i, c)), i, r);   \
  }
/* The overloads with scalar second (and third) operands: b[i], c[i] for work-item i. */
#define K2S(F, T, N)                                                                   \
  kernel void t_##F##s_##T##N(global const T *a, global const T *b, global T *r) {     \
    size_t i = get_global_id(0); STORE_##N(F(LOAD_##N(i, a), b[i]), i, r);            \
  }
#define KCLAMPS(T, N)                                                                                   \
  kernel void t_clamps_##T##N(global const T *a, global const T *b, global const T *c, global T *r) {   \
    size_t i = get_global_id(0); STORE_##N(clamp(LOAD_##N(i, a), b[i], c[i]), i, r);                    \
  }

#define ALL_N(T, U, N)                                                                   \
  K1(abs, T, U, N) K2(abs_diff, T, U, N) K2(add_sat, T, T, N) K2(sub_sat, T, T, N)       \
  K2(hadd, T, T, N) K2(rhadd, T, T, N) K3(clamp, T, T, N) K1(clz, T, T, N)                \
  K1(ctz, T, T, N) K1(popcount, T, T, N) K3(mad_hi, T, T, N) K3(mad_sat, T, T, N)        \
  K2(max, T, T, N) K2(min, T, T, N) K2(mul_hi, T, T, N) K2(rotate, T, T, N)
#define VEC_N(T, N) K2S(max, T, N) K2S(min, T, N) KCLAMPS(T, N)
#define ALL(T, U)                                                                        \
  ALL_N(T, U, 1) ALL_N(T, U, 2) ALL_N(T, U, 3) ALL_N(T, U, 4) ALL_N(T, U, 8) ALL_N(T, U, 16) \
  VEC_N(T, 2) VEC_N(T, 3) VEC_N(T, 4) VEC_N(T, 8) VEC_N(T, 16)
ALL(char, uchar) ALL(uchar, uchar) ALL(short, ushort) ALL(ushort, ushort)
ALL(int, uint) ALL(uint, uint) ALL(long, ulong) ALL(ulong, ulong)

/* upsample(hi, lo) -> the type twice as wide. */
#define KUP(T, U, W, N)                                                                  \
  kernel void t_upsample_##T##N(global const T *a, global const U *b, global W *r) {     \
    size_t i = get_global_id(0); STORE_##N(upsample(LOAD_##N(i, a), LOAD_##N(i, b)), i, r); \
  }
#define UP(T, U, W) KUP(T, U, W, 1) KUP(T, U, W, 2) KUP(T, U, W, 3) KUP(T, U, W, 4) KUP(T, U, W, 8) KUP(T, U, W, 16)
UP(char, uchar, short) UP(uchar, uchar, ushort) UP(short, ushort, int) UP(ushort, ushort, uint)
UP(int, uint, long) UP(uint, uint, ulong)

/* mul24/mad24 (int and uint only). */
#define K24(T, N) K2(mul24, T, T, N) K3(mad24, T, T, N)
#define ALL24(T) K24(T, 1) K24(T, 2) K24(T, 3) K24(T, 4) K24(T, 8) K24(T, 16)
ALL24(int) ALL24(uint)
