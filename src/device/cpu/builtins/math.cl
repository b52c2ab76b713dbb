/* Math functions (OpenCL C 3.0 §6.15.2) for float and double, scalar and vector.
 * Transcendentals call SLEEF's scalar 1.0-ULP (u10), 0.5-ULP (u05) or 1.5-ULP (erfc u15)
 * functions, all within the spec's limits (the tightest is 3 ULP for exp/log); float sin
 * takes SLEEF's faster 3.5-ULP one (limit 4): measured over every float against double
 * sin, 2.47 ULP at most (near 14063.3), scalar, AVX2 and AVX-512 forms alike. The
 * "...pi" variants without a SLEEF counterpart are computed in double for float and with
 * SLEEF's sinpi/cospi for tanpi. Exact functions (frexp, fract, nextafter, ...) are ours.
 * half_ and native_ variants use the full-precision implementations. Vector versions apply
 * the scalar function element-wise. */
#include "kiln_cl.h"

#define DECLARE_SLEEF(F, D) float Sleef_##F(float); double Sleef_##D(double);
#define DECLARE_SLEEF2(F, D) float Sleef_##F(float, float); double Sleef_##D(double, double);

#define VECTORS1(NAME) KILN_VMAP1(float, NAME, float) KILN_VMAP1(double, NAME, double)
#define VECTORS2(NAME) KILN_VMAP2(float, NAME, float, float) KILN_VMAP2(double, NAME, double, double)
#define VECTORS3(NAME) \
  KILN_VMAP3(float, NAME, float, float, float) KILN_VMAP3(double, NAME, double, double, double)

#define SLEEF1(NAME, F, D)                              \
  DECLARE_SLEEF(F, D)                                   \
  OVL float NAME(float x) { return Sleef_##F(x); }      \
  OVL double NAME(double x) { return Sleef_##D(x); }    \
  VECTORS1(NAME)
#define SLEEF2(NAME, F, D)                                         \
  DECLARE_SLEEF2(F, D)                                             \
  OVL float NAME(float x, float y) { return Sleef_##F(x, y); }     \
  OVL double NAME(double x, double y) { return Sleef_##D(x, y); }  \
  VECTORS2(NAME)

SLEEF1(sin, sinf_u35, sin_u10)
SLEEF1(cos, cosf_u10, cos_u10)
SLEEF1(tan, tanf_u10, tan_u10)
SLEEF1(asin, asinf_u10, asin_u10)
SLEEF1(acos, acosf_u10, acos_u10)
SLEEF1(atan, atanf_u10, atan_u10)
/* sinh/cosh: SLEEF's overflow a little before the true results do (float near |x| = 88.7,
 * double near 709.8). Float takes SLEEF's double past 88; double computes
 * e^|x| / 2 = (e^(|x|/2) / 2) * e^(|x|/2) past 708, where e^-|x| no longer matters and
 * |x|/2 is exact (about 2.5 ULP in all; the limit is 4). */
DECLARE_SLEEF(sinhf_u10, sinh_u10)
DECLARE_SLEEF(coshf_u10, cosh_u10)
double Sleef_exp_u10(double);
static double half_exp_of_abs(double x) {
  double e = Sleef_exp_u10(__builtin_fabs(x) * 0.5);
  return (e * 0.5) * e;
}
OVL double sinh(double x) {
  return __builtin_fabs(x) > 708.0 ? __builtin_copysign(half_exp_of_abs(x), x) : Sleef_sinh_u10(x);
}
OVL double cosh(double x) { return __builtin_fabs(x) > 708.0 ? half_exp_of_abs(x) : Sleef_cosh_u10(x); }
OVL float sinh(float x) { return __builtin_fabsf(x) > 88.0f ? (float)Sleef_sinh_u10((double)x) : Sleef_sinhf_u10(x); }
OVL float cosh(float x) { return __builtin_fabsf(x) > 88.0f ? (float)Sleef_cosh_u10((double)x) : Sleef_coshf_u10(x); }
VECTORS1(sinh)
VECTORS1(cosh)
SLEEF1(tanh, tanhf_u10, tanh_u10)
/* SLEEF's float asinh/acosh/atanh are limited to |x| < 1.8e19: float uses double. */
double Sleef_asinh_u10(double);
double Sleef_acosh_u10(double);
double Sleef_atanh_u10(double);
double Sleef_log_u10(double);
#define LN2 0.693147180559945309417232121458
OVL double asinh(double x) {
  if (__builtin_fabs(x) > 0x1p500) return __builtin_copysign(Sleef_log_u10(__builtin_fabs(x)) + LN2, x);
  return Sleef_asinh_u10(x);
}
OVL double acosh(double x) { return x > 0x1p500 ? Sleef_log_u10(x) + LN2 : Sleef_acosh_u10(x); }
OVL double atanh(double x) { return Sleef_atanh_u10(x); }
OVL float asinh(float x) { return (float)asinh((double)x); }
OVL float acosh(float x) { return (float)acosh((double)x); }
OVL float atanh(float x) { return (float)atanh((double)x); }
VECTORS1(asinh)
VECTORS1(acosh)
VECTORS1(atanh)
SLEEF1(exp, expf_u10, exp_u10)
SLEEF1(exp2, exp2f_u10, exp2_u10)
SLEEF1(exp10, exp10f_u10, exp10_u10)
SLEEF1(expm1, expm1f_u10, expm1_u10)
SLEEF1(log, logf_u10, log_u10)
SLEEF1(log2, log2f_u10, log2_u10)
SLEEF1(log10, log10f_u10, log10_u10)
/* SLEEF's log1p is limited to x < 1e38 (float) / 1e307 (double). */
double Sleef_log1p_u10(double);
OVL double log1p(double x) { return x > 0x1p1000 ? Sleef_log_u10(x) : Sleef_log1p_u10(x); }
OVL float log1p(float x) { return (float)log1p((double)x); }
VECTORS1(log1p)
SLEEF1(cbrt, cbrtf_u10, cbrt_u10)
SLEEF1(erf, erff_u10, erf_u10)
SLEEF1(erfc, erfcf_u15, erfc_u15)
SLEEF1(tgamma, tgammaf_u10, tgamma_u10)
SLEEF1(lgamma, lgammaf_u10, lgamma_u10)
/* SLEEF's sinpi/cospi need |x| < 1e9: reduce exactly modulo the period 2 first. */
DECLARE_SLEEF(sinpif_u05, sinpi_u05)
DECLARE_SLEEF(cospif_u05, cospi_u05)
/* The spec's signed zeros (§7.5.1): sinpi(n) = copysign(0, n), cospi(n + 0.5) = +0; SLEEF
 * gives -0 for sinpi(1) after the reduction. */
OVL float sinpi(float x) {
  float r = __builtin_fmodf(x, 2.0f);
  return r == __builtin_truncf(r) ? __builtin_copysignf(0.0f, x) : Sleef_sinpif_u05(r);
}
OVL double sinpi(double x) {
  double r = __builtin_fmod(x, 2.0);
  return r == __builtin_trunc(r) ? __builtin_copysign(0.0, x) : Sleef_sinpi_u05(r);
}
OVL float cospi(float x) {
  float r = __builtin_fmodf(x, 2.0f);
  return __builtin_fabsf(r - __builtin_truncf(r)) == 0.5f ? 0.0f : Sleef_cospif_u05(r);
}
OVL double cospi(double x) {
  double r = __builtin_fmod(x, 2.0);
  return __builtin_fabs(r - __builtin_trunc(r)) == 0.5 ? 0.0 : Sleef_cospi_u05(r);
}
VECTORS1(sinpi)
VECTORS1(cospi)
SLEEF2(atan2, atan2f_u10, atan2_u10)
/* pow: SLEEF's double pow overflows for results just below DBL_MAX (pow(-DBL_MAX, 1) was
 * -inf). Such an overflow is redone as pow(x/s, y) * pow(s, y) with s = 2 when |x| > 1
 * (then y > 0) or 1/2 (then y < 0): the first factor is the smaller, neither overflows
 * unless the result does (about 2.5 ULP; the limit is 16). Past |y| = 1024 the second
 * factor itself overflows: SLEEF's result stands. */
DECLARE_SLEEF2(powf_u10, pow_u10)
OVL float pow(float x, float y) { return Sleef_powf_u10(x, y); }
OVL double pow(double x, double y) {
  double r = Sleef_pow_u10(x, y);
  if (__builtin_fabs(r) != (double)INFINITY || __builtin_fabs(x) == (double)INFINITY || x == 0.0 ||
      !(__builtin_fabs(y) < 1024.0))
    return r;
  double s = __builtin_fabs(x) > 1.0 ? 2.0 : 0.5;
  return Sleef_pow_u10(x / s, y) * Sleef_pow_u10(s, y);
}
VECTORS2(pow)
SLEEF2(hypot, hypotf_u05, hypot_u05)
/* SLEEF's fmod/remainder fail for huge quotients: the host libm's exact ones instead. */
OVL float fmod(float x, float y) { return __builtin_fmodf(x, y); }
OVL double fmod(double x, double y) { return __builtin_fmod(x, y); }
OVL float remainder(float x, float y) { return __builtin_remainderf(x, y); }
OVL double remainder(double x, double y) { return __builtin_remainder(x, y); }
VECTORS2(fmod)
VECTORS2(remainder)

/* x/pi variants: in double for float; for double one extra rounding (limits are 5-6 ULP). */
#define INV_PI 0.318309886183790671537767526745
#define PI_SCALED1(NAME, BASE)                                                 \
  OVL float NAME(float x) { return (float)(BASE((double)x) * INV_PI); }        \
  OVL double NAME(double x) { return BASE(x) * INV_PI; }                       \
  VECTORS1(NAME)
PI_SCALED1(asinpi, asin)
PI_SCALED1(acospi, acos)
PI_SCALED1(atanpi, atan)
OVL float atan2pi(float y, float x) { return (float)(atan2((double)y, (double)x) * INV_PI); }
OVL double atan2pi(double y, double x) { return atan2(y, x) * INV_PI; }
VECTORS2(atan2pi)

/* tanpi = sinpi / cospi; at n + 1/2 the infinity takes the sign of sinpi ((-1)^n). */
OVL double tanpi(double x) {
  double s = sinpi(x), c = cospi(x);
  return c == 0.0 ? __builtin_copysign((double)INFINITY, s) : s / c;
}
OVL float tanpi(float x) { return (float)tanpi((double)x); }
VECTORS1(tanpi)

/* Exactly rounded or exact operations. */
#define BUILTIN1(NAME, BF, BD)                              \
  OVLI float NAME(float x) { return BF(x); }                \
  OVLI double NAME(double x) { return BD(x); }              \
  VECTORS1(NAME)
BUILTIN1(sqrt, __builtin_sqrtf, __builtin_sqrt)
BUILTIN1(fabs, __builtin_fabsf, __builtin_fabs)
BUILTIN1(ceil, __builtin_ceilf, __builtin_ceil)
BUILTIN1(floor, __builtin_floorf, __builtin_floor)
BUILTIN1(trunc, __builtin_truncf, __builtin_trunc)
BUILTIN1(rint, __builtin_rintf, __builtin_rint)
BUILTIN1(round, __builtin_roundf, __builtin_round)

OVLI float copysign(float x, float y) { return __builtin_copysignf(x, y); }
OVLI double copysign(double x, double y) { return __builtin_copysign(x, y); }
VECTORS2(copysign)
OVLI float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
OVLI double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
VECTORS3(fma)
OVLI float mad(float a, float b, float c) { return a * b + c; }
OVLI double mad(double a, double b, double c) { return a * b + c; }
VECTORS3(mad)

#define FLOAT_GENERIC(T)                                                                   \
  OVL T fdim(T x, T y) { return x != x || y != y ? x + y : (x > y ? x - y : (T)0); }       \
  OVL T fmax(T x, T y) { return __builtin_elementwise_max(x, y); }                         \
  OVL T fmin(T x, T y) { return __builtin_elementwise_min(x, y); }                         \
  OVL T maxmag(T x, T y) {                                                                 \
    T ax = fabs(x), ay = fabs(y);                                                          \
    return ax > ay ? x : ay > ax ? y : fmax(x, y);                                         \
  }                                                                                        \
  OVL T minmag(T x, T y) {                                                                 \
    T ax = fabs(x), ay = fabs(y);                                                          \
    return ax < ay ? x : ay < ax ? y : fmin(x, y);                                         \
  }                                                                                        \
  OVL T rsqrt(T x);                                                                         \
  OVL T half_rsqrt(T x) { return rsqrt(x); }
FLOAT_GENERIC(float)
FLOAT_GENERIC(double)

/* float: the division of a correctly rounded square root, <= 1.5 ULP (1.4903 measured
 * over every non-negative float, limit 2). Square roots and divisions run on their own
 * unit beside the FMA pipes that the kernel's other arithmetic keeps busy: N-body ran 2.1x
 * faster on the 2-core EPYC than with an integer estimate and three Newton steps, which
 * competed for those pipes (and 5x faster than computing in double). */
OVL float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
/* double: the division of a correctly rounded square root, <= 1.5 ULP (limit 2). */
OVL double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
VECTORS2(fdim)
VECTORS2(fmax)
VECTORS2(fmin)
VECTORS2(maxmag)
VECTORS2(minmag)
VECTORS1(rsqrt)
KILN_VMAP1(float, half_rsqrt, float)
#define SCALAR_SECOND_N(N, T, NAME) OVL T##N NAME(T##N x, T y) { return NAME(x, (T##N)y); }
KILN_FOR_VECTOR_SIZES(SCALAR_SECOND_N, float, fmax)
KILN_FOR_VECTOR_SIZES(SCALAR_SECOND_N, float, fmin)
KILN_FOR_VECTOR_SIZES(SCALAR_SECOND_N, double, fmax)
KILN_FOR_VECTOR_SIZES(SCALAR_SECOND_N, double, fmin)

OVL float nan(uint code) { return KILN_AS(float, 0x7fc00000u | code); }
OVL double nan(ulong code) { return KILN_AS(double, 0x7ff8000000000000UL | code); }
KILN_VMAP1(float, nan, uint)
KILN_VMAP1(double, nan, ulong)

OVL float nextafter(float x, float y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0f) return y > 0.0f ? 0x1p-149f : -0x1p-149f;
  int b = KILN_AS(int, x);
  b += ((x < y) == (x > 0.0f)) ? 1 : -1;
  return KILN_AS(float, b);
}
OVL double nextafter(double x, double y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0) return y > 0.0 ? 0x1p-1074 : -0x1p-1074;
  long b = KILN_AS(long, x);
  b += ((x < y) == (x > 0.0)) ? 1 : -1;
  return KILN_AS(double, b);
}
VECTORS2(nextafter)

/* ilogb/logb/frexp/ldexp from the bits; subnormals are normalized by scaling. */
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN 2147483647
OVL int ilogb(float x) {
  if (x != x) return FP_ILOGBNAN;
  if (x == 0.0f) return FP_ILOGB0;
  if (fabs(x) == INFINITY) return 2147483647;
  int e = (int)((KILN_AS(uint, x) >> 23) & 0xff);
  if (e == 0) return (int)((KILN_AS(uint, x * 0x1p32f) >> 23) & 0xff) - 127 - 32;
  return e - 127;
}
OVL int ilogb(double x) {
  if (x != x) return FP_ILOGBNAN;
  if (x == 0.0) return FP_ILOGB0;
  if (fabs(x) == (double)INFINITY) return 2147483647;
  int e = (int)((KILN_AS(ulong, x) >> 52) & 0x7ff);
  if (e == 0) return (int)((KILN_AS(ulong, x * 0x1p64) >> 52) & 0x7ff) - 1023 - 64;
  return e - 1023;
}
KILN_VMAP1(int, ilogb, float)
KILN_VMAP1(int, ilogb, double)
OVL float logb(float x) {
  if (x != x) return x;
  if (x == 0.0f) return -INFINITY;
  if (fabs(x) == INFINITY) return INFINITY;
  return (float)ilogb(x);
}
OVL double logb(double x) {
  if (x != x) return x;
  if (x == 0.0) return -(double)INFINITY;
  if (fabs(x) == (double)INFINITY) return (double)INFINITY;
  return (double)ilogb(x);
}
VECTORS1(logb)

/* ldexp: the host libm's (exact, one rounding for subnormal results). */
OVL float ldexp(float x, int n) { return __builtin_ldexpf(x, n); }
OVL double ldexp(double x, int n) { return __builtin_ldexp(x, n); }
KILN_VMAP2(float, ldexp, float, int)
KILN_VMAP2(double, ldexp, double, int)
#define LDEXP_SCALAR_N(N, T) OVL T##N ldexp(T##N x, int n) { return ldexp(x, (int##N)n); }
KILN_FOR_VECTOR_SIZES(LDEXP_SCALAR_N, float)
KILN_FOR_VECTOR_SIZES(LDEXP_SCALAR_N, double)

/* The pointer-output functions: one scalar implementation returning the second value
 * through a private pointer, wrapped for every address space and vector size. */
static float frexp_impl(float x, int *e) {
  if (x == 0.0f || x != x || fabs(x) == INFINITY) { *e = 0; return x; }
  int k = ilogb(x) + 1;
  *e = k;
  return ldexp(x, -k);
}
static double frexp_impl_d(double x, int *e) {
  if (x == 0.0 || x != x || fabs(x) == (double)INFINITY) { *e = 0; return x; }
  int k = ilogb(x) + 1;
  *e = k;
  return ldexp(x, -k);
}
static float fract_impl(float x, float *ip) {
  float f = floor(x);
  *ip = f;
  if (x != x) return x;
  if (fabs(x) == INFINITY) return copysign(0.0f, x);
  return fmin(x - f, 0x1.fffffep-1f);
}
static double fract_impl_d(double x, double *ip) {
  double f = floor(x);
  *ip = f;
  if (x != x) return x;
  if (fabs(x) == (double)INFINITY) return copysign(0.0, x);
  return fmin(x - f, 0x1.fffffffffffffp-1);
}
static float modf_impl(float x, float *ip) {
  float t = trunc(x);
  *ip = t;
  return fabs(x) == INFINITY ? copysign(0.0f, x) : copysign(x - t, x);
}
static double modf_impl_d(double x, double *ip) {
  double t = trunc(x);
  *ip = t;
  return fabs(x) == (double)INFINITY ? copysign(0.0, x) : copysign(x - t, x);
}
static float sincos_impl(float x, float *c) { *c = cos(x); return sin(x); }
static double sincos_impl_d(double x, double *c) { *c = cos(x); return sin(x); }
/* Sign of Gamma(x): negative between consecutive negative integers with odd floor. */
static float lgamma_r_impl(float x, int *s) {
  float f = floor(x);
  *s = (x < 0.0f && f != x && fmod(f, 2.0f) != 0.0f) ? -1 : 1;
  return lgamma(x);
}
static double lgamma_r_impl_d(double x, int *s) {
  double f = floor(x);
  *s = (x < 0.0 && f != x && fmod(f, 2.0) != 0.0) ? -1 : 1;
  return lgamma(x);
}

/* remquo: the exact remainder from SLEEF, the low bits of the rounded quotient from a
 * division of the values reduced modulo 128|y| (exact: fmod is exact). */
static float remquo_impl(float x, float y, int *q) {
  float r = remainder(x, y);
  if (r != r || y == 0.0f || fabs(x) == INFINITY) { *q = 0; return r; }
  float ay = fabs(y), m = fmod(fabs(x), 128.0f * ay);
  if (fabs(128.0f * ay) == INFINITY) m = fabs(x);
  /* In double: m + |r| may exceed FLT_MAX (and is exact there). */
  double mr = (double)m - (double)fabs(r) * ((r < 0.0f) != (x < 0.0f) ? -1.0 : 1.0);
  int k = (int)rint(mr / (double)ay) & 127;
  *q = ((x < 0.0f) != (y < 0.0f)) ? -k : k;
  return r;
}
static double remquo_impl_d(double x, double y, int *q) {
  double r = remainder(x, y);
  if (r != r || y == 0.0 || fabs(x) == (double)INFINITY) { *q = 0; return r; }
  double ay = fabs(y), m = fmod(fabs(x), 128.0 * ay);
  double scale = 1.0;
  if (fabs(128.0 * ay) == (double)INFINITY) {
    m = fabs(x);
    scale = 0.5; /* huge operands: halved (exactly) so that m + |r| cannot overflow */
  }
  double mr = m * scale - fabs(r) * scale * ((r < 0.0) != (x < 0.0) ? -1.0 : 1.0);
  int k = (int)rint(mr / (ay * scale)) & 127;
  *q = ((x < 0.0) != (y < 0.0)) ? -k : k;
  return r;
}

#define PTR_OUT_N(N, AS, NAME, T, P, IMPL)                                            \
  OVL T##N NAME(T##N x, AS P##N *out) {                                               \
    T##N r; P##N o;                                                                   \
    for (int i = 0; i < N; ++i) { P e; r[i] = IMPL(x[i], &e); o[i] = e; }             \
    *out = o;                                                                         \
    return r;                                                                         \
  }
#define PTR_OUT_AS(AS, NAME, T, P, IMPL)                                              \
  OVL T NAME(T x, AS P *out) { P e; T r = IMPL(x, &e); *out = e; return r; }           \
  KILN_FOR_VECTOR_SIZES(PTR_OUT_N, AS, NAME, T, P, IMPL)
#define PTR_OUT(NAME, T, P, IMPL) KILN_FOR_WRITABLE_ADDRESS_SPACES(PTR_OUT_AS, NAME, T, P, IMPL)
PTR_OUT(frexp, float, int, frexp_impl)
PTR_OUT(frexp, double, int, frexp_impl_d)
PTR_OUT(fract, float, float, fract_impl)
PTR_OUT(fract, double, double, fract_impl_d)
PTR_OUT(modf, float, float, modf_impl)
PTR_OUT(modf, double, double, modf_impl_d)
PTR_OUT(sincos, float, float, sincos_impl)
PTR_OUT(sincos, double, double, sincos_impl_d)
PTR_OUT(lgamma_r, float, int, lgamma_r_impl)
PTR_OUT(lgamma_r, double, int, lgamma_r_impl_d)

#define REMQUO_N(N, AS, T, IMPL)                                                       \
  OVL T##N remquo(T##N x, T##N y, AS int##N *out) {                                    \
    T##N r; int##N o;                                                                  \
    for (int i = 0; i < N; ++i) { int e; r[i] = IMPL(x[i], y[i], &e); o[i] = e; }      \
    *out = o;                                                                          \
    return r;                                                                          \
  }
#define REMQUO_AS(AS, T, IMPL)                                                         \
  OVL T remquo(T x, T y, AS int *out) { int e; T r = IMPL(x, y, &e); *out = e; return r; } \
  KILN_FOR_VECTOR_SIZES(REMQUO_N, AS, T, IMPL)
KILN_FOR_WRITABLE_ADDRESS_SPACES(REMQUO_AS, float, remquo_impl)
KILN_FOR_WRITABLE_ADDRESS_SPACES(REMQUO_AS, double, remquo_impl_d)

/* pown, rootn, powr: special cases of the spec, then pow (float in double). */
OVL float pown(float x, int n) { return (float)pow((double)x, (double)n); }
OVL double pown(double x, int n) { return pow(x, (double)n); }
KILN_VMAP2(float, pown, float, int)
KILN_VMAP2(double, pown, double, int)
/* rootn: pow(|x|, 1/n) alone is off by |log x| * (rounding error of 1/n), hundreds of ULPs
 * for huge or tiny x. So |x| = y * 2^(q*k) with k = |n| and y = m * 2^r (m in [1,2),
 * 0 <= r < k): rootn = 2^(+-q) * pow(y, +-1/k), where |log y / k| < 2 keeps the error of
 * 1/k harmless. For k > 1023 (y would overflow) the result is exp2(log2|x| / n), whose
 * exponent is below 1.1 in magnitude. */
static double rootn_magnitude(double ax, int n) {
  int e = ilogb(ax);
  double m = ldexp(ax, -e);
  long k = n < 0 ? -(long)n : (long)n;
  if (k > 1023) return exp2(((double)e + log2(m)) / (double)n);
  long q = e >= 0 ? e / k : -((-(long)e + k - 1) / k);
  double y = ldexp(m, (int)((long)e - q * k));
  double z = pow(y, (n < 0 ? -1.0 : 1.0) / (double)k);
  return ldexp(z, (int)(n < 0 ? -q : q));
}
#define ROOTN(T)                                                                       \
  OVL T rootn(T x, int n) {                                                            \
    if (n == 0 || x != x) return (T)NAN;                                               \
    bool odd = (n & 1) != 0;                                                           \
    if (x < (T)0 && !odd) return (T)NAN;                                               \
    if (x == (T)0) {                                                                   \
      if (n > 0) return odd ? x : (T)0;                                                \
      return odd ? copysign((T)INFINITY, x) : (T)INFINITY;                             \
    }                                                                                  \
    double ax = fabs((double)x);                                                       \
    double r = ax == (double)INFINITY ? (n > 0 ? ax : 0.0) : rootn_magnitude(ax, n);   \
    return (T)(x < (T)0 ? -r : r);                                                     \
  }
ROOTN(float)
ROOTN(double)
KILN_VMAP2(float, rootn, float, int)
KILN_VMAP2(double, rootn, double, int)
#define POWR(T)                                                                        \
  OVL T powr(T x, T y) {                                                               \
    if (x < (T)0 || x != x || y != y) return (T)NAN;                                   \
    T ax = x, ay = fabs(y);                                                            \
    if (ax == (T)0 && ay == (T)0) return (T)NAN;                                       \
    if (ax == (T)INFINITY && ay == (T)0) return (T)NAN;                                \
    if (ax == (T)1 && ay == (T)INFINITY) return (T)NAN;                                \
    if (ax == (T)0) return y > (T)0 ? (T)0 : (T)INFINITY; /* +0 / +inf also for x = -0 */ \
    return pow(x, y);                                                                  \
  }
POWR(float)
POWR(double)
VECTORS2(powr)

/* half_ and native_: float only, full precision. */
#define ALIAS1(PREFIX, NAME) \
  OVLI float PREFIX##NAME(float x) { return NAME(x); } KILN_VMAP1(float, PREFIX##NAME, float)
#define ALIAS2(PREFIX, NAME) \
  OVLI float PREFIX##NAME(float x, float y) { return NAME(x, y); } KILN_VMAP2(float, PREFIX##NAME, float, float)
#define BOTH1(NAME) ALIAS1(half_, NAME) ALIAS1(native_, NAME)
BOTH1(cos) BOTH1(exp) BOTH1(exp2) BOTH1(exp10) BOTH1(log) BOTH1(log2) BOTH1(log10)
BOTH1(sin) BOTH1(sqrt) BOTH1(tan)
ALIAS1(native_, rsqrt)
ALIAS2(half_, powr)
ALIAS2(native_, powr)
OVLI float half_divide(float x, float y) { return x / y; }
OVLI float native_divide(float x, float y) { return x / y; }
OVLI float half_recip(float x) { return 1.0f / x; }
OVLI float native_recip(float x) { return 1.0f / x; }
KILN_VMAP2(float, half_divide, float, float)
KILN_VMAP2(float, native_divide, float, float)
KILN_VMAP1(float, half_recip, float)
KILN_VMAP1(float, native_recip, float)
