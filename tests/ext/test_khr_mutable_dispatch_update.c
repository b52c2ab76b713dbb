/* cl_khr_command_buffer_mutable_dispatch 0.9.3, what updates do, checked against
 * host-computed values: the extension specification's sample (buffers swapped between
 * frames); scalar, buffer, local-memory, image, SVM-pointer and exec-info updates; global
 * offset, global size and local size in one to three dimensions; several configs naming
 * one command (applied in order); persistence over replays and partial updates; the same
 * kernel recorded twice (and into two command buffers) updated independently; the
 * application's kernel untouched; updates between executions that are still pending (the
 * executions already enqueued keep what they had); released replaced objects; sync points
 * kept; out-of-order queues; updates racing enqueues from another thread; and queries and
 * updates racing the release of the command buffer (errors, not crashes). */
#include "khr_mutable_dispatch_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static const char *source =
    "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    "kernel void add(global const int *a, global const int *b, global int *c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n"
    "kernel void where(global int *out, int tag) {\n"
    "  out[get_global_id(0)] = tag + (int)get_local_size(0) * 1000 + (int)get_num_groups(0) * 100000;\n"
    "}\n"
    "kernel void grid(global int *out) {\n"
    "  out[get_global_linear_id()] = (int)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2));\n"
    "}\n"
    "kernel void group_sum(global const int *in, global int *out, local int *s) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  s[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) { int t = 0; for (size_t k = 0; k < n; k++) t += s[k]; out[get_group_id(0)] = t; }\n"
    "}\n"
    "typedef struct { global int *target; } holder;\n"
    "kernel void indirect(global const holder *h, int v) { h->target[get_global_id(0)] = v; }\n"
    "kernel void copy_image(read_only image2d_t src, write_only image2d_t dst) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imageui(dst, c, read_imageui(src, c));\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  return kiln_test_program_setup(state, kcb_setup, &program, source, "-cl-std=CL3.0");
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

static void expect_all(cl_command_queue queue, cl_mem buffer, size_t count, cl_int value, const char *what) {
  cl_int got[256], want[256];
  assert_true(count <= 256);
  for (size_t i = 0; i < count; i++) want[i] = value;
  kcb_read(queue, buffer, count * sizeof(cl_int), got);
  kcb_expect_ints(want, got, count, what);
}

/* The specification's sample: a vector addition whose three buffers alternate between
 * two sets, updated before each frame, with new random inputs each frame. */
static void test_specification_sample(void **state) {
  struct kiln_test_env *env = *state;
  enum { COUNT = 1024, FRAMES = 12 };
  cl_mem in_a[2], in_b[2], out[2];
  for (int i = 0; i < 2; i++) {
    in_a[i] = kcb_buffer(env->context, COUNT * sizeof(cl_int));
    in_b[i] = kcb_buffer(env->context, COUNT * sizeof(cl_int));
    out[i] = kcb_buffer(env->context, COUNT * sizeof(cl_int));
  }
  cl_kernel add = kcb_kernel(program, "add");
  kcb_arg_mem(add, 0, in_a[0]);
  kcb_arg_mem(add, 1, in_b[0]);
  kcb_arg_mem(add, 2, out[0]);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  const cl_command_properties_khr props[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
                                             0};
  cl_mutable_command_khr h = kmd_record_1d(cb, add, props, COUNT, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  static cl_int a[COUNT], b[COUNT], got[COUNT], want[COUNT];
  cl_uint seed = 22;
  for (int frame = 0; frame < FRAMES; frame++) {
    int set = frame % 2;
    kcb_random_ints(&seed, a, COUNT, 1 << 30);
    kcb_random_ints(&seed, b, COUNT, 1 << 30);
    kcb_write(env->queue, in_a[set], sizeof a, a);
    kcb_write(env->queue, in_b[set], sizeof b, b);
    if (frame) {
      cl_mutable_dispatch_arg_khr args[3] = {
          {0, sizeof(cl_mem), &in_a[set]}, {1, sizeof(cl_mem), &in_b[set]}, {2, sizeof(cl_mem), &out[set]}};
      cl_mutable_dispatch_config_khr config = kmd_config(h);
      config.num_args = 3, config.arg_list = args;
      assert_cl_success(kmd_update(cb, &config));
    }
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, out[set], sizeof got, got);
    for (int i = 0; i < COUNT; i++) want[i] = a[i] + b[i];
    kcb_expect_ints(want, got, COUNT, "frame");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(add));
  for (int i = 0; i < 2; i++) {
    assert_cl_success(clReleaseMemObject(in_a[i]));
    assert_cl_success(clReleaseMemObject(in_b[i]));
    assert_cl_success(clReleaseMemObject(out[i]));
  }
}

/* Scalar and buffer arguments: persistence over replays, partial updates keeping the rest,
 * several arguments in one config, several configs for one command (later ones win). */
static void test_argument_updates(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem a = kcb_buffer(env->context, 256), b = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, a);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, 64, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  kmd_run(env->queue, cb);
  expect_all(env->queue, a, 64, 1, "as recorded");

  kmd_update_int_arg(cb, h, 1, 2);
  for (int replay = 0; replay < 3; replay++) {
    kcb_write(env->queue, a, 256, (cl_int[64]){0});
    kmd_run(env->queue, cb);
    expect_all(env->queue, a, 64, 2, "the scalar updated, every replay");
  }
  kmd_update_mem_arg(cb, h, 0, b); /* the scalar stays 2 */
  kmd_run(env->queue, cb);
  expect_all(env->queue, b, 64, 2, "the buffer updated, the scalar kept");

  cl_int three = 3, four = 4;
  cl_mutable_dispatch_arg_khr both[2] = {{1, sizeof three, &three}, {0, sizeof(cl_mem), &a}};
  cl_mutable_dispatch_config_khr configs[2] = {kmd_config(h), kmd_config(h)};
  configs[0].num_args = 2, configs[0].arg_list = both;
  cl_mutable_dispatch_arg_khr later = {1, sizeof four, &four};
  configs[1].num_args = 1, configs[1].arg_list = &later;
  assert_cl_success(kmd_update_n(cb, 2, configs));
  kmd_run(env->queue, cb);
  expect_all(env->queue, a, 64, 4, "two configs: the later value");
  expect_all(env->queue, b, 64, 2, "b: no longer written");

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* Global size, global offset and local size of a 1-D NDRange; items outside the updated
 * range keep what the earlier replay wrote. */
static void test_geometry_updates_1d(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 256 * sizeof(cl_int));
  cl_kernel where = kcb_kernel(program, "where");
  kcb_arg_mem(where, 0, out);
  kcb_arg_int(where, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, where, NULL, 64, 8);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  kcb_write(env->queue, out, 256 * sizeof(cl_int), (cl_int[256]){0});
  kmd_run(env->queue, cb);
  cl_int got[256], want[256] = {0};
  for (int i = 0; i < 64; i++) want[i] = 1 + 8 * 1000 + 8 * 100000;
  kcb_read(env->queue, out, sizeof got, got);
  kcb_expect_ints(want, got, 256, "as recorded: 64 items in groups of 8");

  const size_t global = 32, offset = 100, local = 4;
  cl_mutable_dispatch_config_khr config = kmd_config(h);
  config.global_work_size = &global;
  assert_cl_success(kmd_update(cb, &config));
  kmd_update_int_arg(cb, h, 1, 2);
  kmd_run(env->queue, cb);
  for (int i = 0; i < 32; i++) want[i] = 2 + 8 * 1000 + 4 * 100000;
  kcb_read(env->queue, out, sizeof got, got);
  kcb_expect_ints(want, got, 256, "global size 32: 4 groups");

  config = kmd_config(h);
  config.global_work_offset = &offset;
  config.local_work_size = &local;
  config.work_dim = 1;
  assert_cl_success(kmd_update(cb, &config));
  kmd_update_int_arg(cb, h, 1, 3);
  kmd_run(env->queue, cb);
  for (int i = 100; i < 132; i++) want[i] = 3 + 4 * 1000 + 8 * 100000;
  kcb_read(env->queue, out, sizeof got, got);
  kcb_expect_ints(want, got, 256, "offset 100, groups of 4 (the global size kept)");

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(where));
  assert_cl_success(clReleaseMemObject(out));
}

/* 2-D and 3-D NDRanges resized (work_dim given as recorded, and as 0). */
static void test_geometry_updates_2d_3d(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 4096 * sizeof(cl_int));
  cl_kernel grid = kcb_kernel(program, "grid");
  kcb_arg_mem(grid, 0, out);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  const size_t g2[2] = {4, 3}, g3[3] = {2, 2, 2};
  cl_mutable_command_khr h2 = NULL, h3 = NULL;
  cl_sync_point_khr s2;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, grid, 2, NULL, g2, NULL, 0, NULL, &s2, &h2));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, grid, 3, NULL, g3, NULL, 1, &s2, NULL, &h3));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  const size_t n2[2] = {16, 8}, n3[3] = {8, 4, 6}, l3[3] = {2, 2, 3};
  cl_mutable_dispatch_config_khr configs[2] = {kmd_config(h2), kmd_config(h3)};
  configs[0].global_work_size = n2;
  configs[1].global_work_size = n3;
  configs[1].local_work_size = l3;
  configs[1].work_dim = 3;
  assert_cl_success(kmd_update_n(cb, 2, configs));
  kcb_write(env->queue, out, 4096 * sizeof(cl_int), (cl_int[4096]){0});
  kmd_run(env->queue, cb);
  static cl_int got[4096], want[4096];
  for (int z = 0; z < 6; z++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 8; x++) want[(z * 4 + y) * 8 + x] = x + 100 * y + 10000 * z;
  kcb_read(env->queue, out, sizeof got, got);
  kcb_expect_ints(want, got, 4096, "3-D: 8 x 4 x 6 after the 2-D 16 x 8 (which it covers)");
  size_t v[3];
  assert_int_equal(3 * sizeof(size_t), kmd_info_sizes(h3, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, v));
  assert_true(v[0] == 8 && v[1] == 4 && v[2] == 6);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(grid));
  assert_cl_success(clReleaseMemObject(out));
}

/* A __local argument's size and the input buffer, with the local size they go with. */
static void test_local_memory_argument(void **state) {
  struct kiln_test_env *env = *state;
  cl_int in[256], got[64], want[64];
  for (int i = 0; i < 256; i++) in[i] = i * 3 - 100;
  cl_mem input = kcb_buffer_with(env->context, 256, in), sums = kcb_buffer(env->context, 64 * sizeof(cl_int));
  cl_kernel group_sum = kcb_kernel(program, "group_sum");
  kcb_arg_mem(group_sum, 0, input);
  kcb_arg_mem(group_sum, 1, sums);
  assert_cl_success(clSetKernelArg(group_sum, 2, 8 * sizeof(cl_int), NULL));
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, group_sum, NULL, 256, 8);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  const size_t local = 64;
  cl_mutable_dispatch_arg_khr scratch = {2, 64 * sizeof(cl_int), NULL};
  cl_mutable_dispatch_config_khr config = kmd_config(h);
  config.num_args = 1, config.arg_list = &scratch;
  config.local_work_size = &local;
  assert_cl_success(kmd_update(cb, &config));
  kmd_run(env->queue, cb);
  kcb_read(env->queue, sums, 4 * sizeof(cl_int), got);
  for (int g = 0; g < 4; g++) {
    want[g] = 0;
    for (int k = 0; k < 64; k++) want[g] += in[g * 64 + k];
  }
  kcb_expect_ints(want, got, 4, "sums of groups of 64");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(group_sum));
  assert_cl_success(clReleaseMemObject(input));
  assert_cl_success(clReleaseMemObject(sums));
}

/* An image argument swapped for another image. */
static void test_image_argument(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc = {0};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 8;
  desc.image_height = 4;
  cl_uchar src_bytes[128], zero[128] = {0}, got[128];
  for (int i = 0; i < 128; i++) src_bytes[i] = (cl_uchar)(i * 7 + 1);
  cl_int err;
  cl_mem src = clCreateImage(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, src_bytes, &err);
  assert_cl_success(err);
  cl_mem dst[2];
  for (int i = 0; i < 2; i++) {
    dst[i] = clCreateImage(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &desc, zero, &err);
    assert_cl_success(err);
  }
  cl_kernel copy = kcb_kernel(program, "copy_image");
  kcb_arg_mem(copy, 0, src);
  kcb_arg_mem(copy, 1, dst[0]);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  const size_t global[2] = {8, 4};
  cl_mutable_command_khr h = NULL;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, copy, 2, NULL, global, NULL, 0, NULL, NULL, &h));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  kmd_update_mem_arg(cb, h, 1, dst[1]);
  kmd_run(env->queue, cb);
  const size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, dst[1], CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL));
  assert_memory_equal(src_bytes, got, sizeof got);
  assert_cl_success(clEnqueueReadImage(env->queue, dst[0], CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL));
  assert_memory_equal(zero, got, sizeof got);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(copy));
  assert_cl_success(clReleaseMemObject(src));
  assert_cl_success(clReleaseMemObject(dst[0]));
  assert_cl_success(clReleaseMemObject(dst[1]));
}

/* SVM: a pointer argument updated to another allocation (coarse-grain, fine-grain, and
 * system memory), and the exec info naming what a kernel reaches through a pointer it reads. */
static void test_svm_updates(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 64 };
  cl_int *coarse = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(cl_int), 0);
  cl_int *fine = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(cl_int), 0);
  static cl_int system_memory[N];
  assert_non_null(coarse);
  assert_non_null(fine);
  cl_kernel put = kcb_kernel(program, "put");
  assert_cl_success(clSetKernelArgSVMPointer(put, 0, coarse));
  kcb_arg_int(put, 1, 5);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, N, 0);

  /* indirect: the kernel reads its target pointer from a holder in SVM. */
  typedef struct {
    cl_int *target;
  } holder;
  holder *hold = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, sizeof *hold, 0);
  assert_non_null(hold);
  hold->target = fine;
  cl_kernel indirect = kcb_kernel(program, "indirect");
  assert_cl_success(clSetKernelArgSVMPointer(indirect, 0, hold));
  kcb_arg_int(indirect, 1, 9);
  void *reached = fine;
  assert_cl_success(clSetKernelExecInfo(indirect, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, &reached));
  cl_mutable_command_khr hi = kmd_record_1d(cb, indirect, NULL, N, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  /* put -> fine, indirect -> system memory (its holder rewritten, the exec info updated). */
  cl_mutable_dispatch_arg_khr to_fine = {0, 0, fine};
  void *system_pointer = system_memory;
  cl_mutable_dispatch_exec_info_khr infos[2] = {{CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof system_pointer, &system_pointer},
                                                {CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool),
                                                 &(cl_bool){CL_TRUE}}};
  cl_mutable_dispatch_config_khr configs[2] = {kmd_config(h), kmd_config(hi)};
  configs[0].num_svm_args = 1, configs[0].arg_svm_list = &to_fine;
  configs[1].num_exec_infos = 2, configs[1].exec_info_list = infos;
  assert_cl_success(kmd_update_n(cb, 2, configs));
  hold->target = system_memory;
  kmd_run(env->queue, cb);
  for (int i = 0; i < N; i++) {
    if (fine[i] != 5) fail_msg("fine[%d] = %d, expected 5 (put's updated SVM argument)", i, fine[i]);
    if (system_memory[i] != 9) fail_msg("system[%d] = %d, expected 9 (indirect's target)", i, system_memory[i]);
  }

  /* put -> system memory; coarse-grain memory never written by the updated command. */
  assert_cl_success(clEnqueueSVMMemFill(env->queue, coarse, &(cl_int){0}, sizeof(cl_int), N * sizeof(cl_int), 0, NULL,
                                        NULL));
  cl_mutable_dispatch_arg_khr to_system = {0, 0, system_memory};
  configs[0] = kmd_config(h);
  configs[0].num_svm_args = 1, configs[0].arg_svm_list = &to_system;
  assert_cl_success(kmd_update(cb, &configs[0]));
  kmd_update_int_arg(cb, h, 1, 6);
  kmd_run(env->queue, cb);
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, coarse, N * sizeof(cl_int), 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    if (coarse[i] != 0) fail_msg("coarse[%d] = %d: written after its argument was replaced", i, coarse[i]);
    if (system_memory[i] != 9) fail_msg("system[%d] = %d, expected 9 (put wrote 6, then indirect 9)", i, system_memory[i]);
  }
  assert_cl_success(clEnqueueSVMUnmap(env->queue, coarse, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(indirect));
  clSVMFree(env->context, coarse);
  clSVMFree(env->context, fine);
  clSVMFree(env->context, hold);
}

/* The same kernel recorded twice (and into a second command buffer): each command is its
 * own; the application's kernel is neither changed by updates nor able to change them. */
static void test_same_kernel_recorded_twice(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem a = kcb_buffer(env->context, 256), b = kcb_buffer(env->context, 256), c = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, a);
  kcb_arg_int(put, 1, 1);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0), cb2 = kmd_create(env->queue, 0);
  cl_mutable_command_khr first = kmd_record_1d(cb, put, NULL, 64, 0);
  kcb_arg_int(put, 1, 2); /* the second command captures 2; the first keeps 1 */
  cl_mutable_command_khr second = kmd_record_1d(cb, put, NULL, 32, 0);
  cl_mutable_command_khr elsewhere = kmd_record_1d(cb2, put, NULL, 64, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb2));

  kmd_update_mem_arg(cb, first, 0, b); /* first: b with 1; second: a with 2 */
  kcb_arg_int(put, 1, 3);              /* changes no recorded command */
  kmd_run(env->queue, cb);
  expect_all(env->queue, b, 64, 1, "first command: updated buffer, recorded value");
  expect_all(env->queue, a, 32, 2, "second command: as recorded");

  kmd_update_int_arg(cb, second, 1, 4);
  kmd_run(env->queue, cb);
  expect_all(env->queue, b, 64, 1, "first command: its update kept");
  expect_all(env->queue, a, 32, 4, "second command: updated");

  kmd_update_mem_arg(cb2, elsewhere, 0, c);
  kmd_run(env->queue, cb2);
  expect_all(env->queue, c, 64, 2, "the other command buffer's command: its own update");

  /* The application's kernel: still a with 3 (its own last clSetKernelArg). */
  const size_t global = 64;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, put, 1, NULL, &global, NULL, 0, NULL, NULL));
  expect_all(env->queue, a, 64, 3, "the application's kernel");
  size_t v[3];
  kmd_info_sizes(second, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, v);
  assert_int_equal(32, v[0]);

  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb2));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(c));
}

/* Updates while executions are pending (simultaneous use): executions enqueued before an
 * update run as they were, later ones with the update; the command buffer is pending
 * throughout. */
static void test_updates_while_pending(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out[3];
  for (int i = 0; i < 3; i++) out[i] = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out[0]);
  kcb_arg_int(put, 1, 10);
  cl_command_buffer_khr cb = kmd_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  cl_mutable_command_khr h = kmd_record_1d(cb, put, NULL, 64, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  cl_event gate = kcb_user_event(env->context), done[3];
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &done[0]));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  kmd_update_mem_arg(cb, h, 0, out[1]);
  kmd_update_int_arg(cb, h, 1, 11);
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &done[1]));
  kmd_update_mem_arg(cb, h, 0, out[2]);
  kmd_update_int_arg(cb, h, 1, 12);
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &done[2]));
  for (int i = 0; i < 3; i++) assert_true(kcb_event_status(done[i]) > CL_RUNNING); /* none started */
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(3, done));
  for (int i = 0; i < 3; i++) {
    char what[64];
    snprintf(what, sizeof what, "execution %d", i);
    expect_all(env->queue, out[i], 64, 10 + i, what);
    assert_cl_success(clReleaseEvent(done[i]));
  }
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  for (int i = 0; i < 3; i++) assert_cl_success(clReleaseMemObject(out[i]));
}

/* Once every command using an object has it replaced, the object may be released (the
 * spec's note); sync points recorded before the update still order the commands. */
static void test_released_objects_and_sync_points(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem first = kcb_buffer(env->context, 256), second = kcb_buffer(env->context, 256);
  cl_mem b = kcb_buffer(env->context, 256), c = kcb_buffer(env->context, 256);
  cl_kernel add = kcb_kernel(program, "add");
  kcb_arg_mem(add, 0, first);
  kcb_arg_mem(add, 1, b);
  kcb_arg_mem(add, 2, c);
  cl_command_buffer_khr cb = kmd_create(env->queue, 0);
  cl_int seven = 7, five = 5;
  cl_sync_point_khr filled[2];
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, first, &seven, sizeof seven, 0, 256, 0, NULL, &filled[0],
                                               NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, b, &five, sizeof five, 0, 256, 0, NULL, &filled[1], NULL));
  cl_mutable_command_khr h = NULL;
  const size_t global = 64;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add, 1, NULL, &global, NULL, 2, filled, NULL, &h));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  kmd_run(env->queue, cb);
  expect_all(env->queue, c, 64, 12, "as recorded");

  cl_int hundreds[64];
  for (int i = 0; i < 64; i++) hundreds[i] = 100;
  kcb_write(env->queue, second, sizeof hundreds, hundreds);
  kmd_update_mem_arg(cb, h, 0, second);
  /* The kernel command no longer reads `first` (the fill still writes it: the command
   * buffer holds that one itself), and the command keeps what it needs of `add`. */
  assert_cl_success(clReleaseMemObject(first));
  assert_cl_success(clReleaseKernel(add));
  for (int replay = 0; replay < 3; replay++) {
    kcb_write(env->queue, c, 256, (cl_int[64]){0});
    kmd_run(env->queue, cb);
    expect_all(env->queue, c, 64, 105, "second + the filled b, each replay");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(second));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(c));
}

/* On an out-of-order queue an execution starts after the commands enqueued before it: a
 * read of one execution's output is not overtaken by the next execution, updated between. */
static void test_out_of_order_queue(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue ooo = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  enum { N = 4096 };
  cl_mem out = kcb_buffer(env->context, N * sizeof(cl_int)), other = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_kernel put = kcb_kernel(program, "put"), put2 = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  kcb_arg_mem(put2, 0, out);
  kcb_arg_int(put2, 1, 2);
  cl_command_buffer_khr cb = kmd_create(ooo, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  cl_sync_point_khr s;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put, 1, NULL, &(size_t){N}, NULL, 0, NULL, &s, NULL));
  cl_mutable_command_khr h = NULL;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put2, 1, NULL, &(size_t){N}, NULL, 1, &s, NULL, &h));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  static cl_int got[N];
  for (int round = 0; round < 4; round++) {
    cl_event gate = kcb_user_event(env->context), e;
    kmd_update_mem_arg(cb, h, 0, out); /* the first execution: out ends as 2 */
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &e));
    assert_cl_success(clEnqueueReadBuffer(ooo, out, CL_FALSE, 0, sizeof got, got, 1, &e, NULL));
    kmd_update_mem_arg(cb, h, 0, other); /* the second: out ends as 1 */
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, NULL));
    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    assert_cl_success(clFinish(ooo));
    for (int i = 0; i < N; i++)
      if (got[i] != 2) fail_msg("round %d: out[%d] = %d, expected 2 (read before the next execution)", round, i, got[i]);
    assert_cl_success(clReleaseEvent(e));
    assert_cl_success(clReleaseEvent(gate));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(put2));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseMemObject(other));
  assert_cl_success(clReleaseCommandQueue(ooo));
}

/* Updates from one thread while another enqueues and reads: every execution sees one
 * whole update (two commands updated together always agree). */
struct racer {
  cl_command_buffer_khr cb;
  cl_mutable_command_khr h[2];
  atomic_bool stop;
  atomic_int updates;
};

static void *update_loop(void *p) {
  struct racer *r = p;
  for (cl_int k = 1; !atomic_load(&r->stop) && k < CL_INT_MAX; k++) {
    cl_mutable_dispatch_arg_khr arg = {1, sizeof k, &k};
    cl_mutable_dispatch_config_khr configs[2] = {kmd_config(r->h[0]), kmd_config(r->h[1])};
    for (int i = 0; i < 2; i++) configs[i].num_args = 1, configs[i].arg_list = &arg;
    if (kmd_update_n(r->cb, 2, configs) != CL_SUCCESS) return (void *)1;
    atomic_store(&r->updates, (int)k);
  }
  return NULL;
}

static void test_updates_racing_enqueues(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem x = kcb_buffer(env->context, 256), y = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_int(put, 1, 0);
  struct racer r = {.cb = kmd_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR)};
  atomic_init(&r.stop, false);
  atomic_init(&r.updates, 0);
  kcb_arg_mem(put, 0, x);
  r.h[0] = kmd_record_1d(r.cb, put, NULL, 64, 0);
  kcb_arg_mem(put, 0, y);
  r.h[1] = kmd_record_1d(r.cb, put, NULL, 64, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(r.cb));
  pthread_t thread;
  assert_int_equal(0, pthread_create(&thread, NULL, update_loop, &r));
  while (atomic_load(&r.updates) == 0) kiln_test_sleep_ms(1); /* the race starts with the first update */
  /* At least 200 executions, and on until two of them saw different updates (the updater
   * may be descheduled for a while on a busy machine). */
  int distinct = 0, previous = -1;
  double deadline = kiln_test_now_ms() + 20000;
  for (int i = 0; i < 200 || (distinct < 2 && kiln_test_now_ms() < deadline); i++) {
    cl_int gx[64], gy[64];
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, r.cb, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, x, CL_FALSE, 0, sizeof gx, gx, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, y, CL_TRUE, 0, sizeof gy, gy, 0, NULL, NULL));
    for (int k = 0; k < 64; k++)
      if (gx[k] != gx[0] || gy[k] != gx[0]) fail_msg("execution %d saw x = %d, y[%d] = %d: a partial update", i, gx[0], k, gy[k]);
    distinct += gx[0] != previous;
    previous = gx[0];
  }
  atomic_store(&r.stop, true);
  void *result;
  assert_int_equal(0, pthread_join(thread, &result));
  assert_null(result);
  assert_true(distinct > 1); /* executions did see different updates */
  assert_cl_success(kcb.clReleaseCommandBufferKHR(r.cb));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(x));
  assert_cl_success(clReleaseMemObject(y));
}

/* Another thread queries and updates a command buffer's handles while this one releases
 * it: every call succeeds or reports the released handle, none crashes. */
struct release_race {
  cl_command_buffer_khr cb;
  cl_mutable_command_khr h;
  atomic_int started;
  int unexpected;
};

static void *query_and_update(void *p) {
  struct release_race *r = p;
  atomic_store(&r->started, 1);
  for (int i = 0; i < 2000; i++) {
    cl_uint dims = 0;
    cl_int q = kcb.clGetMutableCommandInfoKHR(r->h, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, NULL);
    cl_int v = i;
    cl_mutable_dispatch_arg_khr arg = {1, sizeof v, &v};
    cl_mutable_dispatch_config_khr config = kmd_config(r->h);
    config.num_args = 1, config.arg_list = &arg;
    cl_int u = kmd_update(r->cb, &config);
    if ((q != CL_SUCCESS && q != CL_INVALID_MUTABLE_COMMAND_KHR) || (q == CL_SUCCESS && dims != 1) ||
        (u != CL_SUCCESS && u != CL_INVALID_COMMAND_BUFFER_KHR && u != CL_INVALID_MUTABLE_COMMAND_KHR))
      r->unexpected++;
    if (q == CL_INVALID_MUTABLE_COMMAND_KHR && u == CL_INVALID_COMMAND_BUFFER_KHR) break;
  }
  return NULL;
}

static void test_handles_racing_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem out = kcb_buffer(env->context, 256);
  cl_kernel put = kcb_kernel(program, "put");
  kcb_arg_mem(put, 0, out);
  kcb_arg_int(put, 1, 1);
  for (int round = 0; round < 20; round++) {
    struct release_race r = {.cb = kmd_create(env->queue, 0)};
    atomic_init(&r.started, 0);
    r.h = kmd_record_1d(r.cb, put, NULL, 64, 0);
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(r.cb));
    kmd_run(env->queue, r.cb);
    pthread_t thread;
    assert_int_equal(0, pthread_create(&thread, NULL, query_and_update, &r));
    while (!atomic_load(&r.started)) sched_yield();
    if (round % 2) kiln_test_sleep_ms(1); /* sometimes in the middle of the calls, sometimes at their start */
    assert_cl_success(kcb.clReleaseCommandBufferKHR(r.cb));
    assert_int_equal(0, pthread_join(thread, NULL));
    assert_int_equal(0, r.unexpected);
  }
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_specification_sample),
      KCB_TEST(test_argument_updates),
      KCB_TEST(test_geometry_updates_1d),
      KCB_TEST(test_geometry_updates_2d_3d),
      KCB_TEST(test_local_memory_argument),
      KCB_TEST(test_image_argument),
      KCB_TEST(test_svm_updates),
      KCB_TEST(test_same_kernel_recorded_twice),
      KCB_TEST(test_updates_while_pending),
      KCB_TEST(test_released_objects_and_sync_points),
      KCB_TEST(test_out_of_order_queue),
      KCB_TEST(test_updates_racing_enqueues),
      KCB_TEST(test_handles_racing_release),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
