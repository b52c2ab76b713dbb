/* Work-group collective functions (__opencl_c_work_group_collective_functions) through the
 * loader: work_group_all/any/broadcast and reduce/scan_inclusive/scan_exclusive of add,
 * min and max, for int, uint, long, ulong, float and double, against a host reference,
 * in 1, 2 and 3 dimensions, with odd and vector-sized groups and a smaller last group of a
 * non-uniform NDRange; two collectives in a row; collectives beside the kernel's own local
 * memory; and in a kernel with a loop around them. */
#include "builtins_harness.h"

struct wg_type {
  const char *name;
  size_t size;
  bool is_signed, is_float;
  long double min, max; /* exclusive scans' identities */
};
static const struct wg_type types[] = {
    {"int", 4, true, false, INT32_MIN, INT32_MAX},     {"uint", 4, false, false, 0, UINT32_MAX},
    {"long", 8, true, false, INT64_MIN, INT64_MAX},    {"ulong", 8, false, false, 0, (long double)UINT64_MAX},
    {"float", 4, true, true, -INFINITY, INFINITY},     {"double", 8, true, true, -INFINITY, INFINITY},
};

enum { OUTPUTS = 13 };

/* The input's linear index is the global linear id; so is the output's. The broadcast
 * sources are fixed work-items of each group (clamped into the last, smaller group). */
static const char *source =
    "size_t linear_global(void) {\n"
    "  return (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);\n"
    "}\n"
    "kernel void k(global const T *in, global T *out, local T *own) {\n"
    "  size_t i = linear_global();\n"
    "  T x = in[i];\n"
    "  own[get_local_linear_id()] = x;\n" /* the kernel's own local memory beside the scratch */
    "  global T *o = out + 13 * i;\n"
    "  o[0] = work_group_reduce_add(x); o[1] = work_group_reduce_min(x); o[2] = work_group_reduce_max(x);\n"
    "  o[3] = work_group_scan_inclusive_add(x); o[4] = work_group_scan_inclusive_min(x);\n"
    "  o[5] = work_group_scan_inclusive_max(x);\n"
    "  o[6] = work_group_scan_exclusive_add(x); o[7] = work_group_scan_exclusive_min(x);\n"
    "  o[8] = work_group_scan_exclusive_max(x);\n"
    "  size_t bx = get_local_size(0) - 1, by = get_local_size(1) / 2, bz = get_local_size(2) - 1;\n"
    "  o[9] = get_work_dim() == 1 ? work_group_broadcast(x, bx)\n"
    "       : get_work_dim() == 2 ? work_group_broadcast(x, bx, by) : work_group_broadcast(x, bx, by, bz);\n"
    "  o[10] = (T)(work_group_all(x > (T)0) * 2 + work_group_any(x == (T)7));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  o[11] = own[get_local_linear_id()];\n"
    "  o[12] = work_group_broadcast(x, 0);\n" /* after the others: the scratch is reused */
    "}\n";

static long double load(const struct wg_type *t, const void *p) {
  if (t->is_float) return t->size == 4 ? (long double)*(const float *)p : (long double)*(const double *)p;
  if (t->size == 4) return t->is_signed ? (long double)*(const int32_t *)p : (long double)*(const uint32_t *)p;
  return t->is_signed ? (long double)*(const int64_t *)p : (long double)*(const uint64_t *)p;
}

static void store(const struct wg_type *t, void *p, long double v) {
  if (t->is_float) {
    if (t->size == 4) *(float *)p = (float)v;
    else *(double *)p = (double)v;
  } else if (t->size == 4) {
    if (t->is_signed) *(int32_t *)p = (int32_t)v;
    else *(uint32_t *)p = (uint32_t)v;
  } else if (t->is_signed) {
    *(int64_t *)p = (int64_t)v;
  } else {
    *(uint64_t *)p = (uint64_t)v;
  }
}

/* Work-item (x, y, z) of the global range: its group's work-items in linear local order. */
static void check(struct kiln_test_env *env, const struct wg_type *t, cl_uint dim, const size_t *global,
                  const size_t *local) {
  size_t n = global[0] * global[1] * global[2];
  unsigned char *in = malloc(n * t->size), *out = calloc(n * OUTPUTS, t->size);
  assert_true(in && out);
  cl_uint seed = 99u + (cl_uint)n;
  for (size_t i = 0; i < n; i++) {
    long v = (long)(kiln_test_random(&seed) % 2001) - 1000;
    if (!t->is_signed) v += 1000;
    if (i % 9 == 4) v = 7;
    store(t, in + i * t->size, v);
  }
  char options[64];
  snprintf(options, sizeof options, "-cl-std=CL3.0 -D T=%s", t->name);
  cl_program program = bt_build(env, source, options);
  size_t local_bytes = local[0] * local[1] * local[2] * t->size;
  bt_launch(env, program, "k", dim, NULL, global, local,
            BT_ARGS(BT_IN(in, n * t->size), BT_OUT(out, n * OUTPUTS * t->size), BT_LOCAL(local_bytes)));
  assert_cl_success(clReleaseProgram(program));

  size_t groups[3];
  for (int d = 0; d < 3; d++) groups[d] = (global[d] + local[d] - 1) / local[d];
  size_t *members = malloc(local[0] * local[1] * local[2] * sizeof *members);
  for (size_t gz = 0; gz < groups[2]; gz++)
    for (size_t gy = 0; gy < groups[1]; gy++)
      for (size_t gx = 0; gx < groups[0]; gx++) {
        size_t size[3], start[3] = {gx * local[0], gy * local[1], gz * local[2]};
        for (int d = 0; d < 3; d++) {
          size_t left = global[d] - start[d];
          size[d] = left < local[d] ? left : local[d];
        }
        size_t m = 0;
        for (size_t z = 0; z < size[2]; z++)
          for (size_t y = 0; y < size[1]; y++)
            for (size_t x = 0; x < size[0]; x++)
              members[m++] = ((start[2] + z) * global[1] + start[1] + y) * global[0] + start[0] + x;
        long double sum = 0, lo = t->max, hi = t->min;
        bool all = true, any = false;
        for (size_t k = 0; k < m; k++) {
          long double v = load(t, in + members[k] * t->size);
          sum += v;
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
          all &= v > 0;
          any |= v == 7;
        }
        size_t bx = size[0] - 1, by = size[1] / 2, bz = size[2] - 1;
        size_t from = dim == 1 ? bx : dim == 2 ? by * size[0] + bx : (bz * size[1] + by) * size[0] + bx;
        long double broadcast = load(t, in + members[from] * t->size), first = load(t, in + members[0] * t->size);
        long double run_sum = 0, run_lo = t->max, run_hi = t->min;
        for (size_t k = 0; k < m; k++) {
          long double v = load(t, in + members[k] * t->size);
          long double want[OUTPUTS] = {sum,     lo,     hi,     run_sum + v, v < run_lo ? v : run_lo, v > run_hi ? v : run_hi,
                                       run_sum, run_lo, run_hi, broadcast,   all * 2 + any,           v,
                                       first};
          /* Exclusive scans' identities as T holds them (a float's infinities). */
          const unsigned char *o = out + members[k] * OUTPUTS * t->size;
          for (int f = 0; f < OUTPUTS; f++) {
            unsigned char expected[8];
            store(t, expected, want[f]);
            if (load(t, o + f * t->size) != load(t, expected))
              fail_msg("%s dim %u local %zux%zux%zu: group (%zu,%zu,%zu) member %zu output %d = %Lg, want %Lg", t->name,
                       dim, local[0], local[1], local[2], gx, gy, gz, k, f, load(t, o + f * t->size), load(t, expected));
          }
          run_sum += v;
          run_lo = v < run_lo ? v : run_lo;
          run_hi = v > run_hi ? v : run_hi;
        }
      }
  free(members);
  free(in);
  free(out);
}

static void check_shapes(struct kiln_test_env *env, const struct wg_type *t) {
  const size_t g1[3] = {256, 1, 1}, l1[3] = {64, 1, 1};
  check(env, t, 1, g1, l1);
  const size_t g_odd[3] = {39, 1, 1}, l_odd[3] = {13, 1, 1};
  check(env, t, 1, g_odd, l_odd);
  const size_t g_nu[3] = {100, 1, 1}, l_nu[3] = {32, 1, 1}; /* last group: 4 work-items */
  check(env, t, 1, g_nu, l_nu);
  const size_t g2[3] = {16, 12, 1}, l2[3] = {8, 4, 1};
  check(env, t, 2, g2, l2);
  const size_t g3[3] = {8, 4, 6}, l3[3] = {4, 2, 3};
  check(env, t, 3, g3, l3);
  const size_t g_big[3] = {2048, 1, 1}, l_big[3] = {1024, 1, 1};
  check(env, t, 1, g_big, l_big);
}

static void test_int(void **state) { check_shapes(*state, &types[0]); }
static void test_uint(void **state) { check_shapes(*state, &types[1]); }
static void test_long(void **state) { check_shapes(*state, &types[2]); }
static void test_ulong(void **state) { check_shapes(*state, &types[3]); }
static void test_float(void **state) { check_shapes(*state, &types[4]); }
static void test_double(void **state) { check_shapes(*state, &types[5]); }

/* Collectives inside a loop, the loop's bound the same for the group. */
static const char *loop_source = "kernel void k(global int *out, int rounds) {\n"
                                 "  int x = (int)get_local_id(0) + 1, total = 0;\n"
                                 "  for (int r = 0; r < rounds; r++) {\n"
                                 "    total += work_group_reduce_add(x);\n"
                                 "    x = work_group_scan_inclusive_max(x + r);\n"
                                 "  }\n"
                                 "  out[get_global_id(0)] = total;\n"
                                 "}\n";

static void test_in_loop(void **state) {
  enum { N = 128, LOCAL = 32, ROUNDS = 3 };
  cl_int out[N], rounds = ROUNDS;
  bt_run_source(*state, loop_source, BT_CL30, "k", N, LOCAL, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(rounds)));
  for (int i = 0; i < N; i++) {
    /* Host model of one group: x_lid per round. */
    int x[LOCAL], total = 0;
    for (int l = 0; l < LOCAL; l++) x[l] = l + 1;
    for (int r = 0; r < ROUNDS; r++) {
      int sum = 0, run = INT32_MIN;
      for (int l = 0; l < LOCAL; l++) sum += x[l];
      total += sum;
      for (int l = 0; l < LOCAL; l++) {
        run = x[l] + r > run ? x[l] + r : run;
        x[l] = run;
      }
    }
    assert_int_equal(total, out[i]);
  }
}

/* CL_KERNEL_LOCAL_MEM_SIZE is the kernel's own: the scratch is Kiln's. */
static void test_local_mem_size_is_the_kernels(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, "kernel void k(global int *o) { local int a[10]; a[0] = 1;\n"
                                     "  o[0] = work_group_reduce_add(a[0]); }", BT_CL30);
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  assert_cl_success(err);
  cl_ulong bytes = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes, NULL));
  assert_int_equal(40, bytes);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int),     cmocka_unit_test(test_uint),    cmocka_unit_test(test_long),
      cmocka_unit_test(test_ulong),   cmocka_unit_test(test_float),   cmocka_unit_test(test_double),
      cmocka_unit_test(test_in_loop), cmocka_unit_test(test_local_mem_size_is_the_kernels),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
