/* Math functions (OpenCL C 3.0 §6.15.2) through the loader: a representative set for float
 * (scalar and float4) and double (scalar and double3), checked against long double host
 * references within the ULP limits of the spec's tables (OpenCL C 3.0 §7.4), on 96 inputs
 * per function covering small, large (argument reduction), negative (domain errors give
 * NaN on both sides), zero and special values; plus exact functions (fma, fmod, ldexp,
 * frexp, ilogb, fmax, nextafter) and special cases of powr and rootn. */
#include "builtins_harness.h"

#include <float.h>

#define ELEMENTS 96
#define FUNCTIONS 20

static const char *kernel_template =
    "kernel void math_TN(global const T *a, global const T *b, global const T *c, global T *o, global int *e) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b), z = LD(i, c);\n"
    "  ST(sin(x), i, o); ST(cos(x), i + s, o); ST(tan(x), i + 2 * s, o); ST(exp(x), i + 3 * s, o);\n"
    "  ST(exp2(x), i + 4 * s, o); ST(log(x), i + 5 * s, o); ST(log2(x), i + 6 * s, o); ST(pow(x, y), i + 7 * s, o);\n"
    "  ST(sqrt(x), i + 8 * s, o); ST(fma(x, y, z), i + 9 * s, o); ST(atan2(x, y), i + 10 * s, o);\n"
    "  ST(cbrt(x), i + 11 * s, o); ST(hypot(x, y), i + 12 * s, o); ST(rsqrt(x), i + 13 * s, o);\n"
    "  ST(expm1(x), i + 14 * s, o); ST(log1p(x), i + 15 * s, o); ST(sinh(x), i + 16 * s, o);\n"
    "  ST(sinpi(x), i + 17 * s, o); ST(fmod(x, y), i + 18 * s, o); ST(asin(z), i + 19 * s, o);\n"
    "}\n"
    "kernel void exact_TN(global const T *a, global const T *b, global T *o, global int *e, global T *fr, global int *fe) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b);\n"
    "  ST(fmax(x, y), i, o); ST(nextafter(x, y), i + s, o); ST(ldexp(x, (int)(i % 40) - 20), i + 2 * s, o);\n"
    "  ST(ilogb(x), i, e);\n"
    "  int ex; fr[i] = frexp(a[i], &ex); fe[i] = ex;\n"
    "}\n";

typedef long double ld;
/* float limits, double limits (OpenCL C 3.0 §7.4 tables; sqrt: 3 ulp for float in the
 * full profile, correctly rounded for double; correctly rounded: 0.5 ulp from the long
 * double reference, which is itself rounded). */
static const double float_limits[FUNCTIONS] = {4, 4, 5, 3, 3, 3, 3, 16, 3, 0.5001, 6, 2, 4, 2, 3, 2, 4, 4, 0, 4};
static const double double_limits[FUNCTIONS] = {4, 4, 5, 3, 3, 3, 3, 16, 0.5001, 0.5001, 6, 2, 4, 2, 3, 2, 4, 4, 0, 4};
static const char *const names[FUNCTIONS] = {"sin", "cos", "tan", "exp", "exp2", "log", "log2", "pow", "sqrt", "fma",
                                             "atan2", "cbrt", "hypot", "rsqrt", "expm1", "log1p", "sinh", "sinpi",
                                             "fmod", "asin"};

static ld reference(int f, ld x, ld y, ld z) {
  const ld pi = 3.141592653589793238462643383279502884L;
  switch (f) {
    case 0: return sinl(x);
    case 1: return cosl(x);
    case 2: return tanl(x);
    case 3: return expl(x);
    case 4: return exp2l(x);
    case 5: return logl(x);
    case 6: return log2l(x);
    case 7: return powl(x, y);
    case 8: return sqrtl(x);
    case 9: return fmal(x, y, z);
    case 10: return atan2l(x, y);
    case 11: return cbrtl(x);
    case 12: return hypotl(x, y);
    case 13: return 1.0L / sqrtl(x);
    case 14: return expm1l(x);
    case 15: return log1pl(x);
    case 16: return sinhl(x);
    case 17: return x == truncl(x) ? copysignl(0, x) : sinl(pi * fmodl(x, 2.0L));
    case 18: return fmodl(x, y);
    default: return asinl(z);
  }
}

static void fill(double *a, double *b, double *c, bool is_double) {
  uint64_t seed = 17;
  const double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, 2.0, 1e-30, 100.0, -100.0};
  for (int i = 0; i < ELEMENTS; i++) {
    double r = (double)(bt_random(&seed) % 2000001) / 100000.0 - 10.0; /* [-10, 10] */
    a[i] = i < 12 ? specials[i] : i < 24 ? r * 1e4 : i < 32 ? ldexp(r, (int)(bt_random(&seed) % 60) - 30) : r;
    b[i] = i % 5 == 0 ? (double)((int)r) : (double)(bt_random(&seed) % 1000001) / 100000.0 - 5.0;
    c[i] = (double)(bt_random(&seed) % 2200001) / 1000000.0 - 1.1; /* asin domain and a little beyond */
    if (!is_double) a[i] = (float)a[i], b[i] = (float)b[i], c[i] = (float)c[i];
  }
}

static void check(struct kiln_test_env *env, bool is_double, const char *options) {
  const char *t = is_double ? "double" : "float";
  int vector = is_double ? 3 : 4;
  char *source = calloc(1, 32 * 1024);
  strcpy(source, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  bt_instantiate(source, kernel_template, t, "", 1);
  bt_instantiate(source, kernel_template, t, "", vector);
  cl_program program = bt_build(env, source, options);
  free(source);
  double a[ELEMENTS], b[ELEMENTS], c[ELEMENTS];
  fill(a, b, c, is_double);
  float af[ELEMENTS], bf[ELEMENTS], cf[ELEMENTS];
  for (int i = 0; i < ELEMENTS; i++) af[i] = (float)a[i], bf[i] = (float)b[i], cf[i] = (float)c[i];
  size_t es = is_double ? 8 : 4;
  const double *limits = is_double ? double_limits : float_limits;
  for (int n = 1; n <= vector; n += vector - 1) {
    char name[32];
    double o[FUNCTIONS * ELEMENTS];
    int e[2 * ELEMENTS];
    snprintf(name, sizeof name, "math_%s%.0d", t, n > 1 ? n : 0);
    size_t global = ELEMENTS / (size_t)n;
#define INPUT(d, f) BT_IN(is_double ? (void *)(d) : (void *)(f), ELEMENTS * es)
    bt_run(env, program, name, global, 0,
           BT_ARGS(INPUT(a, af), INPUT(b, bf), INPUT(c, cf), BT_OUT(o, FUNCTIONS * ELEMENTS * es), BT_OUT(e, sizeof e)));
    for (int f = 0; f < FUNCTIONS; f++)
      for (int i = 0; i < ELEMENTS; i++) {
        ld want = reference(f, a[i], b[i], c[i]);
        double got = is_double ? o[f * ELEMENTS + i] : ((float *)o)[f * ELEMENTS + i];
        double ulps = is_double ? bt_ulps_double(got, want) : bt_ulps_float((float)got, want);
        if (ulps > limits[f])
          fail_msg("%s %s(%a, %a, %a): got %a, want %La (%.2f ulp > %.1f)", name, names[f], a[i], b[i], c[i], got, want,
                   ulps, limits[f]);
      }
    snprintf(name, sizeof name, "exact_%s%.0d", t, n > 1 ? n : 0);
    double fr[ELEMENTS];
    int fe[ELEMENTS];
    bt_run(env, program, name, global, 0,
           BT_ARGS(INPUT(a, af), INPUT(b, bf), BT_OUT(o, 3 * ELEMENTS * es), BT_OUT(e, ELEMENTS * sizeof(int)),
                   BT_OUT(fr, ELEMENTS * es), BT_OUT(fe, ELEMENTS * sizeof(int))));
    for (int i = 0; i < ELEMENTS; i++) {
      int shift = (int)((size_t)(i / n) % 40) - 20;
      double want[3] = {fmax(a[i], b[i]), is_double ? nextafter(a[i], b[i]) : nextafterf(af[i], bf[i]),
                        is_double ? ldexp(a[i], shift) : ldexpf(af[i], shift)};
      for (int k = 0; k < 3; k++) {
        double got = is_double ? o[k * ELEMENTS + i] : ((float *)o)[k * ELEMENTS + i];
        if (!(got == want[k] || (isnan(got) && isnan(want[k]))) || signbit(got) != signbit(want[k]))
          fail_msg("%s function %d element %d (x=%a y=%a): got %a, want %a", name, k, i, a[i], b[i], got, want[k]);
      }
      /* OpenCL C's FP_ILOGBNAN is INT_MAX (glibc's is INT_MIN) */
      assert_int_equal(isnan(a[i]) ? INT32_MAX : is_double ? ilogb(a[i]) : ilogbf(af[i]), e[i]);
      if ((size_t)i < global) {
        int want_e = 0;
        double want_fr = is_double ? frexp(a[i], &want_e) : frexpf(af[i], &want_e);
        double got_fr = is_double ? fr[i] : ((float *)fr)[i];
        if (!(got_fr == want_fr || (isnan(got_fr) && isnan(want_fr)))) fail_msg("%s frexp(%a): got %a", name, a[i], got_fr);
        if (isfinite(a[i])) assert_int_equal(want_e, fe[i]);
      }
    }
  }
  assert_cl_success(clReleaseProgram(program));
}

static void test_float_cl12(void **state) { check(*state, false, BT_CL12); }
static void test_float_cl30(void **state) { check(*state, false, BT_CL30); }
static void test_double_cl12(void **state) { check(*state, true, BT_CL12); }
static void test_double_cl30(void **state) { check(*state, true, BT_CL30); }

/* Special values the spec lists for powr, rootn, sinpi and cospi (OpenCL C 3.0 §7.5.1). */
static const char *special_source =
    "kernel void specials(global float *o) {\n"
    "  o[0] = powr(0.0f, 3.0f); o[1] = powr(-0.0f, 3.0f); o[2] = powr(-0.0f, -3.0f); o[3] = powr(1.0f, INFINITY);\n"
    "  o[4] = powr(-1.0f, 2.0f); o[5] = powr(0.0f, 0.0f); o[6] = powr(INFINITY, 0.0f); o[7] = powr(2.0f, 10.0f);\n"
    "  o[8] = rootn(-8.0f, 3); o[9] = rootn(-8.0f, 2); o[10] = rootn(-0.0f, -3); o[11] = rootn(0.0f, 0);\n"
    "  o[12] = sinpi(1.0f); o[13] = sinpi(-2.0f); o[14] = cospi(1.5f); o[15] = cospi(-0.5f);\n"
    "  o[16] = sinpi(3.0f); o[17] = sinpi(-0.0f); o[18] = cospi(2.5f); o[19] = sinpi(0.5f);\n"
    "}\n";

static void test_special_values(void **state) {
  float o[20];
  memset(o, 0, sizeof o);
  bt_run_source(*state, special_source, BT_CL12, "specials", 1, 1, BT_ARGS(BT_OUT(o, sizeof o)));
  const float want[20] = {0.0f, 0.0f, INFINITY, NAN, NAN,  NAN,  NAN, 1024.0f, -2.0f, NAN,
                          -INFINITY, NAN, 0.0f, -0.0f, 0.0f, 0.0f, 0.0f, -0.0f, 0.0f, 1.0f};
  for (int k = 0; k < 20; k++) {
    if (isnan(want[k])) {
      if (!isnan(o[k])) fail_msg("special %d: got %a, want NaN", k, o[k]);
    } else if (bt_bits_of_float(o[k]) != bt_bits_of_float(want[k])) {
      fail_msg("special %d: got %a, want %a", k, o[k], want[k]);
    }
  }
}

/* Results just inside the range, where earlier versions overflowed (found by the CTS's
 * math_brute_force) or lost the quotient bits (remquo), and normalize of a vector whose
 * length itself overflows (test_geometrics). */
static const char *edge_source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void edges(global const float *fi, global const double *di, global float *fo, global double *do_,\n"
    "                  global int *q) {\n"
    "  fo[0] = cosh(fi[0]); fo[1] = sinh(fi[0]); fo[2] = cosh(-fi[0]); fo[3] = sinh(-fi[0]);\n"
    "  do_[0] = cosh(di[0]); do_[1] = sinh(-di[0]);\n"
    "  do_[2] = pow(-di[1], 1.0); do_[3] = pown(-di[1], 1); do_[4] = powr(di[1], 1.0); do_[5] = pow(di[1], 0.5);\n"
    "  int k; fo[4] = remquo(fi[1], fi[2], &k); q[0] = k;\n"
    "  double2 n = normalize((double2)(di[2], di[3])); do_[6] = n.x; do_[7] = n.y;\n"
    "}\n";

static void test_edges_of_the_range(void **state) {
  float fi[3] = {-0x1.62e6p+6f, 0x1.f0441ap+127f, -0x1.29c0e4p+125f}, fo[5];
  double di[4] = {-0x1.63p+9, DBL_MAX, 0x1.7a8a95dca630cp+1023, -0x1.6de2669ea47d3p+1023}, dout[8];
  int q[1];
  bt_run_source(*state, edge_source, BT_CL12, "edges", 1, 1,
                BT_ARGS(BT_IN(fi, sizeof fi), BT_IN(di, sizeof di), BT_OUT(fo, sizeof fo), BT_OUT(dout, sizeof dout),
                        BT_OUT(q, sizeof q)));
  long double ch = coshl(fi[0]), chd = coshl(di[0]);
  assert_true(bt_ulps_float(fo[0], ch) <= 4.0);
  assert_true(bt_ulps_float(fo[1], -ch) <= 4.0); /* sinh(-88.72) = -cosh(-88.72) to float precision */
  assert_true(bt_ulps_float(fo[2], ch) <= 4.0);
  assert_true(bt_ulps_float(fo[3], ch) <= 4.0);
  assert_true(bt_ulps_double(dout[0], chd) <= 4.0);
  assert_true(bt_ulps_double(dout[1], chd) <= 4.0);
  assert_true(dout[2] == -DBL_MAX && dout[3] == -DBL_MAX && dout[4] == DBL_MAX);
  assert_true(bt_ulps_double(dout[5], sqrtl(DBL_MAX)) <= 16.0);
  /* remquo: x / y = -6.67..., rounded -7: the remainder and the quotient's sign and low bits. */
  assert_true(fo[4] == remainderf(fi[1], fi[2]));
  assert_int_equal(q[0], -7);
  long double l = hypotl(di[2], di[3]);
  assert_true(bt_ulps_double(dout[6], di[2] / l) <= 4.0);
  assert_true(bt_ulps_double(dout[7], di[3] / l) <= 4.0);
}

/* float rsqrt (builtins/math.cl: the division of a correctly rounded square root): every
 * 509th bit pattern of the non-negative floats (all exponents, subnormals included) within
 * the spec's 2 ULP, and its special values, scalar and float4. */
static const char *rsqrt_source =
    "kernel void sweep(global float *o, global float4 *o4) {\n"
    "  uint i = get_global_id(0) * 509u;\n"
    "  o[get_global_id(0)] = rsqrt(as_float(i));\n"
    "  if (get_global_id(0) % 4 == 0) o4[get_global_id(0) / 4] = rsqrt(as_float4((uint4)(i, i + 509u, i + 1018u, i + 1527u)));\n"
    "}\n"
    "kernel void specials(global float *o) {\n"
    "  o[0] = rsqrt(0.0f); o[1] = rsqrt(-0.0f); o[2] = rsqrt(INFINITY); o[3] = rsqrt(-1.0f);\n"
    "  o[4] = rsqrt(-INFINITY); o[5] = rsqrt(NAN); o[6] = rsqrt(0x1p-148f); o[7] = rsqrt(4.0f);\n"
    "}\n";

static void test_rsqrt_sweep(void **state) {
  enum { N = 0x7f800000u / 509u + 1 };
  float *o = malloc(N * sizeof *o), *o4 = malloc(N * sizeof *o4);
  bt_run_source(*state, rsqrt_source, BT_CL12, "sweep", N, 0, BT_ARGS(BT_OUT(o, N * sizeof *o), BT_OUT(o4, N / 4 * 4 * sizeof *o4)));
  for (uint32_t k = 0; k < N; k++) {
    uint32_t bits = k * 509u;
    float x;
    memcpy(&x, &bits, sizeof x);
    if (x == 0.0f) continue; /* below */
    long double want = 1.0L / sqrtl(x);
    if (!(bt_ulps_float(o[k], want) <= 2.0)) fail_msg("rsqrt(%a) = %a, want %La", x, o[k], want);
    if (k < N / 4 * 4 && !(bt_ulps_float(o4[k], want) <= 2.0)) fail_msg("float4 rsqrt(%a) = %a, want %La", x, o4[k], want);
  }
  float s[8];
  bt_run_source(*state, rsqrt_source, BT_CL12, "specials", 1, 1, BT_ARGS(BT_OUT(s, sizeof s)));
  assert_true(s[0] == INFINITY && s[1] == -INFINITY && bt_bits_of_float(s[2]) == 0 && isnan(s[3]) && isnan(s[4]) &&
              isnan(s[5]) && s[6] == 0x1p+74f && s[7] == 0.5f);
  free(o), free(o4);
}

/* float sin (builtins/math.cl: SLEEF's 3.5-ULP function): every 509th bit pattern of all
 * floats, both signs, huge arguments included, within the spec's 4 ULP; NaN for NaN and
 * infinities. The kernel has no loop: its sin runs in SLEEF's vector form. */
static const char *sin_source =
    "kernel void sweep(global float *o) {\n"
    "  o[get_global_id(0)] = sin(as_float((uint)get_global_id(0) * 509u));\n"
    "}\n";

static void test_sin_sweep(void **state) {
  enum { N = (int)(0xffffffffu / 509u + 1) };
  float *o = malloc(N * sizeof *o);
  bt_run_source(*state, sin_source, BT_CL12, "sweep", N, 0, BT_ARGS(BT_OUT(o, N * sizeof *o)));
  for (uint32_t k = 0; k < N; k++) {
    uint32_t bits = k * 509u;
    float x;
    memcpy(&x, &bits, sizeof x);
    if (!isfinite(x)) {
      if (!isnan(o[k])) fail_msg("sin(%a) = %a, want NaN", x, o[k]);
      continue;
    }
    long double want = sinl(x);
    if (!(bt_ulps_float(o[k], want) <= 4.0)) fail_msg("sin(%a) = %a, want %La", x, o[k], want);
  }
  free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edges_of_the_range),
      cmocka_unit_test(test_float_cl12),  cmocka_unit_test(test_float_cl30),
      cmocka_unit_test(test_double_cl12), cmocka_unit_test(test_double_cl30),
      cmocka_unit_test(test_special_values), cmocka_unit_test(test_rsqrt_sweep),
      cmocka_unit_test(test_sin_sweep),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
