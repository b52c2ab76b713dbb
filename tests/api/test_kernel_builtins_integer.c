/* Integer functions (OpenCL C 3.0 §6.15.3) through the loader: for every integer type and
 * every vector size (1, 2, 3, 4, 8, 16) one kernel applies add_sat, sub_sat, hadd, rhadd,
 * max, min (also with a scalar second operand), mul_hi, rotate, clz, popcount, mad_hi,
 * mad_sat, clamp, abs, abs_diff (and ctz under OpenCL C 2.0+) to operands that pair each
 * type's edge values (0, 1, -1, MIN, MAX, ...) with each other and with random values; the
 * host computes every element in 128-bit arithmetic. upsample, mul24 and mad24 separately. */
#include "builtins_harness.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

struct int_type {
  const char *name, *uname;
  int bits;
  bool is_signed;
};
static const struct int_type types[] = {
    {"char", "uchar", 8, true},  {"uchar", "uchar", 8, false},  {"short", "ushort", 16, true},
    {"ushort", "ushort", 16, false}, {"int", "uint", 32, true}, {"uint", "uint", 32, false},
    {"long", "ulong", 64, true}, {"ulong", "ulong", 64, false},
};
static const int sizes[] = {1, 2, 3, 4, 8, 16};
#define ELEMENTS 96 /* divisible by every vector size */
#define SLOTS 16    /* o[] results per element */
#define USLOTS 2    /* uo[] results per element */

static const char *kernel_template =
    "kernel void ops_TN(global const T *a, global const T *b, global const T *c, global T *o, global U *uo) {\n"
    "  size_t i = get_global_id(0), s = get_global_size(0);\n"
    "  TN x = LD(i, a), y = LD(i, b), z = LD(i, c);\n"
    "  ST(add_sat(x, y), i, o); ST(sub_sat(x, y), i + s, o); ST(hadd(x, y), i + 2 * s, o);\n"
    "  ST(rhadd(x, y), i + 3 * s, o); ST(max(x, y), i + 4 * s, o); ST(min(x, y), i + 5 * s, o);\n"
    "  ST(mul_hi(x, y), i + 6 * s, o); ST(rotate(x, y), i + 7 * s, o); ST(clz(x), i + 8 * s, o);\n"
    "  ST(popcount(x), i + 9 * s, o); ST(mad_hi(x, y, z), i + 10 * s, o); ST(mad_sat(x, y, z), i + 11 * s, o);\n"
    "  ST(clamp(x, min(y, z), max(y, z)), i + 12 * s, o);\n"
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "  ST(ctz(x), i + 13 * s, o);\n"
    "#endif\n"
    "  ST(max(x, b[0]), i + 14 * s, o); ST(clamp(x, min(b[1], c[1]), max(b[1], c[1])), i + 15 * s, o);\n"
    "  ST(abs(x), i, uo); ST(abs_diff(x, y), i + s, uo);\n"
    "}\n";

static i128 element(const void *buffer, size_t i, const struct int_type *t) {
  const unsigned char *b = (const unsigned char *)buffer + i * (size_t)(t->bits / 8);
  uint64_t u = 0;
  memcpy(&u, b, (size_t)t->bits / 8);
  if (t->is_signed && t->bits < 64 && (u >> (t->bits - 1)) & 1) u |= ~0ull << t->bits;
  return t->is_signed ? (i128)(int64_t)u : (i128)u;
}
static uint64_t bits_of(i128 v, int bits) { return bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ull << bits) - 1); }
static i128 type_min(const struct int_type *t) { return t->is_signed ? -((i128)1 << (t->bits - 1)) : 0; }
static i128 type_max(const struct int_type *t) {
  return t->is_signed ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1;
}
static i128 saturate(i128 v, const struct int_type *t) {
  return v < type_min(t) ? type_min(t) : v > type_max(t) ? type_max(t) : v;
}
static i128 floor_shift(i128 v, int s) { return v >> s; } /* gcc: arithmetic */
static i128 mul_hi(i128 x, i128 y, const struct int_type *t) {
  if (!t->is_signed) return (i128)(((u128)x * (u128)y) >> t->bits);
  return floor_shift(x * y, t->bits);
}
static int count_leading(uint64_t u, int bits) {
  int n = 0;
  for (int k = bits - 1; k >= 0 && !((u >> k) & 1); k--) n++;
  return n;
}
static int count_trailing(uint64_t u, int bits) {
  int n = 0;
  for (int k = 0; k < bits && !((u >> k) & 1); k++) n++;
  return n;
}

/* The expected bits of slot `slot` (o[]) or, with `unsigned_slot`, uo[] for element i. */
static uint64_t expected(int slot, bool unsigned_slot, i128 x, i128 y, i128 z, i128 b0, i128 b1, i128 c1,
                         const struct int_type *t) {
  int w = t->bits;
  uint64_t ux = bits_of(x, w);
  if (unsigned_slot) return bits_of(slot == 0 ? (x < 0 ? -x : x) : (x > y ? x - y : y - x), w);
  switch (slot) {
    case 0: return bits_of(saturate(x + y, t), w);
    case 1: return bits_of(saturate(x - y, t), w);
    case 2: return bits_of(floor_shift(x + y, 1), w);
    case 3: return bits_of(floor_shift(x + y + 1, 1), w);
    case 4: return bits_of(x > y ? x : y, w);
    case 5: return bits_of(x < y ? x : y, w);
    case 6: return bits_of(mul_hi(x, y, t), w);
    case 7: {
      int s = (int)(bits_of(y, w) % (uint64_t)w);
      uint64_t r = s ? (ux << s) | (ux >> (w - s)) : ux;
      return bits_of((i128)r, w);
    }
    case 8: return (uint64_t)count_leading(ux, w);
    case 9: return (uint64_t)__builtin_popcountll(ux);
    case 10: return bits_of(mul_hi(x, y, t) + z, w);
    case 11: {
      if (t->is_signed) return bits_of(saturate(x * y + z, t), w);
      u128 p = (u128)x * (u128)y; /* beyond i128 for 64-bit operands */
      return bits_of(p > (u128)type_max(t) ? type_max(t) : saturate((i128)p + z, t), w);
    }
    case 12: {
      i128 lo = y < z ? y : z, hi = y < z ? z : y, r = x < lo ? lo : x;
      return bits_of(r > hi ? hi : r, w);
    }
    case 13: return (uint64_t)count_trailing(ux, w);
    case 14: return bits_of(x > b0 ? x : b0, w);
    case 15: {
      i128 lo = b1 < c1 ? b1 : c1, hi = b1 < c1 ? c1 : b1, r = x < lo ? lo : x;
      return bits_of(r > hi ? hi : r, w);
    }
  }
  return 0;
}

/* Operands: the edge values paired with each other (64 pairs), then random values. */
static void fill_operands(const struct int_type *t, unsigned char *a, unsigned char *b, unsigned char *c) {
  i128 edges[8] = {0, 1, -1, type_min(t), type_max(t), type_min(t) + 1, type_max(t) - 1, 2};
  uint64_t seed = 0x1234567u + (uint64_t)t->bits * 3 + t->is_signed;
  size_t bytes = (size_t)t->bits / 8;
  for (size_t i = 0; i < ELEMENTS; i++) {
    uint64_t va, vb, vc;
    if (i < 64) {
      va = bits_of(edges[i % 8], t->bits), vb = bits_of(edges[i / 8], t->bits);
      vc = bits_of(edges[(i * 5 + 3) % 8], t->bits);
    } else {
      va = bt_random(&seed), vb = bt_random(&seed), vc = bt_random(&seed);
      if (i % 4 == 1) vb >>= bt_random(&seed) % 64; /* smaller magnitudes too */
    }
    memcpy(a + i * bytes, &va, bytes), memcpy(b + i * bytes, &vb, bytes), memcpy(c + i * bytes, &vc, bytes);
  }
}

/* Runs the kernels of type t for the vector sizes in the bit set `size_set` (bit k: sizes[k])
 * from `program`, which the caller built. */
static void check_type(struct kiln_test_env *env, cl_program program, const struct int_type *t, const char *options,
                       unsigned size_set) {
  bool cl20 = strstr(options, "CL3.0") != NULL;
  size_t bytes = (size_t)t->bits / 8;
  unsigned char a[ELEMENTS * 8], b[ELEMENTS * 8], c[ELEMENTS * 8];
  fill_operands(t, a, b, c);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    if (!(size_set >> k & 1)) continue;
    unsigned char o[SLOTS * ELEMENTS * 8], uo[USLOTS * ELEMENTS * 8];
    memset(o, 0x5a, sizeof o), memset(uo, 0x5a, sizeof uo);
    char name[32];
    snprintf(name, sizeof name, "ops_%s%.0d", t->name, sizes[k] > 1 ? sizes[k] : 0);
    bt_run(env, program, name, ELEMENTS / (size_t)sizes[k], 0,
           BT_ARGS(BT_IN(a, ELEMENTS * bytes), BT_IN(b, ELEMENTS * bytes), BT_IN(c, ELEMENTS * bytes),
                   BT_OUT(o, SLOTS * ELEMENTS * bytes), BT_OUT(uo, USLOTS * ELEMENTS * bytes)));
    struct int_type ut = *t;
    ut.is_signed = false;
    for (int slot = 0; slot < SLOTS + USLOTS; slot++) {
      if (slot == 13 && !cl20) continue;
      bool unsigned_slot = slot >= SLOTS;
      for (size_t i = 0; i < ELEMENTS; i++) {
        i128 x = element(a, i, t), y = element(b, i, t), z = element(c, i, t);
        uint64_t want = expected(unsigned_slot ? slot - SLOTS : slot, unsigned_slot, x, y, z, element(b, 0, t),
                                 element(b, 1, t), element(c, 1, t), t);
        uint64_t got = (uint64_t)element(unsigned_slot ? uo : o, (unsigned_slot ? (size_t)(slot - SLOTS) : (size_t)slot) * ELEMENTS + i,
                                         &ut);
        if (got != want)
          fail_msg("%s%d slot %d element %zu (x=%llx y=%llx z=%llx): got %llx, want %llx", t->name, sizes[k], slot, i,
                   (unsigned long long)bits_of(x, t->bits), (unsigned long long)bits_of(y, t->bits),
                   (unsigned long long)bits_of(z, t->bits), (unsigned long long)got, (unsigned long long)want);
      }
    }
  }
}

#define ALL_SIZES 0x3fu

/* OpenCL C 3.0: every vector size of one type per test. */
static void check_type_cl30(struct kiln_test_env *env, const struct int_type *t) {
  char *source = calloc(1, 64 * 1024);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) bt_instantiate(source, kernel_template, t->name, t->uname, sizes[k]);
  cl_program program = bt_build(env, source, BT_CL30);
  free(source);
  check_type(env, program, t, BT_CL30, ALL_SIZES);
  assert_cl_success(clReleaseProgram(program));
}

#define TYPE_TEST(I, T) \
  static void test_##T##_cl30(void **state) { check_type_cl30(*state, &types[I]); }
TYPE_TEST(0, char)
TYPE_TEST(1, uchar)
TYPE_TEST(2, short)
TYPE_TEST(3, ushort)
TYPE_TEST(4, int)
TYPE_TEST(5, uint)
TYPE_TEST(6, long)
TYPE_TEST(7, ulong)

/* The default OpenCL C 1.2 (no ctz; nothing else differs): scalars and 3-vectors of every
 * type in one program (builds are the suite's main cost). */
static void test_all_types_cl12(void **state) {
  char *source = calloc(1, 256 * 1024);
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    bt_instantiate(source, kernel_template, types[i].name, types[i].uname, 1);
    bt_instantiate(source, kernel_template, types[i].name, types[i].uname, 3);
  }
  cl_program program = bt_build(*state, source, BT_CL12);
  free(source);
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) check_type(*state, program, &types[i], BT_CL12, 0x5u);
  assert_cl_success(clReleaseProgram(program));
}

static const char *upsample_source =
    "kernel void up(global const char *h8, global const uchar *l8, global const short *h16, global const ushort *l16,\n"
    "               global const int *h32, global const uint *l32, global short *r16, global ushort *ur16,\n"
    "               global int *r32, global uint *ur32, global long *r64, global ulong *ur64) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r16[i] = upsample(h8[i], l8[i]); ur16[i] = upsample((uchar)h8[i], l8[i]);\n"
    "  vstore4(upsample(vload4(0, h16 + 4 * (i / 4)), vload4(0, l16 + 4 * (i / 4))), 0, r32 + 4 * (i / 4));\n"
    "  ur32[i] = upsample((ushort)h16[i], l16[i]);\n"
    "  r64[i] = upsample(h32[i], l32[i]); ur64[i] = upsample((uint)h32[i], l32[i]);\n"
    "}\n"
    "kernel void fast24(global const int *x, global const int *y, global const int *z, global int *m, global int *ma,\n"
    "                   global uint *um, global uint *uma) {\n"
    "  size_t i = get_global_id(0);\n"
    "  m[i] = mul24(x[i], y[i]); ma[i] = mad24(x[i], y[i], z[i]);\n"
    "  int2 v = mul24((int2)(x[i], y[i]), (int2)(y[i], x[i]));\n"
    "  um[i] = mul24((uint)x[i] & 0xffffffu, (uint)y[i] & 0xffffffu) + (uint)(v.x - v.y);\n"
    "  uma[i] = mad24((uint)x[i] & 0xffffffu, (uint)y[i] & 0xffffffu, (uint)z[i]);\n"
    "}\n";

static void test_upsample(void **state) {
  enum { N = 16 };
  cl_char h8[N];
  cl_uchar l8[N];
  cl_short h16[N], r16[N];
  cl_ushort l16[N], ur16[N];
  cl_int h32[N], r32[N];
  cl_uint l32[N], ur32[N];
  cl_long r64[N];
  cl_ulong ur64[N];
  uint64_t seed = 77;
  for (int i = 0; i < N; i++) {
    uint64_t r = bt_random(&seed);
    h8[i] = (cl_char)(i < 2 ? (i ? -128 : 127) : (int8_t)r), l8[i] = (cl_uchar)(r >> 8);
    h16[i] = (cl_short)(r >> 16), l16[i] = (cl_ushort)(r >> 24), h32[i] = (cl_int)(r >> 28), l32[i] = (cl_uint)r;
  }
  bt_run_source(*state, upsample_source, BT_CL12, "up", N, 0,
                BT_ARGS(BT_IN(h8, sizeof h8), BT_IN(l8, sizeof l8), BT_IN(h16, sizeof h16), BT_IN(l16, sizeof l16),
                        BT_IN(h32, sizeof h32), BT_IN(l32, sizeof l32), BT_OUT(r16, sizeof r16), BT_OUT(ur16, sizeof ur16),
                        BT_OUT(r32, sizeof r32), BT_OUT(ur32, sizeof ur32), BT_OUT(r64, sizeof r64),
                        BT_OUT(ur64, sizeof ur64)));
  for (int i = 0; i < N; i++) {
    assert_int_equal((uint16_t)((uint16_t)(uint8_t)h8[i] << 8 | l8[i]), (uint16_t)r16[i]);
    assert_int_equal((uint16_t)((uint16_t)(uint8_t)h8[i] << 8 | l8[i]), ur16[i]);
    assert_int_equal((uint32_t)(uint16_t)h16[i] << 16 | l16[i], (uint32_t)r32[i]);
    assert_int_equal((uint32_t)(uint16_t)h16[i] << 16 | l16[i], ur32[i]);
    assert_int_equal((uint64_t)(uint32_t)h32[i] << 32 | l32[i], (uint64_t)r64[i]);
    assert_int_equal((uint64_t)(uint32_t)h32[i] << 32 | l32[i], ur64[i]);
  }
}

static void test_mul24_mad24(void **state) {
  enum { N = 32 };
  cl_int x[N], y[N], z[N], m[N], ma[N];
  cl_uint um[N], uma[N];
  uint64_t seed = 99;
  for (int i = 0; i < N; i++) { /* 24-bit operands whose product fits in 32 bits */
    int64_t r = (int64_t)bt_random(&seed);
    x[i] = (cl_int)(r % 0x7fff), y[i] = (cl_int)((r >> 20) % 0xffff), z[i] = (cl_int)(r >> 33);
    if (i == 0) x[0] = -0x800000 + 1, y[0] = 2;
    if (i == 1) x[1] = 0x7fffff, y[1] = -3;
  }
  bt_run_source(*state, upsample_source, BT_CL12, "fast24", N, 0,
                BT_ARGS(BT_IN(x, sizeof x), BT_IN(y, sizeof y), BT_IN(z, sizeof z), BT_OUT(m, sizeof m),
                        BT_OUT(ma, sizeof ma), BT_OUT(um, sizeof um), BT_OUT(uma, sizeof uma)));
  for (int i = 0; i < N; i++) {
    uint32_t ux = (uint32_t)x[i] & 0xffffff, uy = (uint32_t)y[i] & 0xffffff;
    assert_int_equal(x[i] * y[i], m[i]);
    assert_int_equal((int32_t)((uint32_t)(x[i] * y[i]) + (uint32_t)z[i]), ma[i]);
    assert_int_equal((uint32_t)(ux * uy), um[i]);
    assert_int_equal((uint32_t)(ux * uy + (uint32_t)z[i]), uma[i]);
  }
}

/* x / 0, x % 0 and INT_MIN / -1 are undefined in OpenCL C but trap on x86: the launch
 * must still complete (the application lives) and every defined quotient be exact. */
static const char *division_source =
    "kernel void divide(global const int *a, global const int *b, global int *q, global int *r,\n"
    "                   global const long *la, global const long *lb, global long *lq, global long *lr,\n"
    "                   global uint *uq, global int4 *vq) {\n"
    "  size_t i = get_global_id(0);\n"
    "  q[i] = a[i] / b[i]; r[i] = a[i] % b[i];\n"
    "  lq[i] = la[i] / lb[i]; lr[i] = la[i] % lb[i];\n"
    "  uq[i] = (uint)a[i] / (uint)b[i];\n"
    "  vq[i] = (int4)(a[i]) / (int4)(b[i], 1, b[i], 2);\n"
    "}\n";

static void test_division_by_zero_does_not_trap(void **state) {
  enum { N = 64 };
  cl_int a[N], b[N], q[N], r[N], vq[4 * N];
  cl_long la[N], lb[N], lq[N], lr[N];
  cl_uint uq[N];
  for (int i = 0; i < N; i++) {
    a[i] = i % 5 == 3 ? INT32_MIN : i * 37 - 500;
    b[i] = i % 4 == 0 ? 0 : i % 5 == 3 ? -1 : i - 30;
    la[i] = i % 5 == 3 ? INT64_MIN : (cl_long)a[i] * 100003;
    lb[i] = b[i];
  }
  bt_run_source(*state, division_source, BT_CL12, "divide", N, 0,
                BT_ARGS(BT_IN(a, sizeof a), BT_IN(b, sizeof b), BT_OUT(q, sizeof q), BT_OUT(r, sizeof r),
                        BT_IN(la, sizeof la), BT_IN(lb, sizeof lb), BT_OUT(lq, sizeof lq), BT_OUT(lr, sizeof lr),
                        BT_OUT(uq, sizeof uq), BT_OUT(vq, sizeof vq)));
  int defined = 0;
  for (int i = 0; i < N; i++) {
    assert_int_equal(vq[4 * i + 1], a[i]);  /* a / 1 in the lane that never divides by zero */
    assert_int_equal(vq[4 * i + 3], a[i] / 2);
    if (b[i] == 0 || (b[i] == -1 && a[i] == INT32_MIN)) continue;
    defined++;
    assert_int_equal(q[i], a[i] / b[i]);
    assert_int_equal(r[i], a[i] % b[i]);
    assert_int_equal(lq[i], la[i] / lb[i]);
    assert_int_equal(lr[i], la[i] % lb[i]);
    assert_int_equal(uq[i], (cl_uint)a[i] / (cl_uint)b[i]);
  }
  assert_true(defined > N / 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_division_by_zero_does_not_trap),
      cmocka_unit_test(test_char_cl30),  cmocka_unit_test(test_uchar_cl30),    cmocka_unit_test(test_short_cl30),
      cmocka_unit_test(test_ushort_cl30), cmocka_unit_test(test_int_cl30),     cmocka_unit_test(test_uint_cl30),
      cmocka_unit_test(test_long_cl30),  cmocka_unit_test(test_ulong_cl30),    cmocka_unit_test(test_all_types_cl12),
      cmocka_unit_test(test_upsample),   cmocka_unit_test(test_mul24_mad24),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
