/* cl_khr_fp16 / __opencl_c_fp16 through the loader: the queries; half arithmetic (+ - * /
 * and fma correctly rounded, over pairs of special, subnormal and random halves); every
 * half of 65536 through sqrt (correctly rounded) and a set of math functions within the
 * spec's half ULP limits (environment spec, "ULP Values for Math Instructions"); conversions
 * to half from float, double and integers in all four rounding modes and from half to
 * integers with saturation, against a reference that picks among the neighbouring halves;
 * relational, common, geometric and vector load/store functions; work-group and
 * sub-group reductions of half; read_imageh/write_imageh. OpenCL C 1.2 and 3.0. */
#include "builtins_harness.h"

#include <float.h>

typedef _Float16 host_half;

static cl_ushort bits_of(host_half h) {
  cl_ushort u;
  memcpy(&u, &h, sizeof u);
  return u;
}
static host_half from_bits(cl_ushort u) {
  host_half h;
  memcpy(&h, &u, sizeof h);
  return h;
}

static void test_queries(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_khr_fp16", CL_MAKE_VERSION(1, 0, 0));
  cl_device_fp_config config = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_HALF_FP_CONFIG, sizeof config, &config, NULL));
  assert_true(config & CL_FP_INF_NAN);
  assert_true(config & CL_FP_ROUND_TO_NEAREST);
  assert_true(config & CL_FP_DENORM);
  assert_true(config & CL_FP_FMA);
  cl_uint width = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, sizeof width, &width, NULL));
  assert_true(width >= 1);
}

/* Halves worth trying: zeros, subnormals, the normal range's ends, infinities, a NaN, and
 * pseudo-random bit patterns. */
static size_t interesting_halves(cl_ushort *out, size_t n) {
  static const cl_ushort special[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01,
                                      0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x4248, 0x1400};
  size_t k = 0;
  for (; k < sizeof special / sizeof *special && k < n; k++) out[k] = special[k];
  cl_uint seed = 31337;
  for (; k < n; k++) {
    cl_ushort u = (cl_ushort)kiln_test_random(&seed);
    if ((u & 0x7c00) == 0x7c00 && (u & 0x3ff)) u = 0x7e00; /* one NaN is enough */
    out[k] = u;
  }
  return k;
}

static bool same_half(cl_ushort got, host_half want) {
  cl_ushort w = bits_of(want);
  bool got_nan = (got & 0x7c00) == 0x7c00 && (got & 0x3ff), want_nan = want != want;
  return got_nan || want_nan ? got_nan == want_nan : got == w;
}

static const char *arith_source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void k(global const half *a, global const half *b, global const half *c, global half *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  half x = a[i], y = b[i], z = c[i];\n"
    "  out[5 * i] = x + y; out[5 * i + 1] = x - y; out[5 * i + 2] = x * y; out[5 * i + 3] = x / y;\n"
    "  out[5 * i + 4] = fma(x, y, z);\n"
    "}\n";

static void check_arithmetic(struct kiln_test_env *env, const char *options) {
  enum { N = 96 * 96 };
  static cl_ushort values[96], a[N], b[N], c[N], out[5 * N];
  interesting_halves(values, 96);
  cl_uint seed = 99;
  for (int i = 0; i < N; i++) {
    a[i] = values[i / 96];
    b[i] = values[i % 96];
    c[i] = values[kiln_test_random(&seed) % 96];
  }
  bt_run_source(env, arith_source, options, "k", N, 0,
                BT_ARGS(BT_IN(a, sizeof a), BT_IN(b, sizeof b), BT_IN(c, sizeof c), BT_OUT(out, sizeof out)));
  for (int i = 0; i < N; i++) {
    float x = (float)from_bits(a[i]), y = (float)from_bits(b[i]), z = (float)from_bits(c[i]);
    host_half want[5] = {(host_half)(x + y), (host_half)(x - y), (host_half)(x * y), (host_half)(x / y),
                         (host_half)fma((double)x, (double)y, (double)z)};
    for (int f = 0; f < 5; f++)
      if (!same_half(out[5 * i + f], want[f]))
        fail_msg("%s op %d of %a, %a, %a: got %#06x, want %#06x", options, f, x, y, z, out[5 * i + f], bits_of(want[f]));
  }
}

static void test_arithmetic(void **state) {
  check_arithmetic(*state, BT_CL30);
  check_arithmetic(*state, BT_CL12);
}

/* Every half through a function; ULP distance in half units against a double reference. */
struct unary_case {
  const char *name;
  double (*ref)(double);
  double ulps;
};
static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }
static double ref_exp10(double x) { return pow(10.0, x); }
static double ref_sinpi(double x) { return sin(M_PI * x); }
static const struct unary_case unary_cases[] = {
    {"sqrt", sqrt, 0.5}, {"rsqrt", ref_rsqrt, 1}, {"sin", sin, 2},     {"cos", cos, 2},     {"tan", tan, 2},
    {"exp", exp, 2},     {"exp2", exp2, 2},       {"exp10", ref_exp10, 2}, {"log", log, 2}, {"log2", log2, 2},
    {"atan", atan, 2},   {"acos", acos, 2},       {"cbrt", cbrt, 2},   {"erf", erf, 4},     {"sinpi", ref_sinpi, 2},
    {"floor", floor, 0}, {"rint", rint, 0},       {"tanh", tanh, 2},   {"log1p", log1p, 2}, {"asinh", asinh, 2},
};

static double half_ulps(host_half got, double ref) {
  if (isnan(ref)) return got != got ? 0 : HUGE_VAL;
  if (got != got) return HUGE_VAL;
  if (isinf(got) && !isinf(ref) && fabs(ref) >= 65520.0) return (got > 0) == (ref > 0) ? 0 : HUGE_VAL;
  return bt_ulps((long double)(float)got, (long double)ref, 11, -14);
}

static void test_math_exhaustive(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 65536 };
  static cl_ushort in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (cl_ushort)i;
  for (size_t c = 0; c < sizeof unary_cases / sizeof *unary_cases; c++) {
    char source[256];
    snprintf(source, sizeof source,
             "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
             "kernel void k(global const half *in, global half *out) { size_t i = get_global_id(0);\n"
             "  out[i] = %s(in[i]); }\n",
             unary_cases[c].name);
    bt_run_source(env, source, BT_CL30, "k", N, 0, BT_ARGS(BT_IN(in, sizeof in), BT_OUT(out, sizeof out)));
    double worst = 0;
    for (int i = 0; i < N; i++) {
      double x = (double)(float)from_bits(in[i]);
      double e = half_ulps(from_bits(out[i]), unary_cases[c].ref(x));
      if (e > unary_cases[c].ulps)
        fail_msg("%s(%a) = %a, want %a (%g ulp > %g)", unary_cases[c].name, x, (double)(float)from_bits(out[i]),
                 unary_cases[c].ref(x), e, unary_cases[c].ulps);
      worst = e > worst ? e : worst;
    }
    print_message("  %s: worst %.3f ulp over every half\n", unary_cases[c].name, worst);
  }
  /* fract: exact, and below 1 in half (fract(-0x1p-24) is 0x1.ffcp-1, not 1 - 2^-24 rounded up). */
  static cl_ushort whole[N];
  bt_run_source(env,
                "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                "kernel void k(global const half *in, global half *out, global half *ip) { size_t i = get_global_id(0);\n"
                "  half w; out[i] = fract(in[i], &w); ip[i] = w; }\n",
                BT_CL30, "k", N, 0, BT_ARGS(BT_IN(in, sizeof in), BT_OUT(out, sizeof out), BT_OUT(whole, sizeof whole)));
  for (int i = 0; i < N; i++) {
    double x = (double)(float)from_bits(in[i]), f = floor(x);
    host_half want = isinf(x) ? (host_half)copysign(0.0, x) : (host_half)fmin(x - f, 0x1.ffcp-1);
    if (isnan(x)) want = (host_half)x;
    if (!same_half(out[i], want) || !same_half(whole[i], (host_half)f))
      fail_msg("fract(%a) = %a, %a; want %a, %a", x, (double)(float)from_bits(out[i]), (double)(float)from_bits(whole[i]),
               (double)(float)want, f);
  }
}

/* Among the halves next to the round-to-nearest result, the one the mode picks. */
static host_half next_half(host_half h, bool up) {
  cl_ushort u = bits_of(h);
  if ((u & 0x7fff) == 0) return from_bits(up ? 0x0001 : 0x8001);
  bool positive = !(u & 0x8000);
  return from_bits((cl_ushort)(positive == up ? u + 1 : u - 1));
}
static host_half round_to(long double x, int mode) { /* 0 rte, 1 rtz, 2 rtp, 3 rtn */
  host_half h = (host_half)(double)x; /* RNE, then the neighbours: the exact one is among them */
  if (x != x || mode == 0) return h;
  host_half cand[3] = {next_half(h, false), h, next_half(h, true)};
  host_half best = h;
  bool found = false;
  for (int k = 0; k < 3; k++) {
    long double v = (long double)(float)cand[k];
    if (cand[k] != cand[k]) continue; /* past infinity */
    bool ok = mode == 1 ? fabsl(v) <= fabsl(x) && (v == 0 || (v > 0) == (x > 0)) : mode == 2 ? v >= x : v <= x;
    if (!ok) continue;
    long double bv = (long double)(float)best;
    if (!found || (mode == 1 ? fabsl(v) > fabsl(bv) : mode == 2 ? v < bv : v > bv)) best = cand[k];
    found = true;
  }
  return best;
}

static const char *convert_source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void k(global const float *f, global const double *d, global const int *n, global const half *h,\n"
    "              global half *out, global int *ints) {\n"
    "  size_t i = get_global_id(0);\n"
    "  global half *o = out + 12 * i;\n"
    "  o[0] = convert_half(f[i]); o[1] = convert_half_rtz(f[i]); o[2] = convert_half_rtp(f[i]);\n"
    "  o[3] = convert_half_rtn(f[i]);\n"
    "  o[4] = convert_half_rte(d[i]); o[5] = convert_half_rtz(d[i]); o[6] = convert_half_rtp(d[i]);\n"
    "  o[7] = convert_half_rtn(d[i]);\n"
    "  o[8] = convert_half(n[i]); o[9] = convert_half_rtz(n[i]); o[10] = convert_half_rtp(n[i]);\n"
    "  o[11] = convert_half_rtn(n[i]);\n"
    "  half4 v = (half4)(h[i]);\n"
    "  int4 r = (int4)(convert_int_sat_rte(h[i]), convert_int_rtz(h[i]), convert_char_sat_rtp(h[i]),\n"
    "                  convert_uchar_sat_rtn(h[i]));\n"
    "  vstore4(r + convert_int4_sat(v) * 0, i, ints);\n"
    "}\n";

static void test_conversions(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  static float f[N];
  static double d[N];
  static cl_int n[N], ints[4 * N];
  static cl_ushort h[N], out[12 * N];
  cl_uint seed = 2024;
  interesting_halves(h, N);
  for (int i = 0; i < N; i++) {
    cl_uint r = kiln_test_random(&seed);
    /* Around half's range, with bits below half's precision. */
    f[i] = ldexpf(1.0f + (float)(r & 0xfffff) / 1048576.0f, (int)(r >> 20) % 44 - 28) * ((r >> 31) ? -1.0f : 1.0f);
    d[i] = (double)f[i] + ldexp((double)(kiln_test_random(&seed) & 0xffff), -40) * f[i];
    n[i] = (cl_int)kiln_test_random(&seed) >> (kiln_test_random(&seed) % 31);
  }
  f[0] = 65520.0f; f[1] = -65520.0f; f[2] = 65519.0f; f[3] = 1e-8f; f[4] = -3e-8f; f[5] = NAN; f[6] = INFINITY;
  d[0] = 65504.0000001; d[1] = -1e300; d[2] = 0x1.0020000000001p0; d[3] = 0x1.002p0; d[4] = 1e-9;
  n[0] = 65504; n[1] = 65520; n[2] = -65535; n[3] = 2049; n[4] = INT32_MIN; n[5] = 4097;
  bt_run_source(env, convert_source, BT_CL30, "k", N, 0,
                BT_ARGS(BT_IN(f, sizeof f), BT_IN(d, sizeof d), BT_IN(n, sizeof n), BT_IN(h, sizeof h),
                        BT_OUT(out, sizeof out), BT_OUT(ints, sizeof ints)));
  for (int i = 0; i < N; i++) {
    long double src[3] = {f[i], d[i], n[i]};
    for (int s = 0; s < 3; s++)
      for (int m = 0; m < 4; m++) {
        host_half want = round_to(src[s], m);
        if (!same_half(out[12 * i + 4 * s + m], want))
          fail_msg("source %d mode %d of %La: got %#06x, want %#06x", s, m, src[s], out[12 * i + 4 * s + m],
                   bits_of(want));
      }
    float x = (float)from_bits(h[i]);
    double sat_rte = x != x ? 0 : fmin(fmax(rint(x), INT32_MIN), INT32_MAX);
    double rtp_char = x != x ? 0 : fmin(fmax(ceil(x), -128), 127), rtn_uchar = x != x ? 0 : fmin(fmax(floor(x), 0), 255);
    assert_int_equal((cl_int)sat_rte, ints[4 * i]);
    if (isfinite(x) && fabs(x) < 2147483648.0) assert_int_equal((cl_int)trunc(x), ints[4 * i + 1]);
    assert_int_equal((cl_int)rtp_char, ints[4 * i + 2]);
    assert_int_equal((cl_int)rtn_uchar, ints[4 * i + 3]);
  }
}

static const char *misc_source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void k(global const half *in, global half *out, global short *flags) {\n"
    "  size_t i = get_global_id(0);\n"
    "  half4 v = vload4(i, in), w = v.wzyx;\n"
    "  half4 sel = select(v, w, isgreater(v, w));\n"
    "  vstore4(sel, i, out);\n"
    "  global half *o = out + 4 * get_global_size(0) + 4 * i;\n"
    "  o[0] = dot(v, w); o[1] = length(v.xy); o[2] = clamp(v.x, (half)-1.0h, (half)1.0h);\n"
    "  o[3] = work_group_reduce_max(v.x) + sub_group_reduce_add(v.y) * (half)0;\n"
    "  short4 f = isnan(v) | (isinf(v) << 1) | (signbit(v) << 2);\n"
    "  vstore4(f, i, flags);\n"
    "}\n";

static void test_relational_common_geometric_collectives(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256, LOCAL = 64 };
  static cl_ushort in[4 * N], out[8 * N];
  static cl_short flags[4 * N];
  interesting_halves(in, 4 * N);
  for (int i = 20; i < 4 * N; i++) /* finite values of moderate size after the special ones */
    in[i] = bits_of((host_half)((float)(kiln_test_random(&(cl_uint){(cl_uint)i}) % 2000) / 100.0f - 10.0f));
  bt_run_source(env, misc_source, BT_CL30, "k", N, LOCAL,
                BT_ARGS(BT_IN(in, sizeof in), BT_OUT(out, sizeof out), BT_OUT(flags, sizeof flags)));
  for (int i = 0; i < N; i++) {
    float v[4], w[4];
    for (int k = 0; k < 4; k++) v[k] = (float)from_bits(in[4 * i + k]);
    for (int k = 0; k < 4; k++) w[k] = v[3 - k];
    for (int k = 0; k < 4; k++) {
      host_half want = (host_half)(v[k] > w[k] ? w[k] : v[k]);
      if (!same_half(out[4 * i + k], want)) fail_msg("select item %d lane %d", i, k);
      cl_short fl = (cl_short)((isnan(v[k]) ? -1 : 0) | (isinf(v[k]) ? -2 : 0) | (signbit(v[k]) ? -4 : 0)); /* -1 << n */
      assert_int_equal(fl, flags[4 * i + k]);
    }
    if (i < 5) continue; /* the special values' dot products are NaN or infinite */
    const cl_ushort *o = out + 4 * N + 4 * i;
    double dot = 0;
    for (int k = 0; k < 4; k++) dot += (double)v[k] * w[k];
    if (half_ulps(from_bits(o[0]), dot) > 2 + 4 && fabs(dot) > 1e-2) fail_msg("dot item %d", i);
    if (half_ulps(from_bits(o[1]), hypot(v[0], v[1])) > 2.5) fail_msg("length item %d", i);
    assert_int_equal(bits_of((host_half)fminf(fmaxf(v[0], -1.0f), 1.0f)), o[2]);
    float group_max = -INFINITY;
    for (int k = i / LOCAL * LOCAL; k < i / LOCAL * LOCAL + LOCAL; k++) {
      float x = (float)from_bits(in[4 * k]);
      group_max = x > group_max ? x : group_max;
    }
    if (i / LOCAL > 0 && !same_half(o[3], (host_half)group_max)) fail_msg("work_group_reduce_max item %d", i);
  }
}

static const char *image_source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void fill(write_only image2d_t im, global const half *in) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);\n"
    "  write_imageh(im, (int2)(x, y), vload4(y * w + x, in));\n"
    "}\n"
    "kernel void read(read_only image2d_t im, global half *out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);\n"
    "  half4 a = read_imageh(im, (int2)(x, y)), b = read_imageh(im, s, (float2)(x + 0.5f, y + 0.5f));\n"
    "  vstore4(a, 2 * (y * w + x), out); vstore4(b, 2 * (y * w + x) + 1, out);\n"
    "}\n";

/* read_imageh/write_imageh on an RGBA HALF_FLOAT image: every half survives the round trip. */
static void test_images(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 32, H = 8 };
  static cl_ushort in[4 * W * H], out[8 * W * H];
  interesting_halves(in, 4 * W * H);
  cl_int err;
  cl_image_format format = {CL_RGBA, CL_HALF_FLOAT};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
  assert_cl_success(err);
  cl_program program = bt_build(env, image_source, BT_CL30);
  cl_kernel fill = clCreateKernel(program, "fill", &err), read = clCreateKernel(program, "read", &err);
  assert_cl_success(err);
  cl_mem src = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  assert_cl_success(err);
  cl_mem dst = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(fill, 0, sizeof image, &image));
  assert_cl_success(clSetKernelArg(fill, 1, sizeof src, &src));
  assert_cl_success(clSetKernelArg(read, 0, sizeof image, &image));
  assert_cl_success(clSetKernelArg(read, 1, sizeof dst, &dst));
  size_t global[2] = {W, H};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, fill, 2, NULL, global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, read, 2, NULL, global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, dst, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int p = 0; p < W * H; p++)
    for (int c = 0; c < 4; c++)
      for (int form = 0; form < 2; form++)
        if (!same_half(out[8 * p + 4 * form + c], from_bits(in[4 * p + c])))
          fail_msg("pixel %d channel %d form %d: got %#06x, wrote %#06x", p, c, form, out[8 * p + 4 * form + c],
                   in[4 * p + c]);
  assert_cl_success(clReleaseMemObject(src));
  assert_cl_success(clReleaseMemObject(dst));
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseKernel(fill));
  assert_cl_success(clReleaseKernel(read));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queries),     cmocka_unit_test(test_arithmetic),
      cmocka_unit_test(test_math_exhaustive), cmocka_unit_test(test_conversions),
      cmocka_unit_test(test_relational_common_geometric_collectives),
      cmocka_unit_test(test_images),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
