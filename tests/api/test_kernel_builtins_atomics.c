/* Atomic functions (OpenCL C 3.0 §6.15.12) under contention through the loader: 65536
 * work-items in groups of 64 hammer the same __global and __local words with the OpenCL
 * 1.x functions under both names (atomic_* and the cl_khr_*_int32_* atom_*), int and
 * uint, and with the 64-bit atom_* of cl_khr_int64_{base,extended}_atomics; the OpenCL C
 * 3.0 atomics (fetch-op, compare-exchange strong and weak, load/store, exchange,
 * atomic_flag, atomic_work_item_fence) with several orders and scopes; a local-memory
 * histogram merged into global memory, with uniform and non-uniform work-groups. Every
 * total is compared exactly with what the host computes for the same work-items. */
#include "builtins_harness.h"

enum { N = 65536, LOCAL = 64, GROUPS = N / LOCAL };

static uint32_t hash32(uint32_t id) { return id * 2654435761u ^ (id >> 3); }
static const char *hash_cl = "uint hash32(uint id) { return id * 2654435761u ^ (id >> 3); }\n";

/* P is the name prefix: atomic_ or atom_. g: int words, u: uint words, xo: what each
 * work-item's xchg returned, gm: per-group results from local memory. */
static const char *legacy_source =
    "#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable\n"
    "#define LEGACY(P)                                                                       \\\n"
    "kernel void legacy_##P(volatile global int *g, volatile global uint *u, global int *xo,  \\\n"
    "                       global int *gm, volatile local int *l, volatile local uint *lu) { \\\n"
    "  int id = (int)get_global_id(0), lid = (int)get_local_id(0);                          \\\n"
    "  int h = (int)hash32((uint)id);                                                       \\\n"
    "  if (lid == 0) { l[0] = 0; l[1] = 0; l[2] = 0x7fffffff; l[3] = 0; lu[0] = 0; lu[1] = ~0u; } \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);                                                        \\\n"
    "  P##inc(&g[0]);                                                                       \\\n"
    "  P##add(&g[1], id);                                                                   \\\n"
    "  P##sub(&g[2], 3);                                                                    \\\n"
    "  P##xor(&g[3], h);                                                                    \\\n"
    "  P##min(&g[4], h);                                                                    \\\n"
    "  P##max(&g[5], h);                                                                    \\\n"
    "  P##and(&g[6], ~(1 << (id % 31)));                                                  \\\n"
    "  P##or(&g[7], 1 << (id % 29));                                                        \\\n"
    "  P##dec(&g[8]);                                                                       \\\n"
    "  xo[id] = P##xchg(&g[9], id + 1);                                                     \\\n"
    "  int old = g[10];                                                                     \\\n"
    "  for (int seen; (seen = P##cmpxchg(&g[10], old, old + 1)) != old;) old = seen;        \\\n"
    "  P##min(&u[0], (uint)h);                                                              \\\n"
    "  P##max(&u[1], (uint)h);                                                              \\\n"
    "  P##add(&u[2], 0x10001u);                                                             \\\n"
    "  P##xor(&u[3], (uint)h);                                                              \\\n"
    "  P##inc(&l[0]);                                                                       \\\n"
    "  P##add(&l[1], lid);                                                                  \\\n"
    "  P##min(&l[2], h);                                                                    \\\n"
    "  int lold = l[3];                                                                     \\\n"
    "  for (int seen; (seen = P##cmpxchg(&l[3], lold, lold + 2)) != lold;) lold = seen;     \\\n"
    "  P##min(&lu[1], (uint)h);                                                             \\\n"
    "  P##xor(&lu[0], (uint)h);                                                             \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);                                                        \\\n"
    "  if (lid == 0) {                                                                      \\\n"
    "    size_t grp = get_group_id(0);                                                      \\\n"
    "    gm[4 * grp] = l[2]; gm[4 * grp + 1] = (int)lu[0]; gm[4 * grp + 2] = (int)lu[1];    \\\n"
    "    P##add(&g[11], l[0]); P##add(&g[12], l[1]); P##add(&g[13], l[3]);                 \\\n"
    "  }                                                                                    \\\n"
    "}\n"
    "LEGACY(atomic_)\n"
    "LEGACY(atom_)\n";

static void check_legacy(struct kiln_test_env *env, const char *kernel) {
  char source[8192];
  snprintf(source, sizeof source, "%s%s", hash_cl, legacy_source);
  cl_program program = bt_build(env, source, BT_CL12);
  cl_int g[14] = {0, 0, 0, 0, INT32_MAX, INT32_MIN, -1, 0, 0, 0, 0, 0, 0, 0};
  cl_uint u[4] = {UINT32_MAX, 0, 0, 0};
  cl_int *xo = malloc(N * sizeof *xo), *gm = malloc(4 * GROUPS * sizeof *gm);
  memset(gm, 0, 4 * GROUPS * sizeof *gm);
  bt_run(env, program, kernel, N, LOCAL,
         BT_ARGS(BT_OUT(g, sizeof g), BT_OUT(u, sizeof u), BT_OUT(xo, N * sizeof *xo), BT_OUT(gm, 4 * GROUPS * sizeof *gm),
                 BT_LOCAL(4 * sizeof(cl_int)), BT_LOCAL(2 * sizeof(cl_uint))));
  int64_t sum = 0;
  uint32_t x = 0, uxor = 0, and_bits = ~0u, or_bits = 0, umin = UINT32_MAX, umax = 0;
  int32_t smin = INT32_MAX, smax = INT32_MIN;
  for (uint32_t id = 0; id < N; id++) {
    uint32_t h = hash32(id);
    sum += id, x ^= h, uxor ^= h;
    smin = (int32_t)h < smin ? (int32_t)h : smin, smax = (int32_t)h > smax ? (int32_t)h : smax;
    umin = h < umin ? h : umin, umax = h > umax ? h : umax;
    and_bits &= ~(1u << (id % 31));
    or_bits |= 1u << (id % 29);
  }
  assert_int_equal(g[0], N);
  assert_int_equal(g[1], sum);
  assert_int_equal(g[2], -3 * N);
  assert_int_equal((uint32_t)g[3], x);
  assert_int_equal(g[4], smin);
  assert_int_equal(g[5], smax);
  assert_int_equal((uint32_t)g[6], and_bits);
  assert_int_equal((uint32_t)g[7], or_bits);
  assert_int_equal(g[8], -N);
  assert_int_equal(g[10], N);
  assert_int_equal(g[11], N);
  assert_int_equal(g[12], (int64_t)GROUPS * (LOCAL * (LOCAL - 1) / 2));
  assert_int_equal(g[13], 2 * N);
  assert_int_equal(u[0], umin);
  assert_int_equal(u[1], umax);
  assert_int_equal(u[2], (uint32_t)(0x10001u * (uint32_t)N));
  assert_int_equal(u[3], uxor);
  /* xchg: the values returned plus the final one are 0, 1, ..., N, each exactly once */
  unsigned char *seen = calloc(N + 1, 1);
  for (int i = 0; i < N; i++) {
    assert_in_range(xo[i], 0, N);
    assert_int_equal(seen[xo[i]]++, 0);
  }
  assert_in_range(g[9], 1, N);
  assert_int_equal(seen[g[9]], 0);
  free(seen);
  for (int grp = 0; grp < GROUPS; grp++) {
    int32_t lmin = INT32_MAX;
    uint32_t lx = 0, lm = UINT32_MAX;
    for (uint32_t id = (uint32_t)grp * LOCAL; id < (uint32_t)(grp + 1) * LOCAL; id++) {
      uint32_t h = hash32(id);
      lmin = (int32_t)h < lmin ? (int32_t)h : lmin, lx ^= h, lm = h < lm ? h : lm;
    }
    assert_int_equal(gm[4 * grp], lmin);
    assert_int_equal((uint32_t)gm[4 * grp + 1], lx);
    assert_int_equal((uint32_t)gm[4 * grp + 2], lm);
  }
  free(xo), free(gm);
  assert_cl_success(clReleaseProgram(program));
}

static void test_legacy_atomic_names(void **state) { check_legacy(*state, "legacy_atomic_"); }
static void test_legacy_atom_names(void **state) { check_legacy(*state, "legacy_atom_"); }

static const char *int64_source =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "kernel void wide(volatile global long *g, volatile global ulong *u, volatile local long *l) {\n"
    "  long id = (long)get_global_id(0);\n"
    "  long h = (long)((ulong)id * 0x9e3779b97f4a7c15UL);\n"
    "  if (get_local_id(0) == 0) l[0] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atom_add(&g[0], id << 24);\n"
    "  atom_max(&g[1], h);\n"
    "  atom_min(&g[2], h);\n"
    "  atom_xor(&g[3], h);\n"
    "  atom_inc(&g[4]);\n"
    "  atom_sub(&g[5], 1L << 33);\n"
    "  long old = g[6];\n"
    "  for (long seen; (seen = atom_cmpxchg(&g[6], old, old + (1L << 40))) != old;) old = seen;\n"
    "  atom_max(&u[0], (ulong)h);\n"
    "  atom_min(&u[1], (ulong)h);\n"
    "  atom_or(&u[2], 1UL << (id % 64));\n"
    "  atom_and(&u[3], ~(1UL << (id % 63)));\n"
    "  atom_add(&l[0], 1L << 32);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) atom_add(&g[7], l[0]);\n"
    "  atom_xchg(&g[8], g[8]);\n"
    "}\n";

static void test_int64_atomics(void **state) {
  cl_long g[9] = {0, INT64_MIN, INT64_MAX, 0, 0, 0, 0, 0, 123};
  cl_ulong u[4] = {0, UINT64_MAX, 0, UINT64_MAX};
  bt_run_source(*state, int64_source, BT_CL12, "wide", N, LOCAL,
                BT_ARGS(BT_OUT(g, sizeof g), BT_OUT(u, sizeof u), BT_LOCAL(sizeof(cl_long))));
  int64_t sum = 0, smax = INT64_MIN, smin = INT64_MAX;
  uint64_t x = 0, umax = 0, umin = UINT64_MAX;
  for (uint64_t id = 0; id < N; id++) {
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    sum += (int64_t)(id << 24), x ^= h;
    smax = (int64_t)h > smax ? (int64_t)h : smax, smin = (int64_t)h < smin ? (int64_t)h : smin;
    umax = h > umax ? h : umax, umin = h < umin ? h : umin;
  }
  assert_int_equal(g[0], sum);
  assert_int_equal(g[1], smax);
  assert_int_equal(g[2], smin);
  assert_int_equal((uint64_t)g[3], x);
  assert_int_equal(g[4], N);
  assert_int_equal(g[5], -((int64_t)N << 33));
  assert_int_equal(g[6], (int64_t)N << 40);
  assert_int_equal(g[7], (int64_t)N << 32);
  assert_int_equal(g[8], 123);
  assert_int_equal(u[0], umax);
  assert_int_equal(u[1], umin);
  assert_int_equal(u[2], UINT64_MAX);
  assert_int_equal(u[3], 1ull << 63);
}

/* OpenCL C 3.0 atomics. flags: one atomic_flag per group of 64 flags; each is set by 1024
 * work-items and exactly one of them sees it clear. */
static const char *c11_source =
    "kernel void c11(global atomic_int *gi, global atomic_uint *gu, global atomic_long *gl,\n"
    "                global atomic_flag *flags, global int *won, global int *gm, global int *mp) {\n"
    "  local atomic_int cnt;\n"
    "  local atomic_uint lmax;\n"
    "  int id = (int)get_global_id(0), lid = (int)get_local_id(0);\n"
    "  uint h = hash32((uint)id);\n"
    "  if (lid == 0) { atomic_init(&cnt, 0); atomic_init(&lmax, 0u); }\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
    "  atomic_fetch_add_explicit(&gi[0], 1, memory_order_relaxed, memory_scope_device);\n"
    "  atomic_fetch_add_explicit(&gi[1], id, memory_order_acq_rel, memory_scope_device);\n"
    "  atomic_fetch_sub_explicit(&gi[2], 5, memory_order_seq_cst, memory_scope_device);\n"
    "  atomic_fetch_min_explicit(&gi[3], (int)h, memory_order_relaxed);\n"
    "  atomic_fetch_max(&gi[4], (int)h);\n"
    "  int e = atomic_load_explicit(&gi[5], memory_order_relaxed, memory_scope_device);\n"
    "  while (!atomic_compare_exchange_strong_explicit(&gi[5], &e, e + 1, memory_order_acq_rel,\n"
    "                                                  memory_order_relaxed, memory_scope_device)) {}\n"
    "  int w = atomic_load(&gi[6]);\n"
    "  while (!atomic_compare_exchange_weak_explicit(&gi[6], &w, w + 3, memory_order_seq_cst,\n"
    "                                                memory_order_seq_cst)) {}\n"
    "  atomic_fetch_xor_explicit(&gu[0], h, memory_order_relaxed, memory_scope_device);\n"
    "  atomic_fetch_or_explicit(&gu[1], 1u << (id % 32), memory_order_release, memory_scope_device);\n"
    "  atomic_fetch_and_explicit(&gu[2], ~(1u << (id % 30)), memory_order_acquire, memory_scope_device);\n"
    "  atomic_fetch_max_explicit(&gu[3], h, memory_order_seq_cst, memory_scope_device);\n"
    "  atomic_fetch_min_explicit(&gu[4], h, memory_order_acq_rel, memory_scope_device);\n"
    "  atomic_fetch_add_explicit(&gl[0], (long)id << 20, memory_order_relaxed, memory_scope_device);\n"
    "  atomic_exchange_explicit(&gl[1], (long)h, memory_order_acq_rel, memory_scope_device);\n"
    "  if (!atomic_flag_test_and_set_explicit(&flags[id % 64], memory_order_acq_rel, memory_scope_device))\n"
    "    atomic_fetch_add_explicit((global atomic_int *)&won[id % 64], 1, memory_order_relaxed, memory_scope_device);\n"
    "  atomic_fetch_add_explicit(&cnt, 1, memory_order_relaxed, memory_scope_work_group);\n"
    "  atomic_fetch_max_explicit(&lmax, h, memory_order_relaxed, memory_scope_work_group);\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
    "  if (lid == 0) {\n"
    "    gm[2 * get_group_id(0)] = atomic_load_explicit(&cnt, memory_order_acquire, memory_scope_work_group);\n"
    "    gm[2 * get_group_id(0) + 1] = (int)atomic_load_explicit(&lmax, memory_order_seq_cst, memory_scope_work_group);\n"
    "  }\n"
    /* the same work-item publishes with a release fence and reads back after an acquire fence */
    "  mp[2 * id] = id * 7;\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);\n"
    "  atomic_store_explicit((global atomic_int *)&mp[2 * id + 1], 1, memory_order_relaxed, memory_scope_device);\n"
    "  if (atomic_load_explicit((global atomic_int *)&mp[2 * id + 1], memory_order_relaxed, memory_scope_device) == 1) {\n"
    "    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_acquire, memory_scope_work_group);\n"
    "    mp[2 * id + 1] = mp[2 * id] + 1;\n"
    "  }\n"
    "  atomic_store_explicit(&gi[7], 42, memory_order_seq_cst, memory_scope_device);\n"
    "}\n";

static void test_c11_atomics(void **state) {
  char source[8192];
  snprintf(source, sizeof source, "%s%s", hash_cl, c11_source);
  cl_int gi[8] = {0, 0, 0, INT32_MAX, INT32_MIN, 0, 0, 0};
  cl_uint gu[5] = {0, 0, UINT32_MAX, 0, UINT32_MAX};
  cl_long gl[2] = {0, -1};
  cl_int flags[64] = {0}, won[64] = {0};
  cl_int *gm = calloc(2 * GROUPS, sizeof *gm), *mp = calloc(2 * N, sizeof *mp);
  bt_run_source(*state, source, BT_CL30, "c11", N, LOCAL,
                BT_ARGS(BT_OUT(gi, sizeof gi), BT_OUT(gu, sizeof gu), BT_OUT(gl, sizeof gl), BT_OUT(flags, sizeof flags),
                        BT_OUT(won, sizeof won), BT_OUT(gm, 2 * GROUPS * sizeof *gm), BT_OUT(mp, 2 * N * sizeof *mp)));
  int64_t sum = 0, lsum = 0;
  int32_t smin = INT32_MAX, smax = INT32_MIN;
  uint32_t x = 0, or_bits = 0, and_bits = UINT32_MAX, umax = 0, umin = UINT32_MAX;
  bool hash_seen = false;
  for (uint32_t id = 0; id < N; id++) {
    uint32_t h = hash32(id);
    sum += id, lsum += (int64_t)id << 20, x ^= h;
    smin = (int32_t)h < smin ? (int32_t)h : smin, smax = (int32_t)h > smax ? (int32_t)h : smax;
    umax = h > umax ? h : umax, umin = h < umin ? h : umin;
    or_bits |= 1u << (id % 32), and_bits &= ~(1u << (id % 30));
    hash_seen |= (int64_t)gl[1] == (int64_t)h;
  }
  assert_int_equal(gi[0], N);
  assert_int_equal(gi[1], sum);
  assert_int_equal(gi[2], -5 * N);
  assert_int_equal(gi[3], smin);
  assert_int_equal(gi[4], smax);
  assert_int_equal(gi[5], N);
  assert_int_equal(gi[6], 3 * N);
  assert_int_equal(gi[7], 42);
  assert_int_equal(gu[0], x);
  assert_int_equal(gu[1], or_bits);
  assert_int_equal(gu[2], and_bits);
  assert_int_equal(gu[3], umax);
  assert_int_equal(gu[4], umin);
  assert_int_equal(gl[0], lsum);
  assert_true(hash_seen); /* the last exchange left some work-item's value */
  for (int k = 0; k < 64; k++) assert_int_equal(won[k], 1);
  for (int k = 0; k < 64; k++) assert_int_not_equal(flags[k], 0);
  for (int grp = 0; grp < GROUPS; grp++) {
    uint32_t m = 0;
    for (uint32_t id = (uint32_t)grp * LOCAL; id < (uint32_t)(grp + 1) * LOCAL; id++) m = hash32(id) > m ? hash32(id) : m;
    assert_int_equal(gm[2 * grp], LOCAL);
    assert_int_equal((uint32_t)gm[2 * grp + 1], m);
  }
  for (int id = 0; id < N; id++) {
    assert_int_equal(mp[2 * id], id * 7);
    assert_int_equal(mp[2 * id + 1], id * 7 + 1);
  }
  free(gm), free(mp);
}

/* Local bins counted with atomic_inc, merged into global ones with atomic_add. */
static const char *histogram_source =
    "kernel void histogram(global const uchar *data, volatile global uint *hist, volatile local uint *bins) {\n"
    "  size_t lid = get_local_id(0), ls = get_local_size(0);\n"
    "  for (size_t b = lid; b < 256; b += ls) bins[b] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_inc(&bins[data[get_global_id(0)]]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t b = lid; b < 256; b += ls) if (bins[b]) atomic_add(&hist[b], bins[b]);\n"
    "}\n";

static void check_histogram(struct kiln_test_env *env, const char *options, size_t global, size_t local) {
  unsigned char *data = malloc(global);
  uint64_t seed = 61 + global + local;
  for (size_t i = 0; i < global; i++) { /* skewed: a few bins take most of the data */
    uint64_t r = bt_random(&seed);
    data[i] = (unsigned char)(r % 4 ? (r >> 8) % 8 : r >> 16);
  }
  cl_uint hist[256] = {0}, want[256] = {0};
  for (size_t i = 0; i < global; i++) want[data[i]]++;
  bt_run_source(env, histogram_source, options, "histogram", global, local,
                BT_ARGS(BT_IN(data, global), BT_OUT(hist, sizeof hist), BT_LOCAL(256 * sizeof(cl_uint))));
  for (int b = 0; b < 256; b++)
    if (hist[b] != want[b]) fail_msg("bin %d: got %u, want %u (global %zu, local %zu)", b, hist[b], want[b], global, local);
  free(data);
}

static void test_histogram(void **state) {
  check_histogram(*state, BT_CL12, N, LOCAL);
  check_histogram(*state, BT_CL12, N, 256);
  check_histogram(*state, BT_CL12, N, 1);
  check_histogram(*state, BT_CL30, N + 37, LOCAL); /* a partial last work-group */
  check_histogram(*state, BT_CL30, 1000, 300);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_legacy_atomic_names), cmocka_unit_test(test_legacy_atom_names),
      cmocka_unit_test(test_int64_atomics),       cmocka_unit_test(test_c11_atomics),
      cmocka_unit_test(test_histogram),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
