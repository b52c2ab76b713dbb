/* cl_khr_command_buffer 0.9.7, recording: every recording entry point's success path and
 * errors. The command-buffer errors (command_queue not NULL, properties, mutable handle,
 * sync-point wait lists, finalized) for all eleven entry points (an NDRange's mutable
 * handle and properties are cl_khr_command_buffer_mutable_dispatch's: its own suites); then each entry point's
 * errors inherited from its clEnqueue* counterpart, checked against the spec's code and
 * against what the counterpart itself returns for the same arguments. Sync points are
 * unique and non-zero, and a failed recording records nothing.
 *
 * The SVM and image commands record like their clEnqueue* forms (the device has fine-grain
 * system SVM, so plain host arrays are valid SVM pointers). Where the spec's error conditions
 * overlap it does not order
 * them; Kiln reports the command-buffer's own errors (handle, queue, properties, mutable
 * handle, finalized, sync points) before those of the command. */
#include "khr_command_buffer_test.h"

#include <stdint.h>
#include <unistd.h>

#define BYTES 1024 /* size of the fixture's buffers */

static const char *source =
    "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    "kernel __attribute__((reqd_work_group_size(4, 1, 1))) void put4(global int *p) { p[get_global_id(0)] = 4; }\n"
    "kernel void put2d(global int *p) { p[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 2; }\n"
    "kernel void say(int v) { printf(\"cb %d %u\\n\", v, (uint)get_global_id(0)); }\n";

struct fixture {
  struct kiln_test_env *env;
  cl_program program, uniform_program, other_program;
  cl_kernel put, put4, put2d, uniform_put, other_put;
  cl_mem a, b;
  cl_mem image_a, image_b; /* 8 x 8 RGBA UNORM_INT8 */
  cl_context other_context;
  cl_mem other_buffer;
  cl_command_queue second_queue; /* another queue of the fixture's context */
};
static struct fixture fx;

static int setup(void **state) {
  kiln_test_program_setup(state, kcb_setup, &fx.program, source, NULL);
  struct kiln_test_env *env = *state;
  fx.env = env;
  fx.put = kcb_kernel(fx.program, "put");
  fx.put4 = kcb_kernel(fx.program, "put4");
  fx.put2d = kcb_kernel(fx.program, "put2d");
  /* OpenCL C 1.2: work-groups must be uniform. */
  fx.uniform_program = kcb_program(env->context, env->device, source, "-cl-std=CL1.2");
  fx.uniform_put = kcb_kernel(fx.uniform_program, "put");
  fx.a = kcb_buffer(env->context, BYTES);
  fx.b = kcb_buffer(env->context, BYTES);
  const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
  const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8};
  cl_int err;
  fx.image_a = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  fx.image_b = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  kcb_arg_mem(fx.put, 0, fx.a);
  kcb_arg_int(fx.put, 1, 1);
  kcb_arg_mem(fx.put4, 0, fx.a);
  kcb_arg_mem(fx.put2d, 0, fx.a);
  kcb_arg_mem(fx.uniform_put, 0, fx.a);
  kcb_arg_int(fx.uniform_put, 1, 1);
  fx.other_context = kcb_context(env->device);
  fx.other_buffer = kcb_buffer(fx.other_context, BYTES);
  fx.other_program = kcb_program(fx.other_context, env->device, source, NULL);
  fx.other_put = kcb_kernel(fx.other_program, "put");
  kcb_arg_mem(fx.other_put, 0, fx.other_buffer);
  kcb_arg_int(fx.other_put, 1, 1);
  fx.second_queue = kcb_queue(env->context, env->device, 0);
  return 0;
}

static int teardown(void **state) {
  cl_kernel kernels[] = {fx.put, fx.put4, fx.put2d, fx.uniform_put, fx.other_put};
  for (size_t i = 0; i < 5; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  assert_cl_success(clReleaseProgram(fx.program));
  assert_cl_success(clReleaseProgram(fx.uniform_program));
  assert_cl_success(clReleaseProgram(fx.other_program));
  assert_cl_success(clReleaseMemObject(fx.a));
  assert_cl_success(clReleaseMemObject(fx.b));
  assert_cl_success(clReleaseMemObject(fx.image_a));
  assert_cl_success(clReleaseMemObject(fx.image_b));
  assert_cl_success(clReleaseMemObject(fx.other_buffer));
  assert_cl_success(clReleaseContext(fx.other_context));
  assert_cl_success(clReleaseCommandQueue(fx.second_queue));
  return kiln_test_env_teardown(state);
}

/* ---- the command-buffer errors, for every entry point ---- */

/* One entry point with valid command arguments; the command-buffer arguments vary. */
typedef cl_int (*record_fn)(cl_command_buffer_khr cb, cl_command_queue queue, const cl_command_properties_khr *props,
                            cl_uint num_sync_points, const cl_sync_point_khr *sync_points,
                            cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);

static const size_t zero3[3] = {0, 0, 0};
static _Alignas(64) char host_a[64], host_b[64]; /* SVM fills need the pattern's alignment */
static const cl_int pattern = 0x01020304;

static cl_int rec_barrier(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                          const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  return kcb.clCommandBarrierWithWaitListKHR(cb, q, p, n, l, sp, mh);
}
static cl_int rec_copy(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                       const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  return kcb.clCommandCopyBufferKHR(cb, q, p, fx.a, fx.b, 0, 256, 256, n, l, sp, mh);
}
static cl_int rec_copy_rect(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                            const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  const size_t region[3] = {16, 4, 1};
  return kcb.clCommandCopyBufferRectKHR(cb, q, p, fx.a, fx.b, zero3, zero3, region, 32, 0, 32, 0, n, l, sp, mh);
}
static cl_int rec_fill(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                       const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  return kcb.clCommandFillBufferKHR(cb, q, p, fx.a, &pattern, sizeof pattern, 0, 256, n, l, sp, mh);
}
static cl_int rec_ndrange(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                          const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  const size_t global = 64;
  return kcb.clCommandNDRangeKernelKHR(cb, q, p, fx.put, 1, NULL, &global, NULL, n, l, sp, mh);
}
static cl_int rec_buffer_to_image(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p,
                                  cl_uint n, const cl_sync_point_khr *l, cl_sync_point_khr *sp,
                                  cl_mutable_command_khr *mh) {
  const size_t region[3] = {4, 4, 1};
  return kcb.clCommandCopyBufferToImageKHR(cb, q, p, fx.a, fx.image_a, 0, zero3, region, n, l, sp, mh);
}
static cl_int rec_image(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p, cl_uint n,
                        const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  const size_t region[3] = {4, 4, 1};
  return kcb.clCommandCopyImageKHR(cb, q, p, fx.image_a, fx.image_b, zero3, zero3, region, n, l, sp, mh);
}
static cl_int rec_image_to_buffer(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p,
                                  cl_uint n, const cl_sync_point_khr *l, cl_sync_point_khr *sp,
                                  cl_mutable_command_khr *mh) {
  const size_t region[3] = {4, 4, 1};
  return kcb.clCommandCopyImageToBufferKHR(cb, q, p, fx.image_a, fx.b, zero3, region, 0, n, l, sp, mh);
}
static cl_int rec_fill_image(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p,
                             cl_uint n, const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  const size_t region[3] = {4, 4, 1};
  const cl_float color[4] = {1, 2, 3, 4};
  return kcb.clCommandFillImageKHR(cb, q, p, fx.image_a, color, zero3, region, n, l, sp, mh);
}
static cl_int rec_svm_memcpy(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p,
                             cl_uint n, const cl_sync_point_khr *l, cl_sync_point_khr *sp, cl_mutable_command_khr *mh) {
  return kcb.clCommandSVMMemcpyKHR(cb, q, p, host_a, host_b, sizeof host_a, n, l, sp, mh);
}
static cl_int rec_svm_memfill(cl_command_buffer_khr cb, cl_command_queue q, const cl_command_properties_khr *p,
                              cl_uint n, const cl_sync_point_khr *l, cl_sync_point_khr *sp,
                              cl_mutable_command_khr *mh) {
  return kcb.clCommandSVMMemFillKHR(cb, q, p, host_a, &pattern, sizeof pattern, sizeof host_a, n, l, sp, mh);
}

static const struct entry {
  const char *name;
  record_fn record;
  cl_int valid_result; /* what valid command-buffer arguments give */
} entries[] = {
    {"clCommandBarrierWithWaitListKHR", rec_barrier, CL_SUCCESS},
    {"clCommandCopyBufferKHR", rec_copy, CL_SUCCESS},
    {"clCommandCopyBufferRectKHR", rec_copy_rect, CL_SUCCESS},
    {"clCommandFillBufferKHR", rec_fill, CL_SUCCESS},
    {"clCommandNDRangeKernelKHR", rec_ndrange, CL_SUCCESS},
    {"clCommandCopyBufferToImageKHR", rec_buffer_to_image, CL_SUCCESS},
    {"clCommandCopyImageKHR", rec_image, CL_SUCCESS},
    {"clCommandCopyImageToBufferKHR", rec_image_to_buffer, CL_SUCCESS},
    {"clCommandFillImageKHR", rec_fill_image, CL_SUCCESS},
    {"clCommandSVMMemcpyKHR", rec_svm_memcpy, CL_SUCCESS},
    {"clCommandSVMMemFillKHR", rec_svm_memfill, CL_SUCCESS},
};
#define ENTRY_COUNT (sizeof entries / sizeof entries[0])

static void expect_code(const char *name, const char *what, cl_int expected, cl_int got) {
  if (expected != got) fail_msg("%s, %s: returned %d, expected %d", name, what, got, expected);
}

static void check_command_buffer_errors(const struct entry *e) {
  struct kiln_test_env *env = fx.env;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr s1 = 0, s2 = 0;
  assert_cl_success(rec_fill(cb, NULL, NULL, 0, NULL, &s1, NULL));
  assert_cl_success(rec_barrier(cb, NULL, NULL, 1, &s1, &s2, NULL));
  cl_sync_point_khr largest = s1 > s2 ? s1 : s2;
  const cl_sync_point_khr both[2] = {s1, s2};
  cl_sync_point_khr sp = 0;

  /* A command names no queue without cl_khr_command_buffer_multi_device, not even the
   * command buffer's own. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  expect_code(e->name, "its own queue", CL_INVALID_COMMAND_QUEUE, e->record(cb, env->queue, NULL, 0, NULL, &sp, NULL));
  expect_code(e->name, "another queue", CL_INVALID_COMMAND_QUEUE,
              e->record(cb, fx.second_queue, NULL, 0, NULL, &sp, NULL));
  expect_code(e->name, "a fake queue", CL_INVALID_COMMAND_QUEUE,
              e->record(cb, (cl_command_queue)&fake, NULL, 0, NULL, &sp, NULL));

  /* The extension defines no command properties; mutable dispatch's are an NDRange's only,
   * and only an NDRange returns a mutable handle. */
  const cl_command_properties_khr unknown[] = {1, 0};
  const cl_command_properties_khr flags[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0};
  const cl_command_properties_khr mutable_fields[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0};
  expect_code(e->name, "properties {1, 0}", CL_INVALID_VALUE, e->record(cb, NULL, unknown, 0, NULL, &sp, NULL));
  expect_code(e->name, "properties {FLAGS, 0, 0}", CL_INVALID_VALUE, e->record(cb, NULL, flags, 0, NULL, &sp, NULL));
  if (e->record != rec_ndrange) {
    expect_code(e->name, "mutable-dispatch properties", CL_INVALID_VALUE,
                e->record(cb, NULL, mutable_fields, 0, NULL, &sp, NULL));
    cl_mutable_command_khr handle = NULL;
    expect_code(e->name, "mutable_handle", CL_INVALID_VALUE, e->record(cb, NULL, NULL, 0, NULL, &sp, &handle));
    assert_null(handle);
  }

  const struct {
    const char *what;
    cl_uint n;
    const cl_sync_point_khr *list;
  } bad_lists[] = {
      {"NULL list, count 1", 1, NULL},
      {"list, count 0", 0, both},
      {"sync point 0", 1, (cl_sync_point_khr[]){0}},
      {"sync point past the last", 1, (cl_sync_point_khr[]){largest + 1}},
      {"valid then past the last", 2, (cl_sync_point_khr[]){s1, largest + 1}},
      {"valid then 0", 2, (cl_sync_point_khr[]){s2, 0}},
      {"sync point 0xFFFFFFFF", 1, (cl_sync_point_khr[]){0xFFFFFFFFu}},
  };
  for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++)
    expect_code(e->name, bad_lists[i].what, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                e->record(cb, NULL, NULL, bad_lists[i].n, bad_lists[i].list, &sp, NULL));

  /* Valid command-buffer arguments: NULL or empty properties, any valid sync points. */
  const cl_command_properties_khr empty[] = {0};
  sp = 0;
  expect_code(e->name, "valid, no wait list", e->valid_result, e->record(cb, NULL, NULL, 0, NULL, &sp, NULL));
  cl_sync_point_khr sp2 = 0, sp3 = 0;
  expect_code(e->name, "valid, empty properties", e->valid_result, e->record(cb, NULL, empty, 2, both, &sp2, NULL));
  expect_code(e->name, "valid, one sync point, no sync point out", e->valid_result,
              e->record(cb, NULL, NULL, 1, &s2, NULL, NULL));
  expect_code(e->name, "valid, one sync point", e->valid_result, e->record(cb, NULL, NULL, 1, &s1, &sp3, NULL));
  if (e->valid_result == CL_SUCCESS) {
    const cl_sync_point_khr got[5] = {s1, s2, sp, sp2, sp3};
    for (int i = 0; i < 5; i++) {
      if (got[i] == 0) fail_msg("%s: sync point %d is 0", e->name, i);
      for (int j = 0; j < i; j++)
        if (got[i] == got[j]) fail_msg("%s: sync points %d and %d are both %u", e->name, j, i, got[i]);
    }
  }

  /* Finalized: nothing more can be recorded, with any arguments. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  expect_code(e->name, "after finalize", CL_INVALID_OPERATION, e->record(cb, NULL, NULL, 0, NULL, &sp, NULL));
  expect_code(e->name, "after finalize, with sync points", CL_INVALID_OPERATION,
              e->record(cb, NULL, NULL, 2, both, NULL, NULL));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  expect_code(e->name, "after an execution", CL_INVALID_OPERATION, e->record(cb, NULL, NULL, 0, NULL, &sp, NULL));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

static void test_command_buffer_errors(void **state) {
  (void)state;
  for (size_t i = 0; i < ENTRY_COUNT; i++) check_command_buffer_errors(&entries[i]);
}

/* Sync points of a long mixed recording are non-zero and unique, and each one can be
 * waited for by later commands. */
static void test_sync_points_unique(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  enum { COUNT = 200 };
  cl_sync_point_khr points[COUNT];
  const struct entry *recordable[] = {&entries[0], &entries[1], &entries[2], &entries[3], &entries[4]};
  for (int i = 0; i < COUNT; i++) {
    points[i] = 0;
    cl_sync_point_khr waits[2] = {i > 0 ? points[i - 1] : 0, i > 0 ? points[0] : 0};
    cl_uint n = i == 0 ? 0 : i == 1 ? 1 : 2;
    const struct entry *e = recordable[i % 5];
    cl_int err = e->record(cb, NULL, NULL, n, n ? waits : NULL, &points[i], NULL);
    if (err != CL_SUCCESS) fail_msg("%s (command %d): %d", e->name, i, err);
    if (points[i] == 0) fail_msg("command %d: sync point 0", i);
    for (int j = 0; j < i; j++)
      if (points[j] == points[i]) fail_msg("commands %d and %d: same sync point %u", j, i, points[i]);
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* Recording changes nothing until an enqueue, and failed recordings record nothing. */
static void test_failed_recordings_record_nothing(void **state) {
  struct kiln_test_env *env = *state;
  cl_int nine = 9, seven = 7;
  assert_cl_success(clEnqueueFillBuffer(env->queue, fx.a, &seven, sizeof seven, 0, BYTES, 0, NULL, NULL));
  assert_cl_success(clEnqueueFillBuffer(env->queue, fx.b, &nine, sizeof nine, 0, BYTES, 0, NULL, NULL));
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr s1;
  cl_int one = 1, two = 2;
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, fx.a, &one, sizeof one, 0, BYTES, 0, NULL, &s1, NULL));
  cl_mutable_command_khr handle = NULL;
  const cl_command_properties_khr bad_props[] = {1, 0};
  const cl_sync_point_khr bad_list[] = {s1 + 1};
  const size_t global = BYTES / sizeof(cl_int);
  assert_int_equal(
      CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, fx.a, &two, sizeof two, 0, BYTES, 1, bad_list, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandCopyBufferKHR(cb, NULL, NULL, fx.b, fx.a, 0, 0, BYTES, 1, &s1, NULL, &handle));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   kcb.clCommandCopyBufferKHR(cb, env->queue, NULL, fx.b, fx.a, 0, 0, BYTES, 0, NULL, NULL, NULL));
  kcb_arg_int(fx.put, 1, 3);
  assert_int_equal(CL_INVALID_VALUE, kcb.clCommandNDRangeKernelKHR(cb, NULL, bad_props, fx.put, 1, NULL, &global, NULL,
                                                                   0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandFillBufferKHR(cb, NULL, NULL, fx.a, &two, sizeof two, 2, 8, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandCopyBufferKHR(cb, NULL, NULL, fx.b, fx.a, 4, 0, BYTES, 0, NULL, NULL, NULL));
  /* Recording did not run anything on the queue. */
  assert_cl_success(clFinish(env->queue));
  cl_int got[BYTES / sizeof(cl_int)];
  kcb_read(env->queue, fx.a, BYTES, got);
  for (size_t i = 0; i < global; i++) assert_int_equal(7, got[i]);

  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  kcb_read(env->queue, fx.a, BYTES, got);
  for (size_t i = 0; i < global; i++) assert_int_equal(1, got[i]);
  kcb_arg_int(fx.put, 1, 1);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* ---- each command's own errors ---- */

static cl_command_buffer_khr fresh(void) { return kcb_create(fx.env->queue, 0); }

/* The command-buffer call and its clEnqueue* counterpart (on the fixture's queue, where a
 * valid one runs) both return `expected`. */
static void expect_both(const char *what, cl_int expected, cl_int recorded, cl_int enqueued) {
  if (recorded != expected) fail_msg("%s: recording returned %d, expected %d", what, recorded, expected);
  if (enqueued != expected) fail_msg("%s: clEnqueue* returned %d, expected %d", what, enqueued, expected);
}

static cl_mem released_buffer(void) {
  cl_mem m = kcb_buffer(fx.env->context, 64);
  assert_cl_success(clReleaseMemObject(m));
  return m;
}

static void copy_case(cl_command_buffer_khr cb, const char *what, cl_int expected, cl_mem src, cl_mem dst,
                      size_t src_offset, size_t dst_offset, size_t size) {
  cl_int recorded =
      kcb.clCommandCopyBufferKHR(cb, NULL, NULL, src, dst, src_offset, dst_offset, size, 0, NULL, NULL, NULL);
  expect_both(what, expected, recorded,
              clEnqueueCopyBuffer(fx.env->queue, src, dst, src_offset, dst_offset, size, 0, NULL, NULL));
}

static void test_copy_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = fresh();
  cl_mem released = released_buffer();
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(fx.a);
  copy_case(cb, "src NULL", CL_INVALID_MEM_OBJECT, NULL, fx.b, 0, 0, 16);
  copy_case(cb, "dst NULL", CL_INVALID_MEM_OBJECT, fx.a, NULL, 0, 0, 16);
  copy_case(cb, "src released", CL_INVALID_MEM_OBJECT, released, fx.b, 0, 0, 16);
  copy_case(cb, "dst fake", CL_INVALID_MEM_OBJECT, fx.a, (cl_mem)&fake, 0, 0, 16);
  copy_case(cb, "dst is a queue", CL_INVALID_MEM_OBJECT, fx.a, (cl_mem)env->queue, 0, 0, 16);
  copy_case(cb, "src of another context", CL_INVALID_CONTEXT, fx.other_buffer, fx.b, 0, 0, 16);
  copy_case(cb, "dst of another context", CL_INVALID_CONTEXT, fx.a, fx.other_buffer, 0, 0, 16);
  copy_case(cb, "src range past the end", CL_INVALID_VALUE, fx.a, fx.b, BYTES - 8, 0, 16);
  copy_case(cb, "dst range past the end", CL_INVALID_VALUE, fx.a, fx.b, 0, BYTES - 8, 16);
  copy_case(cb, "src offset at the end", CL_INVALID_VALUE, fx.a, fx.b, BYTES, 0, 1);
  copy_case(cb, "size larger than both", CL_INVALID_VALUE, fx.a, fx.b, 0, 0, BYTES + 4);
  copy_case(cb, "offset + size overflows", CL_INVALID_VALUE, fx.a, fx.b, SIZE_MAX - 2, 0, 8);
  copy_case(cb, "same buffer, overlapping forward", CL_MEM_COPY_OVERLAP, fx.a, fx.a, 0, 8, 16);
  copy_case(cb, "same buffer, overlapping backward", CL_MEM_COPY_OVERLAP, fx.a, fx.a, 8, 0, 16);
  copy_case(cb, "same buffer, same range", CL_MEM_COPY_OVERLAP, fx.a, fx.a, 64, 64, 4);
  copy_case(cb, "same buffer, adjacent ranges", CL_SUCCESS, fx.a, fx.a, 0, 16, 16);
  copy_case(cb, "whole buffers", CL_SUCCESS, fx.a, fx.b, 0, 0, BYTES);

  /* A sub-buffer shares its parent's storage. */
  size_t align = kiln_test_base_align(env->device);
  if (align > 0 && align * 2 <= BYTES) {
    cl_mem sub = kiln_test_sub_buffer(fx.a, CL_MEM_READ_WRITE, align, BYTES - align);
    copy_case(cb, "parent into its sub-buffer, overlapping", CL_MEM_COPY_OVERLAP, fx.a, sub, align + 4, 0, 16);
    copy_case(cb, "sub-buffer into its parent, overlapping", CL_MEM_COPY_OVERLAP, sub, fx.a, 0, align, 8);
    copy_case(cb, "parent into its sub-buffer, disjoint", CL_SUCCESS, fx.a, sub, 0, 16, align < 16 ? align : 16);
    assert_cl_success(clReleaseMemObject(sub));
  }

  /* The memory-object usage flags do not apply to copies. */
  cl_int err;
  cl_mem ro = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
  assert_cl_success(err);
  cl_mem wo = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
  assert_cl_success(err);
  copy_case(cb, "write-only into read-only", CL_SUCCESS, wo, ro, 0, 0, 64);
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(ro));
  assert_cl_success(clReleaseMemObject(wo));
}

static void rect_case(cl_command_buffer_khr cb, const char *what, cl_int expected, cl_mem src, cl_mem dst,
                      const size_t *src_origin, const size_t *dst_origin, const size_t *region, size_t src_row,
                      size_t src_slice, size_t dst_row, size_t dst_slice) {
  cl_int recorded = kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, src, dst, src_origin, dst_origin, region, src_row,
                                                   src_slice, dst_row, dst_slice, 0, NULL, NULL, NULL);
  expect_both(what, expected, recorded,
              clEnqueueCopyBufferRect(fx.env->queue, src, dst, src_origin, dst_origin, region, src_row, src_slice,
                                      dst_row, dst_slice, 0, NULL, NULL));
}

static void test_copy_rect_errors(void **state) {
  (void)state;
  cl_command_buffer_khr cb = fresh();
  /* The fixture's buffers as 32 rows of 32 bytes. */
  const size_t o[3] = {0, 0, 0}, r[3] = {16, 4, 1};
  rect_case(cb, "src NULL", CL_INVALID_MEM_OBJECT, NULL, fx.b, o, o, r, 32, 0, 32, 0);
  rect_case(cb, "dst released", CL_INVALID_MEM_OBJECT, fx.a, released_buffer(), o, o, r, 32, 0, 32, 0);
  rect_case(cb, "src of another context", CL_INVALID_CONTEXT, fx.other_buffer, fx.b, o, o, r, 32, 0, 32, 0);
  rect_case(cb, "dst of another context", CL_INVALID_CONTEXT, fx.a, fx.other_buffer, o, o, r, 32, 0, 32, 0);
  rect_case(cb, "src_origin NULL", CL_INVALID_VALUE, fx.a, fx.b, NULL, o, r, 32, 0, 32, 0);
  rect_case(cb, "dst_origin NULL", CL_INVALID_VALUE, fx.a, fx.b, o, NULL, r, 32, 0, 32, 0);
  rect_case(cb, "region NULL", CL_INVALID_VALUE, fx.a, fx.b, o, o, NULL, 32, 0, 32, 0);
  for (int d = 0; d < 3; d++) {
    size_t zero_region[3] = {16, 4, 1};
    zero_region[d] = 0;
    rect_case(cb, "a region element is 0", CL_INVALID_VALUE, fx.a, fx.b, o, o, zero_region, 32, 0, 32, 0);
  }
  rect_case(cb, "src_row_pitch < region[0]", CL_INVALID_VALUE, fx.a, fx.b, o, o, r, 8, 0, 32, 0);
  rect_case(cb, "dst_row_pitch < region[0]", CL_INVALID_VALUE, fx.a, fx.b, o, o, r, 32, 0, 15, 0);
  rect_case(cb, "src_slice_pitch < region[1] * row", CL_INVALID_VALUE, fx.a, fx.b, o, o, r, 32, 96, 32, 0);
  rect_case(cb, "dst_slice_pitch not a multiple of row", CL_INVALID_VALUE, fx.a, fx.b, o, o, r, 32, 0, 32, 130);
  const size_t last_rows[3] = {0, 30, 0};
  rect_case(cb, "src rows past the end", CL_INVALID_VALUE, fx.a, fx.b, last_rows, o, r, 32, 0, 32, 0);
  rect_case(cb, "dst rows past the end", CL_INVALID_VALUE, fx.a, fx.b, o, last_rows, r, 32, 0, 32, 0);
  const size_t slices[3] = {16, 4, 3};
  rect_case(cb, "src slices past the end", CL_INVALID_VALUE, fx.a, fx.b, o, o, slices, 32, 512, 32, 128);
  const size_t wide[3] = {33, 1, 1};
  rect_case(cb, "width past the end of the last row", CL_INVALID_VALUE, fx.a, fx.b, (size_t[]){0, 31, 0}, o, wide, 33,
            0, 33, 0);
  const size_t right[3] = {16, 0, 0};
  rect_case(cb, "same buffer, both pitches differ", CL_INVALID_VALUE, fx.a, fx.a, o, (size_t[]){0, 8, 0}, r, 32, 128,
            64, 256);
  rect_case(cb, "same buffer, overlapping", CL_MEM_COPY_OVERLAP, fx.a, fx.a, o, (size_t[]){8, 0, 0}, r, 32, 0, 32, 0);
  rect_case(cb, "same buffer, overlapping rows", CL_MEM_COPY_OVERLAP, fx.a, fx.a, o, (size_t[]){0, 2, 0}, r, 32, 0, 32,
            0);
  rect_case(cb, "same buffer, side by side", CL_SUCCESS, fx.a, fx.a, o, right, r, 32, 0, 32, 0);
  rect_case(cb, "same buffer, interleaved rows", CL_SUCCESS, fx.a, fx.a, o, (size_t[]){32, 0, 0}, (size_t[]){32, 4, 1},
            64, 0, 64, 0);
  rect_case(cb, "3-D, default pitches", CL_SUCCESS, fx.a, fx.b, o, o, (size_t[]){8, 4, 4}, 0, 0, 0, 0);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

static void fill_case(cl_command_buffer_khr cb, const char *what, cl_int expected, cl_mem buffer, const void *pat,
                      size_t pattern_size, size_t offset, size_t size) {
  cl_int recorded =
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, pat, pattern_size, offset, size, 0, NULL, NULL, NULL);
  expect_both(what, expected, recorded,
              clEnqueueFillBuffer(fx.env->queue, buffer, pat, pattern_size, offset, size, 0, NULL, NULL));
}

static void test_fill_errors(void **state) {
  (void)state;
  cl_command_buffer_khr cb = fresh();
  unsigned char big[256] = {0};
  fill_case(cb, "buffer NULL", CL_INVALID_MEM_OBJECT, NULL, big, 4, 0, 16);
  fill_case(cb, "buffer released", CL_INVALID_MEM_OBJECT, released_buffer(), big, 4, 0, 16);
  fill_case(cb, "buffer of another context", CL_INVALID_CONTEXT, fx.other_buffer, big, 4, 0, 16);
  fill_case(cb, "pattern NULL", CL_INVALID_VALUE, fx.a, NULL, 4, 0, 16);
  const size_t bad_sizes[] = {0, 3, 6, 12, 24, 256};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
    fill_case(cb, "pattern size not a power of two up to 128", CL_INVALID_VALUE, fx.a, big, bad_sizes[i], 0, 768);
  fill_case(cb, "offset not a multiple of the pattern", CL_INVALID_VALUE, fx.a, big, 4, 2, 16);
  fill_case(cb, "size not a multiple of the pattern", CL_INVALID_VALUE, fx.a, big, 8, 0, 12);
  fill_case(cb, "range past the end", CL_INVALID_VALUE, fx.a, big, 4, BYTES - 8, 16);
  fill_case(cb, "offset + size overflows", CL_INVALID_VALUE, fx.a, big, 1, SIZE_MAX - 2, 8);
  for (size_t size = 1; size <= 128; size *= 2)
    fill_case(cb, "every valid pattern size", CL_SUCCESS, fx.a, big, size, size, BYTES - 2 * size);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

static void ndrange_case(cl_command_buffer_khr cb, const char *what, cl_int expected, cl_kernel kernel,
                         cl_uint work_dim, const size_t *offset, const size_t *global, const size_t *local) {
  cl_int recorded =
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel, work_dim, offset, global, local, 0, NULL, NULL, NULL);
  expect_both(what, expected, recorded,
              clEnqueueNDRangeKernel(fx.env->queue, kernel, work_dim, offset, global, local, 0, NULL, NULL));
}

static void test_ndrange_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = fresh();
  const size_t g64 = 64, g10 = 10, l3 = 3, l4 = 4, l8 = 8;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(fx.put);
  cl_kernel released = kcb_kernel(fx.program, "put");
  assert_cl_success(clReleaseKernel(released));
  ndrange_case(cb, "kernel NULL", CL_INVALID_KERNEL, NULL, 1, NULL, &g64, NULL);
  ndrange_case(cb, "kernel fake", CL_INVALID_KERNEL, (cl_kernel)&fake, 1, NULL, &g64, NULL);
  ndrange_case(cb, "kernel released", CL_INVALID_KERNEL, released, 1, NULL, &g64, NULL);
  ndrange_case(cb, "kernel is a buffer", CL_INVALID_KERNEL, (cl_kernel)fx.a, 1, NULL, &g64, NULL);
  ndrange_case(cb, "kernel of another context", CL_INVALID_CONTEXT, fx.other_put, 1, NULL, &g64, NULL);

  cl_kernel unset = kcb_kernel(fx.program, "put");
  ndrange_case(cb, "no argument set", CL_INVALID_KERNEL_ARGS, unset, 1, NULL, &g64, NULL);
  kcb_arg_mem(unset, 0, fx.a);
  ndrange_case(cb, "one argument of two set", CL_INVALID_KERNEL_ARGS, unset, 1, NULL, &g64, NULL);
  kcb_arg_int(unset, 1, 5);
  ndrange_case(cb, "all arguments set", CL_SUCCESS, unset, 1, NULL, &g64, NULL);
  assert_cl_success(clReleaseKernel(unset));

  ndrange_case(cb, "work_dim 0", CL_INVALID_WORK_DIMENSION, fx.put, 0, NULL, &g64, NULL);
  ndrange_case(cb, "work_dim 4", CL_INVALID_WORK_DIMENSION, fx.put, 4, NULL, (size_t[]){4, 4, 4, 4}, NULL);

  ndrange_case(cb, "non-uniform groups in OpenCL C 1.2", CL_INVALID_WORK_GROUP_SIZE, fx.uniform_put, 1, NULL, &g10,
               &l3);
  ndrange_case(cb, "local size other than reqd_work_group_size", CL_INVALID_WORK_GROUP_SIZE, fx.put4, 1, NULL, &g64,
               &l8);
  ndrange_case(cb, "reqd_work_group_size given", CL_SUCCESS, fx.put4, 1, NULL, &g64, &l4);
  ndrange_case(cb, "reqd_work_group_size implied", CL_SUCCESS, fx.put4, 1, NULL, &g64, NULL);

  size_t kernel_group = 0, max_items[3] = {0};
  assert_cl_success(clGetKernelWorkGroupInfo(fx.put2d, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_group,
                                             &kernel_group, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
  if (kernel_group <= max_items[0] && max_items[1] >= 2) {
    const size_t local[2] = {kernel_group, 2}, global[2] = {kernel_group, 2};
    ndrange_case(cb, "work-group larger than CL_KERNEL_WORK_GROUP_SIZE", CL_INVALID_WORK_GROUP_SIZE, fx.put2d, 2, NULL,
                 global, local);
  }
  const size_t huge_offset = SIZE_MAX - 8;
  ndrange_case(cb, "global offset + size overflows", CL_INVALID_GLOBAL_OFFSET, fx.put, 1, &huge_offset, &g64, NULL);
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* stdout redirected to a temporary file while a printf kernel's output is produced. */
struct capture {
  FILE *file;
  int saved;
};

static void capture_begin(struct capture *c) {
  fflush(stdout);
  c->file = tmpfile();
  assert_non_null(c->file);
  c->saved = dup(STDOUT_FILENO);
  assert_true(c->saved >= 0);
  assert_true(dup2(fileno(c->file), STDOUT_FILENO) >= 0);
}

static char *capture_end(struct capture *c) {
  fflush(stdout);
  dup2(c->saved, STDOUT_FILENO);
  close(c->saved);
  fseek(c->file, 0, SEEK_END);
  long size = ftell(c->file);
  rewind(c->file);
  char *text = calloc((size_t)size + 1, 1);
  size_t got = fread(text, 1, (size_t)size, c->file);
  text[got] = 0;
  fclose(c->file);
  return text;
}

static size_t count_lines(const char *text, const char *line) {
  size_t n = 0, len = strlen(line);
  for (const char *p = text; (p = strstr(p, line)) != NULL; p += len)
    if ((p == text || p[-1] == '\n') && p[len] == '\n') n++;
  return n;
}

/* A kernel that calls printf: recordable only with CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR,
 * and then every execution prints, with the argument recorded: two in turn, then three at
 * once on three queues (simultaneous use), whose lines must not mix. */
static void test_printf_kernel(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_command_buffer_capabilities_khr caps = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, NULL));
  cl_kernel say = kcb_kernel(fx.program, "say");
  kcb_arg_int(say, 0, 31);
  cl_command_buffer_khr cb = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  enum { ITEMS = 48, QUEUES = 3 };
  const size_t global = ITEMS, local = 4;
  cl_int err = kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, say, 1, NULL, &global, &local, 0, NULL, NULL, NULL);
  if (!(caps & CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR)) {
    assert_int_equal(CL_INVALID_OPERATION, err);
  } else {
    assert_cl_success(err);
    kcb_arg_int(say, 0, 99); /* not seen by the recorded command */
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
    cl_command_queue queues[QUEUES];
    for (int q = 0; q < QUEUES; q++)
      queues[q] = kcb_queue(env->context, env->device, q ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
    cl_event gate = kcb_user_event(env->context);
    cl_int errs[4 + 3 * QUEUES], n = 0;
    struct capture c;
    capture_begin(&c);
    errs[n++] = kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL);
    errs[n++] = clFinish(env->queue);
    errs[n++] = kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL);
    errs[n++] = clFinish(env->queue);
    for (int q = 0; q < QUEUES; q++) errs[n++] = kcb.clEnqueueCommandBufferKHR(1, &queues[q], cb, 1, &gate, NULL);
    errs[n++] = clSetUserEventStatus(gate, CL_COMPLETE);
    for (int q = 0; q < QUEUES; q++) errs[n++] = clFinish(queues[q]);
    char *out = capture_end(&c);
    for (int i = 0; i < n; i++)
      if (errs[i] != CL_SUCCESS) fail_msg("call %d while printing returned %d", i, errs[i]);
    for (unsigned i = 0; i < ITEMS; i++) {
      char line[32];
      snprintf(line, sizeof line, "cb 31 %u", i);
      size_t times = count_lines(out, line);
      if (times != 2 + QUEUES)
        fail_msg("\"%s\" printed %zu times, expected %d; output:\n%s", line, times, 2 + QUEUES, out);
    }
    assert_int_equal(ITEMS * (2 + QUEUES) * strlen("cb 31 0\n") + (ITEMS - 10) * (2 + QUEUES), strlen(out));
    assert_null(strstr(out, "cb 99"));
    free(out);
    for (int q = 0; q < QUEUES; q++) assert_cl_success(clReleaseCommandQueue(queues[q]));
    assert_cl_success(clReleaseEvent(gate));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(say));
}

static void test_image_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = fresh();
  cl_mem released = released_buffer();
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(fx.a);
  /* no image: invalid handles, and buffers where images go */
  const cl_mem bad[] = {NULL, released, (cl_mem)&fake, (cl_mem)env->queue, fx.b};
  const size_t region[3] = {4, 4, 1};
  const cl_float color[4] = {0};
  cl_command_queue q = env->queue;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_mem m = bad[i];
    expect_both("buffer to image, bad image", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, fx.a, m, 0, zero3, region, 0, NULL, NULL, NULL),
                clEnqueueCopyBufferToImage(q, fx.a, m, 0, zero3, region, 0, NULL, NULL));
    expect_both("image to image, bad source", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyImageKHR(cb, NULL, NULL, m, fx.image_b, zero3, zero3, region, 0, NULL, NULL, NULL),
                clEnqueueCopyImage(q, m, fx.image_b, zero3, zero3, region, 0, NULL, NULL));
    expect_both("image to image, bad destination", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyImageKHR(cb, NULL, NULL, fx.image_a, m, zero3, zero3, region, 0, NULL, NULL, NULL),
                clEnqueueCopyImage(q, fx.image_a, m, zero3, zero3, region, 0, NULL, NULL));
    expect_both("image to buffer, bad image", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, m, fx.b, zero3, region, 0, 0, NULL, NULL, NULL),
                clEnqueueCopyImageToBuffer(q, m, fx.b, zero3, region, 0, 0, NULL, NULL));
    expect_both("fill image, bad image", CL_INVALID_MEM_OBJECT,
                kcb.clCommandFillImageKHR(cb, NULL, NULL, m, color, zero3, region, 0, NULL, NULL, NULL),
                clEnqueueFillImage(q, m, color, zero3, region, 0, NULL, NULL));
    if (m == fx.b) continue; /* a buffer is the right kind for the buffer side */
    expect_both("buffer to image, bad buffer", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, m, fx.image_b, 0, zero3, region, 0, NULL, NULL, NULL),
                clEnqueueCopyBufferToImage(q, m, fx.image_b, 0, zero3, region, 0, NULL, NULL));
    expect_both("image to buffer, bad buffer", CL_INVALID_MEM_OBJECT,
                kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, fx.image_a, m, zero3, region, 0, 0, NULL, NULL, NULL),
                clEnqueueCopyImageToBuffer(q, fx.image_a, m, zero3, region, 0, 0, NULL, NULL));
  }
  /* regions, the buffer's range, formats, overlap, another context */
  const size_t too_wide[3] = {9, 1, 1}, flat[3] = {4, 4, 2}, corner[3] = {2, 2, 0};
  expect_both("fill beyond the image", CL_INVALID_VALUE,
              kcb.clCommandFillImageKHR(cb, NULL, NULL, fx.image_a, color, zero3, too_wide, 0, NULL, NULL, NULL),
              clEnqueueFillImage(q, fx.image_a, color, zero3, too_wide, 0, NULL, NULL));
  expect_both("copy with a 2D image's region[2] of 2", CL_INVALID_VALUE,
              kcb.clCommandCopyImageKHR(cb, NULL, NULL, fx.image_a, fx.image_b, zero3, zero3, flat, 0, NULL, NULL, NULL),
              clEnqueueCopyImage(q, fx.image_a, fx.image_b, zero3, zero3, flat, 0, NULL, NULL));
  expect_both("fill with no color", CL_INVALID_VALUE,
              kcb.clCommandFillImageKHR(cb, NULL, NULL, fx.image_a, NULL, zero3, region, 0, NULL, NULL, NULL),
              clEnqueueFillImage(q, fx.image_a, NULL, zero3, region, 0, NULL, NULL));
  expect_both("image to buffer past the buffer", CL_INVALID_VALUE,
              kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, fx.image_a, fx.b, zero3, region, BYTES - 63, 0, NULL,
                                                NULL, NULL),
              clEnqueueCopyImageToBuffer(q, fx.image_a, fx.b, zero3, region, BYTES - 63, 0, NULL, NULL));
  expect_both("buffer to image past the buffer", CL_INVALID_VALUE,
              kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, fx.a, fx.image_a, BYTES - 63, zero3, region, 0, NULL,
                                                NULL, NULL),
              clEnqueueCopyBufferToImage(q, fx.a, fx.image_a, BYTES - 63, zero3, region, 0, NULL, NULL));
  expect_both("overlapping copy", CL_MEM_COPY_OVERLAP,
              kcb.clCommandCopyImageKHR(cb, NULL, NULL, fx.image_a, fx.image_a, zero3, corner, region, 0, NULL, NULL,
                                        NULL),
              clEnqueueCopyImage(q, fx.image_a, fx.image_a, zero3, corner, region, 0, NULL, NULL));
  const cl_image_format float4 = {CL_RGBA, CL_FLOAT};
  const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8};
  cl_int err;
  cl_mem other_format = clCreateImage(env->context, 0, &float4, &desc, NULL, &err);
  assert_cl_success(err);
  expect_both("format mismatch", CL_IMAGE_FORMAT_MISMATCH,
              kcb.clCommandCopyImageKHR(cb, NULL, NULL, fx.image_a, other_format, zero3, zero3, region, 0, NULL, NULL,
                                        NULL),
              clEnqueueCopyImage(q, fx.image_a, other_format, zero3, zero3, region, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(other_format));
  expect_both("another context's buffer", CL_INVALID_CONTEXT,
              kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, fx.image_a, fx.other_buffer, zero3, region, 0, 0, NULL,
                                                NULL, NULL),
              clEnqueueCopyImageToBuffer(q, fx.image_a, fx.other_buffer, zero3, region, 0, 0, NULL, NULL));
  /* Nothing was recorded: the command buffer finalizes and runs empty. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* The SVM commands' own errors, as clEnqueueSVMMemcpy / clEnqueueSVMMemFill give them. */
static void test_svm_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr cb = fresh();
  cl_int word = 3;
  expect_both("SVM memcpy to NULL", CL_INVALID_VALUE,
              kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, NULL, host_b, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemcpy(env->queue, CL_FALSE, NULL, host_b, 16, 0, NULL, NULL));
  expect_both("SVM memcpy from NULL", CL_INVALID_VALUE,
              kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, host_a, NULL, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemcpy(env->queue, CL_FALSE, host_a, NULL, 16, 0, NULL, NULL));
  expect_both("SVM memcpy overlapping", CL_MEM_COPY_OVERLAP,
              kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, host_a + 8, host_a, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemcpy(env->queue, CL_FALSE, host_a + 8, host_a, 16, 0, NULL, NULL));
  expect_both("SVM fill, NULL pointer", CL_INVALID_VALUE,
              kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, NULL, &word, sizeof word, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemFill(env->queue, NULL, &word, sizeof word, 16, 0, NULL, NULL));
  expect_both("SVM fill, NULL pattern", CL_INVALID_VALUE,
              kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, host_a, NULL, sizeof word, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemFill(env->queue, host_a, NULL, sizeof word, 16, 0, NULL, NULL));
  expect_both("SVM fill, pattern size 3", CL_INVALID_VALUE,
              kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, host_a, &word, 3, 15, 0, NULL, NULL, NULL),
              clEnqueueSVMMemFill(env->queue, host_a, &word, 3, 15, 0, NULL, NULL));
  expect_both("SVM fill, misaligned pointer", CL_INVALID_VALUE,
              kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, host_a + 1, &word, sizeof word, 16, 0, NULL, NULL, NULL),
              clEnqueueSVMMemFill(env->queue, host_a + 1, &word, sizeof word, 16, 0, NULL, NULL));
  expect_both("SVM fill, size not a multiple", CL_INVALID_VALUE,
              kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, host_a, &word, sizeof word, 6, 0, NULL, NULL, NULL),
              clEnqueueSVMMemFill(env->queue, host_a, &word, sizeof word, 6, 0, NULL, NULL));
  /* Nothing was recorded: the command buffer finalizes and runs empty. */
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

/* Several command buffers record independently: sync points and contents are per buffer. */
static void test_independent_command_buffers(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_buffer_khr one = fresh(), two = fresh();
  cl_int v1 = 11, v2 = 22;
  cl_sync_point_khr s1 = 0, s2 = 0, t = 0;
  assert_cl_success(kcb.clCommandFillBufferKHR(one, NULL, NULL, fx.a, &v1, sizeof v1, 0, BYTES, 0, NULL, &s1, NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(one, NULL, NULL, fx.a, &v1, sizeof v1, 0, BYTES, 1, &s1, &s2, NULL));
  /* two has recorded nothing yet: no sync point of its own is valid. */
  assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                   kcb.clCommandFillBufferKHR(two, NULL, NULL, fx.b, &v2, sizeof v2, 0, BYTES, 1, &s1, &t, NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(two, NULL, NULL, fx.b, &v2, sizeof v2, 0, BYTES, 0, NULL, &t, NULL));
  assert_int_not_equal(0, t);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(two));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(one));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, two, 0, NULL, NULL));
  cl_int got[BYTES / sizeof(cl_int)];
  kcb_read(env->queue, fx.b, BYTES, got);
  for (size_t i = 0; i < BYTES / sizeof(cl_int); i++) assert_int_equal(v2, got[i]);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(one));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(two));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_command_buffer_errors),
      KCB_TEST(test_sync_points_unique),
      KCB_TEST(test_failed_recordings_record_nothing),
      KCB_TEST(test_copy_errors),
      KCB_TEST(test_copy_rect_errors),
      KCB_TEST(test_fill_errors),
      KCB_TEST(test_ndrange_errors),
      KCB_TEST(test_printf_kernel),
      KCB_TEST(test_image_errors),
      KCB_TEST(test_svm_errors),
      KCB_TEST(test_independent_command_buffers),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
