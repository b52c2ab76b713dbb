/* Work-item functions (OpenCL C 3.0 §6.15.1) through the loader: every query in 1-3D with
 * offsets and non-uniform last groups against a host model of the NDRange, the OpenCL C
 * 2.0+ ones (get_enqueued_local_size, linear ids) under -cl-std=CL3.0, and dimensions out
 * of range (constant and run-time) giving 0 for ids/offsets and 1 for sizes. */
#include "builtins_harness.h"

#define FIELDS 32

static const char *source =
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "#define ENQUEUED(d) get_enqueued_local_size(d)\n"
    "#define GLOBAL_LINEAR get_global_linear_id()\n"
    "#define LOCAL_LINEAR get_local_linear_id()\n"
    "#else\n"
    "#define ENQUEUED(d) 0\n"
    "#define GLOBAL_LINEAR 0\n"
    "#define LOCAL_LINEAR 0\n"
    "#endif\n"
    "kernel void ids(global ulong *out, uint bad) {\n"
    "  size_t i = ((get_global_id(2) - get_global_offset(2)) * get_global_size(1)\n"
    "           + get_global_id(1) - get_global_offset(1)) * get_global_size(0) + get_global_id(0) - get_global_offset(0);\n"
    "  global ulong *r = out + i * 32;\n"
    "  r[0] = get_work_dim();\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    r[1 + d] = get_global_id(d); r[4 + d] = get_local_id(d); r[7 + d] = get_group_id(d);\n"
    "    r[10 + d] = get_local_size(d); r[13 + d] = ENQUEUED(d); r[16 + d] = get_global_size(d);\n"
    "    r[19 + d] = get_num_groups(d); r[22 + d] = get_global_offset(d);\n"
    "  }\n"
    "  r[25] = GLOBAL_LINEAR; r[26] = LOCAL_LINEAR;\n"
    "  r[27] = get_global_id(3) + get_local_id(3) + get_group_id(3) + get_global_offset(3)\n"
    "        + get_global_id(bad) + get_local_id(bad) + get_group_id(bad) + get_global_offset(bad);\n"
    "  r[28] = get_global_size(3) + get_local_size(3) + get_num_groups(3) + (ENQUEUED(3) != 0 ? ENQUEUED(3) : 1);\n"
    "  r[29] = get_global_size(bad) + get_local_size(bad) + get_num_groups(bad) + (ENQUEUED(bad) != 0 ? ENQUEUED(bad) : 1);\n"
    "  r[30] = 0xfeedfaceul; r[31] = 0;\n"
    "}\n";

/* Launches `ids` and checks every field of every work-item against the model. */
static void check_ndrange(struct kiln_test_env *env, const char *options, cl_uint dim, const size_t *offset,
                          const size_t *global, const size_t *local, cl_uint bad) {
  size_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0}, l[3] = {1, 1, 1};
  for (cl_uint d = 0; d < dim; d++) g[d] = global[d], o[d] = offset ? offset[d] : 0, l[d] = local[d];
  size_t n = g[0] * g[1] * g[2];
  cl_ulong *out = calloc(n * FIELDS, sizeof *out);
  cl_program program = bt_build(env, source, options);
  bt_launch(env, program, "ids", dim, offset, global, local, BT_ARGS(BT_OUT(out, n * FIELDS * sizeof *out), BT_VAL(bad)));
  assert_cl_success(clReleaseProgram(program));
  bool cl20 = strstr(options, "CL3.0") != NULL;
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        size_t linear = (z * g[1] + y) * g[0] + x, id[3] = {x, y, z};
        const cl_ulong *r = out + linear * FIELDS;
        assert_int_equal(dim, r[0]);
        for (int d = 2; d >= 0; d--) {
          size_t group = id[d] / l[d], groups = (g[d] + l[d] - 1) / l[d];
          size_t size = group + 1 < groups || g[d] % l[d] == 0 ? l[d] : g[d] % l[d];
          assert_int_equal(id[d] + o[d], r[1 + d]);
          assert_int_equal(id[d] % l[d], r[4 + d]);
          assert_int_equal(group, r[7 + d]);
          assert_int_equal(size, r[10 + d]);
          assert_int_equal(cl20 ? l[d] : 0, r[13 + d]);
          assert_int_equal(g[d], r[16 + d]);
          assert_int_equal(groups, r[19 + d]);
          assert_int_equal(o[d], r[22 + d]);
        }
        /* local linear id: (lz * size_y + ly) * size_x + lx with this group's actual sizes */
        size_t local_linear = (r[6] * r[11] + r[5]) * r[10] + r[4];
        assert_int_equal(cl20 ? linear : 0, r[25]);
        assert_int_equal(cl20 ? local_linear : 0, r[26]);
        assert_int_equal(0, r[27]);
        assert_int_equal(4, r[28]);
        assert_int_equal(4, r[29]);
        assert_int_equal(0xfeedface, r[30]);
      }
  free(out);
}

static void test_1d_uniform_cl12(void **state) {
  size_t global = 48, local = 8, offset = 5;
  check_ndrange(*state, BT_CL12, 1, &offset, &global, &local, 3);
}

static void test_2d_uniform_cl12(void **state) {
  size_t global[2] = {12, 6}, local[2] = {4, 3}, offset[2] = {100, 7};
  check_ndrange(*state, BT_CL12, 2, offset, global, local, 7);
}

static void test_3d_uniform_cl12(void **state) {
  size_t global[3] = {4, 6, 4}, local[3] = {2, 3, 2}, offset[3] = {1, 2, 3};
  check_ndrange(*state, BT_CL12, 3, offset, global, local, 0xffffffffu);
}

static void test_1d_non_uniform_cl30(void **state) {
  size_t global = 37, local = 8, offset = 1000;
  check_ndrange(*state, BT_CL30, 1, &offset, &global, &local, 3);
}

static void test_2d_non_uniform_cl30(void **state) {
  size_t global[2] = {9, 7}, local[2] = {4, 3};
  check_ndrange(*state, BT_CL30, 2, NULL, global, local, 4);
}

static void test_3d_non_uniform_with_offsets_cl30(void **state) {
  size_t global[3] = {5, 7, 3}, local[3] = {2, 3, 2}, offset[3] = {11, 22, 33};
  check_ndrange(*state, BT_CL30, 3, offset, global, local, 0xffffffffu);
}

static void test_3d_uniform_cl30(void **state) {
  size_t global[3] = {4, 4, 4}, local[3] = {4, 2, 1}, offset[3] = {0, 1, 0};
  check_ndrange(*state, BT_CL30, 3, offset, global, local, 5);
}

/* With a NULL local size the sizes the kernel sees must still be consistent. */
static void test_null_local_size_is_consistent(void **state) {
  struct kiln_test_env *env = *state;
  size_t global[2] = {13, 5}, n = 13 * 5;
  cl_ulong *out = calloc(n * FIELDS, sizeof *out);
  cl_uint bad = 3;
  cl_program program = bt_build(env, source, BT_CL30);
  bt_launch(env, program, "ids", 2, NULL, global, NULL, BT_ARGS(BT_OUT(out, n * FIELDS * sizeof *out), BT_VAL(bad)));
  assert_cl_success(clReleaseProgram(program));
  for (size_t i = 0; i < n; i++) {
    const cl_ulong *r = out + i * FIELDS;
    for (int d = 0; d < 2; d++) {
      assert_true(r[10 + d] >= 1 && r[10 + d] <= r[13 + d]);
      assert_int_equal(r[1 + d], r[7 + d] * r[13 + d] + r[4 + d]);
      assert_int_equal(r[19 + d], (global[d] + r[13 + d] - 1) / r[13 + d]);
    }
    assert_int_equal(i, r[25]);
  }
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_1d_uniform_cl12),
      cmocka_unit_test(test_2d_uniform_cl12),
      cmocka_unit_test(test_3d_uniform_cl12),
      cmocka_unit_test(test_1d_non_uniform_cl30),
      cmocka_unit_test(test_2d_non_uniform_cl30),
      cmocka_unit_test(test_3d_non_uniform_with_offsets_cl30),
      cmocka_unit_test(test_3d_uniform_cl30),
      cmocka_unit_test(test_null_local_size_is_consistent),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
