/* Common functions (OpenCL C 3.0 §6.15.4) through the loader, float and double, scalars and
 * vectors of 2, 3, 4, 8 and 16 components, also the overloads with scalar limits/edges:
 * clamp, degrees, radians, max, min, mix, step, smoothstep, sign against long double host
 * references within the spec's tolerances (0 ulp where exact; degrees/radians 2 ulp; mix
 * 1e-3 and smoothstep 1e-5 absolute), sign also on NaN, infinities and signed zeros. */
#include "builtins_harness.h"

#define ELEMENTS 96
#define SLOTS 15

static const char *kernel_template =
    "kernel void common_TN(global const T *a, global const T *b, global const T *c, global const T *d, global T *o) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b), t = LD(i, c), lo = min(y, y + t), hi = max(y, y + t);\n"
    "  ST(clamp(x, lo, hi), i, o); ST(degrees(x), i + s, o); ST(radians(x), i + 2 * s, o);\n"
    "  ST(max(x, y), i + 3 * s, o); ST(min(x, y), i + 4 * s, o); ST(mix(x, y, t), i + 5 * s, o);\n"
    "  ST(step(y, x), i + 6 * s, o); ST(smoothstep(y, y + (T)2, x), i + 7 * s, o); ST(sign(LD(i, d)), i + 8 * s, o);\n"
    "  ST(clamp(x, (T)-1, (T)1), i + 9 * s, o); ST(max(x, b[0]), i + 10 * s, o); ST(min(x, b[0]), i + 11 * s, o);\n"
    "  ST(mix(x, y, c[1]), i + 12 * s, o); ST(step(b[2], x), i + 13 * s, o);\n"
    "  ST(smoothstep((T)-1, (T)1, x), i + 14 * s, o);\n"
    "}\n";

typedef long double ld;
static ld clampl(ld x, ld lo, ld hi) { return fminl(fmaxl(x, lo), hi); }
static ld smooth(ld e0, ld e1, ld x) {
  ld t = clampl((x - e0) / (e1 - e0), 0, 1);
  return t * t * (3 - 2 * t);
}
static ld signl_cl(ld x) { return isnan(x) ? 0 : x > 0 ? 1 : x < 0 ? -1 : x; }

/* Reference and tolerance of slot k (kind 0: exact, 1: 2 ulp, 2: absolute 1e-3, 3: 1e-5). */
static ld reference(int k, ld x, ld y, ld t, ld dv, ld b0, ld c1, ld b2, int *kind) {
  ld lo = fminl(y, y + t), hi = fmaxl(y, y + t);
  *kind = 0;
  switch (k) {
    case 0: return clampl(x, lo, hi);
    case 1: *kind = 1; return x * (180.0L / 3.141592653589793238462643383279502884L);
    case 2: *kind = 1; return x * (3.141592653589793238462643383279502884L / 180.0L);
    case 3: return fmaxl(x, y);
    case 4: return fminl(x, y);
    case 5: *kind = 2; return x + (y - x) * t;
    case 6: return x < y ? 0 : 1;
    case 7: *kind = 3; return smooth(y, y + 2, x);
    case 8: return signl_cl(dv);
    case 9: return clampl(x, -1, 1);
    case 10: return fmaxl(x, b0);
    case 11: return fminl(x, b0);
    case 12: *kind = 2; return x + (y - x) * c1;
    case 13: return x < b2 ? 0 : 1;
    default: *kind = 3; return smooth(-1, 1, x);
  }
}

/* y + t is exact in the element type (t is a multiple of 1/1024, |y| <= 64). */
static void fill(double *a, double *b, double *c, double *d) {
  uint64_t seed = 5;
  const double specials[] = {0.0, -0.0, 1.0, -1.0, NAN, -NAN, INFINITY, -INFINITY, 1e-40, -3.5};
  for (int i = 0; i < ELEMENTS; i++) {
    a[i] = ((double)(bt_random(&seed) % 257) - 128) / 2.0 + (i % 7 == 0 ? 0.0 : 0.125);
    b[i] = ((double)(bt_random(&seed) % 129) - 64) / 4.0;
    c[i] = (double)(bt_random(&seed) % 1025) / 1024.0;
    d[i] = i < 10 ? specials[i] : a[i];
    if (i % 11 == 3) a[i] = b[i]; /* step at its edge */
    if (i % 11 == 5) a[i] = b[i] + 1.0;
  }
  a[1] = -0.0;
}

static void check(struct kiln_test_env *env, bool is_double, const char *options) {
  const char *t = is_double ? "double" : "float";
  static const int sizes[] = {1, 2, 3, 4, 8, 16};
  char *source = calloc(1, 64 * 1024);
  strcpy(source, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  for (int k = 0; k < 6; k++) bt_instantiate(source, kernel_template, t, "", sizes[k]);
  cl_program program = bt_build(env, source, options);
  free(source);
  double a[ELEMENTS], b[ELEMENTS], c[ELEMENTS], d[ELEMENTS];
  fill(a, b, c, d);
  float af[ELEMENTS], bf[ELEMENTS], cf[ELEMENTS], df[ELEMENTS];
  for (int i = 0; i < ELEMENTS; i++) af[i] = (float)a[i], bf[i] = (float)b[i], cf[i] = (float)c[i], df[i] = (float)d[i];
  size_t es = is_double ? sizeof(double) : sizeof(float);
  for (int k = 0; k < 6; k++) {
    char name[32];
    snprintf(name, sizeof name, "common_%s%.0d", t, sizes[k] > 1 ? sizes[k] : 0);
    double od[SLOTS * ELEMENTS];
    float of[SLOTS * ELEMENTS];
    void *o = is_double ? (void *)od : (void *)of;
    memset(o, 0x7f, SLOTS * ELEMENTS * es);
    bt_run(env, program, name, ELEMENTS / (size_t)sizes[k], 0,
           BT_ARGS(BT_IN(is_double ? (void *)a : (void *)af, ELEMENTS * es), BT_IN(is_double ? (void *)b : (void *)bf, ELEMENTS * es),
                   BT_IN(is_double ? (void *)c : (void *)cf, ELEMENTS * es), BT_IN(is_double ? (void *)d : (void *)df, ELEMENTS * es),
                   BT_OUT(o, SLOTS * ELEMENTS * es)));
    for (int slot = 0; slot < SLOTS; slot++)
      for (int i = 0; i < ELEMENTS; i++) {
        int kind;
        ld want = reference(slot, a[i], b[i], c[i], d[i], b[0], c[1], b[2], &kind);
        if (!is_double) /* the float inputs are the same values */
          want = reference(slot, af[i], bf[i], cf[i], df[i], bf[0], cf[1], bf[2], &kind);
        ld got = is_double ? od[slot * ELEMENTS + i] : of[slot * ELEMENTS + i];
        bool ok;
        if (kind == 0) ok = (isnan(want) && isnan(got)) || (got == want && signbit(got) == signbit(want));
        else if (kind == 1) ok = (is_double ? bt_ulps_double((double)got, want) : bt_ulps_float((float)got, want)) <= 2.0;
        else ok = fabsl(got - want) <= (kind == 2 ? 1e-3L : 1e-5L);
        if (!ok)
          fail_msg("%s slot %d element %d (x=%a y=%a t=%a d=%a): got %La, want %La", name, slot, i, a[i], b[i], c[i], d[i], got, want);
      }
  }
  assert_cl_success(clReleaseProgram(program));
}

static void test_float_cl12(void **state) { check(*state, false, BT_CL12); }
static void test_float_cl30(void **state) { check(*state, false, BT_CL30); }
static void test_double_cl12(void **state) { check(*state, true, BT_CL12); }
static void test_double_cl30(void **state) { check(*state, true, BT_CL30); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_cl12),
      cmocka_unit_test(test_float_cl30),
      cmocka_unit_test(test_double_cl12),
      cmocka_unit_test(test_double_cl30),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
