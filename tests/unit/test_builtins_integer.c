/* Integer builtins (OpenCL C 3.0 §6.15.3) for all 8 integer types and vector sizes 1, 2, 3,
 * 4, 8, 16, against 128-bit host references; inputs mix random bits with the edge values
 * MIN, MAX, 0, 1, -1. */
#include "builtins/harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define E 480 /* elements per run: a multiple of every vector size */
static void *lib;

static int setup(void **state) {
  (void)state;
  lib = kiln_bt_load("integer", "CL3.0");
  return lib ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  if (lib) dlclose(lib);
  return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

struct itype { const char *name; int bits, is_signed; };
static const struct itype types[] = {
  {"char", 8, 1}, {"uchar", 8, 0}, {"short", 16, 1}, {"ushort", 16, 0},
  {"int", 32, 1}, {"uint", 32, 0}, {"long", 64, 1}, {"ulong", 64, 0},
};
static const int sizes[] = {1, 2, 3, 4, 8, 16};

typedef __int128 i128;
static i128 tmin(const struct itype *t) { return t->is_signed ? -((i128)1 << (t->bits - 1)) : 0; }
static i128 tmax(const struct itype *t) { return t->is_signed ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1; }
/* The value of element k of buffer p of type t. */
static i128 get(const struct itype *t, const void *p, size_t k) {
  const unsigned char *b = (const unsigned char *)p + k * (size_t)(t->bits / 8);
  uint64_t u = 0;
  memcpy(&u, b, (size_t)t->bits / 8);
  if (t->is_signed && t->bits < 64 && (u >> (t->bits - 1)) & 1) u |= ~0ull << t->bits;
  return t->is_signed ? (i128)(int64_t)u : (i128)u;
}
static void put(const struct itype *t, void *p, size_t k, i128 v) {
  uint64_t u = (uint64_t)v;
  memcpy((unsigned char *)p + k * (size_t)(t->bits / 8), &u, (size_t)t->bits / 8);
}
/* v reduced modulo 2^bits into t's range. */
static i128 wrap(const struct itype *t, i128 v) {
  unsigned __int128 m = t->bits == 128 ? ~(unsigned __int128)0 : (((unsigned __int128)1 << t->bits) - 1);
  unsigned __int128 u = (unsigned __int128)v & m;
  if (t->is_signed && (u >> (t->bits - 1)) & 1) return (i128)u - ((i128)1 << t->bits);
  return (i128)u;
}
static i128 sat(const struct itype *t, i128 v) { return v < tmin(t) ? tmin(t) : v > tmax(t) ? tmax(t) : v; }
static i128 floor_shift1(i128 v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }
static uint64_t ubits(const struct itype *t, i128 v) {
  return (uint64_t)v & (t->bits == 64 ? ~0ull : ((1ull << t->bits) - 1));
}
/* High half of the double-width product a*b, exactly. */
static i128 hi_product(const struct itype *t, i128 a, i128 b) {
  if (t->bits < 64) return floor_shift1(a * b * 2) >> t->bits; /* a*b fits */
  if (t->is_signed) return (i128)((a * b) >> 64);
  unsigned __int128 p = (unsigned __int128)a * (unsigned __int128)b;
  return (i128)(p >> 64);
}

enum fn { ABS, ABS_DIFF, ADD_SAT, SUB_SAT, HADD, RHADD, CLAMP, CLZ, CTZ, POPCOUNT, MAD_HI, MAD_SAT, MAX, MIN,
          MUL_HI, ROTATE, MAXS, MINS, CLAMPS, NFN };
static const char *const fn_names[] = {"abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clamp",
                                       "clz", "ctz", "popcount", "mad_hi", "mad_sat", "max", "min",
                                       "mul_hi", "rotate", "maxs", "mins", "clamps"};
static const int arity[] = {1, 2, 2, 2, 2, 2, 3, 1, 1, 1, 3, 3, 2, 2, 2, 2, 2, 2, 3};

static i128 reference(enum fn f, const struct itype *t, i128 a, i128 b, i128 c) {
  const struct itype u = {"", t->bits, 0};
  switch (f) {
    case ABS: return a < 0 ? -a : a;
    case ABS_DIFF: return a > b ? a - b : b - a;
    case ADD_SAT: return sat(t, a + b);
    case SUB_SAT: return sat(t, a - b);
    case HADD: return floor_shift1(a + b);
    case RHADD: return floor_shift1(a + b + 1);
    case CLAMP: case CLAMPS: return a < b ? b : a > c ? c : a;
    case CLZ: { uint64_t x = ubits(t, a); int n = 0; for (int i = t->bits - 1; i >= 0 && !((x >> i) & 1); --i) ++n; return n; }
    case CTZ: { uint64_t x = ubits(t, a); int n = 0; for (int i = 0; i < t->bits && !((x >> i) & 1); ++i) ++n; return n; }
    case POPCOUNT: return __builtin_popcountll(ubits(t, a));
    case MAD_HI: return wrap(t, hi_product(t, a, b) + c);
    case MAD_SAT:
      if (t->bits == 64 && !t->is_signed) {
        unsigned __int128 p = (unsigned __int128)a * (unsigned __int128)b + (unsigned __int128)c;
        return p > (unsigned __int128)tmax(t) ? tmax(t) : (i128)p;
      }
      return sat(t, a * b + c);
    case MAX: case MAXS: return a > b ? a : b;
    case MIN: case MINS: return a < b ? a : b;
    case MUL_HI: return hi_product(t, a, b);
    case ROTATE: {
      uint64_t x = ubits(t, a);
      unsigned s = (unsigned)(ubits(t, b) % (uint64_t)t->bits);
      uint64_t r = s ? (x << s) | (x >> (t->bits - s)) : x;
      return wrap(t, (i128)ubits(&u, (i128)r));
    }
    default: return 0;
  }
}

static unsigned char in[3][E * 8], out[E * 8];
static void fill(const struct itype *t, void *p) {
  const i128 edge[] = {tmin(t), tmax(t), 0, 1, -1, tmin(t) + 1, tmax(t) - 1, 2};
  for (size_t k = 0; k < E; ++k) {
    uint64_t r = kiln_bt_random(&rng);
    i128 v = (k % 5 == 0) ? edge[(r >> 8) % 8] : (k % 5 == 1) ? (i128)(int64_t)(r % 7) - 3 : (i128)r;
    put(t, p, k, wrap(t, v));
  }
}

typedef void (*k2_fn)(const void *, void *);
typedef void (*k3_fn)(const void *, const void *, void *);
typedef void (*k4_fn)(const void *, const void *, const void *, void *);

static size_t run(const char *sym, int nargs, int n) {
  size_t items = E / (size_t)n;
  if (nargs == 1) KILN_BT_RUN_1D(lib, k2_fn, sym, items, 16, in[0], out);
  else if (nargs == 2) KILN_BT_RUN_1D(lib, k3_fn, sym, items, 16, in[0], in[1], out);
  else KILN_BT_RUN_1D(lib, k4_fn, sym, items, 16, in[0], in[1], in[2], out);
  return items;
}

static void test_integer_functions(void **state) {
  (void)state;
  size_t checked = 0;
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
    const struct itype *t = &types[ti];
    const struct itype ut = {"", t->bits, 0};
    for (int f = 0; f < NFN; ++f) {
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        int n = sizes[si];
        int scalar_ops = f == MAXS || f == MINS || f == CLAMPS;
        if (scalar_ops && n == 1) continue;
        for (int a = 0; a < 3; ++a) fill(t, in[a]);
        if (f == CLAMP || f == CLAMPS) /* clamp needs lo <= hi */
          for (size_t k = 0; k < E; ++k) {
            i128 lo = get(t, in[1], k), hi = get(t, in[2], k);
            if (lo > hi) { put(t, in[1], k, hi); put(t, in[2], k, lo); }
          }
        char sym[64];
        snprintf(sym, sizeof sym, "t_%s_%s%d", fn_names[f], t->name, n);
        run(sym, arity[f], n);
        int unsigned_result = f == ABS || f == ABS_DIFF;
        for (size_t k = 0; k < E; ++k) {
          size_t op = scalar_ops ? k / (size_t)n : k; /* scalar operands: element of the work-item */
          i128 a = get(t, in[0], k), b = get(t, in[1], op), c = get(t, in[2], op);
          i128 want = reference((enum fn)f, t, a, b, c);
          i128 got = get(unsigned_result ? &ut : t, out, k);
          if (got != want) {
            print_error("%s element %zu: a=%lld b=%lld c=%lld got %lld want %lld\n", sym, k, (long long)a,
                        (long long)b, (long long)c, (long long)got, (long long)want);
            fail();
          }
          ++checked;
        }
      }
    }
  }
  print_message("  %zu results checked\n", checked);
}

static void test_upsample_and_24bit(void **state) {
  (void)state;
  size_t checked = 0;
  for (size_t ti = 0; ti < 6; ++ti) {
    const struct itype *t = &types[ti], *wide = &types[ti + 2]; /* same signedness, twice the bits */
    const struct itype u = {"", t->bits, 0};
    for (size_t si = 0; si < 6; ++si) {
      fill(t, in[0]);
      fill(&u, in[1]);
      char sym[64];
      snprintf(sym, sizeof sym, "t_upsample_%s%d", t->name, sizes[si]);
      run(sym, 2, sizes[si]);
      for (size_t k = 0; k < E; ++k) {
        i128 want = wrap(wide, get(t, in[0], k) * ((i128)1 << t->bits) + get(&u, in[1], k));
        assert_true(get(wide, out, k) == want);
        ++checked;
      }
    }
  }
  for (size_t ti = 4; ti < 6; ++ti) { /* int, uint: operands within 24 bits */
    const struct itype *t = &types[ti];
    const struct itype t24 = {"", 24, t->is_signed};
    for (size_t si = 0; si < 6; ++si) {
      for (int a = 0; a < 3; ++a) fill(t, in[a]);
      for (size_t k = 0; k < E; ++k)
        for (int a = 0; a < 2; ++a) put(t, in[a], k, wrap(&t24, get(t, in[a], k)));
      for (int mad = 0; mad < 2; ++mad) {
        char sym[64];
        snprintf(sym, sizeof sym, "t_%s_%s%d", mad ? "mad24" : "mul24", t->name, sizes[si]);
        run(sym, 2 + mad, sizes[si]);
        for (size_t k = 0; k < E; ++k) {
          i128 want = wrap(t, get(t, in[0], k) * get(t, in[1], k) + (mad ? get(t, in[2], k) : 0));
          assert_true(get(t, out, k) == want);
          ++checked;
        }
      }
    }
  }
  print_message("  %zu results checked\n", checked);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_integer_functions),
    cmocka_unit_test(test_upsample_and_24bit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
