/* Math builtins (float and double, scalar and vector 4) against long double references of
 * the host's libm, with the ULP limits of the OpenCL C spec ("Relative Error as ULPs").
 * Prints the largest error measured per function. */
#include "builtins/harness.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define N 4096
static void *lib;

static int setup(void **state) {
  (void)state;
  lib = kiln_bt_load("math", "CL3.0");
  return lib ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  if (lib) dlclose(lib);
  return 0;
}

static uint64_t rng = 88172645463325252ull;

static const double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, -0.5, 2.0, 3.14159265358979,
                                  1e-40, -1e-40, 1.17549435e-38, 3.4e38, -3.4e38, 100.0, -100.0, 1e10, 0.25};
#define NSPECIAL (sizeof specials / sizeof specials[0])

static void fill_float(float *x, int kind) {
  for (size_t i = 0; i < N; ++i) {
    uint64_t r = kiln_bt_random(&rng);
    if (i < NSPECIAL) x[i] = (float)specials[i];
    else if (i % 3 == 0) { uint32_t b = (uint32_t)r; memcpy(&x[i], &b, 4); }
    else if (i % 3 == 1) x[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 20.0 - 10.0);
    else x[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    if (kind == 1 && i % 2) x[i] = fabsf(x[i]);
  }
}
static void fill_double(double *x, int kind) {
  for (size_t i = 0; i < N; ++i) {
    uint64_t r = kiln_bt_random(&rng);
    if (i < NSPECIAL) x[i] = specials[i];
    else if (i % 3 == 0) memcpy(&x[i], &r, 8);
    else if (i % 3 == 1) x[i] = (double)(r >> 11) / 9007199254740992.0 * 20.0 - 10.0;
    else x[i] = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (kind == 1 && i % 2) x[i] = fabs(x[i]);
  }
}

/* Error of `got` in ULPs of the precision (mant bits, minimum exponent emin) at `ref`. */
static double ulp_error(long double ref, long double got, int mant, int emin, long double max_finite) {
  if (isnan(ref)) return isnan(got) ? 0.0 : INFINITY;
  if (isnan(got)) return INFINITY;
  if (isinf(got) && !isinf(ref) && fabsl(ref) > max_finite && signbit(got) == signbit(ref)) return 0.0;
  if (isinf(ref)) return got == ref ? 0.0 : INFINITY;
  if (isinf(got)) return INFINITY;
  int e = ref == 0 ? emin : ilogbl(ref);
  if (e < emin) e = emin;
  return (double)(fabsl(got - ref) / ldexpl(1.0L, e - (mant - 1)));
}
static int same_bits_or_nan_f(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0; }
static int same_bits_or_nan_d(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, 8) == 0; }

typedef long double (*ref1_fn)(long double);
typedef long double (*ref2_fn)(long double, long double);
typedef void (*k2_fn)(const void *, void *);
typedef void (*k3_fn)(const void *, const void *, void *);

static long double pil(void) { return 3.141592653589793238462643383279502884L; }
/* The ...pi references: exact zeros and infinities where pi*x is a multiple of pi/2. */
static long double r_sinpi(long double x) { long double r = fmodl(x, 2.0L); return r == truncl(r) ? 0.0L : sinl(pil() * r); }
static long double r_cospi(long double x) { long double r = fmodl(x, 2.0L); return fabsl(fmodl(x, 1.0L)) == 0.5L ? 0.0L : cosl(pil() * r); }
static long double r_tanpi(long double x) {
  long double r = fmodl(x, 1.0L);
  if (r == 0) return 0.0L;
  if (fabsl(r) == 0.5L) return fmodl(floorl(x), 2.0L) == 0 ? INFINITY : -INFINITY;
  return tanl(pil() * r);
}
static long double r_asinpi(long double x) { return asinl(x) / pil(); }
static long double r_acospi(long double x) { return acosl(x) / pil(); }
static long double r_atanpi(long double x) { return atanl(x) / pil(); }
static long double r_atan2pi(long double y, long double x) { return atan2l(y, x) / pil(); }
static long double r_rsqrt(long double x) { return 1.0L / sqrtl(x); }
static long double r_fdim(long double x, long double y) { return fdiml(x, y); }
static long double r_powr(long double x, long double y) {
  if (x < 0 || (x == 0 && y == 0) || (isinf(x) && y == 0) || (x == 1 && isinf(y))) return NAN;
  return powl(x, y);
}
static long double r_maxmag(long double x, long double y) { return fabsl(x) > fabsl(y) ? x : fabsl(y) > fabsl(x) ? y : fmaxl(x, y); }
static long double r_minmag(long double x, long double y) { return fabsl(x) < fabsl(y) ? x : fabsl(y) < fabsl(x) ? y : fminl(x, y); }

/* exact_d: for the correctly rounded (limit 0) functions, the host's double function:
 * rounding the long double result to double rounds twice, which can miss by one at
 * halfway points. */
struct unary { const char *name; ref1_fn ref; double limit_f, limit_d; int positive; double (*exact_d)(double); };
static const struct unary unaries[] = {
  {"sin", sinl, 4, 4, 0, NULL}, {"cos", cosl, 4, 4, 0, NULL}, {"tan", tanl, 5, 5, 0, NULL}, {"asin", asinl, 4, 4, 0, NULL},
  {"acos", acosl, 4, 4, 0, NULL}, {"atan", atanl, 5, 5, 0, NULL}, {"sinh", sinhl, 4, 4, 0, NULL}, {"cosh", coshl, 4, 4, 0, NULL},
  {"tanh", tanhl, 5, 5, 0, NULL}, {"asinh", asinhl, 4, 4, 0, NULL}, {"acosh", acoshl, 4, 4, 1, NULL}, {"atanh", atanhl, 5, 5, 0, NULL},
  {"exp", expl, 3, 3, 0, NULL}, {"exp2", exp2l, 3, 3, 0, NULL}, {"exp10", exp10l, 3, 3, 0, NULL}, {"expm1", expm1l, 3, 3, 0, NULL},
  {"log", logl, 3, 3, 1, NULL}, {"log2", log2l, 3, 3, 1, NULL}, {"log10", log10l, 3, 3, 1, NULL}, {"log1p", log1pl, 2, 2, 1, NULL},
  {"cbrt", cbrtl, 2, 2, 0, NULL}, {"erf", erfl, 16, 16, 0, NULL}, {"erfc", erfcl, 16, 16, 0, NULL}, {"tgamma", tgammal, 16, 16, 1, NULL},
  {"sinpi", r_sinpi, 4, 4, 0, NULL}, {"cospi", r_cospi, 4, 4, 0, NULL}, {"tanpi", r_tanpi, 6, 6, 0, NULL},
  {"asinpi", r_asinpi, 5, 5, 0, NULL}, {"acospi", r_acospi, 5, 5, 0, NULL}, {"atanpi", r_atanpi, 5, 5, 0, NULL},
  {"sqrt", sqrtl, 0, 0, 1, sqrt}, {"rsqrt", r_rsqrt, 2, 2, 1, NULL}, {"logb", logbl, 0, 0, 0, NULL}, {"ceil", ceill, 0, 0, 0, NULL},
  {"floor", floorl, 0, 0, 0, NULL}, {"trunc", truncl, 0, 0, 0, NULL}, {"rint", rintl, 0, 0, 0, NULL}, {"round", roundl, 0, 0, 0, NULL},
  {"fabs", fabsl, 0, 0, 0, NULL},
};
struct binary { const char *name; ref2_fn ref; double limit_f, limit_d; double (*exact_d)(double, double); };
static const struct binary binaries[] = {
  {"atan2", atan2l, 6, 6, NULL}, {"atan2pi", r_atan2pi, 6, 6, NULL}, {"pow", powl, 16, 16, NULL}, {"powr", r_powr, 16, 16, NULL},
  {"hypot", hypotl, 4, 4, NULL}, {"fmod", fmodl, 0, 0, NULL}, {"remainder", remainderl, 0, 0, NULL}, {"fdim", r_fdim, 0, 0, fdim},
  {"fmax", fmaxl, 0, 0, NULL}, {"fmin", fminl, 0, 0, NULL}, {"maxmag", r_maxmag, 0, 0, NULL}, {"minmag", r_minmag, 0, 0, NULL},
  {"copysign", copysignl, 0, 0, NULL},
};

static float xf[N], yf[N], rf[N], rf4[N];
static double xd[N], yd[N], rd[N], rd4[N];

static void check_float(const char *name, long double ref_at(size_t), double limit) {
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < N; ++i) {
    long double ref = ref_at(i);
    double e = ulp_error(ref, rf[i], 24, -126, 0x1.fffffep127L);
    /* the reference is rounded to float first when the spec demands exactness */
    if (limit == 0 && !isnan(ref)) e = ulp_error((float)ref, rf[i], 24, -126, 0x1.fffffep127L);
    if (e > worst) worst = e;
    if (e > limit && bad++ < 3) print_error("%s(float) at %a (, %a): got %a want %La (%.2f ulp)\n", name, xf[i], yf[i], rf[i], ref, e);
    if (!same_bits_or_nan_f(rf[i], rf4[i]) && bad++ < 3) print_error("%s(float4) differs at %zu\n", name, i);
  }
  print_message("  %-10s float  max %.3f ulp (limit %g)\n", name, worst, limit);
  assert_int_equal(bad, 0);
}
static double (*cur_exact1)(double);
static double (*cur_exact2)(double, double);
static void check_double(const char *name, long double ref_at(size_t), double limit) {
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < N; ++i) {
    long double ref = ref_at(i);
    double e = ulp_error(ref, rd[i], 53, -1022, 0x1.fffffffffffffp1023L);
    if (limit == 0 && !isnan(ref)) {
      double exact = cur_exact1 ? cur_exact1(xd[i]) : cur_exact2 ? cur_exact2(xd[i], yd[i]) : (double)ref;
      e = ulp_error(exact, rd[i], 53, -1022, 0x1.fffffffffffffp1023L);
    }
    if (e > worst) worst = e;
    if (e > limit && bad++ < 3) print_error("%s(double) at %a (, %a): got %a want %La (%.2f ulp)\n", name, xd[i], yd[i], rd[i], ref, e);
    if (!same_bits_or_nan_d(rd[i], rd4[i]) && bad++ < 3) print_error("%s(double4) differs at %zu\n", name, i);
  }
  print_message("  %-10s double max %.3f ulp (limit %g)\n", name, worst, limit);
  assert_int_equal(bad, 0);
}

static ref1_fn cur1;
static ref2_fn cur2;
static long double ref1_f(size_t i) { return cur1(xf[i]); }
static long double ref1_d(size_t i) { return cur1(xd[i]); }
static long double ref2_f(size_t i) { return cur2(xf[i], yf[i]); }
static long double ref2_d(size_t i) { return cur2(xd[i], yd[i]); }

static void test_unary(void **state) {
  (void)state;
  for (size_t f = 0; f < sizeof unaries / sizeof unaries[0]; ++f) {
    const struct unary *u = &unaries[f];
    fill_float(xf, u->positive);
    fill_double(xd, u->positive);
    char sym[64];
    snprintf(sym, sizeof sym, "t_%s_f", u->name);
    KILN_BT_RUN_1D(lib, k2_fn, sym, N, 64, xf, rf);
    snprintf(sym, sizeof sym, "t_%s_f4", u->name);
    KILN_BT_RUN_1D(lib, k2_fn, sym, N / 4, 64, xf, rf4);
    snprintf(sym, sizeof sym, "t_%s_d", u->name);
    KILN_BT_RUN_1D(lib, k2_fn, sym, N, 64, xd, rd);
    snprintf(sym, sizeof sym, "t_%s_d4", u->name);
    KILN_BT_RUN_1D(lib, k2_fn, sym, N / 4, 64, xd, rd4);
    cur1 = u->ref;
    cur_exact1 = u->exact_d;
    cur_exact2 = NULL;
    check_float(u->name, ref1_f, u->limit_f);
    check_double(u->name, ref1_d, u->limit_d);
  }
}

static void test_binary(void **state) {
  (void)state;
  for (size_t f = 0; f < sizeof binaries / sizeof binaries[0]; ++f) {
    const struct binary *b = &binaries[f];
    fill_float(xf, 0);
    fill_float(yf, 0);
    fill_double(xd, 0);
    fill_double(yd, 0);
    for (size_t i = NSPECIAL; i < N; i += 5) { yf[i] = xf[(i * 7) % N]; yd[i] = xd[(i * 7) % N]; } /* related pairs */
    char sym[64];
    snprintf(sym, sizeof sym, "t_%s_f", b->name);
    KILN_BT_RUN_1D(lib, k3_fn, sym, N, 64, xf, yf, rf);
    snprintf(sym, sizeof sym, "t_%s_f4", b->name);
    KILN_BT_RUN_1D(lib, k3_fn, sym, N / 4, 64, xf, yf, rf4);
    snprintf(sym, sizeof sym, "t_%s_d", b->name);
    KILN_BT_RUN_1D(lib, k3_fn, sym, N, 64, xd, yd, rd);
    snprintf(sym, sizeof sym, "t_%s_d4", b->name);
    KILN_BT_RUN_1D(lib, k3_fn, sym, N / 4, 64, xd, yd, rd4);
    cur2 = b->ref;
    cur_exact1 = NULL;
    cur_exact2 = b->exact_d;
    check_float(b->name, ref2_f, b->limit_f);
    check_double(b->name, ref2_d, b->limit_d);
  }
}

/* Exact functions with an integer or pointer operand, against the host's libm. */
typedef void (*k3i_fn)(const void *, void *, void *);
typedef void (*k4_fn)(const void *, const void *, void *, void *);
static void test_exact_with_int_or_pointer(void **state) {
  (void)state;
  static int n[N], e[N], q[N];
  static float ipf[N];
  static double cd[N];
  fill_float(xf, 0);
  fill_double(xd, 0);
  for (size_t i = 0; i < N; ++i) n[i] = (int)(kiln_bt_random(&rng) % 601) - 300;
  KILN_BT_RUN_1D(lib, k3_fn, "t_ldexp_f", N, 64, xf, n, rf);
  KILN_BT_RUN_1D(lib, k3_fn, "t_ldexp_d", N, 64, xd, n, rd);
  for (size_t i = 0; i < N; ++i) {
    assert_true(same_bits_or_nan_f(rf[i], ldexpf(xf[i], n[i])));
    assert_true(same_bits_or_nan_d(rd[i], ldexp(xd[i], n[i])));
  }
  KILN_BT_RUN_1D(lib, k3i_fn, "t_frexp_f", N, 64, xf, e, rf);
  for (size_t i = 0; i < N; ++i) {
    int k = 0;
    float m = frexpf(xf[i], &k);
    assert_true(same_bits_or_nan_f(rf[i], m));
    if (isfinite(xf[i])) assert_int_equal(e[i], k);
  }
  KILN_BT_RUN_1D(lib, k3i_fn, "t_frexp_d", N, 64, xd, e, rd);
  for (size_t i = 0; i < N; ++i) {
    int k = 0;
    double m = frexp(xd[i], &k);
    assert_true(same_bits_or_nan_d(rd[i], m));
    if (isfinite(xd[i])) assert_int_equal(e[i], k);
  }
  KILN_BT_RUN_1D(lib, k3i_fn, "t_modf_f", N, 64, xf, ipf, rf);
  for (size_t i = 0; i < N; ++i) {
    float ip;
    assert_true(same_bits_or_nan_f(rf[i], modff(xf[i], &ip)));
    assert_true(same_bits_or_nan_f(ipf[i], ip));
  }
  KILN_BT_RUN_1D(lib, k3i_fn, "t_fract_f", N, 64, xf, ipf, rf);
  for (size_t i = 0; i < N; ++i) {
    if (isnan(xf[i])) { assert_true(isnan(rf[i])); continue; }
    float fl = floorf(xf[i]);
    float want = isinf(xf[i]) ? copysignf(0.0f, xf[i]) : fminf(xf[i] - fl, 0x1.fffffep-1f);
    assert_true(same_bits_or_nan_f(rf[i], want));
    assert_true(same_bits_or_nan_f(ipf[i], fl));
  }
  KILN_BT_RUN_1D(lib, k3i_fn, "t_sincos_d", N, 64, xd, cd, rd);
  for (size_t i = 0; i < N; ++i) {
    assert_true(ulp_error(sinl(xd[i]), rd[i], 53, -1022, 0x1.fffffffffffffp1023L) <= 4);
    assert_true(ulp_error(cosl(xd[i]), cd[i], 53, -1022, 0x1.fffffffffffffp1023L) <= 4);
  }
  fill_float(yf, 0);
  fill_double(yd, 0);
  KILN_BT_RUN_1D(lib, k4_fn, "t_remquo_f", N, 64, xf, yf, q, rf);
  for (size_t i = 0; i < N; ++i) {
    int k;
    float r = remquof(xf[i], yf[i], &k);
    assert_true(same_bits_or_nan_f(rf[i], r));
    if (!isnan(r)) assert_int_equal(q[i] & 7, k & 7); /* glibc gives 3 bits, we give 7 */
    if (!isnan(r) && q[i] != 0) assert_int_equal(q[i] < 0, (xf[i] < 0) != (yf[i] < 0));
  }
  KILN_BT_RUN_1D(lib, k4_fn, "t_remquo_d", N, 64, xd, yd, q, rd);
  for (size_t i = 0; i < N; ++i) {
    int k;
    double r = remquo(xd[i], yd[i], &k);
    assert_true(same_bits_or_nan_d(rd[i], r));
    if (!isnan(r)) assert_int_equal(q[i] & 7, k & 7);
  }
  KILN_BT_RUN_1D(lib, k2_fn, "t_ilogb_f", N, 64, xf, e);
  for (size_t i = 0; i < N; ++i) {
    if (!isnan(xf[i]) && xf[i] != 0) assert_int_equal(e[i], ilogbf(xf[i]));
  }
  /* pown and rootn: accuracy against long double. */
  for (size_t i = 0; i < N; ++i) n[i] = (int)(kiln_bt_random(&rng) % 21) - 10;
  fill_float(xf, 0);
  fill_double(xd, 0);
  KILN_BT_RUN_1D(lib, k3_fn, "t_pown_f", N, 64, xf, n, rf);
  KILN_BT_RUN_1D(lib, k3_fn, "t_pown_d", N, 64, xd, n, rd);
  double worst_f = 0, worst_d = 0;
  for (size_t i = 0; i < N; ++i) {
    double ef = ulp_error(powl(xf[i], n[i]), rf[i], 24, -126, 0x1.fffffep127L);
    double ed = ulp_error(powl(xd[i], n[i]), rd[i], 53, -1022, 0x1.fffffffffffffp1023L);
    worst_f = ef > worst_f ? ef : worst_f;
    worst_d = ed > worst_d ? ed : worst_d;
  }
  print_message("  pown       float  max %.3f ulp, double max %.3f ulp (limit 16)\n", worst_f, worst_d);
  assert_true(worst_f <= 16 && worst_d <= 16);
  for (size_t i = 0; i < N; ++i) n[i] = n[i] == 0 ? 3 : n[i];
  /* rootn also with huge |n| and with x of extreme exponents, where 1/n's rounding error
   * would be multiplied by |log x|. */
  for (size_t i = 0; i < N; i += 7) n[i] = (int)(kiln_bt_random(&rng) % 4000) - 2000;
  for (size_t i = 0; i < N; i += 11) n[i] = (int)(kiln_bt_random(&rng) % 2 ? 1 : -1) * (int)(kiln_bt_random(&rng) >> 34);
  for (size_t i = 0; i < N; ++i) n[i] = n[i] == 0 ? 3 : n[i];
  for (size_t i = NSPECIAL; i < N; i += 3) xd[i] = ldexp(1.0 + (double)(kiln_bt_random(&rng) >> 12) * 0x1p-52, (int)(kiln_bt_random(&rng) % 2140) - 1070);
  KILN_BT_RUN_1D(lib, k3_fn, "t_rootn_f", N, 64, xf, n, rf);
  KILN_BT_RUN_1D(lib, k3_fn, "t_rootn_d", N, 64, xd, n, rd);
  worst_f = 0;
  worst_d = 0;
  for (size_t i = 0; i < N; ++i) {
    for (int d = 0; d < 2; ++d) {
      long double x = d ? xd[i] : xf[i], ref;
      if (x < 0 && n[i] % 2 == 0) ref = NAN;
      else ref = (x < 0 ? -1 : 1) * expl(logl(fabsl(x)) / n[i]);
      if (x == 0) ref = n[i] > 0 ? (n[i] % 2 ? x : 0.0L) : (n[i] % 2 ? copysignl(INFINITY, x) : INFINITY);
      if (isinf(x) && !isnan(ref)) ref = n[i] > 0 ? x : copysignl(0.0L, x);
      double e = d ? ulp_error(ref, rd[i], 53, -1022, 0x1.fffffffffffffp1023L) : ulp_error(ref, rf[i], 24, -126, 0x1.fffffep127L);
      if (e > 16) print_error("rootn(%s) at %a, %d: got %a want %La\n", d ? "double" : "float", (double)x, n[i], d ? rd[i] : rf[i], ref);
      if (d) worst_d = e > worst_d ? e : worst_d;
      else worst_f = e > worst_f ? e : worst_f;
    }
  }
  print_message("  rootn      float  max %.3f ulp, double max %.3f ulp (limit 16)\n", worst_f, worst_d);
  assert_true(worst_f <= 16 && worst_d <= 16);
}

static void test_nextafter(void **state) {
  (void)state;
  fill_float(xf, 0);
  fill_float(yf, 0);
  fill_double(xd, 0);
  fill_double(yd, 0);
  KILN_BT_RUN_1D(lib, k3_fn, "t_nextafter_f", N, 64, xf, yf, rf);
  KILN_BT_RUN_1D(lib, k3_fn, "t_nextafter_d", N, 64, xd, yd, rd);
  for (size_t i = 0; i < N; ++i) {
    assert_true(same_bits_or_nan_f(rf[i], nextafterf(xf[i], yf[i])));
    assert_true(same_bits_or_nan_d(rd[i], nextafter(xd[i], yd[i])));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unary),
    cmocka_unit_test(test_binary),
    cmocka_unit_test(test_exact_with_int_or_pointer),
    cmocka_unit_test(test_nextafter),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
