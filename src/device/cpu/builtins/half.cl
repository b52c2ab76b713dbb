/* cl_khr_fp16's math, common and geometric functions for half, scalar and vector
 * (OpenCL C 3.0 §6.15.2, 6.15.4, 6.15.5). Each is the float function on the exactly
 * converted arguments, rounded to half once: float's 24 bits make that rounding innocuous
 * for +, -, *, /, sqrt (24 >= 2 * 11 + 2), the exact functions (fmod, frexp, ldexp, ...)
 * give exact results, and the others stay far within half's ULP limits. fma is computed in
 * double, where a half product is exact and a finite half result leaves no second tie.
 * nextafter and nan work on half's own bits. Vectors apply the scalar function to each
 * element. (Conversions are in conversions.cl; relational, shuffle, select, loads/stores,
 * async copies and the collectives list half beside the other types.) */
#include "kiln_cl.h"

/* f(half) -> half through float f. */
#define UNARY(F)                                                                 \
  OVL float F(float);                                                            \
  OVL half F(half x) { return (half)F((float)x); }                               \
  KILN_VMAP1(half, F, half)
#define BINARY(F)                                                                \
  OVL float F(float, float);                                                     \
  OVL half F(half x, half y) { return (half)F((float)x, (float)y); }              \
  KILN_VMAP2(half, F, half, half)
#define TERNARY(F)                                                               \
  OVL float F(float, float, float);                                              \
  OVL half F(half x, half y, half z) { return (half)F((float)x, (float)y, (float)z); } \
  KILN_VMAP3(half, F, half, half, half)

UNARY(acos) UNARY(acosh) UNARY(acospi) UNARY(asin) UNARY(asinh) UNARY(asinpi) UNARY(atan) UNARY(atanh)
UNARY(atanpi) UNARY(cbrt) UNARY(ceil) UNARY(cos) UNARY(cosh) UNARY(cospi) UNARY(erf) UNARY(erfc) UNARY(exp)
UNARY(exp10) UNARY(exp2) UNARY(expm1) UNARY(fabs) UNARY(floor) UNARY(lgamma) UNARY(log) UNARY(log10)
UNARY(log1p) UNARY(log2) UNARY(logb) UNARY(rint) UNARY(round) UNARY(rsqrt) UNARY(sin) UNARY(sinh)
UNARY(sinpi) UNARY(sqrt) UNARY(tan) UNARY(tanh) UNARY(tanpi) UNARY(tgamma) UNARY(trunc)
UNARY(degrees) UNARY(radians) UNARY(sign)
BINARY(atan2) BINARY(atan2pi) BINARY(copysign) BINARY(fdim) BINARY(fmax) BINARY(fmin) BINARY(fmod)
BINARY(hypot) BINARY(maxmag) BINARY(minmag) BINARY(pow) BINARY(powr) BINARY(remainder) BINARY(max)
BINARY(min) BINARY(step)
TERNARY(mad) TERNARY(clamp) TERNARY(mix) TERNARY(smoothstep)

OVL half fma(half a, half b, half c) { return (half)__builtin_fma((double)a, (double)b, (double)c); }
KILN_VMAP3(half, fma, half, half, half)

/* The overloads with a scalar second (or limit) argument. */
#define SCALAR_ARGS_N(N, unused)                                                                    \
  OVL half##N fmax(half##N x, half y) { return fmax(x, (half##N)y); }                              \
  OVL half##N fmin(half##N x, half y) { return fmin(x, (half##N)y); }                              \
  OVL half##N max(half##N x, half y) { return max(x, (half##N)y); }                                \
  OVL half##N min(half##N x, half y) { return min(x, (half##N)y); }                                \
  OVL half##N clamp(half##N x, half lo, half hi) { return clamp(x, (half##N)lo, (half##N)hi); }    \
  OVL half##N mix(half##N x, half##N y, half a) { return mix(x, y, (half##N)a); }                  \
  OVL half##N step(half edge, half##N x) { return step((half##N)edge, x); }                        \
  OVL half##N smoothstep(half e0, half e1, half##N x) { return smoothstep((half##N)e0, (half##N)e1, x); }
KILN_FOR_VECTOR_SIZES(SCALAR_ARGS_N, 0)

/* With integer arguments or results. */
OVL float ldexp(float, int);
OVL float pown(float, int);
OVL float rootn(float, int);
OVL int ilogb(float);
OVL half ldexp(half x, int n) { return (half)ldexp((float)x, n); }
OVL half pown(half x, int n) { return (half)pown((float)x, n); }
OVL half rootn(half x, int n) { return (half)rootn((float)x, n); }
OVL int ilogb(half x) { return ilogb((float)x); }
KILN_VMAP2(half, ldexp, half, int)
KILN_VMAP2(half, pown, half, int)
KILN_VMAP2(half, rootn, half, int)
KILN_VMAP1(int, ilogb, half)
#define LDEXP_SCALAR_N(N, unused) \
  OVL half##N ldexp(half##N x, int n) { return ldexp(x, (int##N)n); }
KILN_FOR_VECTOR_SIZES(LDEXP_SCALAR_N, 0)

/* On half's bits: the next representable half towards y. */
OVL half nextafter(half x, half y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == (half)0.0f) return __builtin_astype((ushort)(y > x ? 0x0001 : 0x8001), half);
  ushort b = __builtin_astype(x, ushort);
  bool away = (y > x) == (x > (half)0.0f);
  return __builtin_astype((ushort)(away ? b + 1 : b - 1), half);
}
KILN_VMAP2(half, nextafter, half, half)

/* A quiet NaN with the code in its mantissa's low bits. */
OVL half nan(ushort code) { return __builtin_astype((ushort)(0x7e00 | (code & 0x1ff)), half); }
KILN_VMAP1(half, nan, ushort)

/* Functions that also store through a pointer, for every address space. */
OVL float fract(float, __private float *);
OVL float modf(float, __private float *);
OVL float sincos(float, __private float *);
OVL float frexp(float, __private int *);
OVL float lgamma_r(float, __private int *);
OVL float remquo(float, float, __private int *);
/* Below 1 after rounding to half too: 1 - 2^-24 is a float, but rounds to 1.0h. NaN stays. */
static half fract_half(float x, __private float *ip) {
  half r = (half)fract(x, ip);
  return r >= (half)1.0f ? 0x1.ffcp-1h : r;
}
#define POINTER_FUNCTIONS(AS, unused)                                                                   \
  OVL half fract(half x, AS half *ip) { float i; half r = fract_half((float)x, &i); *ip = (half)i; return r; } \
  OVL half modf(half x, AS half *ip) { float i; half r = (half)modf((float)x, &i); *ip = (half)i; return r; } \
  OVL half sincos(half x, AS half *c) { float fc; half r = (half)sincos((float)x, &fc); *c = (half)fc; return r; } \
  OVL half frexp(half x, AS int *e) { int k; half r = (half)frexp((float)x, &k); *e = k; return r; }          \
  OVL half lgamma_r(half x, AS int *s) { int k; half r = (half)lgamma_r((float)x, &k); *s = k; return r; }     \
  OVL half remquo(half x, half y, AS int *q) {                                                                \
    int k; half r = (half)remquo((float)x, (float)y, &k); *q = k; return r;                                   \
  }
#define POINTER_VECTORS(N, AS)                                                                                \
  OVL half##N fract(half##N x, AS half##N *ip) {                                                              \
    half##N r, i; for (int k = 0; k < N; ++k) { half t; r[k] = fract(x[k], &t); i[k] = t; } *ip = i; return r; \
  }                                                                                                           \
  OVL half##N modf(half##N x, AS half##N *ip) {                                                               \
    half##N r, i; for (int k = 0; k < N; ++k) { half t; r[k] = modf(x[k], &t); i[k] = t; } *ip = i; return r; \
  }                                                                                                           \
  OVL half##N sincos(half##N x, AS half##N *c) {                                                              \
    half##N r, v; for (int k = 0; k < N; ++k) { half t; r[k] = sincos(x[k], &t); v[k] = t; } *c = v; return r; \
  }                                                                                                           \
  OVL half##N frexp(half##N x, AS int##N *e) {                                                                \
    half##N r; int##N v; for (int k = 0; k < N; ++k) { int t; r[k] = frexp(x[k], &t); v[k] = t; } *e = v; return r; \
  }                                                                                                           \
  OVL half##N lgamma_r(half##N x, AS int##N *s) {                                                             \
    half##N r; int##N v; for (int k = 0; k < N; ++k) { int t; r[k] = lgamma_r(x[k], &t); v[k] = t; } *s = v; return r; \
  }                                                                                                           \
  OVL half##N remquo(half##N x, half##N y, AS int##N *q) {                                                    \
    half##N r; int##N v; for (int k = 0; k < N; ++k) { int t; r[k] = remquo(x[k], y[k], &t); v[k] = t; } *q = v; return r; \
  }
#define POINTER_VECTORS_AS(AS, unused) KILN_FOR_VECTOR_SIZES(POINTER_VECTORS, AS)
KILN_FOR_WRITABLE_ADDRESS_SPACES(POINTER_FUNCTIONS, 0)
KILN_FOR_WRITABLE_ADDRESS_SPACES(POINTER_VECTORS_AS, 0)

/* Geometric functions, 1 to 4 components, through float vectors. */
#define GEOMETRIC_DECLS(F)                                                      \
  OVL float dot(F, F);                                                          \
  OVL float length(F);                                                          \
  OVL float distance(F, F);                                                     \
  OVL F normalize(F);
GEOMETRIC_DECLS(float)
GEOMETRIC_DECLS(float2)
GEOMETRIC_DECLS(float3)
GEOMETRIC_DECLS(float4)
OVL float3 cross(float3, float3);
OVL float4 cross(float4, float4);
#define GEOMETRIC(H, F)                                                                              \
  OVL half dot(H a, H b) { return (half)dot(__builtin_convertvector(a, F), __builtin_convertvector(b, F)); } \
  OVL half length(H p) { return (half)length(__builtin_convertvector(p, F)); }                           \
  OVL half distance(H a, H b) {                                                                      \
    return (half)distance(__builtin_convertvector(a, F), __builtin_convertvector(b, F));             \
  }                                                                                                  \
  OVL H normalize(H p) { return __builtin_convertvector(normalize(__builtin_convertvector(p, F)), H); }
OVL half dot(half a, half b) { return (half)dot((float)a, (float)b); }
OVL half length(half p) { return (half)length((float)p); }
OVL half distance(half a, half b) { return (half)distance((float)a, (float)b); }
OVL half normalize(half p) { return (half)normalize((float)p); }
GEOMETRIC(half2, float2)
GEOMETRIC(half3, float3)
GEOMETRIC(half4, float4)
OVL half3 cross(half3 a, half3 b) {
  return __builtin_convertvector(cross(__builtin_convertvector(a, float3), __builtin_convertvector(b, float3)), half3);
}
OVL half4 cross(half4 a, half4 b) {
  return __builtin_convertvector(cross(__builtin_convertvector(a, float4), __builtin_convertvector(b, float4)), half4);
}
