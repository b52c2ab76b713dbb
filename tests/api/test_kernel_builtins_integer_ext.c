/* cl_khr_extended_bit_ops and cl_khr_integer_dot_product through the loader: every
 * function for every integer type (scalars, and vectors of 3, 4 and 16 through vloadN)
 * against a bit-by-bit host reference, with random bases, offsets and counts that cover
 * count 0 and count equal to the width; the dot products for all signedness mixes,
 * packed and not, with saturation at both ends. Built as OpenCL C 1.2 and 3.0. */
#include "builtins_harness.h"

struct int_type {
  const char *name, *uname, *sname;
  unsigned bits;
  bool is_signed;
};
static const struct int_type types[] = {
    {"char", "uchar", "char", 8, true},   {"uchar", "uchar", "char", 8, false},   {"short", "ushort", "short", 16, true},
    {"ushort", "ushort", "short", 16, false}, {"int", "uint", "int", 32, true},  {"uint", "uint", "int", 32, false},
    {"long", "ulong", "long", 64, true},  {"ulong", "ulong", "long", 64, false},
};

/* Each work-item handles N elements (N = 1: scalars; else one vector through vloadN), with
 * one offset and count for the vector (the functions take them as scalars). Results are
 * stored as 64-bit values, so one host array type serves every element type. */
static const char *bit_source =
    "#define VT_(t, n) t##n\n#define VT(t, n) VT_(t, n)\n"
    "#if N == 1\n#define LOAD(p, i) (p)[i]\n#define STORE(v, p, i) (p)[i] = (v)\n#define EL(v, j) (v)\n"
    "#define T_ T\n#define S_ S\n#define U_ U\n"
    "#else\n#define LOAD(p, i) VT(vload, N)(i, p)\n#define STORE(v, p, i) VT(vstore, N)(v, i, p)\n"
    "#define T_ VT(T, N)\n#define S_ VT(S, N)\n#define U_ VT(U, N)\n#endif\n"
    "kernel void k(global const T *base, global const T *ins, global const uint *oc, global long *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  T_ b = LOAD(base, i), n = LOAD(ins, i);\n"
    "  uint offset = oc[2 * i], count = oc[2 * i + 1];\n"
    "  T_ r0 = bitfield_insert(b, n, offset, count);\n"
    "  S_ r1 = bitfield_extract_signed(b, offset, count);\n"
    "  U_ r2 = bitfield_extract_unsigned(b, offset, count);\n"
    "  T_ r3 = bit_reverse(b);\n"
    "  T e0[N], e3[N]; S e1[N]; U e2[N];\n"
    "  STORE(r0, e0, 0); STORE(r1, e1, 0); STORE(r2, e2, 0); STORE(r3, e3, 0);\n"
    "  for (int j = 0; j < N; j++) {\n"
    "    global long *o = out + 4 * (i * N + j);\n"
    "    o[0] = e0[j]; o[1] = e1[j]; o[2] = e2[j]; o[3] = e3[j];\n"
    "  }\n"
    "}\n";

static uint64_t bit(uint64_t v, unsigned i) { return (v >> i) & 1; }

/* The element's bits, zero-extended. */
static uint64_t bits_of(uint64_t v, unsigned width) { return width == 64 ? v : v & ((1ULL << width) - 1); }

/* As the kernel stored it: the element's value converted to long. */
static int64_t as_stored(uint64_t bits, unsigned width, bool is_signed) {
  bits = bits_of(bits, width);
  if (is_signed && width < 64 && bit(bits, width - 1)) bits |= ~0ULL << width;
  return (int64_t)bits;
}

static void check_bit_ops(struct kiln_test_env *env, const struct int_type *t, int n, const char *std) {
  enum { ITEMS = 512 };
  size_t elements = (size_t)ITEMS * n, esize = t->bits / 8;
  unsigned char *base = malloc(elements * esize), *ins = malloc(elements * esize);
  cl_uint *oc = malloc(2 * ITEMS * sizeof(cl_uint));
  int64_t *out = calloc(4 * elements, sizeof(int64_t));
  assert_true(base && ins && oc && out);
  cl_uint seed = 777u + t->bits * 3u + (cl_uint)n;
  for (size_t i = 0; i < elements * esize; i++) base[i] = (unsigned char)kiln_test_random(&seed);
  for (size_t i = 0; i < elements * esize; i++) ins[i] = (unsigned char)kiln_test_random(&seed);
  for (size_t i = 0; i < ITEMS; i++) {
    cl_uint count = kiln_test_random(&seed) % (t->bits + 1);
    if (i % 7 == 0) count = t->bits; /* the whole element */
    if (i % 11 == 0) count = 0;
    cl_uint offset = count == t->bits ? 0 : kiln_test_random(&seed) % (t->bits - count + 1);
    oc[2 * i] = offset;
    oc[2 * i + 1] = count;
  }
  char options[160];
  snprintf(options, sizeof options, "%s -D T=%s -D S=%s -D U=%s -D N=%d", std, t->name, t->sname, t->uname, n);
  bt_run_source(env, bit_source, options, "k", ITEMS, 0,
                BT_ARGS(BT_IN(base, elements * esize), BT_IN(ins, elements * esize), BT_IN(oc, 2 * ITEMS * sizeof(cl_uint)),
                        BT_OUT(out, 4 * elements * sizeof(int64_t))));
  for (size_t e = 0; e < elements; e++) {
    uint64_t b = 0, in = 0;
    memcpy(&b, base + e * esize, esize);
    memcpy(&in, ins + e * esize, esize);
    unsigned offset = oc[2 * (e / n)], count = oc[2 * (e / n) + 1];
    uint64_t inserted = 0, extracted = 0, reversed = 0;
    for (unsigned i = 0; i < t->bits; i++) {
      bool inside = i >= offset && i < offset + count;
      inserted |= (inside ? bit(in, i - offset) : bit(b, i)) << i;
      reversed |= bit(b, t->bits - 1 - i) << i;
    }
    for (unsigned i = 0; i < count; i++) extracted |= bit(b, offset + i) << i;
    uint64_t sign_extended = extracted;
    if (count && bit(extracted, count - 1))
      for (unsigned i = count; i < t->bits; i++) sign_extended |= 1ULL << i;
    const int64_t *o = out + 4 * e;
    int64_t want[4] = {as_stored(inserted, t->bits, t->is_signed), as_stored(sign_extended, t->bits, true),
                       as_stored(extracted, t->bits, false), as_stored(reversed, t->bits, t->is_signed)};
    static const char *const names[4] = {"bitfield_insert", "bitfield_extract_signed", "bitfield_extract_unsigned",
                                         "bit_reverse"};
    for (int f = 0; f < 4; f++)
      if (o[f] != want[f])
        fail_msg("%s%d %s (%s): element %zu base %#llx insert %#llx offset %u count %u: got %#llx, want %#llx", t->name,
                 n, names[f], std, e, (unsigned long long)b, (unsigned long long)in, offset, count,
                 (unsigned long long)o[f], (unsigned long long)want[f]);
  }
  free(base);
  free(ins);
  free(oc);
  free(out);
}

static void test_extended_bit_ops(void **state) {
  static const int sizes[] = {1, 3, 4, 16};
  for (size_t t = 0; t < sizeof types / sizeof *types; t++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) check_bit_ops(*state, &types[t], sizes[s], BT_CL30);
}

/* OpenCL C 1.2 programs have the extension too (its macro and functions). */
static void test_extended_bit_ops_cl12(void **state) {
  check_bit_ops(*state, &types[4], 1, BT_CL12);
  check_bit_ops(*state, &types[7], 4, BT_CL12);
}

static const char *dot_source =
    "kernel void k(global const uint *a, global const uint *b, global const int *acc, global long *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = a[i], y = b[i]; int c = acc[i];\n"
    "  uchar4 ux = as_uchar4(x), uy = as_uchar4(y); char4 sx = as_char4(x), sy = as_char4(y);\n"
    "  global long *o = out + 16 * i;\n"
    "  o[0] = dot(ux, uy); o[1] = dot(sx, sy); o[2] = dot(ux, sy); o[3] = dot(sx, uy);\n"
    "  o[4] = dot_acc_sat(ux, uy, (uint)c); o[5] = dot_acc_sat(sx, sy, c);\n"
    "  o[6] = dot_acc_sat(ux, sy, c); o[7] = dot_acc_sat(sx, uy, c);\n"
    "  o[8] = dot_4x8packed_uu_uint(x, y); o[9] = dot_4x8packed_ss_int(x, y);\n"
    "  o[10] = dot_4x8packed_us_int(x, y); o[11] = dot_4x8packed_su_int(x, y);\n"
    "  o[12] = dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c); o[13] = dot_acc_sat_4x8packed_ss_int(x, y, c);\n"
    "  o[14] = dot_acc_sat_4x8packed_us_int(x, y, c); o[15] = dot_acc_sat_4x8packed_su_int(x, y, c);\n"
    "}\n";

static int64_t sat(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void check_dot(struct kiln_test_env *env, const char *std) {
  enum { N = 1024 };
  static cl_uint a[N], b[N];
  static cl_int acc[N];
  static int64_t out[16 * N];
  cl_uint seed = 4242;
  for (int i = 0; i < N; i++) {
    a[i] = kiln_test_random(&seed);
    b[i] = kiln_test_random(&seed);
    acc[i] = (cl_int)kiln_test_random(&seed);
    if (i % 5 == 0) acc[i] = i % 10 == 0 ? INT32_MAX - 5 : INT32_MIN + 5; /* saturates either way */
    if (i % 13 == 0) a[i] = b[i] = 0x80808080u;                         /* extremes: -128 * -128 */
    if (i % 17 == 0) a[i] = b[i] = 0xffffffffu;
  }
  bt_run_source(env, dot_source, std, "k", N, 0,
                BT_ARGS(BT_IN(a, sizeof a), BT_IN(b, sizeof b), BT_IN(acc, sizeof acc), BT_OUT(out, sizeof out)));
  for (int i = 0; i < N; i++) {
    int64_t uu = 0, ss = 0, us = 0, su = 0;
    for (int j = 0; j < 4; j++) {
      int64_t xu = (a[i] >> (8 * j)) & 0xff, yu = (b[i] >> (8 * j)) & 0xff;
      int64_t xs = (int8_t)xu, ys = (int8_t)yu;
      uu += xu * yu;
      ss += xs * ys;
      us += xu * ys;
      su += xs * yu;
    }
    int64_t c = acc[i], cu = (cl_uint)acc[i];
    int64_t want[8] = {uu, ss, us, su, sat(uu + cu, 0, UINT32_MAX), sat(ss + c, INT32_MIN, INT32_MAX),
                       sat(us + c, INT32_MIN, INT32_MAX), sat(su + c, INT32_MIN, INT32_MAX)};
    for (int f = 0; f < 16; f++) {
      int64_t got = out[16 * i + f], w = want[f % 8];
      if (f % 8 == 4 || f % 8 == 0) got = (cl_uint)got; /* uint results, stored through long */
      if (got != w) fail_msg("%s: function %d of a=%#x b=%#x acc=%d: got %lld, want %lld", std, f, a[i], b[i], acc[i],
                             (long long)got, (long long)w);
    }
  }
}

static void test_integer_dot_product(void **state) {
  check_dot(*state, BT_CL30);
  check_dot(*state, BT_CL12);
}

/* cl_khr_expect_assume: the builtins compile and keep the program's meaning. */
static void test_expect_assume(void **state) {
  static const char *source = "kernel void k(global int *p) {\n"
                              "  int x = p[get_global_id(0)];\n"
                              "  __builtin_assume(x >= 0);\n"
                              "  if (__builtin_expect(x > 100, 0)) x = 100;\n"
                              "  p[get_global_id(0)] = x * 2;\n"
                              "}\n";
  cl_int p[64];
  for (int i = 0; i < 64; i++) p[i] = i * 3;
  bt_run_source(*state, source, BT_CL30, "k", 64, 0, BT_ARGS(BT_OUT(p, sizeof p)));
  for (int i = 0; i < 64; i++) assert_int_equal(2 * (i * 3 > 100 ? 100 : i * 3), p[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extended_bit_ops),
      cmocka_unit_test(test_extended_bit_ops_cl12),
      cmocka_unit_test(test_integer_dot_product),
      cmocka_unit_test(test_expect_assume),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
