/* Explicit conversions and reinterpretation (OpenCL C 3.0 §6.4.3, §6.4.4) through the
 * loader: convert_<int type>[_sat][_rte|_rtz|_rtp|_rtn] from float and double for every
 * destination integer type (edge values, ties, NaN, infinities, out-of-range values; the
 * non-saturating forms only where their result is defined), integer to integer with and
 * without saturation for every type pair, integer to float/double and double to float in
 * every rounding mode (host references computed under fesetround), vector forms, and
 * as_type / as_typen (including the legal 4-to-3-component case). */
#include "builtins_harness.h"

#include <fenv.h>
#include <float.h>

__extension__ typedef __int128 i128;

struct int_type {
  const char *name;
  int bits;
  bool is_signed;
};
static const struct int_type int_types[] = {
    {"char", 8, true},  {"uchar", 8, false}, {"short", 16, true}, {"ushort", 16, false},
    {"int", 32, true},  {"uint", 32, false}, {"long", 64, true},  {"ulong", 64, false},
};
#define NTYPES 8
static const char *modes[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
static const int fe_modes[] = {FE_TOWARDZERO, FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
#define NMODES 5

static i128 type_min(const struct int_type *t) { return t->is_signed ? -((i128)1 << (t->bits - 1)) : 0; }
static i128 type_max(const struct int_type *t) {
  return t->is_signed ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1;
}
/* v reduced modulo 2^bits, read back as the type's value (C's conversion rule). */
static i128 wrap(i128 v, const struct int_type *t) {
  uint64_t u = t->bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ull << t->bits) - 1);
  if (t->is_signed && t->bits < 64 && (u >> (t->bits - 1)) & 1) u |= ~0ull << t->bits;
  return t->is_signed ? (i128)(int64_t)u : (i128)u;
}
/* What the kernel stores: (long)result, i.e. the result's value sign- or zero-extended. */
static int64_t as_stored(i128 v) { return (int64_t)(uint64_t)v; }

static double round_by_mode(double x, int mode) {
  switch (mode) {
    case 1: return rint(x); /* the host runs in round-to-nearest-even */
    case 3: return ceil(x);
    case 4: return floor(x);
    default: return trunc(x);
  }
}

/* Expected (long) of convert_<t><sat><mode>(x); false when OpenCL leaves it undefined. */
static bool float_to_int_expected(double x, const struct int_type *t, bool sat, int mode, int64_t *want) {
  long double lo = (long double)type_min(t), hi = (long double)type_max(t);
  if (isnan(x)) {
    *want = 0;
    return sat;
  }
  long double r = round_by_mode(x, mode);
  if (r > hi || r < lo) {
    *want = as_stored(r > hi ? type_max(t) : type_min(t));
    return sat;
  }
  *want = r >= 0x1p63L ? (int64_t)(uint64_t)r : (int64_t)r;
  return true;
}

/* One kernel per source type: slot s = (dst, sat, mode) holds (long)convert_...(x). */
#define F2I_SLOTS (NTYPES * 2 * NMODES)
static char *float_to_int_source(const char *src) {
  char *s = calloc(1, 32 * 1024), *p = s;
  p += sprintf(p, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "kernel void to_int(global const %s *x, global long *o) {\n"
                  "  size_t i = get_global_id(0); %s v = x[i]; global long *r = o + i * %d;\n",
               src, src, F2I_SLOTS);
  int slot = 0;
  for (int d = 0; d < NTYPES; d++)
    for (int sat = 0; sat < 2; sat++)
      for (int m = 0; m < NMODES; m++)
        p += sprintf(p, "  r[%d] = (long)convert_%s%s%s(v);\n", slot++, int_types[d].name, sat ? "_sat" : "", modes[m]);
  strcpy(p, "}\n");
  return s;
}

static void check_float_to_int(struct kiln_test_env *env, bool is_double, const double *values, size_t n) {
  char *source = float_to_int_source(is_double ? "double" : "float");
  cl_program program = bt_build(env, source, BT_CL12);
  free(source);
  float *fv = calloc(n, sizeof *fv);
  for (size_t i = 0; i < n; i++) fv[i] = (float)values[i];
  int64_t *o = calloc(n * F2I_SLOTS, sizeof *o);
  bt_run(env, program, "to_int", n, 0,
         BT_ARGS(BT_IN(is_double ? (const void *)values : (const void *)fv, n * (is_double ? sizeof(double) : sizeof(float))),
                 BT_OUT(o, n * F2I_SLOTS * sizeof *o)));
  size_t checked = 0;
  for (size_t i = 0; i < n; i++) {
    double x = is_double ? values[i] : (double)fv[i];
    int slot = 0;
    for (int d = 0; d < NTYPES; d++)
      for (int sat = 0; sat < 2; sat++)
        for (int m = 0; m < NMODES; m++, slot++) {
          int64_t want;
          if (!float_to_int_expected(x, &int_types[d], sat, m, &want)) continue;
          checked++;
          int64_t got = o[i * F2I_SLOTS + (size_t)slot];
          if (got != want)
            fail_msg("convert_%s%s%s((%s)%a): got %lld, want %lld", int_types[d].name, sat ? "_sat" : "", modes[m],
                     is_double ? "double" : "float", x, (long long)got, (long long)want);
        }
  }
  assert_true(checked > n * F2I_SLOTS / 2);
  free(fv), free(o);
  assert_cl_success(clReleaseProgram(program));
}

/* Ties, just-inside and just-outside every type's range, NaN, infinities, tiny values. */
static const double float_inputs[] = {
    0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.7, -2.7, 0.3, -0.3, 1.0, -1.0, 0x1p-140, -0x1p-140,
    127.0, 127.5, 128.0, -128.0, -128.5, -129.0, 255.0, 255.4, 255.5, 256.0, -0.75, 32767.5, 32768.0,
    -32768.5, 65535.5, 65536.0, 2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0,
    4294967296.0, 0x1.fffffep62, 0x1p63, -0x1p63, -0x1.000002p63, 0x1.fffffep63, 0x1p64, 1e30, -1e30,
    INFINITY, -INFINITY, NAN, -NAN, 12345.5, -12345.5, 8388607.5, -8388607.5, 8388608.0, 16777216.0,
};

static void test_float_to_int(void **state) {
  enum { EXTRA = 200 };
  size_t base = sizeof float_inputs / sizeof *float_inputs;
  double values[sizeof float_inputs / sizeof *float_inputs + EXTRA];
  memcpy(values, float_inputs, sizeof float_inputs);
  uint64_t seed = 11;
  for (size_t i = 0; i < EXTRA; i++) { /* random magnitudes across every type's range */
    double m = (double)(bt_random(&seed) % 1000000) / 1000.0;
    values[base + i] = ldexp(m, (int)(bt_random(&seed) % 60)) * ((i & 1) ? -1 : 1);
    values[base + i] = (double)(float)values[base + i];
  }
  check_float_to_int(*state, false, values, base + EXTRA);
}

static void test_double_to_int(void **state) {
  static const double extra[] = {
      2147483647.5,  2147483647.0, -2147483648.5, -2147483648.4, 4294967295.5, 4294967295.4, -0.999999,
      9223372036854774784.0, 0x1.fffffffffffffp62, 1e19, 1.5e19, 0x1.fffffffffffffp63, 18446744073709549568.0,
      0x1.0000000000001p0, 0.49999999999999994, -0.49999999999999994, 4503599627370495.5, -4503599627370495.5,
      0x1p-1074, 65535.49999999999, -129.0000001, DBL_MAX, -DBL_MAX,
  };
  size_t a = sizeof float_inputs / sizeof *float_inputs, b = sizeof extra / sizeof *extra;
  double values[sizeof float_inputs / sizeof *float_inputs + sizeof extra / sizeof *extra];
  memcpy(values, float_inputs, sizeof float_inputs);
  memcpy(values + a, extra, sizeof extra);
  check_float_to_int(*state, true, values, a + b);
}

/* Integer to integer: every (source, destination, saturation) triple; the rounding suffix
 * is legal (and meaningless) there, so each slot carries one of them in turn. */
#define I2I_SLOTS (NTYPES * NTYPES * 2)
static void test_int_to_int(void **state) {
  char *source = calloc(1, 64 * 1024), *p = source;
  p += sprintf(p, "kernel void to_int(global const long *x, global long *o) {\n"
                  "  size_t i = get_global_id(0); long v = x[i]; global long *r = o + i * %d;\n",
               I2I_SLOTS);
  int slot = 0;
  for (int s = 0; s < NTYPES; s++)
    for (int d = 0; d < NTYPES; d++)
      for (int sat = 0; sat < 2; sat++, slot++)
        p += sprintf(p, "  r[%d] = (long)convert_%s%s%s((%s)v);\n", slot, int_types[d].name, sat ? "_sat" : "",
                     modes[slot % NMODES], int_types[s].name);
  strcpy(p, "}\n");
  cl_program program = bt_build(*state, source, BT_CL12);
  free(source);

  enum { N = 96 };
  int64_t x[N], o[N * I2I_SLOTS];
  uint64_t seed = 3;
  for (int i = 0; i < N; i++) {
    const struct int_type *t = &int_types[i % NTYPES];
    i128 edges[6] = {type_min(t), type_max(t), type_min(t) - 1, type_max(t) + 1, -1, 0};
    x[i] = i < 48 ? as_stored(edges[i / NTYPES]) : (int64_t)(bt_random(&seed) >> (bt_random(&seed) % 64));
    if (i >= 48 && i % 2) x[i] = -x[i];
  }
  bt_run(*state, program, "to_int", N, 0, BT_ARGS(BT_IN(x, sizeof x), BT_OUT(o, sizeof o)));
  for (int i = 0; i < N; i++) {
    slot = 0;
    for (int s = 0; s < NTYPES; s++)
      for (int d = 0; d < NTYPES; d++)
        for (int sat = 0; sat < 2; sat++, slot++) {
          const struct int_type *dt = &int_types[d];
          i128 v = wrap(x[i], &int_types[s]);
          i128 want = sat ? (v < type_min(dt) ? type_min(dt) : v > type_max(dt) ? type_max(dt) : v) : wrap(v, dt);
          if (o[i * I2I_SLOTS + slot] != as_stored(want))
            fail_msg("convert_%s%s%s((%s)%lld): got %lld, want %lld", dt->name, sat ? "_sat" : "", modes[slot % NMODES], int_types[s].name,
                     (long long)x[i], (long long)o[i * I2I_SLOTS + slot], (long long)as_stored(want));
        }
  }
  assert_cl_success(clReleaseProgram(program));
}

/* Host conversions under a rounding mode (volatile: no constant folding across fesetround). */
static uint32_t host_int_to_float_bits(const struct int_type *t, int64_t v, int mode) {
  volatile int64_t sv = v;
  volatile uint64_t uv = (uint64_t)v;
  fesetround(fe_modes[mode]);
  volatile float f = t->is_signed ? (float)sv : (float)uv;
  fesetround(FE_TONEAREST);
  return bt_bits_of_float(f);
}
static uint64_t host_int_to_double_bits(const struct int_type *t, int64_t v, int mode) {
  volatile int64_t sv = v;
  volatile uint64_t uv = (uint64_t)v;
  fesetround(fe_modes[mode]);
  volatile double f = t->is_signed ? (double)sv : (double)uv;
  fesetround(FE_TONEAREST);
  return bt_bits_of_double(f);
}
static uint32_t host_double_to_float_bits(double v, int mode) {
  volatile double dv = v;
  fesetround(fe_modes[mode]);
  volatile float f = (float)dv;
  fesetround(FE_TONEAREST);
  return bt_bits_of_float(f);
}

/* Integer sources (int, uint, long, ulong, short) to float and double in every mode:
 * results as bits (as_uint / as_ulong). */
static const int i2f_sources[] = {4, 5, 6, 7, 2};
#define I2F_SLOTS (5 * 2 * NMODES)
static void test_int_to_float(void **state) {
  char *source = calloc(1, 32 * 1024), *p = source;
  p += sprintf(p, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "kernel void to_fp(global const long *x, global ulong *o) {\n"
                  "  size_t i = get_global_id(0); long v = x[i]; global ulong *r = o + i * %d;\n",
               I2F_SLOTS);
  int slot = 0;
  for (int s = 0; s < 5; s++)
    for (int m = 0; m < NMODES; m++) {
      const char *sn = int_types[i2f_sources[s]].name;
      p += sprintf(p, "  r[%d] = as_uint(convert_float%s((%s)v));\n", slot++, modes[m], sn);
      p += sprintf(p, "  r[%d] = as_ulong(convert_double%s((%s)v));\n", slot++, modes[m], sn);
    }
  strcpy(p, "}\n");
  cl_program program = bt_build(*state, source, BT_CL12);
  free(source);

  enum { N = 64 };
  int64_t x[N];
  uint64_t o[N * I2F_SLOTS];
  static const int64_t edges[] = {16777217, -16777217, 16777219, -16777219, 16777218, 0x7fffffff, -0x7fffffff - 1,
                                  -0x7fffffff, 0xffffffffll, 0x7fffffbf, 0x7fffffc0, 0x80000001ll,
                                  (int64_t)0x8000000000000401ull, 0x20000000000001, -0x20000000000003,
                                  INT64_MAX, INT64_MIN, -1, 0, 1, 33554435, -33554435, 0x7fff, -0x8000};
  size_t ne = sizeof edges / sizeof *edges;
  uint64_t seed = 17;
  for (size_t i = 0; i < N; i++)
    x[i] = i < ne ? edges[i] : (int64_t)(bt_random(&seed) >> (bt_random(&seed) % 40));
  bt_run(*state, program, "to_fp", N, 0, BT_ARGS(BT_IN(x, sizeof x), BT_OUT(o, sizeof o)));
  for (size_t i = 0; i < N; i++) {
    slot = 0;
    for (int s = 0; s < 5; s++)
      for (int m = 0; m < NMODES; m++) {
        const struct int_type *t = &int_types[i2f_sources[s]];
        int64_t v = (int64_t)wrap(x[i], t);
        int hm = m == 0 ? 1 : m; /* without a suffix: round to nearest even */
        uint64_t wf = host_int_to_float_bits(t, v, hm), wd = host_int_to_double_bits(t, v, hm);
        uint64_t gf = o[i * I2F_SLOTS + (size_t)slot++], gd = o[i * I2F_SLOTS + (size_t)slot++];
        if (gf != wf) fail_msg("convert_float%s((%s)%lld): got %#llx, want %#llx", modes[m], t->name, (long long)v,
                               (unsigned long long)gf, (unsigned long long)wf);
        if (gd != wd) fail_msg("convert_double%s((%s)%lld): got %#llx, want %#llx", modes[m], t->name, (long long)v,
                               (unsigned long long)gd, (unsigned long long)wd);
      }
  }
  /* hand-derived: 16777217 (x[0], int) lies between 2^24 and 2^24 + 2; the float of mode m is slot 2m */
  assert_int_equal(o[0], bt_bits_of_float(16777216.0f));
  assert_int_equal(o[2], bt_bits_of_float(16777216.0f));
  assert_int_equal(o[4], bt_bits_of_float(16777216.0f));
  assert_int_equal(o[6], bt_bits_of_float(16777218.0f));
  assert_int_equal(o[8], bt_bits_of_float(16777216.0f));
  assert_int_equal(o[I2F_SLOTS + 8], bt_bits_of_float(-16777218.0f)); /* -16777217 _rtn */
  assert_int_equal(o[2 * I2F_SLOTS + 2], bt_bits_of_float(16777220.0f)); /* 16777219 _rte */
  assert_cl_success(clReleaseProgram(program));
}

static void test_double_to_float(void **state) {
  static const char *source =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void to_float(global const double *x, global uint *o, global double *back) {\n"
      "  size_t i = get_global_id(0); double v = x[i];\n"
      "  o[5 * i] = as_uint(convert_float(v)); o[5 * i + 1] = as_uint(convert_float_rte(v));\n"
      "  o[5 * i + 2] = as_uint(convert_float_rtz(v)); o[5 * i + 3] = as_uint(convert_float_rtp(v));\n"
      "  o[5 * i + 4] = as_uint(convert_float_rtn(v));\n"
      "  back[i] = convert_double_rtp(convert_float_rtz(v));\n"
      "}\n";
  static const double edges[] = {
      1.0 + 0x1p-30, -(1.0 + 0x1p-30), 1.0 + 0x1p-24, -(1.0 + 0x1p-24), 1.0 + 0x3p-24, 1e300, -1e300,
      0x1.fffffefp127, 0x1.ffffffp127, -0x1.ffffffp127, 0x1p-160, -0x1p-160, 0x1.8p-149, 0x1.4p-149, -0x1.4p-149,
      0x1.000001p-130, 0x1p-1074, 0.1, -0.1, 1.0 / 3, -2.0 / 3, 0.0, -0.0, INFINITY, -INFINITY, 16777217.0, DBL_MAX,
      (double)FLT_MAX, 0x1p-126, 0x1.fffffffp-127,
  };
  enum { N = 48 };
  double x[N], back[N];
  uint32_t o[5 * N];
  size_t ne = sizeof edges / sizeof *edges;
  uint64_t seed = 23;
  for (size_t i = 0; i < N; i++)
    x[i] = i < ne ? edges[i] : ldexp((double)(bt_random(&seed) >> 11) * 0x1p-53, (int)(bt_random(&seed) % 300) - 150);
  bt_run_source(*state, source, BT_CL12, "to_float", N, 0,
                BT_ARGS(BT_IN(x, sizeof x), BT_OUT(o, sizeof o), BT_OUT(back, sizeof back)));
  for (size_t i = 0; i < N; i++) {
    for (int m = 0; m < NMODES; m++) {
      uint32_t want = host_double_to_float_bits(x[i], m == 0 ? 1 : m); /* convert_float(double) rounds to nearest */
      if (o[5 * i + (size_t)m] != want)
        fail_msg("convert_float%s(%a): got %#x, want %#x", modes[m], x[i], o[5 * i + (size_t)m], want);
    }
    float z;
    memcpy(&z, &o[5 * i + 2], sizeof z);
    assert_int_equal(bt_bits_of_double(back[i]), bt_bits_of_double((double)z));
  }
  /* hand-derived: 1 + 2^-24 is a tie between 1 and 1 + 2^-23 */
  assert_int_equal(o[5 * 2 + 1], 0x3f800000u);
  assert_int_equal(o[5 * 2 + 3], 0x3f800001u);
  assert_int_equal(o[5 * 3 + 4], 0xbf800001u);
  assert_int_equal(o[5 * 5 + 2], 0x7f7fffffu); /* 1e300 rtz: FLT_MAX */
  assert_int_equal(o[5 * 5 + 1], 0x7f800000u); /* rte: infinity */
}

/* NaN input: _sat gives 0 for every integer type (checked in test_float_to_int too); here
 * also the vector forms, one chunk of 16 floats per work-item. */
static void test_vector_forms(void **state) {
  static const char *source =
      "kernel void vec(global const float *x, global int *i4, global uchar *u8, global short *s16, global long *l2,\n"
      "                global uint *u3, global char *c2, global float *f4, global long *xl) {\n"
      "  size_t g = get_global_id(0);\n"
      "  for (int k = 0; k < 4; k++) vstore4(convert_int4_sat_rte(vload4(4 * g + k, x)), 4 * g + k, i4);\n"
      "  for (int k = 0; k < 2; k++) vstore8(convert_uchar8_sat_rtn(vload8(2 * g + k, x)), 2 * g + k, u8);\n"
      "  vstore16(convert_short16_sat(vload16(g, x)), g, s16);\n"
      "  for (int k = 0; k < 8; k++) vstore2(convert_long2_sat_rtp(vload2(8 * g + k, x)), 8 * g + k, l2);\n"
      "  for (int k = 0; k < 5; k++) vstore3(convert_uint3_sat_rtz(vload3(0, x + 16 * g + 3 * k)), 0, u3 + 15 * g + 3 * k);\n"
      "  for (int k = 0; k < 8; k++) vstore2(convert_char2_sat(convert_int2_sat(vload2(8 * g + k, x))), 8 * g + k, c2);\n"
      "  for (int k = 0; k < 4; k++) vstore4(convert_float4_rtp(vload4(4 * g + k, xl)), 4 * g + k, f4);\n"
      "}\n";
  enum { G = 8, N = 16 * G };
  float x[N];
  int64_t xl[N];
  cl_int i4[N];
  cl_uchar u8[N];
  cl_short s16[N];
  cl_long l2[N];
  cl_uint u3[15 * G];
  cl_char c2[N];
  float f4[N];
  size_t nf = sizeof float_inputs / sizeof *float_inputs;
  uint64_t seed = 5;
  for (size_t i = 0; i < N; i++) {
    x[i] = (float)float_inputs[i % nf];
    xl[i] = (int64_t)bt_random(&seed) >> (bt_random(&seed) % 64);
  }
  bt_run_source(*state, source, BT_CL12, "vec", G, 0,
                BT_ARGS(BT_IN(x, sizeof x), BT_OUT(i4, sizeof i4), BT_OUT(u8, sizeof u8), BT_OUT(s16, sizeof s16),
                        BT_OUT(l2, sizeof l2), BT_OUT(u3, sizeof u3), BT_OUT(c2, sizeof c2), BT_OUT(f4, sizeof f4),
                        BT_IN(xl, sizeof xl)));
  for (size_t i = 0; i < N; i++) {
    int64_t want;
    float_to_int_expected(x[i], &int_types[4], true, 1, &want), assert_int_equal(i4[i], want);
    float_to_int_expected(x[i], &int_types[1], true, 4, &want), assert_int_equal(u8[i], want);
    float_to_int_expected(x[i], &int_types[2], true, 0, &want), assert_int_equal(s16[i], want);
    float_to_int_expected(x[i], &int_types[6], true, 3, &want), assert_int_equal(l2[i], want);
    if (i % 16 < 15) {
      float_to_int_expected(x[i], &int_types[5], true, 2, &want);
      assert_int_equal(u3[i / 16 * 15 + i % 16], want);
    }
    float_to_int_expected(x[i], &int_types[4], true, 0, &want);
    assert_int_equal(c2[i], want < -128 ? -128 : want > 127 ? 127 : want);
    assert_int_equal(bt_bits_of_float(f4[i]), host_int_to_float_bits(&int_types[6], xl[i], 3));
  }
}

static void test_as_type(void **state) {
  static const char *source =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void reinterpret(global const float *f, global const int *n, global const double *d, global int *oi,\n"
      "                        global float *of, global uchar *ob, global uint *ou, global ulong *ol, global char *oc) {\n"
      "  oi[0] = as_int(f[0]);\n"
      "  vstore4(as_float4(vload4(0, n)), 0, of);\n"
      "  vstore4(as_uchar4((uint)n[4]), 0, ob);\n"
      "  vstore3(as_int3(vload3(0, f + 1)), 0, oi + 1);\n"
      "  vstore3(as_float3(vload4(1, n)), 0, of + 4);\n"
      "  vstore2(as_uint2(d[0]), 0, ou);\n"
      "  ol[0] = as_ulong(d[1]);\n"
      "  vstore16(as_char16(vload4(0, f)), 0, oc);\n"
      "  of[7] = as_float(as_uint(f[2]) ^ 0x80000000u);\n"
      "  vstore2(as_float2(as_double(vload2(0, n))), 0, of + 8);\n"
      "}\n";
  float f[4] = {1.0f, -2.5f, NAN, 0x1p-140f};
  cl_int n[8] = {0x3f800000, (cl_int)0xc0200000, 0x7f800001, 0x00000001, 0x12345678, (cl_int)0xdeadbeef, 0x40490fdb, 7};
  double d[2] = {-1.0, 0x1.23456789abcdep-1000};
  cl_int oi[4];
  float of[10];
  cl_uchar ob[4];
  cl_uint ou[2];
  cl_ulong ol[1];
  cl_char oc[16];
  bt_run_source(*state, source, BT_CL12, "reinterpret", 1, 1,
                BT_ARGS(BT_IN(f, sizeof f), BT_IN(n, sizeof n), BT_IN(d, sizeof d), BT_OUT(oi, sizeof oi),
                        BT_OUT(of, sizeof of), BT_OUT(ob, sizeof ob), BT_OUT(ou, sizeof ou), BT_OUT(ol, sizeof ol),
                        BT_OUT(oc, sizeof oc)));
  assert_int_equal(oi[0], 0x3f800000);
  for (int k = 0; k < 4; k++) assert_int_equal(bt_bits_of_float(of[k]), (uint32_t)n[k]);
  assert_memory_equal(ob, "\x78\x56\x34\x12", 4); /* little-endian device */
  for (int k = 0; k < 3; k++) assert_int_equal((uint32_t)oi[1 + k], bt_bits_of_float(f[1 + k]));
  for (int k = 0; k < 3; k++) assert_int_equal(bt_bits_of_float(of[4 + k]), (uint32_t)n[4 + k]);
  assert_int_equal(ou[0], 0x00000000u);
  assert_int_equal(ou[1], 0xbff00000u);
  assert_int_equal(ol[0], bt_bits_of_double(d[1]));
  assert_memory_equal(oc, f, 16);
  assert_int_equal(bt_bits_of_float(of[7]), 0xffc00000u); /* the NaN's sign flipped, payload kept */
  assert_int_equal(bt_bits_of_float(of[8]), (uint32_t)n[0]);
  assert_int_equal(bt_bits_of_float(of[9]), (uint32_t)n[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_to_int),   cmocka_unit_test(test_double_to_int), cmocka_unit_test(test_int_to_int),
      cmocka_unit_test(test_int_to_float),   cmocka_unit_test(test_double_to_float),
      cmocka_unit_test(test_vector_forms),   cmocka_unit_test(test_as_type),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
