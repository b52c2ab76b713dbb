/* Vector data load/store and shuffle functions (OpenCL C 3.0 §6.15.7, §6.15.13) through
 * the loader: vloadn/vstoren for n = 2, 3, 4, 8, 16 at nonzero offsets and unaligned
 * pointers in __global, __constant (loads), __local and __private memory, with the
 * neighbours of every store left untouched; vload_half[n], vloada_half[n] (3 components
 * at a stride of 4 halves), vstore_half[n] and vstorea_half[n] in every rounding mode,
 * from float and double, against a host reference that rounds with floating-point
 * arithmetic (denormals, infinities, NaN, overflow); shuffle/shuffle2 with masks of other
 * widths than the input and with high mask bits set. */
#include "builtins_harness.h"

static const int sizes[] = {2, 3, 4, 8, 16};
#define NSIZES 5
enum { G = 8, L = 4, REGION = (G + 3) * 16, SPACES = 5 };

/* Per n: region 0 (global store at offset i + 2 from dst + 3), 1 (constant load), 2 (local
 * round trip), 3 (private round trip), 4 (the private neighbours of the private store). */
static const char *load_store_template =
    "  {\n"
    "    global int *r = dst + %d;\n"
    "    int%d v = vload%d(i + 1, src + 1);\n"
    "    vstore%d(v, i + 2, r + 3);\n"
    "    vstore%d(vload%d(i + 1, csrc + 1), i, r + REGION);\n"
    "    vstore%d(v * 2, l + 1, loc + 1);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    vstore%d(vload%d(l + 1, loc + 1), i, r + 2 * REGION);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    int p[64];\n"
    "    for (int k = 0; k < 64; k++) p[k] = -k;\n"
    "    vstore%d(v + 7, 2, p + 1);\n"
    "    vstore%d(vload%d(2, p + 1), i, r + 3 * REGION);\n"
    "    r[4 * REGION + 2 * i] = p[2 * %d]; r[4 * REGION + 2 * i + 1] = p[3 * %d + 1];\n"
    "  }\n";

static void test_vload_vstore(void **state) {
  char *source = calloc(1, 16 * 1024), *p = source;
  p += sprintf(p, "#define REGION %d\n"
                  "kernel void ls(global const int *src, constant int *csrc, global int *dst, local int *loc) {\n"
                  "  size_t i = get_global_id(0), l = get_local_id(0);\n",
               REGION);
  for (int k = 0; k < NSIZES; k++) {
    int n = sizes[k];
    p += sprintf(p, load_store_template, k * SPACES * REGION, n, n, n, n, n, n, n, n, n, n, n, n, n);
  }
  strcpy(p, "}\n");
  enum { SRC = (G + 2) * 16 + 1 };
  cl_int src[SRC];
  cl_int *dst = malloc(NSIZES * SPACES * REGION * sizeof *dst);
  for (int k = 0; k < SRC; k++) src[k] = k * 1000 + 17;
  for (int k = 0; k < NSIZES * SPACES * REGION; k++) dst[k] = -99;
  cl_program program = bt_build(*state, source, BT_CL12);
  free(source);
  bt_run(*state, program, "ls", G, L,
         BT_ARGS(BT_IN(src, sizeof src), BT_IN(src, sizeof src), BT_OUT(dst, NSIZES * SPACES * REGION * sizeof *dst),
                 BT_LOCAL((L + 2) * 16 * sizeof(cl_int))));
  for (int k = 0; k < NSIZES; k++) {
    int n = sizes[k];
    const cl_int *r = dst + k * SPACES * REGION;
    for (int j = 0; j < REGION; j++) { /* global: element 3 + (i + 2) n + c holds src[1 + (i + 1) n + c] */
      int rel = j - 3 - 2 * n, i = rel >= 0 ? rel / n : -1;
      int want = (rel >= 0 && i < G) ? src[1 + (i + 1) * n + rel % n] : -99;
      if (r[j] != want) fail_msg("vstore%d global element %d: got %d, want %d", n, j, r[j], want);
    }
    for (int j = 0; j < REGION; j++) {
      int i = j / n, c = j % n;
      int in_range = i < G;
      int v = in_range ? src[1 + (i + 1) * n + c] : 0;
      if (r[REGION + j] != (in_range ? v : -99)) fail_msg("vload%d constant element %d: got %d", n, j, r[REGION + j]);
      if (r[2 * REGION + j] != (in_range ? 2 * v : -99)) fail_msg("vload%d local element %d: got %d", n, j, r[2 * REGION + j]);
      if (r[3 * REGION + j] != (in_range ? v + 7 : -99)) fail_msg("vload%d private element %d: got %d", n, j, r[3 * REGION + j]);
    }
    for (int i = 0; i < G; i++) { /* p[2n] and p[3n + 1] are the neighbours of vstoren(v, 2, p + 1) */
      assert_int_equal(r[4 * REGION + 2 * i], -2 * n);
      assert_int_equal(r[4 * REGION + 2 * i + 1], -(3 * n + 1));
    }
  }
  free(dst);
  assert_cl_success(clReleaseProgram(program));
}

/* --- half ---------------------------------------------------------------------------- */

static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* The half bits of x rounded by mode (0 rte, 1 rtz, 2 rtp, 3 rtn): x is scaled so that
 * the half's last place becomes 1, rounded to an integer in double (exact: x has at most
 * 53 significant bits and the scale is a power of two), and scaled back. */
static uint16_t host_to_half(double x, int mode) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  if (isnan(x)) return 0x7e00; /* any NaN: compared as a class */
  double a = fabs(x);
  if (isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e;
  frexp(a, &e); /* a in [2^(e-1), 2^e) */
  int quantum = (e - 1 < -14 ? -14 : e - 1) - 10;
  double s = ldexp(x, -quantum), r;
  switch (mode) {
    case 0: r = rint(s); break;
    case 1: r = trunc(s); break;
    case 2: r = ceil(s); break;
    default: r = floor(s); break;
  }
  double m = fabs(ldexp(r, quantum));
  if (m > 65504.0) {
    bool toward_zero = mode == 1 || (mode == 2 && sign) || (mode == 3 && !sign);
    return sign | (toward_zero ? 0x7bff : 0x7c00);
  }
  if (m == 0) return sign;
  frexp(m, &e);
  if (e - 1 < -14) return sign | (uint16_t)ldexp(m, 24);
  return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(m, 11 - e) - 1024);
}

static bool same_half(uint16_t got, uint16_t want) {
  bool got_nan = (got & 0x7c00) == 0x7c00 && (got & 0x3ff), want_nan = (want & 0x7c00) == 0x7c00 && (want & 0x3ff);
  return got_nan || want_nan ? got_nan == want_nan : got == want;
}
static bool same_float(float got, double want) {
  return isnan(want) ? isnan(got) : bt_bits_of_float(got) == bt_bits_of_float((float)want);
}

enum { HN = 96 }; /* divisible by 2, 3, 4, 8, 16 */

static void test_vload_half(void **state) {
  static const char *source =
      "kernel void load(global const half *h, global float *o, global float *oa3, global float *oa, local half *lh) {\n"
      "  size_t i = get_global_id(0);\n"
      "  o[i] = vload_half(i, h);\n"
      "  if (i < 48) vstore2(vload_half2(i, h), i, o + 96);\n"
      "  if (i < 32) vstore3(vload_half3(i, h), i, o + 192);\n"
      "  if (i < 24) vstore4(vload_half4(i, h), i, o + 288);\n"
      "  if (i < 12) vstore8(vload_half8(i, h), i, o + 384);\n"
      "  if (i < 6) vstore16(vload_half16(i, h), i, o + 480);\n"
      "  if (i < 24) vstore3(vloada_half3(i, h), i, oa3);\n"
      "  if (i < 48) vstore2(vloada_half2(i, h), i, oa);\n"
      "  if (i < 24) vstore4(vloada_half4(i, h), i, oa + 96);\n"
      "  if (i < 12) vstore8(vloada_half8(i, h), i, oa + 192);\n"
      "  if (i < 6) vstore16(vloada_half16(i, h), i, oa + 288);\n"
      "  vstore_half(vload_half(i, h), get_local_id(0), lh);\n" /* the local and private forms */
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  float4 lv = vload_half4(get_local_id(0) / 4, lh);\n"
      "  ushort ph[4];\n"
      "  vstore_half4(lv, 0, (private half *)ph);\n"
      "  o[576 + i] = vload_half(get_local_id(0) % 4, (private half *)ph);\n"
      "}\n";
  uint16_t h[HN];
  static const uint16_t edges[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0200, 0x0400, 0x7bff, 0xfbff, 0x7c00,
                                   0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x3c00, 0xbc00, 0x3555, 0x0401, 0x3bff, 0x5640};
  uint64_t seed = 41;
  for (size_t i = 0; i < HN; i++) h[i] = i < sizeof edges / 2 ? edges[i] : (uint16_t)bt_random(&seed);
  float o[576 + HN], oa3[72], oa[384];
  memset(o, 0xff, sizeof o), memset(oa3, 0xff, sizeof oa3), memset(oa, 0xff, sizeof oa);
  bt_run_source(*state, source, BT_CL12, "load", HN, 16,
                BT_ARGS(BT_IN(h, sizeof h), BT_OUT(o, sizeof o), BT_OUT(oa3, sizeof oa3), BT_OUT(oa, sizeof oa),
                        BT_LOCAL(16 * sizeof(uint16_t))));
  for (int n = 0; n < 7; n++) /* scalar, 2, 3, 4, 8, 16 and the local/private round trip */
    for (int i = 0; i < HN; i++) {
      int k = n < 6 ? n * 96 + i : 576 + i;
      if (!same_float(o[k], half_value(h[i])))
        fail_msg("vload_half (block %d) of %#x: got %a, want %a", n, h[i], (double)o[k], half_value(h[i]));
    }
  for (int i = 0; i < 24; i++)
    for (int c = 0; c < 3; c++)
      if (!same_float(oa3[3 * i + c], half_value(h[4 * i + c])))
        fail_msg("vloada_half3(%d) component %d: got %a, want %a", i, c, (double)oa3[3 * i + c], half_value(h[4 * i + c]));
  for (int n = 0; n < 4; n++)
    for (int i = 0; i < HN; i++)
      if (!same_float(oa[n * 96 + i], half_value(h[i])))
        fail_msg("vloada_half (block %d) of %#x: got %a", n, h[i], (double)oa[n * 96 + i]);
  assert_int_equal(bt_bits_of_float(o[2]), bt_bits_of_float(0x1p-24f)); /* hand-derived: smallest denormal */
  assert_int_equal(bt_bits_of_float(o[7]), bt_bits_of_float(65504.0f));
}

static const char *modes[] = {"_rte", "_rtz", "_rtp", "_rtn"};

/* vstore_half<mode> (scalar, 2, 4, 8, 16 into o, 3 into o3), vstorea_half3 (stride 4, the
 * fourth half untouched), vstorea_half<n> and the double forms, for each mode. */
static const char *store_template =
    "kernel void store%s(global const float *x, global const double *d, global half *o, global half *o3,\n"
    "                    global half *oa3, global half *oa, global half *od) {\n"
    "  size_t i = get_global_id(0);\n"
    "  vstore_half%s(x[i], i, o);\n"
    "  if (i < 48) vstore_half2%s(vload2(i, x), i, o + 96);\n"
    "  if (i < 24) vstore_half4%s(vload4(i, x), i, o + 192);\n"
    "  if (i < 12) vstore_half8%s(vload8(i, x), i, o + 288);\n"
    "  if (i < 6) vstore_half16%s(vload16(i, x), i, o + 384);\n"
    "  if (i < 32) vstore_half3%s(vload3(i, x), i, o3);\n"
    "  if (i < 32) vstorea_half3%s(vload3(i, x), i, oa3);\n"
    "  if (i < 48) vstorea_half2%s(vload2(i, x), i, oa);\n"
    "  if (i < 24) vstorea_half4%s(vload4(i, x), i, oa + 96);\n"
    "  if (i < 12) vstorea_half8%s(vload8(i, x), i, oa + 192);\n"
    "  if (i < 6) vstorea_half16%s(vload16(i, x), i, oa + 288);\n"
    "  vstore_half%s(d[i], i, od);\n"
    "  if (i < 48) vstore_half2%s(vload2(i, d), i, od + 96);\n"
    "}\n";

static void test_vstore_half(void **state) {
  char *source = calloc(1, 16 * 1024), *p = source;
  p += sprintf(p, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  const char *all_modes[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
  for (int m = 0; m < 5; m++) {
    const char *s = all_modes[m];
    p += sprintf(p, store_template, s, s, s, s, s, s, s, s, s, s, s, s, s, s);
  }
  cl_program program = bt_build(*state, source, BT_CL12);
  free(source);
  static const float fedges[] = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, -65520.0f, 65536.0f,
                                 -65536.0f, 1e10f, -1e10f, INFINITY, -INFINITY, NAN, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                                 0x1p-26f, -0x1p-26f, 0x1p-14f, 0x1.ff8p-15f, 0x1.002p0f, 0x1.0030p0f, 0x1.0010p0f,
                                 -0x1.006p0f, 0x1p-149f, 3.14159f, 1e-6f, -1e-6f, 0x1.ffcp-1f, 2049.0f, 2051.0f};
  static const double dedges[] = {1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 0x1p-25 + 0x1p-60, 0x1p-1074, -0x1p-1074,
                                  65519.99999999, 65520.0, 1e300, -1e300, 0x1.0000000001p-14};
  float x[HN];
  double d[HN];
  uint64_t seed = 43;
  for (size_t i = 0; i < HN; i++) {
    x[i] = i < sizeof fedges / sizeof *fedges ? fedges[i]
                                              : ldexpf((float)(bt_random(&seed) >> 40) * 0x1p-24f, (int)(bt_random(&seed) % 44) - 28);
    if (i % 3 == 1 && i >= sizeof fedges / sizeof *fedges) x[i] = -x[i];
    d[i] = i < sizeof dedges / sizeof *dedges ? dedges[i] : (double)x[i] * (1.0 + 0x1p-30);
  }
  for (int m = 0; m < 5; m++) {
    int mode = m == 0 ? 0 : m - 1;
    uint16_t o[480], o3[96], oa3[128], oa[384], od[192];
    memset(o, 0xee, sizeof o), memset(o3, 0xee, sizeof o3), memset(oa3, 0xee, sizeof oa3);
    memset(oa, 0xee, sizeof oa), memset(od, 0xee, sizeof od);
    char name[16];
    snprintf(name, sizeof name, "store%s", m ? modes[m - 1] : "");
    bt_run(*state, program, name, HN, 0,
           BT_ARGS(BT_IN(x, sizeof x), BT_IN(d, sizeof d), BT_OUT(o, sizeof o), BT_OUT(o3, sizeof o3),
                   BT_OUT(oa3, sizeof oa3), BT_OUT(oa, sizeof oa), BT_OUT(od, sizeof od)));
    for (int i = 0; i < HN; i++) {
      uint16_t want = host_to_half(x[i], mode);
      for (int b = 0; b < 5; b++)
        if (!same_half(o[b * 96 + i], want))
          fail_msg("%s block %d of %a: got %#x, want %#x", name, b, (double)x[i], o[b * 96 + i], want);
      if (!same_half(o3[i], want)) fail_msg("%s vstore_half3 of %a: got %#x, want %#x", name, (double)x[i], o3[i], want);
      for (int b = 0; b < 4; b++)
        if (!same_half(oa[b * 96 + i], want)) fail_msg("%s vstorea block %d of %a: got %#x", name, b, (double)x[i], oa[b * 96 + i]);
      int a3 = i / 3 * 4 + i % 3; /* vstorea_half3: stride 4 */
      if (!same_half(oa3[a3], want)) fail_msg("%s vstorea_half3 of %a: got %#x, want %#x", name, (double)x[i], oa3[a3], want);
      uint16_t dwant = host_to_half(d[i], mode);
      if (!same_half(od[i], dwant) || (i < 96 && !same_half(od[96 + i], dwant)))
        fail_msg("%s (double) of %a: got %#x / %#x, want %#x", name, d[i], od[i], od[96 + i], dwant);
    }
    for (int i = 0; i < 32; i++) assert_int_equal(oa3[4 * i + 3], 0xeeee);
  }
  /* hand-derived: overflow is infinity with rte but the largest half with rtz */
  assert_int_equal(host_to_half(65520.0, 0), 0x7c00);
  assert_int_equal(host_to_half(65520.0, 1), 0x7bff);
  assert_int_equal(host_to_half(65519.0, 0), 0x7bff);
  assert_int_equal(host_to_half(0x1p-25, 0), 0x0000);
  assert_int_equal(host_to_half(0x1.8p-25, 0), 0x0001);
  assert_int_equal(host_to_half(-0x1p-26, 3), 0x8001);
  assert_int_equal(host_to_half(0x1.0030p0, 0), 0x3c01);
  assert_int_equal(host_to_half(0x1.002p0, 0), 0x3c00); /* ties to even */
  assert_int_equal(host_to_half(-0x1.006p0, 0), 0xbc02);
  assert_cl_success(clReleaseProgram(program));
}

/* --- shuffle ------------------------------------------------------------------------- */

static const char *shuffle_source =
    "kernel void shuf(global const float *a, global const uint *m, global float *o, global const int *ai,\n"
    "                 global const uint *mi, global int *oi, global const uchar *ab, global const uchar *mb,\n"
    "                 global uchar *ob, global const ulong *ml, global long *ol) {\n"
    "  float4 x = vload4(0, a), y = vload4(1, a);\n"
    "  vstore8(shuffle(x, vload8(0, m)), 0, o);\n"
    "  vstore8(shuffle2(x, y, vload8(1, m)), 1, o);\n"
    "  vstore2(shuffle(vload16(0, a), vload2(8, m)), 8, o);\n"
    "  vstore4(shuffle2(vload8(0, a), vload8(1, a), vload4(5, m)), 5, o);\n"
    "  vstore16(shuffle(vload2(0, ai), vload16(0, mi)), 0, oi);\n"
    "  vstore16(shuffle2(vload16(0, ai), vload16(1, ai), vload16(1, mi)), 1, oi);\n"
    "  vstore16(shuffle(vload8(0, ab), vload16(0, mb)), 0, ob);\n"
    "  vstore2(shuffle2(vload4(0, ab), vload4(1, ab), vload2(8, mb)), 8, ob);\n"
    "  vstore4(shuffle2(convert_long2(vload2(0, ai)), convert_long2(vload2(1, ai)), vload4(0, ml)), 0, ol);\n"
    "}\n";

static void test_shuffle(void **state) {
  float a[16], o[24];
  cl_uint m[24], mi[32];
  cl_int ai[32], oi[32];
  cl_uchar ab[16], mb[18], ob[18];
  cl_ulong ml[4];
  cl_long ol[4];
  uint64_t seed = 47;
  for (int k = 0; k < 16; k++) a[k] = (float)k + 0.25f, ab[k] = (cl_uchar)(200 + k);
  for (int k = 0; k < 32; k++) ai[k] = -1000 * k - 1;
  /* random masks with random high bits: only the low log2(components) bits may count */
  for (int k = 0; k < 24; k++) m[k] = (cl_uint)bt_random(&seed);
  for (int k = 0; k < 32; k++) mi[k] = (cl_uint)bt_random(&seed);
  for (int k = 0; k < 18; k++) mb[k] = (cl_uchar)bt_random(&seed);
  for (int k = 0; k < 4; k++) ml[k] = bt_random(&seed);
  m[0] = 0xfffffff3u, m[1] = 0x80000000u, ml[0] = 0x8000000000000003ull;
  bt_run_source(*state, shuffle_source, BT_CL12, "shuf", 1, 1,
                BT_ARGS(BT_IN(a, sizeof a), BT_IN(m, sizeof m), BT_OUT(o, sizeof o), BT_IN(ai, sizeof ai),
                        BT_IN(mi, sizeof mi), BT_OUT(oi, sizeof oi), BT_IN(ab, sizeof ab), BT_IN(mb, sizeof mb),
                        BT_OUT(ob, sizeof ob), BT_IN(ml, sizeof ml), BT_OUT(ol, sizeof ol)));
  for (int k = 0; k < 8; k++) assert_true(o[k] == a[m[k] & 3]);
  for (int k = 0; k < 8; k++) assert_true(o[8 + k] == a[m[8 + k] & 7]); /* x, y are a[0..3], a[4..7] */
  for (int k = 0; k < 2; k++) assert_true(o[16 + k] == a[m[16 + k] & 15]);
  for (int k = 0; k < 4; k++) assert_true(o[20 + k] == a[m[20 + k] & 15]);
  for (int k = 0; k < 16; k++) assert_int_equal(oi[k], ai[mi[k] & 1]);
  for (int k = 0; k < 16; k++) assert_int_equal(oi[16 + k], ai[mi[16 + k] & 31]);
  for (int k = 0; k < 16; k++) assert_int_equal(ob[k], ab[mb[k] & 7]);
  for (int k = 0; k < 2; k++) assert_int_equal(ob[16 + k], ab[mb[16 + k] & 7]);
  for (int k = 0; k < 4; k++) assert_int_equal(ol[k], (cl_long)ai[ml[k] & 3]);
  assert_true(o[0] == 3.25f && o[1] == 0.25f); /* hand-derived from m[0], m[1] */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vload_vstore),
      cmocka_unit_test(test_vload_half),
      cmocka_unit_test(test_vstore_half),
      cmocka_unit_test(test_shuffle),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
