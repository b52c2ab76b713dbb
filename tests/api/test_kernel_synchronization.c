/* Synchronization, async copies and program-scope variables through the loader:
 * barrier(CLK_LOCAL_MEM_FENCE / CLK_GLOBAL_MEM_FENCE) and, under OpenCL C 3.0,
 * work_group_barrier with and without a scope separating phases of a kernel (prefix sums
 * in local memory, reversed writes, a neighbour's global write, barriers inside a loop),
 * for several work-group sizes and non-uniform groups; mem_fence / read_mem_fence /
 * write_mem_fence; async_work_group_copy and async_work_group_strided_copy in both
 * directions with chained events, wait_group_events and prefetch; program-scope global
 * variables (initialized, zero-initialized, written by one launch and read by the next,
 * static variables in functions) and CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE; values of
 * several sizes kept per work-item across barriers, masked tree updates of local arrays;
 * regions whose work-items past a guard on the local id are skipped; a comparison kept
 * across a barrier from a widened region into a scalar one. */
#include "builtins_harness.h"

/* BL: a barrier with the local fence, BG: with the global fence. */
static const char *phases_source =
    "kernel void phases(global const int *in, global int *out, global int *gout, global int *out2,\n"
    "                   global int *out3, local int *tmp) {\n"
    "  size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0), base = g - l;\n"
    "  tmp[l] = in[g];\n"
    "  BL;\n"
    "  int s = 0;\n"
    "  for (size_t k = 0; k <= l; k++) s += tmp[k];\n"
    "  BL;\n"
    "  tmp[n - 1 - l] = s;\n"
    "  BL;\n"
    "  out[g] = tmp[l];\n"
    "  gout[g] = s * 3;\n"
    "  BG;\n"
    "  out2[g] = gout[base + (l + 1) % n];\n"
    "  mem_fence(CLK_LOCAL_MEM_FENCE);\n"
    "  read_mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  write_mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  for (int r = 0; r < 3; r++) {\n"
    "    tmp[l] = s + r;\n"
    "    BL;\n"
    "    s = tmp[(l + 1) % n];\n"
    "    BL;\n"
    "  }\n"
    "  out3[g] = s;\n"
    "}\n";

static void check_phases(struct kiln_test_env *env, const char *defines, const char *options, size_t global,
                         size_t local) {
  char source[4096];
  snprintf(source, sizeof source, "%s%s", defines, phases_source);
  cl_int *in = malloc(global * sizeof *in), *out = malloc(global * sizeof *in), *gout = malloc(global * sizeof *in);
  cl_int *out2 = malloc(global * sizeof *in), *out3 = malloc(global * sizeof *in), *prefix = malloc(local * sizeof *in);
  uint64_t seed = global * 31 + local;
  for (size_t i = 0; i < global; i++) in[i] = (cl_int)(bt_random(&seed) % 2001) - 1000;
  memset(out, 0, global * sizeof *in), memset(out2, 0, global * sizeof *in), memset(out3, 0, global * sizeof *in);
  memset(gout, 0, global * sizeof *in);
  bt_run_source(env, source, options, "phases", global, local,
                BT_ARGS(BT_IN(in, global * sizeof *in), BT_OUT(out, global * sizeof *in), BT_OUT(gout, global * sizeof *in),
                        BT_OUT(out2, global * sizeof *in), BT_OUT(out3, global * sizeof *in),
                        BT_LOCAL(local * sizeof(cl_int))));
  for (size_t base = 0; base < global; base += local) {
    size_t n = global - base < local ? global - base : local; /* the last group may be partial */
    int s = 0;
    for (size_t l = 0; l < n; l++) prefix[l] = s += in[base + l];
    for (size_t l = 0; l < n; l++) {
      size_t g = base + l;
      if (out[g] != prefix[n - 1 - l] || out2[g] != 3 * prefix[(l + 1) % n] || out3[g] != prefix[(l + 3) % n] + 3)
        fail_msg("%s global %zu local %zu item %zu: got %d %d %d, want %d %d %d", options, global, local, g, out[g], out2[g],
                 out3[g], prefix[n - 1 - l], 3 * prefix[(l + 1) % n], prefix[(l + 3) % n] + 3);
    }
  }
  free(in), free(out), free(gout), free(out2), free(out3), free(prefix);
}

static const char *barriers_cl12 = "#define BL barrier(CLK_LOCAL_MEM_FENCE)\n#define BG barrier(CLK_GLOBAL_MEM_FENCE)\n";
static const char *barriers_cl30 =
    "#define BL work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group)\n"
    "#define BG work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)\n";

static void test_barrier_cl12(void **state) {
  check_phases(*state, barriers_cl12, BT_CL12, 4096, 64);
  check_phases(*state, barriers_cl12, BT_CL12, 4096, 256);
  check_phases(*state, barriers_cl12, BT_CL12, 4096, 1);
  check_phases(*state, barriers_cl12, BT_CL12, 4095, 13);
}

static void test_work_group_barrier_cl30(void **state) {
  check_phases(*state, barriers_cl30, BT_CL30, 4096, 64);
  check_phases(*state, barriers_cl30, BT_CL30, 1000, 64); /* non-uniform: the last group has 40 */
  check_phases(*state, barriers_cl30, BT_CL30, 1001, 7);
  check_phases(*state, barriers_cl30, BT_CL30, 300, 256); /* 256 + 44 */
}

/* 2D: a barrier in a group of 8 x 4 transposes a tile through local memory. */
static const char *transpose_source =
    "kernel void transpose(global const int *in, global int *out, local int *tile) {\n"
    "  size_t x = get_local_id(0), y = get_local_id(1), w = get_local_size(0), h = get_local_size(1);\n"
    "  size_t gx = get_global_id(0), gy = get_global_id(1), W = get_global_size(0);\n"
    "  tile[y * w + x] = in[gy * W + gx];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  size_t k = y * w + x;\n" /* this item's linear position reads the transposed tile */
    "  out[gy * W + gx] = tile[(k % h) * w + k / h];\n"
    "}\n";

static void test_barrier_2d(void **state) {
  enum { W = 32, H = 16, LW = 8, LH = 4 };
  cl_int in[W * H], out[W * H];
  for (int i = 0; i < W * H; i++) in[i] = i * 3 + 1;
  cl_program program = bt_build(*state, transpose_source, BT_CL12);
  size_t global[2] = {W, H}, local[2] = {LW, LH};
  bt_launch(*state, program, "transpose", 2, NULL, global, local,
            BT_ARGS(BT_IN(in, sizeof in), BT_OUT(out, sizeof out), BT_LOCAL(LW * LH * sizeof(cl_int))));
  for (int gy = 0; gy < H; gy++)
    for (int gx = 0; gx < W; gx++) {
      int x = gx % LW, y = gy % LH, k = y * LW + x;
      int tx = k / LH, ty = k % LH; /* tile[ty * LW + tx] came from local (tx, ty) */
      int want = in[(gy - y + ty) * W + (gx - x + tx)];
      assert_int_equal(out[gy * W + gx], want);
    }
  assert_cl_success(clReleaseProgram(program));
}

/* Values kept across barriers once per group (uniform) or per work-item: the strides and
 * round count of a tree reduction over any group size (uniform, updated and read again
 * within one region), a loop each work-item leaves at its own iteration (its counter is
 * the same for all work-items inside the loop, not after it), and a value chosen by a
 * branch on the local id (uniform operands, divergent choice). */
static const char *uniform_source =
    "kernel void uniform_values(global const int *in, global int *out, local int *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n"
    "  tmp[l] = in[g];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  size_t prev = n, s = (n + 1) / 2;\n"
    "  int rounds = 0;\n"
    "  while (prev > 1) {\n"
    "    if (l < prev - s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    prev = s;\n"
    "    s = (s + 1) / 2;\n"
    "    rounds++;\n"
    "  }\n"
    "  int sum = tmp[0];\n"
    "  uint t = 1;\n"
    "  size_t k = 0;\n"
    "  while (k < l) { t = t * 3u + (uint)k; k++; }\n"
    "  size_t m;\n"
    "  if (l & 1) { m = n * 2; out[4 * g + 3] = -1; } else { m = n * 3; }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[4 * g] = sum;\n"
    "  out[4 * g + 1] = rounds;\n"
    "  out[4 * g + 2] = (int)(t + (uint)k);\n"
    "  out[4 * g + 3] = (int)m;\n"
    "}\n";

static void check_uniform_values(struct kiln_test_env *env, const char *options, size_t global, size_t local) {
  cl_int *in = malloc(global * sizeof *in), *out = calloc(4 * global, sizeof *out);
  for (size_t i = 0; i < global; i++) in[i] = (cl_int)(i % 97) - 40;
  bt_run_source(env, uniform_source, options, "uniform_values", global, local,
                BT_ARGS(BT_IN(in, global * sizeof *in), BT_OUT(out, 4 * global * sizeof *out),
                        BT_LOCAL(local * sizeof(cl_int))));
  for (size_t base = 0; base < global; base += local) {
    size_t n = global - base < local ? global - base : local;
    int sum = 0, rounds = 0;
    for (size_t l = 0; l < n; l++) sum += in[base + l];
    for (size_t prev = n; prev > 1; prev = (prev + 1) / 2) rounds++;
    for (size_t l = 0; l < n; l++) {
      size_t g = base + l;
      unsigned t = 1;
      for (size_t k = 0; k < l; k++) t = t * 3u + (unsigned)k;
      int want[4] = {sum, rounds, (int)(t + (unsigned)l), (int)(l & 1 ? n * 2 : n * 3)};
      for (int i = 0; i < 4; i++)
        if (out[4 * g + i] != want[i])
          fail_msg("%s: global %zu local %zu item %zu value %d: got %d, want %d", options, global, local, g, i,
                   out[4 * g + i], want[i]);
    }
  }
  free(in), free(out);
}

static void test_uniform_values_across_barriers(void **state) {
  /* OpenCL C 3.0 for non-uniform groups; unoptimized, the uniform buffers stay in memory. */
  static const char *options[] = {BT_CL30, BT_CL30 " -cl-opt-disable"};
  for (int o = 0; o < 2; o++) {
    check_uniform_values(*state, options[o], 4096, 256);
    check_uniform_values(*state, options[o], 4096, 64);
    check_uniform_values(*state, options[o], 4090, 13); /* non-uniform: the last group has 8 */
    check_uniform_values(*state, options[o], 1000, 7);
    check_uniform_values(*state, options[o], 300, 1);
  }
}

/* Values of several sizes kept per work-item across barriers (a char, a long, an int4, a
 * private array: each has its own column of the frames, one element per work-item), and a
 * tree reduction over local arrays of bytes, ints and longs whose vectorized updates are
 * masked by the local id (local_masked_access.cpp: whole-vector loads and stores of local
 * memory, skipped when no lane is active). */
static const char *mixed_source =
    "kernel void mixed(global const int *in, global long *out, local uchar *lc, local int *li, local long *ll) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n"
    "  uchar c = (uchar)(in[g] * 7);\n"
    "  long d = (long)in[g] << 33;\n"
    "  int4 v = (int4)(in[g], in[g] + 1, in[g] * 2, -in[g]);\n"
    "  int priv[5];\n"
    "  for (int k = 0; k < 5; k++) priv[k] = in[g] + k * (int)l;\n"
    "  lc[l] = c; li[l] = in[g]; ll[l] = d;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t prev = n, s = (n + 1) / 2; prev > 1; prev = s, s = (s + 1) / 2) {\n"
    "    if (l < prev - s) { lc[l] ^= lc[l + s]; li[l] += li[l + s]; ll[l] += ll[l + s]; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[3 * g] = (long)lc[0] + c;\n"
    "  out[3 * g + 1] = li[0] + v.x + v.y + v.z + v.w + priv[l % 5];\n"
    "  out[3 * g + 2] = ll[0] + d;\n"
    "}\n";

static void check_mixed(struct kiln_test_env *env, size_t global, size_t local) {
  cl_int *in = malloc(global * sizeof *in);
  cl_long *out = calloc(3 * global, sizeof *out);
  for (size_t i = 0; i < global; i++) in[i] = (cl_int)(i * 37 % 1001) - 500;
  bt_run_source(env, mixed_source, BT_CL12, "mixed", global, local,
                BT_ARGS(BT_IN(in, global * sizeof *in), BT_OUT(out, 3 * global * sizeof *out), BT_LOCAL(local),
                        BT_LOCAL(local * sizeof(cl_int)), BT_LOCAL(local * sizeof(cl_long))));
  for (size_t base = 0; base < global; base += local) {
    size_t n = global - base < local ? global - base : local;
    unsigned char x = 0;
    cl_int sum = 0;
    cl_long lsum = 0;
    for (size_t l = 0; l < n; l++) {
      x ^= (unsigned char)(in[base + l] * 7);
      sum += in[base + l];
      lsum += (cl_long)in[base + l] * ((cl_long)1 << 33);
    }
    for (size_t l = 0; l < n; l++) {
      cl_int i = in[base + l];
      cl_long want[3] = {(cl_long)x + (unsigned char)(i * 7), (cl_long)sum + i + (i + 1) + 2 * i - i + i + (cl_int)(l % 5) * (cl_int)l,
                         lsum + i * ((cl_long)1 << 33)};
      for (int k = 0; k < 3; k++)
        if (out[3 * (base + l) + k] != want[k])
          fail_msg("global %zu local %zu item %zu value %d: got %lld, want %lld", global, local, base + l, k,
                   (long long)out[3 * (base + l) + k], (long long)want[k]);
    }
  }
  free(in), free(out);
}

static void test_mixed_frames_and_masked_local_updates(void **state) {
  check_mixed(*state, 4096, 256);
  check_mixed(*state, 4096, 64);
  check_mixed(*state, 999, 37); /* 27 groups of 37 */
  check_mixed(*state, 64, 1);
}

/* A comparison kept across a barrier (an i1 in the work-items' frames, a byte each) by a
 * region the work-item vectorizer widens and read by one it does not (a loop some lanes
 * leave early): each work-item must read its own answer. Vectors of i1 are bit-packed, so
 * the widened region once stored 8 or 16 answers in a byte or two and the scalar one read
 * other work-items' bits. */
static void test_flags_across_barrier_widened_then_scalar(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void flags(global int *res, global const int *in) {\n"
      "  bool big = in[get_global_id(0)] > 5;\n"
      "  int v = in[get_global_id(0)];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  for (int i = 0; i < v; i++) {\n"
      "    if (in[i] == 100) break;\n"
      "    if (in[i + 1] == 101) return;\n"
      "    res[get_global_id(0)] += big ? 1 : 2;\n"
      "  }\n"
      "}\n";
  enum { N = 256 };
  cl_int in[N + 1], res[N];
  for (int i = 0; i <= N; i++) in[i] = (i * 7) % 11;
  cl_program program = bt_build(env, source, "");
  for (size_t local = 4; local <= 64; local *= 2) {
    memset(res, 0, sizeof res);
    bt_run(env, program, "flags", N, local, BT_ARGS(BT_OUT(res, sizeof res), BT_IN(in, sizeof in)));
    for (int i = 0; i < N; i++)
      if (res[i] != in[i] * (in[i] > 5 ? 1 : 2)) fail_msg("local %zu, work-item %d: %d", local, i, res[i]);
  }
  assert_cl_success(clReleaseProgram(program));
}

/* Regions whose every effect sits behind a guard on the local x id (idle_work_items.cpp:
 * the launcher stops a row where the guards say the rest does nothing): every guard form
 * (<, <=, == beyond the first vector, signed with a negative bound, the false edge of >=,
 * one side of &&), bounds of 0 and SIZE_MAX, a bound raised by a loop inside the region, a
 * per-group bound read from memory (in the region, or before a barrier: no bound), a guard reached by some work-items only (no bound),
 * a divergent test under a guard, two guards in one region, and along x a bound that
 * depends on the row (2D). Whole vectors below every guard's bound run a copy without the
 * guards (c = 40: x 16..31).
 * Each region adds its own bit to the work-item's local word. */
static const char *guards_source =
    "kernel void guards(global const int *in, global int *out, global const int *limits, int c, int s, local int *t) {\n"
    "  size_t l = get_local_id(0);\n"
    "  int li = (int)l, g = (int)get_group_id(0), lim = limits[g]; /* kept in frames: no bound */\n"
    "  t[l] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < (size_t)c) t[l] |= 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l <= (size_t)c) t[l] |= 2;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (li < s) t[l] |= 4;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (li <= s) t[l] |= 8;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == (size_t)c) t[l] |= 16;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l >= (size_t)c) { } else if (in[l] % 3 != 0) t[l] |= 32;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int k = 0; k < 3; k++) if (li < c + 20 * k) t[l] += 64;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (li < limits[g] && in[l] > 0) t[l] |= 1024;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (li < lim) t[l] |= 4096;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < (size_t)c) t[l] |= 8192;\n"
    "  if (li < s) t[l] |= 16384;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (in[l] >= 100) { if (li < c) t[l] |= 2048; }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = t[l];\n"
    "}\n"
    "kernel void rows(global int *out, int c) {\n"
    "  local int t[8][32];\n"
    "  size_t x = get_local_id(0), y = get_local_id(1);\n"
    "  t[y][x] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (x < y * 5) t[y][x] |= 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (x == y * 4 + (size_t)c) t[y][x] |= 2;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[y][x];\n"
    "}\n";

static void check_guards(struct kiln_test_env *env, cl_program program, size_t global, size_t local, cl_int c,
                         cl_int s) {
  size_t groups = (global + local - 1) / local;
  cl_int *in = malloc(local * sizeof *in), *out = calloc(global, sizeof *out), *limits = malloc(groups * sizeof *limits);
  for (size_t i = 0; i < local; i++) in[i] = i < 35 ? (cl_int)(i * 7 % 11) - 3 : (cl_int)i + 100;
  for (size_t g = 0; g < groups; g++) limits[g] = (cl_int)(g * 13 % 70) - 5;
  bt_run(env, program, "guards", global, local,
         BT_ARGS(BT_IN(in, local * sizeof *in), BT_OUT(out, global * sizeof *out), BT_IN(limits, groups * sizeof *limits),
                 BT_VAL(c), BT_VAL(s), BT_LOCAL(local * sizeof(cl_int))));
  for (size_t i = 0; i < global; i++) {
    size_t l = i % local, uc = (size_t)(long)c; /* as the kernel's (size_t)c */
    int li = (int)l, want = 0;
    if (l < uc) want |= 1;
    if (l <= uc) want |= 2;
    if (li < s) want |= 4;
    if (li <= s) want |= 8;
    if (l == uc) want |= 16;
    if (l < uc && in[l] % 3 != 0) want |= 32;
    for (int k = 0; k < 3; k++)
      if ((long)li < (long)c + 20 * k) want += 64;
    if (li < limits[i / local] && in[l] > 0) want |= 1024;
    if (in[l] >= 100 && li < c) want |= 2048;
    if (li < limits[i / local]) want |= 4096;
    if (l < uc) want |= 8192;
    if (li < s) want |= 16384;
    if (out[i] != want)
      fail_msg("global %zu local %zu c %d s %d: item %zu got %#x, want %#x", global, local, c, s, i, out[i], want);
  }
  free(in), free(out), free(limits);
}

static void test_idle_work_items_skipped(void **state) {
  cl_program program = bt_build(*state, guards_source, BT_CL12);
  static const cl_int bounds[][2] = {{0, -3}, {5, 0}, {16, 17}, {17, 16}, {40, 100}, {-1, 31}, {255, 255}, {33, 1}};
  for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
    check_guards(*state, program, 1024, 256, bounds[b][0], bounds[b][1]);
    check_guards(*state, program, 999, 37, bounds[b][0], bounds[b][1]);
    check_guards(*state, program, 128, 64, bounds[b][0], bounds[b][1]);
  }
  enum { W = 64, H = 16, LW = 32, LH = 8 };
  for (cl_int c = 0; c < 4; c++) {
    cl_int out[W * H];
    size_t global[2] = {W, H}, local[2] = {LW, LH};
    bt_launch(*state, program, "rows", 2, NULL, global, local, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(c)));
    for (size_t i = 0; i < W * H; i++) {
      size_t x = i % W % LW, y = i / W % LH;
      int want = (x < y * 5 ? 1 : 0) | (x == y * 4 + (size_t)c ? 2 : 0);
      if (out[i] != want) fail_msg("rows c %d: item (%zu, %zu) got %d, want %d", c, i % W, i / W, out[i], want);
    }
  }
  assert_cl_success(clReleaseProgram(program));
}

/* Per group: 100 int4 (global -> local, modified, local -> global, two copies chained on
 * one event), 100 ints gathered with stride 3 and scattered with stride 5, 37 floats. */
static const char *async_source =
    "kernel void copies(global const int4 *src, global int4 *dst, global const int *ssrc, global int *sdst,\n"
    "                   global const float *fsrc, global float *fdst, local int4 *l4, local int *li, local float *lf) {\n"
    "  size_t grp = get_group_id(0), lid = get_local_id(0), ls = get_local_size(0);\n"
    "  prefetch(src + grp * 100, 100);\n"
    "  event_t e = async_work_group_copy(l4, src + grp * 100, 100, 0);\n"
    "  e = async_work_group_copy(lf, fsrc + grp * 37, 37, e);\n"
    "  wait_group_events(1, &e);\n"
    "  for (size_t k = lid; k < 100; k += ls) l4[k] += (int4)(1, 2, 3, 4);\n"
    "  for (size_t k = lid; k < 37; k += ls) lf[k] *= 2.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  event_t out[2];\n"
    "  out[0] = async_work_group_copy(dst + grp * 100, l4, 100, 0);\n"
    "  out[1] = async_work_group_copy(fdst + grp * 37, lf, 37, 0);\n"
    "  wait_group_events(2, out);\n"
    "  e = async_work_group_strided_copy(li, ssrc + grp * 300, 100, 3, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  for (size_t k = lid; k < 100; k += ls) li[k] = -li[k];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_strided_copy(sdst + grp * 500, li, 100, 5, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n";

static void check_async(struct kiln_test_env *env, const char *options, size_t groups, size_t local) {
  size_t global = groups * local;
  cl_int *src = malloc(groups * 400 * sizeof(cl_int)), *dst = malloc(groups * 400 * sizeof(cl_int));
  cl_int *ssrc = malloc(groups * 300 * sizeof(cl_int)), *sdst = malloc(groups * 500 * sizeof(cl_int));
  float *fsrc = malloc(groups * 37 * sizeof(float)), *fdst = malloc(groups * 37 * sizeof(float));
  for (size_t i = 0; i < groups * 400; i++) src[i] = (cl_int)(i * 7 + 3), dst[i] = -1;
  for (size_t i = 0; i < groups * 300; i++) ssrc[i] = (cl_int)(i * 11 + 5);
  for (size_t i = 0; i < groups * 500; i++) sdst[i] = 0x5a5a;
  for (size_t i = 0; i < groups * 37; i++) fsrc[i] = (float)i + 0.5f, fdst[i] = -1.0f;
  bt_run_source(env, async_source, options, "copies", global, local,
                BT_ARGS(BT_IN(src, groups * 400 * sizeof(cl_int)), BT_OUT(dst, groups * 400 * sizeof(cl_int)),
                        BT_IN(ssrc, groups * 300 * sizeof(cl_int)), BT_OUT(sdst, groups * 500 * sizeof(cl_int)),
                        BT_IN(fsrc, groups * 37 * sizeof(float)), BT_OUT(fdst, groups * 37 * sizeof(float)),
                        BT_LOCAL(100 * 4 * sizeof(cl_int)), BT_LOCAL(100 * sizeof(cl_int)), BT_LOCAL(37 * sizeof(float))));
  for (size_t i = 0; i < groups * 400; i++) assert_int_equal(dst[i], src[i] + (cl_int)(i % 4) + 1);
  for (size_t i = 0; i < groups * 37; i++) assert_true(fdst[i] == 2.0f * fsrc[i]);
  for (size_t g = 0; g < groups; g++)
    for (size_t k = 0; k < 500; k++) {
      cl_int want = k % 5 ? 0x5a5a : -ssrc[g * 300 + k / 5 * 3];
      if (sdst[g * 500 + k] != want) fail_msg("strided group %zu element %zu: got %d, want %d", g, k, sdst[g * 500 + k], want);
    }
  free(src), free(dst), free(ssrc), free(sdst), free(fsrc), free(fdst);
}

static void test_async_copies(void **state) {
  check_async(*state, BT_CL12, 16, 64);
  check_async(*state, BT_CL12, 5, 128); /* more work-items than elements */
  check_async(*state, BT_CL12, 3, 1);
  check_async(*state, BT_CL30, 7, 30);
}

static const char *globals_source =
    "global int counter = 5;\n"
    "constant int table[4] = {10, 20, 30, 40};\n"
    "global float initialized[3] = {1.5f, 2.5f, -3.0f};\n"
    "global int arr[256];\n"
    "global long big[1000];\n"
    "global int *global ptr = &arr[3];\n"
    "int bump(void) { static int calls; return calls++; }\n"
    "static global int hidden = 77;\n"
    "kernel void read_initial(global int *o) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i == 0) {\n"
    "    o[0] = counter;\n"
    "    for (int k = 0; k < 4; k++) o[1 + k] = table[k];\n"
    "    for (int k = 0; k < 3; k++) o[5 + k] = as_int(initialized[k]);\n"
    "    o[8] = hidden; o[9] = (int)(ptr - arr);\n"
    "  }\n"
    "  o[16 + i] = arr[i] + (int)big[i] + (int)big[999 - i];\n"
    "}\n"
    "kernel void write(int v) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i == 0) { counter += v; hidden += 1; }\n"
    "  arr[i] = (int)(i * i);\n"
    "  big[i + 700] = (long)i << 40;\n"
    "}\n"
    "kernel void read_after(global int *o, global long *ol) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i == 0) { o[0] = counter; o[1] = hidden; o[2] = *ptr; }\n"
    "  o[16 + i] = arr[i];\n"
    "  ol[i] = big[i + 700];\n"
    "}\n"
    "kernel void call_bump(global int *o) { o[0] = bump(); o[1] = bump(); }\n";

static void test_program_scope_globals(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, globals_source, BT_CL30);
  size_t total = 0;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                          sizeof total, &total, NULL));
  /* counter, initialized, arr, big, ptr, calls, hidden (the constant table may count too) */
  assert_true(total >= 4 + 12 + 1024 + 8000 + sizeof(cl_ulong) + 4 + 4);
  cl_int o[16 + 256];
  memset(o, 0x7f, sizeof o);
  bt_run(env, program, "read_initial", 256, 64, BT_ARGS(BT_OUT(o, sizeof o)));
  assert_int_equal(o[0], 5);
  for (int k = 0; k < 4; k++) assert_int_equal(o[1 + k], 10 * (k + 1));
  assert_int_equal((uint32_t)o[5], bt_bits_of_float(1.5f));
  assert_int_equal((uint32_t)o[6], bt_bits_of_float(2.5f));
  assert_int_equal((uint32_t)o[7], bt_bits_of_float(-3.0f));
  assert_int_equal(o[8], 77);
  assert_int_equal(o[9], 3);
  for (int i = 0; i < 256; i++) assert_int_equal(o[16 + i], 0); /* zero-initialized */

  cl_int v = 1000;
  bt_run(env, program, "write", 256, 32, BT_ARGS(BT_VAL(v)));
  bt_run(env, program, "write", 256, 0, BT_ARGS(BT_VAL(v))); /* a second launch adds again */
  cl_long ol[256];
  memset(o, 0x7f, sizeof o);
  bt_run(env, program, "read_after", 256, 16, BT_ARGS(BT_OUT(o, sizeof o), BT_OUT(ol, sizeof ol)));
  assert_int_equal(o[0], 2005);
  assert_int_equal(o[1], 79);
  assert_int_equal(o[2], 9);
  for (int i = 0; i < 256; i++) {
    assert_int_equal(o[16 + i], i * i);
    assert_int_equal(ol[i], (cl_long)i << 40);
  }
  cl_int b[2];
  bt_run(env, program, "call_bump", 1, 1, BT_ARGS(BT_OUT(b, sizeof b)));
  assert_int_equal(b[0], 0);
  assert_int_equal(b[1], 1);
  bt_run(env, program, "call_bump", 1, 1, BT_ARGS(BT_OUT(b, sizeof b)));
  assert_int_equal(b[0], 2);
  assert_int_equal(b[1], 3);
  assert_cl_success(clReleaseProgram(program));

  /* a second program from the same source starts from the initial values again */
  program = bt_build(env, globals_source, BT_CL30);
  bt_run(env, program, "read_initial", 256, 0, BT_ARGS(BT_OUT(o, sizeof o)));
  assert_int_equal(o[0], 5);
  assert_int_equal(o[8], 77);
  for (int i = 0; i < 256; i++) assert_int_equal(o[16 + i], 0);
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_barrier_cl12),          cmocka_unit_test(test_work_group_barrier_cl30),
      cmocka_unit_test(test_barrier_2d),            cmocka_unit_test(test_async_copies),
      cmocka_unit_test(test_program_scope_globals), cmocka_unit_test(test_uniform_values_across_barriers),
      cmocka_unit_test(test_mixed_frames_and_masked_local_updates), cmocka_unit_test(test_idle_work_items_skipped),
      cmocka_unit_test(test_flags_across_barrier_widened_then_scalar),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
