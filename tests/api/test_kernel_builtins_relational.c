/* Relational functions (OpenCL C 3.0 §6.15.6) through the loader, float and double, scalars
 * and every vector size: the 14 comparisons and classifications on all pairs of special
 * values (signed zeros, infinities, NaN, smallest normal, a subnormal, the largest value),
 * checking the scalar 1 / vector -1 rule; select (scalar: non-zero picks b; vector: the MSB
 * does), bitselect, any and all. */
#include "builtins_harness.h"

#define SPECIALS 12
#define ELEMENTS (SPECIALS * SPECIALS)
#define SLOTS 14

static const char *kernel_template =
    "kernel void rel_TN(global const T *a, global const T *b, global const U *c, global U *o, global T *f, global int *g) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b);\n"
    "  ST(isequal(x, y), i, o); ST(isnotequal(x, y), i + s, o); ST(isgreater(x, y), i + 2 * s, o);\n"
    "  ST(isgreaterequal(x, y), i + 3 * s, o); ST(isless(x, y), i + 4 * s, o); ST(islessequal(x, y), i + 5 * s, o);\n"
    "  ST(islessgreater(x, y), i + 6 * s, o); ST(isfinite(x), i + 7 * s, o); ST(isinf(x), i + 8 * s, o);\n"
    "  ST(isnan(x), i + 9 * s, o); ST(isnormal(x), i + 10 * s, o); ST(isordered(x, y), i + 11 * s, o);\n"
    "  ST(isunordered(x, y), i + 12 * s, o); ST(signbit(x), i + 13 * s, o);\n"
    "  ST(select(x, y, LD(i, c)), i, f); ST(bitselect(x, y, as_TN(LD(i, c))), i + s, f);\n"
    "  g[i] = any(LD(i, c)); g[i + s] = all(LD(i, c));\n"
    "}\n";

static void specials(bool is_double, double *v) {
  double min = is_double ? 0x1p-1022 : 0x1p-126, max = is_double ? 0x1.fffffffffffffp1023 : 0x1.fffffep127;
  const double values[SPECIALS] = {0.0, -0.0, 1.0, -1.0, 1.5, INFINITY, -INFINITY, NAN, min, min / 4, max, -2.5};
  memcpy(v, values, sizeof values);
}

static int64_t relation(int slot, double x, double y, bool is_double) {
  float xf = (float)x; /* classification in the element type */
  switch (slot) {
    case 0: return x == y;
    case 1: return x != y;
    case 2: return isgreater(x, y);
    case 3: return isgreaterequal(x, y);
    case 4: return isless(x, y);
    case 5: return islessequal(x, y);
    case 6: return islessgreater(x, y);
    case 7: return (is_double ? isfinite(x) : isfinite(xf)) != 0;
    case 8: return (is_double ? isinf(x) : isinf(xf)) != 0;
    case 9: return isnan(x) != 0;
    case 10: return (is_double ? isnormal(x) : isnormal(xf)) != 0;
    case 11: return !isunordered(x, y);
    case 12: return isunordered(x, y) != 0;
    default: return signbit(x) != 0;
  }
}

static void check(struct kiln_test_env *env, bool is_double, const char *options) {
  const char *t = is_double ? "double" : "float", *u = is_double ? "long" : "int";
  static const int sizes[] = {1, 2, 3, 4, 8, 16};
  char *source = calloc(1, 64 * 1024);
  strcpy(source, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  for (int k = 0; k < 6; k++) bt_instantiate(source, kernel_template, t, u, sizes[k]);
  cl_program program = bt_build(env, source, options);
  free(source);
  double sp[SPECIALS], a[ELEMENTS], b[ELEMENTS];
  float af[ELEMENTS], bf[ELEMENTS];
  int64_t c64[ELEMENTS];
  int32_t c32[ELEMENTS];
  specials(is_double, sp);
  const int64_t masks[6] = {0, 1, -1, INT64_MIN, 2, INT64_MAX};
  for (int i = 0; i < ELEMENTS; i++) {
    a[i] = sp[i % SPECIALS], b[i] = sp[i / SPECIALS], af[i] = (float)a[i], bf[i] = (float)b[i];
    c64[i] = masks[(i * 7) % 6];
    c32[i] = (int32_t)(c64[i] == INT64_MIN ? INT32_MIN : c64[i] == INT64_MAX ? INT32_MAX : c64[i]);
  }
  size_t es = is_double ? 8 : 4;
  for (int k = 0; k < 6; k++) {
    int n = sizes[k];
    char name[32];
    snprintf(name, sizeof name, "rel_%s%.0d", t, n > 1 ? n : 0);
    int64_t o64[SLOTS * ELEMENTS];
    int32_t o32[SLOTS * ELEMENTS], g[2 * ELEMENTS];
    double fd[2 * ELEMENTS];
    float ff[2 * ELEMENTS];
    memset(o64, 0x55, sizeof o64), memset(o32, 0x55, sizeof o32), memset(g, 0x55, sizeof g);
    bt_run(env, program, name, ELEMENTS / (size_t)n, 0,
           BT_ARGS(BT_IN(is_double ? (void *)a : (void *)af, ELEMENTS * es), BT_IN(is_double ? (void *)b : (void *)bf, ELEMENTS * es),
                   BT_IN(is_double ? (void *)c64 : (void *)c32, ELEMENTS * es),
                   BT_OUT(is_double ? (void *)o64 : (void *)o32, SLOTS * ELEMENTS * es),
                   BT_OUT(is_double ? (void *)fd : (void *)ff, 2 * ELEMENTS * es), BT_OUT(g, sizeof g)));
    int64_t truth = n == 1 ? 1 : -1;
    for (int slot = 0; slot < SLOTS; slot++)
      for (int i = 0; i < ELEMENTS; i++) {
        int64_t got = is_double ? o64[slot * ELEMENTS + i] : o32[slot * ELEMENTS + i];
        int64_t want = relation(slot, a[i], b[i], is_double) ? truth : 0;
        if (got != want) fail_msg("%s slot %d: x=%a y=%a: got %lld, want %lld", name, slot, a[i], b[i], (long long)got, (long long)want);
      }
    for (int i = 0; i < ELEMENTS; i++) {
      int64_t m = is_double ? c64[i] : c32[i];
      bool pick_b = n == 1 ? m != 0 : m < 0;
      double want = pick_b ? b[i] : a[i];
      uint64_t ua = is_double ? bt_bits_of_double(a[i]) : bt_bits_of_float(af[i]);
      uint64_t ub = is_double ? bt_bits_of_double(b[i]) : bt_bits_of_float(bf[i]);
      uint64_t mask = is_double ? (uint64_t)c64[i] : (uint32_t)c32[i];
      uint64_t bits = (ua & ~mask) | (ub & mask);
      if (is_double) {
        assert_int_equal(bt_bits_of_double(want), bt_bits_of_double(fd[i]));
        assert_int_equal(bits, bt_bits_of_double(fd[ELEMENTS + i]));
      } else {
        assert_int_equal(bt_bits_of_float((float)want), bt_bits_of_float(ff[i]));
        assert_int_equal(bits, bt_bits_of_float(ff[ELEMENTS + i]));
      }
    }
    for (int v = 0; v < ELEMENTS / n; v++) {
      int any = 0, all = 1;
      for (int e = 0; e < n; e++) {
        int64_t m = is_double ? c64[v * n + e] : c32[v * n + e];
        any |= m < 0, all &= m < 0;
      }
      assert_int_equal(any, g[v]);
      assert_int_equal(all, g[ELEMENTS / n + v]);
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
