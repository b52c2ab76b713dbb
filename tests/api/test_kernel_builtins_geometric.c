/* Geometric functions (OpenCL C 3.0 §6.15.5) through the loader, float and double with 1-4
 * components: dot, cross, length, distance, normalize and the float fast_ variants against
 * long double references within the spec's tolerances (absolute for dot/cross, ULPs for
 * the others), on random vectors, vectors whose squares overflow or underflow the element
 * type, a zero vector and one with infinities. */
#include "builtins_harness.h"

#define ELEMENTS 96

static const char *kernel_template =
    "kernel void geo_TN(global const T *a, global const T *b, global T *o, global T *nrm, global T *fnrm) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b);\n"
    "  o[i] = dot(x, y); o[i + s] = length(x); o[i + 2 * s] = distance(x, y);\n"
    "  ST(normalize(x), i, nrm);\n"
    "#ifdef FAST\n"
    "  o[i + 3 * s] = fast_length(x); o[i + 4 * s] = fast_distance(x, y); ST(fast_normalize(x), i, fnrm);\n"
    "#endif\n"
    "}\n";
static const char *cross_source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void cross_f(global const float *a, global const float *b, global float *o3, global float4 *o4) {\n"
    "  size_t i = get_global_id(0);\n"
    "  vstore3(cross(vload3(i, a), vload3(i, b)), i, o3);\n"
    "  o4[i] = cross(vload4(i, a), vload4(i, b));\n"
    "}\n"
    "kernel void cross_d(global const double *a, global const double *b, global double *o3, global double4 *o4) {\n"
    "  size_t i = get_global_id(0);\n"
    "  vstore3(cross(vload3(i, a), vload3(i, b)), i, o3);\n"
    "  o4[i] = cross(vload4(i, a), vload4(i, b));\n"
    "}\n";

typedef long double ld;

static void fill(double *a, double *b, bool is_double) {
  uint64_t seed = 31;
  for (int i = 0; i < ELEMENTS; i++) {
    a[i] = ((double)(bt_random(&seed) % 20001) - 10000) / 1000.0;
    b[i] = ((double)(bt_random(&seed) % 20001) - 10000) / 1000.0;
  }
  double big = is_double ? 1e200 : 1e25, tiny = is_double ? 1e-200 : 1e-25;
  for (int i = 48; i < 60; i++) a[i] *= big; /* squares overflow */
  for (int i = 60; i < 72; i++) a[i] *= tiny; /* squares underflow */
  for (int i = 72; i < 84; i++) a[i] = 0.0;
  a[84] = INFINITY, a[86] = -INFINITY; /* with a finite b */
}

static ld length_of(const ld *v, int n) {
  ld s = 0;
  for (int k = 0; k < n; k++) s += v[k] * v[k];
  return sqrtl(s);
}

static bool close_ulps(bool is_double, ld got, ld want, double limit) {
  return (is_double ? bt_ulps_double((double)got, want) : bt_ulps_float((float)got, want)) <= limit;
}

static void check(struct kiln_test_env *env, bool is_double, const char *options) {
  const char *t = is_double ? "double" : "float";
  char *source = calloc(1, 32 * 1024);
  strcpy(source, is_double ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "#define FAST\n");
  for (int n = 1; n <= 4; n++) bt_instantiate(source, kernel_template, t, "", n);
  cl_program program = bt_build(env, source, options);
  free(source);
  double a[ELEMENTS], b[ELEMENTS];
  fill(a, b, is_double);
  float af[ELEMENTS], bf[ELEMENTS];
  for (int i = 0; i < ELEMENTS; i++) af[i] = (float)a[i], bf[i] = (float)b[i];
  size_t es = is_double ? 8 : 4;
  ld eps = is_double ? 0x1p-52L : 0x1p-23L;
  for (int n = 1; n <= 4; n++) {
    char name[32];
    snprintf(name, sizeof name, "geo_%s%.0d", t, n > 1 ? n : 0);
    int m = ELEMENTS / n;
    double o[5 * ELEMENTS], nrm[ELEMENTS], fnrm[ELEMENTS]; /* used as float arrays for float */
    bt_run(env, program, name, (size_t)m, 0,
           BT_ARGS(BT_IN(is_double ? (void *)a : (void *)af, ELEMENTS * es), BT_IN(is_double ? (void *)b : (void *)bf, ELEMENTS * es),
                   BT_OUT(o, 5 * (size_t)m * es), BT_OUT(nrm, ELEMENTS * es), BT_OUT(fnrm, ELEMENTS * es)));
#define GOT(arr, k) (is_double ? (ld)(arr)[k] : (ld)((float *)(arr))[k])
    for (int v = 0; v < m; v++) {
      ld x[4], y[4], d[4], mx = 0;
      for (int k = 0; k < n; k++) {
        x[k] = is_double ? a[v * n + k] : af[v * n + k], y[k] = is_double ? b[v * n + k] : bf[v * n + k], d[k] = x[k] - y[k];
        mx = fmaxl(mx, fmaxl(fabsl(x[k]), fabsl(y[k])));
      }
      ld dot = 0;
      for (int k = 0; k < n; k++) dot += x[k] * y[k];
      ld got_dot = GOT(o, v);
      if (isfinite(dot) ? fabsl(got_dot - dot) > mx * mx * (2 * n - 1) * eps : !(got_dot == dot || (isnan(dot) && isnan(got_dot))))
        fail_msg("%s dot of vector %d: got %La, want %La", name, v, got_dot, dot);
      ld len = length_of(x, n), dist = length_of(d, n);
      if (!close_ulps(is_double, GOT(o, m + v), len, 2.75 + 0.5 * n))
        fail_msg("%s length of vector %d: got %La, want %La", name, v, GOT(o, m + v), len);
      if (!close_ulps(is_double, GOT(o, 2 * m + v), dist, 2.5 + 2 * n))
        fail_msg("%s distance of vector %d: got %La, want %La", name, v, GOT(o, 2 * m + v), dist);
      ld unit[4], l = len;
      bool has_inf = false;
      for (int k = 0; k < n; k++) has_inf |= isinf(x[k]);
      for (int k = 0; k < n; k++) unit[k] = has_inf ? (isinf(x[k]) ? copysignl(1, x[k]) : copysignl(0, x[k])) : x[k];
      if (has_inf) l = length_of(unit, n);
      for (int k = 0; k < n; k++) {
        ld want = l == 0 ? unit[k] : unit[k] / l;
        if (!close_ulps(is_double, GOT(nrm, v * n + k), want, 2 + n))
          fail_msg("%s normalize of vector %d [%d]: got %La, want %La", name, v, k, GOT(nrm, v * n + k), want);
        if (!is_double && !close_ulps(false, GOT(fnrm, v * n + k), want, 8192 + n))
          fail_msg("%s fast_normalize of vector %d [%d]: got %La, want %La", name, v, k, GOT(fnrm, v * n + k), want);
      }
      if (!is_double) {
        if (!close_ulps(false, GOT(o, 3 * m + v), len, 8191.5 + n)) fail_msg("%s fast_length of vector %d", name, v);
        if (!close_ulps(false, GOT(o, 4 * m + v), dist, 8191.5 + 2 * n)) fail_msg("%s fast_distance of vector %d", name, v);
      }
    }
  }
  assert_cl_success(clReleaseProgram(program));
}

static void check_cross(struct kiln_test_env *env, bool is_double) {
  double a[ELEMENTS], b[ELEMENTS], o3[ELEMENTS], o4[ELEMENTS];
  fill(a, b, is_double);
  float af[ELEMENTS], bf[ELEMENTS];
  for (int i = 0; i < ELEMENTS; i++) af[i] = (float)a[i], bf[i] = (float)b[i];
  size_t es = is_double ? 8 : 4;
  cl_program program = bt_build(env, cross_source, BT_CL12);
  /* only the finite part of the inputs: cross of infinities is NaN-prone by definition */
  bt_run(env, program, is_double ? "cross_d" : "cross_f", 12, 0,
         BT_ARGS(BT_IN(is_double ? (void *)a : (void *)af, ELEMENTS * es), BT_IN(is_double ? (void *)b : (void *)bf, ELEMENTS * es),
                 BT_OUT(o3, ELEMENTS * es), BT_OUT(o4, ELEMENTS * es)));
  assert_cl_success(clReleaseProgram(program));
  ld eps = is_double ? 0x1p-52L : 0x1p-23L;
  for (int w = 3; w <= 4; w++)
    for (int v = 0; v < 12; v++) {
      ld x[3], y[3], mx = 0;
      for (int k = 0; k < 3; k++) {
        x[k] = is_double ? a[v * w + k] : af[v * w + k], y[k] = is_double ? b[v * w + k] : bf[v * w + k];
        mx = fmaxl(mx, fmaxl(fabsl(x[k]), fabsl(y[k])));
      }
      ld want[4] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0], 0};
      for (int k = 0; k < w; k++) {
        ld got = w == 3 ? GOT(o3, v * 3 + k) : GOT(o4, v * 4 + k);
        if (fabsl(got - want[k]) > mx * mx * 3 * eps) fail_msg("cross%d vector %d [%d]: got %La, want %La", w, v, k, got, want[k]);
      }
    }
}

static void test_float_cl12(void **state) { check(*state, false, BT_CL12); }
static void test_float_cl30(void **state) { check(*state, false, BT_CL30); }
static void test_double_cl12(void **state) { check(*state, true, BT_CL12); }
static void test_double_cl30(void **state) { check(*state, true, BT_CL30); }
static void test_cross_float(void **state) { check_cross(*state, false); }
static void test_cross_double(void **state) { check_cross(*state, true); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_cl12),  cmocka_unit_test(test_float_cl30),  cmocka_unit_test(test_double_cl12),
      cmocka_unit_test(test_double_cl30), cmocka_unit_test(test_cross_float), cmocka_unit_test(test_cross_double),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
