/* Sub-groups (__opencl_c_subgroups, cl_khr_subgroups and the cl_khr_subgroup_* extensions)
 * through the loader: the device and kernel queries (clGetKernelSubGroupInfo and its KHR
 * form, every query and error), the work-item functions, and a kernel of reductions, scans,
 * broadcasts, shuffles, rotations, ballots and votes checked against a host model of
 * sub-groups of the size the kernel query reports (consecutive linear local ids, the last
 * one of a group possibly smaller), in 1, 2 and 3 dimensions and for a non-uniform range. */
#include "builtins_harness.h"

#include <CL/cl_ext.h>

static const char *const extensions[] = {
    "cl_khr_subgroup_extended_types",   "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",  "cl_khr_subgroup_non_uniform_arithmetic", "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative", "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_rotate",
};

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  for (size_t i = 0; i < sizeof extensions / sizeof *extensions; i++)
    kiln_test_expect_extension(env->device, extensions[i], CL_MAKE_VERSION(1, 0, 0));
  cl_uint max_sub_groups = 0;
  size_t max_wg = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof max_sub_groups, &max_sub_groups, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
  assert_int_equal(max_wg, max_sub_groups); /* sub-groups of one work-item */
  /* cl_khr_subgroups, with the independent forward progress it requires
   * (test_forward_progress.c shows it). */
  kiln_test_expect_extension(env->device, "cl_khr_subgroups", CL_MAKE_VERSION(1, 0, 0));
  cl_bool progress = CL_FALSE;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, sizeof progress,
                                    &progress, NULL));
  assert_int_equal(CL_TRUE, progress);
  /* Its entry point, from Kiln itself (the loader resolves names of its dispatch table
   * itself), answers as the core one does. */
  clGetKernelSubGroupInfoKHR_fn khr = (clGetKernelSubGroupInfoKHR_fn)kiln_test_dispatch_of(env->platform)
                                          ->clGetExtensionFunctionAddressForPlatform(env->platform,
                                                                                     "clGetKernelSubGroupInfoKHR");
  assert_non_null(khr);
  cl_int err;
  const char *source = "kernel void k(global int *p) { p[0] = get_sub_group_size(); }";
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 1, &env->device, "-cl-std=CL2.0", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  assert_cl_success(err);
  size_t local = 32, size = 0, count = 0;
  assert_cl_success(khr(kernel, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR, sizeof local, &local,
                        sizeof size, &size, NULL));
  assert_int_equal(1, size);
  assert_cl_success(khr(kernel, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE_KHR, sizeof local, &local,
                        sizeof count, &count, NULL));
  assert_int_equal(32, count);
  assert_int_equal(CL_INVALID_KERNEL, khr(NULL, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR,
                                          sizeof local, &local, sizeof size, &size, NULL));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

static cl_kernel build_kernel(struct kiln_test_env *env, const char *source, const char *name, cl_program *program) {
  *program = bt_build(env, source, BT_CL30);
  cl_int err;
  cl_kernel kernel = clCreateKernel(*program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static size_t max_sub_group_size(cl_kernel kernel, cl_device_id device, const size_t *local, cl_uint dim) {
  size_t size = 0, ret = 0;
  assert_cl_success(clGetKernelSubGroupInfo(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                            dim * sizeof(size_t), local, sizeof size, &size, &ret));
  assert_int_equal(sizeof size, ret);
  return size;
}

/* The sub-group size a kernel without attributes runs with. */
static size_t max_sub_group_size_of_default(struct kiln_test_env *env) {
  cl_program program;
  cl_kernel kernel = build_kernel(env, "kernel void k(global int *p) { p[0] = 1; }", "k", &program);
  size_t local = 16, size = max_sub_group_size(kernel, env->device, &local, 1);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
  return size;
}

static void test_kernel_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program;
  cl_kernel kernel = build_kernel(env, "kernel void k(global int *p) { p[0] = get_sub_group_size(); }", "k", &program);
  size_t local[3] = {8, 4, 2}, value = 0;
  for (cl_uint dim = 1; dim <= 3; dim++) {
    size_t s = max_sub_group_size(kernel, env->device, local, dim);
    assert_int_equal(1, s); /* the size Kiln runs: one work-item */
    assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                              dim * sizeof(size_t), local, sizeof value, &value, NULL));
    size_t items = 1;
    for (cl_uint d = 0; d < dim; d++) items *= local[d];
    assert_int_equal((items + s - 1) / s, value);
  }
  /* The local size for a count: one dimension, the others 1; 0s when impossible. */
  size_t count = 24, sizes[3] = {9, 9, 9}, ret = 0;
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count,
                                            &count, sizeof sizes, sizes, &ret));
  assert_int_equal(sizeof sizes, ret);
  assert_int_equal(24, sizes[0]);
  assert_int_equal(1, sizes[1]);
  assert_int_equal(1, sizes[2]);
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count,
                                            &count, sizeof(size_t), sizes, &ret));
  assert_int_equal(sizeof(size_t), ret);
  count = 1u << 20;
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count,
                                            &count, 2 * sizeof(size_t), sizes, NULL));
  assert_int_equal(0, sizes[0]);
  assert_int_equal(0, sizes[1]);
  size_t max_wg = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof value,
                                            &value, NULL));
  assert_int_equal(max_wg, value);
  assert_cl_success(clGetKernelSubGroupInfo(kernel, NULL, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL, sizeof value,
                                            &value, NULL));
  assert_int_equal(0, value);

  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                                             sizeof(size_t), NULL, sizeof value, &value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                                             4 * sizeof(size_t), local, sizeof value, &value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                                             sizeof(size_t) + 1, local, sizeof value, &value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                                             2 * sizeof(size_t), local, sizeof sizes, sizes, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                                             sizeof count, &count, 4 * sizeof(size_t), sizes, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                                             sizeof value - 1, &value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE, 0, NULL,
                                                             sizeof value, &value, NULL));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(kernel);
  assert_int_equal(CL_INVALID_KERNEL, clGetKernelSubGroupInfo((cl_kernel)&fake, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS,
                                                              0, NULL, sizeof value, &value, NULL));
  struct kiln_test_fake_handle fake_device = kiln_test_fake_handle_like(env->device);
  assert_int_equal(CL_INVALID_DEVICE, clGetKernelSubGroupInfo(kernel, (cl_device_id)&fake_device,
                                                              CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof value, &value, NULL));

  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

enum { OUTPUTS = 20 };

/* Every output is an int of the work-item's row, in the order of the host model below. */
static const char *source =
    "size_t linear_global(void) {\n"
    "  return (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);\n"
    "}\n"
    "kernel void k(global const int *in, global int *out) {\n"
    "  size_t i = linear_global();\n"
    "  int x = in[i];\n"
    "  uint lid = get_sub_group_local_id(), size = get_sub_group_size();\n"
    "  global int *o = out + 20 * i;\n"
    "  o[0] = get_sub_group_size(); o[1] = get_max_sub_group_size(); o[2] = get_num_sub_groups();\n"
    "  o[3] = get_enqueued_num_sub_groups(); o[4] = get_sub_group_id(); o[5] = lid;\n"
    "  o[6] = sub_group_reduce_add(x); o[7] = sub_group_scan_inclusive_add(x); o[8] = sub_group_scan_exclusive_max(x);\n"
    "  o[9] = sub_group_broadcast(x, 0); o[10] = sub_group_all(x > 0) * 2 + sub_group_any(x == 7);\n"
    "  o[11] = sub_group_shuffle(x, size - 1 - lid); o[12] = sub_group_shuffle_down(x, 0);\n"
    "  o[13] = sub_group_rotate(x, 1);\n"
    "  uint4 ballot = sub_group_ballot(x > 0);\n"
    "  o[14] = sub_group_ballot_bit_count(ballot); o[15] = sub_group_inverse_ballot(ballot);\n"
    "  o[16] = sub_group_ballot_inclusive_scan(ballot);\n"
    "  o[17] = sub_group_elect(); o[18] = sub_group_non_uniform_reduce_xor(x);\n"
    "  o[19] = sub_group_clustered_reduce_add(x, 1) + (sub_group_barrier(CLK_LOCAL_MEM_FENCE), 0);\n"
    "}\n";

/* Host model: sub-groups of `s` consecutive linear local ids. */
static void check(struct kiln_test_env *env, cl_uint dim, const size_t *global, const size_t *local) {
  cl_program program;
  cl_kernel kernel = build_kernel(env, source, "k", &program);
  size_t s = max_sub_group_size(kernel, env->device, local, dim);
  assert_cl_success(clReleaseKernel(kernel));
  assert_true(s >= 1);
  size_t n = global[0] * global[1] * global[2];
  cl_int *in = malloc(n * sizeof *in), *out = calloc(n * OUTPUTS, sizeof *out);
  assert_true(in && out);
  cl_uint seed = 5u + (cl_uint)n;
  for (size_t i = 0; i < n; i++) in[i] = (cl_int)(kiln_test_random(&seed) % 201) - 100;
  for (size_t i = 0; i < n; i += 5) in[i] = 7;
  bt_launch(env, program, "k", dim, NULL, global, local, BT_ARGS(BT_IN(in, n * sizeof *in), BT_OUT(out, n * OUTPUTS * sizeof *out)));
  assert_cl_success(clReleaseProgram(program));
  size_t enqueued = local[0] * local[1] * local[2];
  size_t groups[3];
  for (int d = 0; d < 3; d++) groups[d] = (global[d] + local[d] - 1) / local[d];
  size_t *members = malloc(enqueued * sizeof *members);
  for (size_t g = 0; g < groups[0] * groups[1] * groups[2]; g++) {
    size_t gid[3] = {g % groups[0], g / groups[0] % groups[1], g / groups[0] / groups[1]}, size[3], start[3];
    for (int d = 0; d < 3; d++) {
      start[d] = gid[d] * local[d];
      size[d] = global[d] - start[d] < local[d] ? global[d] - start[d] : local[d];
    }
    size_t m = 0;
    for (size_t z = 0; z < size[2]; z++)
      for (size_t y = 0; y < size[1]; y++)
        for (size_t x = 0; x < size[0]; x++)
          members[m++] = ((start[2] + z) * global[1] + start[1] + y) * global[0] + start[0] + x;
    for (size_t first = 0; first < m; first += s) {
      size_t count = m - first < s ? m - first : s;
      const cl_int *v = in;
      cl_int sum = 0, all = 1, any = 0, ballot_count = 0, xor_all = 0;
      for (size_t k = 0; k < count; k++) {
        cl_int x = v[members[first + k]];
        sum += x;
        all &= x > 0;
        any |= x == 7;
        ballot_count += x > 0;
        xor_all ^= x;
      }
      cl_int running = 0, running_max = INT32_MIN, ballot_running = 0;
      for (size_t k = 0; k < count; k++) {
        cl_int x = v[members[first + k]];
        running += x;
        ballot_running += x > 0;
        cl_int want[OUTPUTS] = {
            (cl_int)count, (cl_int)s, (cl_int)((m + s - 1) / s), (cl_int)((enqueued + s - 1) / s), (cl_int)(first / s),
            (cl_int)k, sum, running, running_max, v[members[first]], all * 2 + any,
            v[members[first + count - 1 - k]], x, v[members[first + (k + 1) % count]], ballot_count, x > 0,
            ballot_running, k == 0, xor_all, x};
        const cl_int *o = out + OUTPUTS * members[first + k];
        for (int f = 0; f < OUTPUTS; f++)
          if (o[f] != want[f])
            fail_msg("dim %u local %zux%zux%zu group %zu sub-group from %zu, member %zu: output %d = %d, want %d", dim,
                     local[0], local[1], local[2], g, first, k, f, o[f], want[f]);
        running_max = x > running_max ? x : running_max;
      }
    }
  }
  free(members);
  free(in);
  free(out);
}

static void test_functions_1d(void **state) {
  const size_t g[3] = {256, 1, 1}, l[3] = {64, 1, 1};
  check(*state, 1, g, l);
  const size_t g_nu[3] = {100, 1, 1}, l_nu[3] = {32, 1, 1};
  check(*state, 1, g_nu, l_nu);
}

static void test_functions_2d_3d(void **state) {
  const size_t g2[3] = {12, 10, 1}, l2[3] = {4, 5, 1};
  check(*state, 2, g2, l2);
  const size_t g3[3] = {8, 6, 4}, l3[3] = {4, 3, 2};
  check(*state, 3, g3, l3);
}

/* Not in OpenCL C 1.2: sub-groups are an OpenCL C 3.0 feature here. */
static void test_not_in_cl12(void **state) {
  struct kiln_test_env *env = *state;
  const char *src = "kernel void k(global int *p) { p[0] = get_sub_group_size(); }";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, BT_CL12, NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

/* cl_intel_required_subgroup_size: the sizes the device runs, a kernel that requires one
 * of them (its query, get_max_sub_group_size), a kernel that requires another (a build
 * error naming the kernel and the size), and a kernel without the attribute (0). */
static void test_required_sub_group_size(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_intel_required_subgroup_size", CL_MAKE_VERSION(0, 0, 0));
  size_t sizes[4] = {0}, ret = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &ret));
  assert_int_equal(sizeof(size_t), ret);
  size_t local = 16, run = max_sub_group_size_of_default(env);
  assert_int_equal(run, sizes[0]);

  char source[512];
  snprintf(source, sizeof source,
           "#ifndef cl_intel_required_subgroup_size\n#error no macro\n#endif\n"
           "#if __OPENCL_C_VERSION__ < 300\n#define get_max_sub_group_size() %zu\n#endif\n" /* no sub-groups in 1.2 */
           "__attribute__((intel_reqd_sub_group_size(%zu))) kernel void k(global int *p) {\n"
           "  p[get_global_id(0)] = get_max_sub_group_size(); }\n",
           sizes[0], sizes[0]);
  for (int std = 0; std < 2; std++) {
    cl_int out[16];
    bt_run_source(env, source, std ? BT_CL30 : BT_CL12, "k", 16, 16, BT_ARGS(BT_OUT(out, sizeof out)));
    for (int i = 0; i < 16; i++) assert_int_equal((cl_int)sizes[0], out[i]);
  }
  cl_program program;
  cl_kernel kernel = build_kernel(env, source, "k", &program);
  size_t value = 99;
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                                            sizeof value, &value, NULL));
  assert_int_equal(sizes[0], value);
  assert_int_equal(sizes[0], max_sub_group_size(kernel, env->device, &local, 1));
  cl_ulong spill = 0, private_bytes = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_SPILL_MEM_SIZE_INTEL, sizeof spill, &spill, NULL));
  assert_cl_success(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_bytes,
                                             &private_bytes, NULL));
  assert_true(spill == private_bytes);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));

  kernel = build_kernel(env, "kernel void k(global int *p) { p[0] = 1; }", "k", &program);
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                                            sizeof value, &value, NULL));
  assert_int_equal(0, value);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));

  /* A size the device does not run: the build fails and the log says why. */
  const char *sixteen = "__attribute__((intel_reqd_sub_group_size(16))) kernel void wants16(global int *p) { p[0] = 1; }";
  cl_int err;
  program = clCreateProgramWithSource(env->context, 1, &sixteen, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, BT_CL30, NULL, NULL));
  char log[1024] = "";
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
  assert_non_null(strstr(log, "wants16"));
  assert_non_null(strstr(log, "sub-group size 16"));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),   cmocka_unit_test(test_kernel_queries),
      cmocka_unit_test(test_functions_1d),     cmocka_unit_test(test_functions_2d_3d),
      cmocka_unit_test(test_not_in_cl12),      cmocka_unit_test(test_required_sub_group_size),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
