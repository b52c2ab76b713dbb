/* vload_half/vstore_half (every rounding mode, float and double sources, against an exact
 * search among all half values), shuffle/shuffle2 (mask high bits ignored), the 1.x and
 * C11-style atomics (the harness runs work-items one at a time, so the final values are
 * exact), and async copies (complete whatever the group size, and a barrier per wait). */
#include "builtins/harness.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static void *lib;
static int setup(void **state) {
  (void)state;
  lib = kiln_bt_load("misc", "CL2.0");
  return lib ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  if (lib) dlclose(lib);
  return 0;
}
static uint64_t rng = 0x2545f4914f6cdd1dull;

typedef void (*k2_fn)(const void *, void *);
typedef void (*k3_fn)(const void *, const void *, void *);
typedef void (*k4_fn)(void *, void *, void *, void *);
typedef void (*k6_fn)(void *, void *, void *, void *, void *, void *);
typedef void (*kasync_fn)(const void *, void *, void *, unsigned);

static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return (h & 0x8000) ? -v : v;
}
/* The half nearest x in `mode` (0 rte, 1 rtz, 2 rtp, 3 rtn), by search over all values. */
static uint16_t half_reference(double x, int mode) {
  if (isnan(x)) return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  uint16_t lo = 0, hi = 0x7c00; /* magnitudes: the largest <= a and the smallest >= a */
  uint16_t l = 0, h = 0x7c00;
  while (h - l > 1) { uint16_t mid = (uint16_t)((l + h) / 2); if (half_value(mid) <= a) l = mid; else h = mid; }
  lo = l;
  hi = half_value(l) == a ? l : h;
  if (a == INFINITY) lo = hi = 0x7c00;
  int up = (mode == 2 && !sign) || (mode == 3 && sign);
  uint16_t pick;
  if (lo == hi) pick = lo;
  else if (mode == 0) {
    double mid = hi == 0x7c00 ? 65520.0 : (half_value(lo) + half_value(hi)) / 2;
    pick = a < mid ? lo : a > mid ? hi : ((lo & 1) ? hi : lo);
  } else pick = up ? hi : lo;
  return (uint16_t)(sign | pick);
}

#define NH 4096
static void test_vload_vstore_half(void **state) {
  (void)state;
  static uint16_t h[NH * 2];
  static float f[NH * 2];
  static double d[NH * 2];
  for (size_t i = 0; i < 65536; i += NH) { /* every half bit pattern through vload_half */
    for (size_t k = 0; k < NH; ++k) h[k] = (uint16_t)(i + k);
    KILN_BT_RUN_1D(lib, k2_fn, "t_vload_half", NH, 64, h, f);
    for (size_t k = 0; k < NH; ++k) {
      double want = half_value(h[k]);
      if (isnan(want)) assert_true(isnan(f[k]));
      else if ((double)f[k] != want || !signbit(f[k]) != !signbit(want)) {
        print_error("vload_half(%#x) = %a, want %a\n", h[k], f[k], want);
        fail();
      }
    }
  }
  KILN_BT_RUN_1D(lib, k2_fn, "t_vload_half4", NH / 4, 64, h, f);
  for (size_t k = 0; k < NH; ++k) assert_true(isnan(f[k]) ? isnan(half_value(h[k])) : f[k] == half_value(h[k]));
  KILN_BT_RUN_1D(lib, k2_fn, "t_vloada_half3", NH / 4, 64, h, f);
  for (size_t k = 0; k < NH / 4 * 3; ++k) {
    size_t item = k / 3, c = k % 3;
    double want = half_value(h[item * 4 + c]);
    assert_true(isnan(want) ? isnan(f[k]) : f[k] == want);
  }
  /* Stores: values near half boundaries (exact halfway points too), in range, subnormal,
   * overflowing, tiny, specials. */
  static const char *const modes[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
  size_t checked = 0;
  for (int round = 0; round < 4; ++round) {
    for (size_t k = 0; k < NH; ++k) {
      uint64_t r = kiln_bt_random(&rng);
      uint16_t base = (uint16_t)(r & 0x7fff);
      if ((base & 0x7c00) == 0x7c00) base &= 0x7bff;
      double v = half_value(base), next = half_value((uint16_t)(base + 1));
      double frac = (double)((r >> 16) & 0xff) / 128.0; /* 0, 1/128, ..., includes 1/2 */
      d[k] = v + (next - v) * (k % 4 == 0 ? 0.5 : frac);
      if (k % 17 == 0) d[k] = ldexp((double)(r >> 20), -(int)((r >> 8) % 80) - 10);
      if (k % 19 == 0) d[k] = 65504.0 + (double)((r >> 16) % 64);
      if (k % 23 == 0) d[k] = (r >> 30) % 2 ? INFINITY : NAN;
      if (k % 29 == 0) d[k] = ldexp(1.0, -25) * ((r >> 9) % 2 ? 1.0 : 1.0 + 0x1p-40);
      if (r >> 63) d[k] = -d[k];
      f[k] = (float)d[k];
      if (k % 31 == 0) d[k] = v + (next - v) * 0.5 + 0x1p-60 * v; /* above the tie only in double */
    }
    for (int m = 0; m < 5; ++m) {
      int mode = m == 0 ? 0 : m - 1;
      char sym[64];
      snprintf(sym, sizeof sym, "t_vstore_half%s_f", modes[m]);
      KILN_BT_RUN_1D(lib, k2_fn, sym, NH, 64, f, h);
      for (size_t k = 0; k < NH; ++k) {
        uint16_t want = half_reference(f[k], mode);
        if (h[k] != want && !(isnan(f[k]) && (h[k] & 0x7c00) == 0x7c00 && (h[k] & 0x3ff))) {
          print_error("%s(%a) = %#x, want %#x\n", sym, f[k], h[k], want);
          fail();
        }
      }
      snprintf(sym, sizeof sym, "t_vstore_half16%s_f", modes[m]);
      KILN_BT_RUN_1D(lib, k2_fn, sym, NH / 16, 16, f, h);
      for (size_t k = 0; k < NH; ++k)
        assert_true(h[k] == half_reference(f[k], mode) || isnan(f[k]));
      snprintf(sym, sizeof sym, "t_vstore_half%s_d", modes[m]);
      KILN_BT_RUN_1D(lib, k2_fn, sym, NH, 64, d, h);
      for (size_t k = 0; k < NH; ++k) {
        uint16_t want = half_reference(d[k], mode);
        if (h[k] != want && !isnan(d[k])) {
          print_error("%s(%a) = %#x, want %#x\n", sym, d[k], h[k], want);
          fail();
        }
      }
      snprintf(sym, sizeof sym, "t_vstorea_half3%s_d", modes[m]);
      memset(h, 0xab, sizeof h);
      KILN_BT_RUN_1D(lib, k2_fn, sym, NH / 4, 64, d, h);
      for (size_t k = 0; k < NH / 4 * 3; ++k) {
        uint16_t got = h[(k / 3) * 4 + k % 3];
        assert_true(got == half_reference(d[k], mode) || isnan(d[k]));
        if (k % 3 == 2) assert_int_equal(h[(k / 3) * 4 + 3], 0xabab); /* 4th slot untouched */
      }
      checked += 4 * NH;
    }
  }
  print_message("  %zu half stores checked\n", checked);
}

static void test_shuffle(void **state) {
  (void)state;
  static int x[256], r[512];
  static uint32_t m[512];
  static float xf[512], rf[512];
  for (size_t i = 0; i < 256; ++i) x[i] = (int)kiln_bt_random(&rng);
  for (size_t i = 0; i < 512; ++i) m[i] = (uint32_t)kiln_bt_random(&rng); /* high bits set at random */
  KILN_BT_RUN_1D(lib, k3_fn, "t_shuffle", 64, 16, x, m, r);
  for (size_t i = 0; i < 512; ++i) assert_int_equal(r[i], x[(i / 8) * 4 + (m[i] & 3)]);
  for (size_t i = 0; i < 512; ++i) xf[i] = (float)i;
  KILN_BT_RUN_1D(lib, k3_fn, "t_shuffle2", 32, 16, xf, m, rf);
  for (size_t i = 0; i < 512; ++i) assert_true(rf[i] == xf[(i / 16) * 16 + (m[i] & 15)]);
  /* 32 work-items, each shuffling two char16 loaded from 32 consecutive chars. */
  static int8_t xc[32 * 32], rc[64];
  static uint8_t mc[64];
  for (size_t i = 0; i < sizeof xc; ++i) xc[i] = (int8_t)kiln_bt_random(&rng);
  for (size_t i = 0; i < 64; ++i) mc[i] = (uint8_t)kiln_bt_random(&rng);
  KILN_BT_RUN_1D(lib, k3_fn, "t_shuffle2_char", 32, 16, xc, mc, rc);
  for (size_t i = 0; i < 64; ++i) assert_int_equal(rc[i], xc[(i / 2) * 32 + (mc[i] & 31)]);
}

#define NA 40
static void test_atomics(void **state) {
  (void)state;
  int32_t g[12] = {0, 0, 0, 0, 1000, -1000, -1, 0, 0, -1, 0, 0};
  uint32_t l[3] = {0, 0, 0};
  int64_t g64[4] = {0, 0, 0, 0};
  int old[NA];
  KILN_BT_RUN_1D(lib, k4_fn, "t_atomics_legacy", NA, 8, g, l, g64, old);
  assert_int_equal(g[0], 3 * NA);
  assert_int_equal(g[1], -2 * NA);
  assert_int_equal(g[2], NA);
  assert_int_equal(g[3], -NA);
  assert_int_equal(g[4], -5);
  assert_int_equal(g[5], 7 * (NA - 1));
  int32_t and_mask = -1, or_mask = 0, xor_v = 0;
  for (int i = 0; i < NA; ++i) { and_mask &= ~(1 << (i % 31)); or_mask |= 1 << (i % 31); xor_v ^= i; }
  assert_int_equal(g[6], and_mask);
  assert_int_equal(g[7], or_mask);
  assert_int_equal(g[8], xor_v);
  assert_int_equal(old[0], -1);
  for (int i = 1; i < NA; ++i) assert_int_equal(old[i], i - 1);
  assert_int_equal(g[9], NA - 1);
  assert_int_equal(g[10], NA);
  assert_int_equal(l[0], NA);
  assert_int_equal(l[1], NA - 1);
  assert_int_equal(l[2], NA);
  assert_true(g64[0] == (int64_t)NA << 40);
  assert_true(g64[1] == -(int64_t)(NA - 1));
  int64_t x64 = 0;
  for (int i = 0; i < NA; ++i) x64 ^= (int64_t)i << 33;
  assert_true(g64[2] == x64);
  assert_true(g64[3] == NA);
  float fx;
  memcpy(&fx, &g[11], 4);
  assert_true(fx == (float)(NA - 1));

  int32_t a[5] = {0, 0, -7, 7, 0};
  uint64_t u[3] = {0, ~0ull, 0};
  double d = 123.0;
  int32_t loc = 0, flag = 0;
  int r[200];
  KILN_BT_RUN_1D(lib, k6_fn, "t_atomics_c11", 70, 10, a, u, &d,
                 &loc, &flag, r);
  assert_int_equal(a[0], 140);
  assert_int_equal(a[1], -70);
  assert_int_equal(a[2], 69);
  assert_int_equal(a[3], -69);
  assert_int_equal(a[4], 70);
  for (int i = 0; i < 70; ++i) assert_int_equal(r[i], 1);
  assert_true(u[0] == ~0ull && u[1] == 0);
  uint64_t xu = 0;
  for (int i = 0; i < 70; ++i) xu ^= (uint64_t)i;
  assert_true(u[2] == xu);
  assert_true(d == 70.5);
  assert_int_equal(loc, 69);
  for (int i = 0; i < 70; ++i) assert_int_equal(r[128 + i], i == 0 || i == 10 ? 0 : 1);
}

static void test_async_copy(void **state) {
  (void)state;
  enum { GROUPS = 3, LOCAL = 7, NV = 50 };
  static float in[GROUPS * NV * 4], loc[NV * 4], out[GROUPS * NV * 2 * 4];
  for (size_t i = 0; i < sizeof in / sizeof in[0]; ++i) in[i] = (float)i;
  memset(out, 0, sizeof out);
  unsigned (*barriers)(void) = (unsigned (*)(void))dlsym(lib, "kiln_bt_barrier_count");
  assert_non_null(barriers);
  KILN_BT_RUN_1D(lib, kasync_fn, "t_async", GROUPS * LOCAL, LOCAL, in, loc,
                 out, (unsigned)NV);
  assert_int_equal(barriers(), 2); /* the last work-item's own count: one barrier per wait */
  for (size_t g = 0; g < GROUPS; ++g)
    for (size_t v = 0; v < NV; ++v)
      for (size_t c = 0; c < 4; ++c) {
        assert_true(out[((g * NV * 2) + v * 2) * 4 + c] == in[(g * NV + v) * 4 + c]);
        assert_true(out[((g * NV * 2) + v * 2 + 1) * 4 + c] == 0.0f); /* the stride skips these */
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vload_vstore_half),
    cmocka_unit_test(test_shuffle),
    cmocka_unit_test(test_atomics),
    cmocka_unit_test(test_async_copy),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
