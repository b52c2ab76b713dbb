/* NDRange launches through the loader: 1-3D geometry with offsets checked work-item by
 * work-item against a host model, non-uniform and NULL local sizes, every
 * CL_INVALID_WORK_GROUP_SIZE rule, the other launch errors, local memory with barriers,
 * many buffers and large argument blocks. Needs CL_DEVICE_COMPILER_AVAILABLE = CL_TRUE;
 * the non-uniform cases need CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT = CL_TRUE. */
#include "kiln_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *barrier_source =
    "kernel void group_sums(global const int *in, global int *out, local int *scratch) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t stride = n / 2; stride > 0; stride /= 2) {\n"
    "    if (l < stride) scratch[l] += scratch[l + stride];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = scratch[0];\n"
    "}\n";

static const char *source =
    "kernel void ids(global uint *global_ids, global uint *local_ids, global uint *groups, global uint *sizes) {\n"
    "  size_t i = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) * get_global_size(0)\n"
    "           + (get_global_id(1) - get_global_offset(1)) * get_global_size(0) + get_global_id(0) - get_global_offset(0);\n"
    "  global_ids[i] = get_global_id(0) | get_global_id(1) << 10 | get_global_id(2) << 20;\n"
    "  local_ids[i] = get_local_id(0) | get_local_id(1) << 10 | get_local_id(2) << 20;\n"
    "  groups[i] = get_group_id(0) | get_group_id(1) << 10 | get_group_id(2) << 20;\n"
    "  sizes[i] = get_local_size(0) | get_local_size(1) << 10 | get_local_size(2) << 20 | get_work_dim() << 30;\n"
    "}\n"
    "kernel void local_echo(global int *out, local int *a, local int4 *b) {\n"
    "  size_t l = get_local_id(0);\n"
    "  a[l] = (int)get_global_id(0); b[l] = (int4)(a[l]);\n"
    "  out[get_global_id(0)] = b[l].w + a[l] + (int)(((local char *)b - (local char *)a) >= 0);\n"
    "}\n"
    "kernel void six(global int *a, global int *b, global int *c, global int *d, global int *e, global int *f) {\n"
    "  size_t i = get_global_id(0); f[i] = a[i] + b[i] + c[i] + d[i] + e[i];\n"
    "}\n"
    "typedef struct { int v[16]; } big;\n"
    "kernel void wide(global int *out, big s, float16 w) {\n"
    "  size_t i = get_global_id(0); out[i] = s.v[i] + (int)w.sf;\n"
    "}\n"
    "__attribute__((reqd_work_group_size(2, 2, 1))) kernel void fixed(global int *p) { p[get_global_id(0)] = 1; }\n";

struct fixture {
  struct kiln_test_env env;
  cl_program cl30, cl12, uniform30;
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  void *env_state = NULL;
  if (kiln_test_env_setup(&env_state) != 0) return -1;
  f->env = *(struct kiln_test_env *)env_state;
  free(env_state);
  *state = f;
  const char *options[3] = {"-cl-std=CL3.0", "-cl-std=CL1.2", "-cl-std=CL3.0 -cl-uniform-work-group-size"};
  cl_program *programs[3] = {&f->cl30, &f->cl12, &f->uniform30};
  for (int i = 0; i < 3; i++) {
    cl_int err;
    *programs[i] = clCreateProgramWithSource(f->env.context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    if (clBuildProgram(*programs[i], 0, NULL, options[i], NULL, NULL) != CL_SUCCESS) {
      char log[4096] = "";
      clGetProgramBuildInfo(*programs[i], f->env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
      print_error("build with %s failed:\n%s\n", options[i], log);
      return -1;
    }
  }
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  if (!f) return -1;
  clReleaseProgram(f->cl30);
  clReleaseProgram(f->cl12);
  clReleaseProgram(f->uniform30);
  struct kiln_test_env *env = malloc(sizeof *env);
  *env = f->env;
  void *env_state = env;
  free(f);
  return kiln_test_env_teardown(&env_state);
}

static cl_kernel kernel_of(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static cl_mem new_buffer(struct kiln_test_env *env, size_t size, const void *init) {
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, init ? CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, size, (void *)init, &err);
  assert_cl_success(err);
  return buffer;
}

/* Launches `ids` and compares every work-item's ids with the model; `local` NULL: checks
 * that the chosen size is consistent (and divides the range when `uniform`). */
static void check_ids(struct fixture *f, cl_program program, cl_uint dim, const size_t *offset, const size_t *global,
                      const size_t *local, bool uniform) {
  struct kiln_test_env *env = &f->env;
  size_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0};
  for (cl_uint d = 0; d < dim; d++) {
    g[d] = global[d];
    if (offset) o[d] = offset[d];
  }
  size_t n = g[0] * g[1] * g[2];
  cl_kernel k = kernel_of(program, "ids");
  cl_mem buffers[4];
  for (int i = 0; i < 4; i++) {
    buffers[i] = new_buffer(env, n * sizeof(cl_uint), NULL);
    assert_cl_success(clSetKernelArg(k, (cl_uint)i, sizeof buffers[i], &buffers[i]));
  }
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, dim, offset, global, local, 0, NULL, NULL));
  cl_uint *out[4];
  for (int i = 0; i < 4; i++) {
    out[i] = malloc(n * sizeof(cl_uint));
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffers[i], CL_TRUE, 0, n * sizeof(cl_uint), out[i], 0, NULL, NULL));
  }
  size_t l[3] = {1, 1, 1};
  for (cl_uint d = 0; d < dim; d++) l[d] = local ? local[d] : (out[3][0] >> (10 * d)) & 1023;
  for (cl_uint d = 0; d < dim; d++) {
    assert_true(l[d] >= 1);
    if (uniform) assert_int_equal(0, g[d] % l[d]);
  }
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        size_t i = (z * g[1] + y) * g[0] + x, id[3] = {x, y, z};
        cl_uint gid = 0, lid = 0, grp = 0, sz = (cl_uint)dim << 30;
        for (int d = 0; d < 3; d++) {
          size_t group = id[d] / l[d];
          size_t actual = (group + 1) * l[d] <= g[d] ? l[d] : g[d] - group * l[d];
          gid |= (cl_uint)(id[d] + o[d]) << (10 * d);
          lid |= (cl_uint)(id[d] % l[d]) << (10 * d);
          grp |= (cl_uint)group << (10 * d);
          sz |= (cl_uint)actual << (10 * d);
        }
        assert_int_equal(gid, out[0][i]);
        assert_int_equal(lid, out[1][i]);
        assert_int_equal(grp, out[2][i]);
        assert_int_equal(sz, out[3][i]);
      }
  for (int i = 0; i < 4; i++) {
    free(out[i]);
    assert_cl_success(clReleaseMemObject(buffers[i]));
  }
  assert_cl_success(clReleaseKernel(k));
}

static void test_geometry_1d_2d_3d(void **state) {
  struct fixture *f = *state;
  size_t g1[1] = {1000}, l1[1] = {40}, o1[1] = {7};
  check_ids(f, f->cl12, 1, NULL, g1, l1, true);
  check_ids(f, f->cl12, 1, o1, g1, l1, true);
  size_t g2[2] = {48, 30}, l2[2] = {16, 3}, o2[2] = {5, 900};
  check_ids(f, f->cl12, 2, o2, g2, l2, true);
  size_t g3[3] = {12, 10, 9}, l3[3] = {4, 5, 3}, o3[3] = {1, 2, 3};
  check_ids(f, f->cl12, 3, o3, g3, l3, true);
  size_t big[1] = {1 << 18}, bl[1] = {64};
  check_ids(f, f->cl12, 1, NULL, big, bl, true);
}

static void test_non_uniform(void **state) {
  struct fixture *f = *state;
  size_t g1[1] = {1001}, l1[1] = {64};
  check_ids(f, f->cl30, 1, NULL, g1, l1, false);
  size_t g3[3] = {13, 11, 7}, l3[3] = {4, 5, 3}, o3[3] = {3, 0, 9};
  check_ids(f, f->cl30, 3, o3, g3, l3, false);
}

static void test_null_local_size(void **state) {
  struct fixture *f = *state;
  size_t primes[1] = {1009}, g2[2] = {100, 37}, g3[3] = {6, 10, 14}, even[1] = {4096};
  check_ids(f, f->cl12, 1, NULL, primes, NULL, true);
  check_ids(f, f->cl12, 2, NULL, g2, NULL, true);
  check_ids(f, f->cl12, 3, NULL, g3, NULL, true);
  check_ids(f, f->cl12, 1, NULL, even, NULL, true);
  check_ids(f, f->uniform30, 1, NULL, primes, NULL, true);
  check_ids(f, f->cl30, 1, NULL, primes, NULL, false);
}

static void test_work_group_size_rules(void **state) {
  struct fixture *f = *state;
  struct kiln_test_env *env = &f->env;
  cl_kernel ids12 = kernel_of(f->cl12, "ids"), ids30 = kernel_of(f->cl30, "ids"),
            idsu = kernel_of(f->uniform30, "ids"), fixed = kernel_of(f->cl12, "fixed");
  cl_mem buffer = new_buffer(env, 4096 * sizeof(cl_uint), NULL);
  cl_kernel all[3] = {ids12, ids30, idsu};
  for (int k = 0; k < 3; k++)
    for (cl_uint i = 0; i < 4; i++) assert_cl_success(clSetKernelArg(all[k], i, sizeof buffer, &buffer));
  assert_cl_success(clSetKernelArg(fixed, 0, sizeof buffer, &buffer));
  size_t max_group, kernel_max;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
  assert_cl_success(clGetKernelWorkGroupInfo(ids12, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                             &kernel_max, NULL));

  size_t g[2] = {10, 10}, l_odd[2] = {3, 5}, l_zero[2] = {0, 1};
  /* Non-uniform: refused for OpenCL C 1.2 and with -cl-uniform-work-group-size. */
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, ids12, 2, NULL, g, l_odd, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, idsu, 2, NULL, g, l_odd, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, g, l_odd, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, g, l_zero, 0, NULL, NULL));
  /* More work-items than CL_KERNEL_WORK_GROUP_SIZE. */
  size_t g_big[2] = {kernel_max * 2, 2}, l_big[2] = {kernel_max, 2};
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE,
                   clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, g_big, l_big, 0, NULL, NULL));
  /* reqd_work_group_size(2,2,1): other sizes refused, NULL local uses it. */
  size_t gf[2] = {4, 4}, lf_bad[2] = {4, 1}, lf_ok[2] = {2, 2}, gf_odd[2] = {5, 4};
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, fixed, 2, NULL, gf, lf_bad, 0, NULL, NULL));
  size_t one_d = 4, one_l = 4;
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, fixed, 1, NULL, &one_d, &one_l, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, fixed, 2, NULL, gf, lf_ok, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, fixed, 2, NULL, gf, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueNDRangeKernel(env->queue, fixed, 2, NULL, gf_odd, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, clEnqueueTask(env->queue, fixed, 0, NULL, NULL));

  /* Dimensions, offsets, empty ranges, wait lists, contexts. */
  assert_int_equal(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(env->queue, ids30, 0, NULL, g, NULL, 0, NULL, NULL));
  size_t g4[4] = {1, 1, 1, 1};
  assert_int_equal(CL_INVALID_WORK_DIMENSION, clEnqueueNDRangeKernel(env->queue, ids30, 4, NULL, g4, NULL, 0, NULL, NULL));
  size_t huge_offset[2] = {SIZE_MAX, 0};
  assert_int_equal(CL_INVALID_GLOBAL_OFFSET,
                   clEnqueueNDRangeKernel(env->queue, ids30, 2, huge_offset, g, NULL, 0, NULL, NULL));
  cl_event done;
  size_t empty[2] = {0, 10};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, empty, NULL, 0, NULL, &done));
  assert_cl_success(clWaitForEvents(1, &done));
  cl_command_type type;
  assert_cl_success(clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_NDRANGE_KERNEL, type);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, ids30, 1, NULL, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, g, NULL, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueNDRangeKernel(env->queue, ids30, 2, NULL, g, NULL, 0, &done, NULL));
  /* A second context: its queue cannot run this context's kernel. */
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue other_queue = clCreateCommandQueueWithProperties(other, env->device, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueNDRangeKernel(other_queue, ids30, 2, NULL, g, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueNDRangeKernel(other_queue, ids30, 2, NULL, g, NULL, 1, &done, NULL));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clEnqueueNDRangeKernel((cl_command_queue)&fake, ids30, 2, NULL, g, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(clReleaseCommandQueue(other_queue));
  assert_cl_success(clReleaseContext(other));
  cl_kernel kernels[4] = {ids12, ids30, idsu, fixed};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  assert_cl_success(clReleaseMemObject(buffer));
}

static void test_local_memory_reduction(void **state) {
  struct fixture *f = *state;
  struct kiln_test_env *env = &f->env;
  enum { N = 1 << 14, GROUP = 128 };
  int *in = malloc(N * sizeof *in), out[N / GROUP];
  for (int i = 0; i < N; i++) in[i] = (i * 7919) % 1000 - 500;
  cl_mem src = new_buffer(env, N * sizeof *in, in), dst = new_buffer(env, sizeof out, NULL);
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &barrier_source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  cl_kernel k = kernel_of(program, "group_sums");
  assert_cl_success(clSetKernelArg(k, 0, sizeof src, &src));
  assert_cl_success(clSetKernelArg(k, 1, sizeof dst, &dst));
  assert_cl_success(clSetKernelArg(k, 2, GROUP * sizeof(int), NULL));
  size_t global = N, local = GROUP;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, dst, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int g = 0; g < N / GROUP; g++) {
    int sum = 0;
    for (int i = 0; i < GROUP; i++) sum += in[g * GROUP + i];
    assert_int_equal(sum, out[g]);
  }
  /* Local memory beyond the device's limit cannot launch. */
  cl_ulong limit;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limit, &limit, NULL));
  assert_cl_success(clSetKernelArg(k, 2, (size_t)limit + 1, NULL));
  assert_int_equal(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
  free(in);
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseMemObject(src));
  assert_cl_success(clReleaseMemObject(dst));
}

/* Two dynamic __local arguments: each work-item uses its own slots (no barrier needed). */
static void test_local_arguments(void **state) {
  struct fixture *f = *state;
  struct kiln_test_env *env = &f->env;
  enum { N = 4096, GROUP = 64 };
  cl_mem out = new_buffer(env, N * sizeof(int), NULL);
  cl_kernel k = kernel_of(f->cl12, "local_echo");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, GROUP * sizeof(int), NULL));
  assert_cl_success(clSetKernelArg(k, 2, GROUP * sizeof(cl_int4), NULL));
  cl_ulong bytes;
  assert_cl_success(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes, NULL));
  assert_true(bytes >= GROUP * (sizeof(int) + sizeof(cl_int4)));
  size_t global = N, local = GROUP;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
  int *result = malloc(N * sizeof *result);
  assert_cl_success(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, N * sizeof *result, result, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(2 * i + 1, result[i]);
  free(result);
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(out));
}

static void test_many_buffers_and_wide_args(void **state) {
  struct fixture *f = *state;
  struct kiln_test_env *env = &f->env;
  enum { N = 16 };
  int data[6][N];
  cl_mem buffers[6];
  cl_kernel six = kernel_of(f->cl12, "six");
  for (int b = 0; b < 6; b++) {
    for (int i = 0; i < N; i++) data[b][i] = (b + 1) * 100 + i;
    buffers[b] = new_buffer(env, sizeof data[b], data[b]);
    assert_cl_success(clSetKernelArg(six, (cl_uint)b, sizeof buffers[b], &buffers[b]));
  }
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, six, 1, NULL, &global, NULL, 0, NULL, NULL));
  /* The command holds the buffers: releasing them right away is safe. */
  for (int b = 0; b < 5; b++) assert_cl_success(clReleaseMemObject(buffers[b]));
  int result[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffers[5], CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(100 + 200 + 300 + 400 + 500 + 5 * i, result[i]);

  cl_kernel wide = kernel_of(f->cl12, "wide");
  struct { cl_int v[16]; } s;
  for (int i = 0; i < 16; i++) s.v[i] = i * i;
  cl_float16 w;
  for (int i = 0; i < 16; i++) w.s[i] = 0;
  w.s[15] = 1000;
  assert_cl_success(clSetKernelArg(wide, 0, sizeof buffers[5], &buffers[5]));
  assert_cl_success(clSetKernelArg(wide, 1, sizeof s, &s));
  assert_cl_success(clSetKernelArg(wide, 2, sizeof w, &w));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, wide, 1, NULL, &global, NULL, 0, NULL, NULL));
  s.v[0] = -1; /* the launch took a snapshot */
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffers[5], CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(i * i + 1000, result[i]);
  assert_cl_success(clReleaseMemObject(buffers[5]));
  assert_cl_success(clReleaseKernel(wide));
  assert_cl_success(clReleaseKernel(six));
}

/* Back-to-back launches with events and an out-of-order queue all complete with results. */
static void test_repeated_launches(void **state) {
  struct fixture *f = *state;
  struct kiln_test_env *env = &f->env;
  cl_int err;
  cl_command_queue ooo = clCreateCommandQueueWithProperties(
      env->context, env->device, (cl_queue_properties[]){CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
      &err);
  assert_cl_success(err);
  cl_kernel k = kernel_of(f->cl12, "six");
  int zeros[64] = {0};
  cl_mem in = new_buffer(env, sizeof zeros, zeros);
  for (cl_uint i = 0; i < 5; i++) assert_cl_success(clSetKernelArg(k, i, sizeof in, &in));
  cl_mem outs[8];
  cl_event events[8];
  size_t global = 64;
  for (int i = 0; i < 8; i++) {
    outs[i] = new_buffer(env, sizeof zeros, NULL);
    assert_cl_success(clSetKernelArg(k, 5, sizeof outs[i], &outs[i]));
    assert_cl_success(clEnqueueNDRangeKernel(i % 2 ? ooo : env->queue, k, 1, NULL, &global, NULL, 0, NULL, &events[i]));
  }
  assert_cl_success(clWaitForEvents(8, events));
  for (int i = 0; i < 8; i++) {
    cl_int status;
    assert_cl_success(clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    assert_int_equal(CL_COMPLETE, status);
    assert_cl_success(clReleaseEvent(events[i]));
    assert_cl_success(clReleaseMemObject(outs[i]));
  }
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseCommandQueue(ooo));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_geometry_1d_2d_3d),
      cmocka_unit_test(test_non_uniform),
      cmocka_unit_test(test_null_local_size),
      cmocka_unit_test(test_work_group_size_rules),
      cmocka_unit_test(test_local_arguments),
      cmocka_unit_test(test_local_memory_reduction),
      cmocka_unit_test(test_many_buffers_and_wide_args),
      cmocka_unit_test(test_repeated_launches),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
