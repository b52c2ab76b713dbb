/* The generic address space (__opencl_c_generic_address_space) through the loader: unqualified
 * pointers to global, local (argument and kernel-scope), private and program-scope memory;
 * to_global, to_local, to_private and get_fence on each, in kernels without barriers, with
 * barriers (private values kept in the launcher's frames), with a loop (whole-function
 * vectorization) and unoptimized; writes through generic pointers; generic-pointer atomics
 * on global and local memory; and pointer builtins (fract, vload/vstore) given generic
 * pointers. */
#include "builtins_harness.h"

/* Each classified pointer yields bits: 1 to_global, 2 to_local, 4 to_private non-null,
 * then get_fence << 4. */
#define G (1 | (2 /* CLK_GLOBAL_MEM_FENCE */ << 4))
#define L (2 | (1 /* CLK_LOCAL_MEM_FENCE */ << 4))
#define P (4 | (2 << 4))

static const char *classify_source =
    "global int program_var = 5;\n"
    "int classify(int *p) {\n"
    "  int r = 0;\n"
    "  if (to_global(p)) { r |= 1; if (to_global(p) != (global int *)p) r |= 256; }\n"
    "  if (to_local(p)) { r |= 2; if (to_local(p) != (local int *)p) r |= 256; }\n"
    "  if (to_private(p)) { r |= 4; if (to_private(p) != (private int *)p) r |= 256; }\n"
    "  return r | (int)get_fence(p) << 4;\n"
    "}\n"
    "void bump(int *p, int by) { *p += by; }\n"
    "kernel void plain(global int *g, local int *l, global int *out) {\n"
    "  local int scratch[4];\n"
    "  int priv[3] = {1, 2, 3};\n"
    "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
    "  l[lid] = 10; scratch[lid % 4] = 20;\n"
    "  global int *o = out + 8 * i;\n"
    "  o[0] = classify(g + i); o[1] = classify(l + lid); o[2] = classify(scratch + lid % 4);\n"
    "  o[3] = classify(priv + i % 3); o[4] = classify(&program_var);\n"
    "  bump(g + i, 1); bump(l + lid, 2); bump(priv + i % 3, 4);\n"
    "  o[5] = l[lid]; o[6] = priv[i % 3];\n"
    "  o[7] = to_global((int *)0) == 0 && to_local((int *)0) == 0 && to_private((int *)0) == 0;\n"
    "}\n"
    /* The private array lives across the barrier: it is kept in the launcher's frames. */
    "kernel void barriers(global int *g, local int *l, global int *out) {\n"
    "  int priv[3] = {1, 2, 3};\n"
    "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
    "  int *pp = priv + i % 3, *pl = l + lid, *pg = g + i;\n"
    "  *pl = 7;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  global int *o = out + 8 * i;\n"
    "  o[0] = classify(pg); o[1] = classify(pl); o[2] = classify(pp);\n"
    "  *pp += (int)lid; o[3] = priv[i % 3];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  o[4] = classify(pp); o[5] = classify(l + (lid + 1) % get_local_size(0)); o[6] = *pp; o[7] = 0;\n"
    "}\n"
    /* A loop in the body: whole-function vectorization runs vectors of work-items. */
    "kernel void looped(global int *g, local int *l, global int *out, int n) {\n"
    "  int priv[4] = {0, 0, 0, 0};\n"
    "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
    "  int acc = 0;\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    int *p = (k % 3 == 0) ? (int *)(g + i) : (k % 3 == 1) ? (int *)(l + lid) : (int *)(priv + (k & 3));\n"
    "    acc |= classify(p) << (8 * (k % 3));\n"
    "  }\n"
    "  out[8 * i] = acc;\n"
    "}\n";

static void check_classify(struct kiln_test_env *env, const char *kernel, const char *options, size_t local) {
  enum { N = 128 };
  static cl_int g[N], out[8 * N];
  for (int i = 0; i < N; i++) g[i] = 100 + i;
  memset(out, 0xff, sizeof out);
  cl_program program = bt_build(env, classify_source, options);
  cl_int n = 7;
  if (strcmp(kernel, "looped") == 0)
    bt_run(env, program, kernel, N, local,
           BT_ARGS(BT_OUT(g, sizeof g), BT_LOCAL(local * sizeof(cl_int)), BT_OUT(out, sizeof out), BT_VAL(n)));
  else
    bt_run(env, program, kernel, N, local, BT_ARGS(BT_OUT(g, sizeof g), BT_LOCAL(local * sizeof(cl_int)), BT_OUT(out, sizeof out)));
  assert_cl_success(clReleaseProgram(program));
  for (int i = 0; i < N; i++) {
    const cl_int *o = out + 8 * i;
    int lid = i % (int)local;
    if (strcmp(kernel, "plain") == 0) {
      cl_int want[8] = {G, L, L, P, G, 12, (i % 3) + 1 + 4, 1};
      for (int k = 0; k < 8; k++)
        if (o[k] != want[k]) fail_msg("%s %s: item %d value %d = %#x, want %#x", kernel, options, i, k, o[k], want[k]);
      assert_int_equal(100 + i + 1, g[i]);
    } else if (strcmp(kernel, "barriers") == 0) {
      cl_int want[8] = {G, L, P, (i % 3) + 1 + lid, P, L, (i % 3) + 1 + lid, 0};
      for (int k = 0; k < 8; k++)
        if (o[k] != want[k]) fail_msg("%s %s: item %d value %d = %#x, want %#x", kernel, options, i, k, o[k], want[k]);
    } else {
      cl_int want = G | L << 8 | P << 16;
      if (o[0] != want) fail_msg("%s %s: item %d = %#x, want %#x", kernel, options, i, o[0], want);
    }
  }
}

static void test_classify_plain(void **state) {
  check_classify(*state, "plain", BT_CL30, 16);
  check_classify(*state, "plain", BT_CL30, 1);
}
static void test_classify_barriers(void **state) {
  check_classify(*state, "barriers", BT_CL30, 16);
  check_classify(*state, "barriers", BT_CL30, 32);
}
static void test_classify_looped(void **state) { check_classify(*state, "looped", BT_CL30, 64); }
static void test_classify_unoptimized(void **state) {
  check_classify(*state, "plain", BT_CL30 " -cl-opt-disable", 16);
  check_classify(*state, "barriers", BT_CL30 " -cl-opt-disable", 16);
}

/* Generic pointers are an OpenCL C 3.0 feature: a 1.2 program cannot name them. */
static void test_not_in_cl12(void **state) {
  struct kiln_test_env *env = *state;
  const char *source = "kernel void k(global int *g) { generic int *p = g; *p = 1; }";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, BT_CL12, NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

static const char *atomics_source =
    "kernel void k(global atomic_int *g, global int *out) {\n"
    "  local atomic_int l;\n"
    "  if (get_local_id(0) == 0) atomic_init(&l, 0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_int *pg = g, *pl = &l;\n"
    "  atomic_fetch_add(pg, 1);\n"
    "  atomic_fetch_add_explicit(pl, 2, memory_order_relaxed, memory_scope_work_group);\n"
    "  int expected = 0;\n"
    "  atomic_compare_exchange_strong(pg + 1, &expected, 1);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) out[get_group_id(0)] = atomic_load(pl);\n"
    "}\n";

static void test_generic_atomics(void **state) {
  enum { N = 1024, LOCAL = 64 };
  cl_int g[2] = {0, 0}, out[N / LOCAL];
  memset(out, 0, sizeof out);
  bt_run_source(*state, atomics_source, BT_CL30, "k", N, LOCAL, BT_ARGS(BT_OUT(g, sizeof g), BT_OUT(out, sizeof out)));
  assert_int_equal(N, g[0]);
  assert_int_equal(1, g[1]);
  for (int i = 0; i < N / LOCAL; i++) assert_int_equal(2 * LOCAL, out[i]);
}

static const char *builtins_source =
    "kernel void k(global const float *x, global float *out, local float *l) {\n"
    "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
    "  float ip_private;\n"
    "  float *gp = out + 4 * i + 1, *lp = l + lid, *pp = &ip_private;\n"
    "  out[4 * i] = fract(x[i], pp) + fract(x[i], lp) * 0.0f + fract(x[i], gp) * 0.0f;\n"
    "  out[4 * i + 2] = ip_private + *lp;\n"
    "  float4 v = vload4(0, (float *)(out + 4 * i));\n"
    "  float *pair = l + get_local_size(0) + 2 * lid;\n"
    "  vstore2(v.xy, 0, pair);\n"
    "  out[4 * i + 3] = vload2(0, (const float *)pair).y;\n"
    "}\n";

static void test_pointer_builtins(void **state) {
  enum { N = 64, LOCAL = 16 };
  static float x[N], out[4 * N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.75f - 20.3f;
  bt_run_source(*state, builtins_source, BT_CL30, "k", N, LOCAL,
                BT_ARGS(BT_IN(x, sizeof x), BT_OUT(out, sizeof out), BT_LOCAL(3 * LOCAL * sizeof(float))));
  for (int i = 0; i < N; i++) {
    float ip = floorf(x[i]), fr = fminf(x[i] - ip, 0x1.fffffep-1f);
    if (out[4 * i] != fr || out[4 * i + 1] != ip || out[4 * i + 2] != 2 * ip || out[4 * i + 3] != ip)
      fail_msg("item %d: x=%g got %g %g %g %g, want %g %g %g %g", i, x[i], out[4 * i], out[4 * i + 1], out[4 * i + 2],
               out[4 * i + 3], fr, ip, 2 * ip, ip);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_classify_plain),    cmocka_unit_test(test_classify_barriers),
      cmocka_unit_test(test_classify_looped),   cmocka_unit_test(test_classify_unoptimized),
      cmocka_unit_test(test_not_in_cl12),       cmocka_unit_test(test_generic_atomics),
      cmocka_unit_test(test_pointer_builtins),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
