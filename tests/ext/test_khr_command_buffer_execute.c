/* cl_khr_command_buffer 0.9.7, execution: clEnqueueCommandBufferKHR's errors, and what
 * replays compute, checked against host-computed values: copies, fills and rectangle
 * copies, kernel arguments captured at record time, memory objects kept by the command
 * buffer, a sync-point DAG replayed with new input each time, barriers, 2-D and 3-D
 * NDRanges with offsets, a kernel of many work-groups, the event an enqueue returns
 * (type, profiling, user-event gating), ordering with ordinary commands on in-order and
 * out-of-order queues, the extension specification's sample, the four image commands
 * with a kernel taking an image and a sampler, and a kernel that enqueues kernels. */
#include "khr_command_buffer_test.h"

#include <unistd.h>

static const char *source =
    "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    "kernel void add1(global int *p) { p[get_global_id(0)] += 1; }\n"
    KILN_TEST_SCALE_SOURCE
    "kernel void mix(global const int *a, global const int *x, global int *b, int mul) {\n"
    "  size_t i = get_global_id(0);\n"
    "  b[i] = a[i] * mul + x[i] + (int)i;\n"
    "}\n"
    "kernel void sum(global const int *b, global const int *c, global int *d) {\n"
    "  size_t i = get_global_id(0);\n"
    "  d[i] = b[i] + c[i];\n"
    "}\n"
    "kernel void ids(global int *out, global int *ok, uint dim) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  out[i] = (int)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2));\n"
    "  int good = get_work_dim() == dim;\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    good &= get_group_id(d) * get_local_size(d) + get_local_id(d) + get_global_offset(d) == get_global_id(d);\n"
    "    good &= get_num_groups(d) == (get_global_size(d) + get_local_size(d) - 1) / get_local_size(d);\n"
    "  }\n"
    "  ok[i] = good;\n"
    "}\n"
    "kernel void big(global const int *in, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 3 + (int)(i & 0xFFFF);\n"
    "}\n"
    KILN_TEST_GROUP_SUM_SOURCE
    "kernel void wide(global int *out, int16 v, long k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = v.s0 + v.s7 * (int)i + v.sf * (int)k;\n"
    "}\n"
    "kernel void six(global const int *a, global const int *b, global const int *c, global const int *d,\n"
    "                global const int *e, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] + 2 * b[i] + 3 * c[i] + 4 * d[i] + 5 * e[i];\n"
    "}\n"
    "kernel void vector_addition(global int *tile1, global int *tile2, global int *res) {\n"
    "  size_t index = get_global_id(0);\n"
    "  res[index] = tile1[index] + tile2[index];\n"
    "}\n"
    "kernel void probe(read_only image2d_t im, sampler_t s, global int *out) {\n"
    "  out[0] = get_image_width(im);\n"
    "  out[1] = get_image_height(im);\n"
    "  out[2] = (int)(read_imagef(im, s, (int2)(1, 1)).x * 255.0f + 0.5f);\n"
    "}\n";

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, kcb_setup, &program, source, NULL); }

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* ---- clEnqueueCommandBufferKHR errors ---- */

static void test_enqueue_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem buffer = kcb_buffer(env->context, 64);
  cl_int value = 6;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, buffer, &value, sizeof value, 0, 64, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  cl_command_queue q2 = kcb_queue(env->context, env->device, 0);
  cl_command_queue pair[2] = {env->queue, q2};
  assert_int_equal(CL_INVALID_VALUE, kcb.clEnqueueCommandBufferKHR(1, NULL, cb, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clEnqueueCommandBufferKHR(0, pair, cb, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clEnqueueCommandBufferKHR(2, pair, cb, 0, NULL, NULL)); /* created with one */

  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_command_queue released = kcb_queue(env->context, env->device, 0);
  assert_cl_success(clReleaseCommandQueue(released));
  const cl_command_queue bad_queues[] = {NULL, (cl_command_queue)&fake, released, (cl_command_queue)env->context,
                                         (cl_command_queue)buffer};
  for (size_t i = 0; i < sizeof bad_queues / sizeof bad_queues[0]; i++) {
    cl_command_queue q = bad_queues[i];
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, kcb.clEnqueueCommandBufferKHR(1, &q, cb, 0, NULL, NULL));
  }

  cl_context other = kcb_context(env->device);
  cl_command_queue other_queue = kcb_queue(other, env->device, 0);
  assert_int_equal(CL_INVALID_CONTEXT, kcb.clEnqueueCommandBufferKHR(1, &other_queue, cb, 0, NULL, NULL));
  cl_event foreign = kcb_user_event(other);
  assert_int_equal(CL_INVALID_CONTEXT, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &foreign, NULL));
  assert_int_equal(CL_INVALID_CONTEXT, kcb.clEnqueueCommandBufferKHR(1, &q2, cb, 1, &foreign, NULL));

  cl_event live = kcb_user_event(env->context);
  assert_cl_success(clSetUserEventStatus(live, CL_COMPLETE));
  cl_int err;
  cl_event dead = clCreateUserEvent(env->context, &err); /* not kcb_user_event: that one keeps a reference */
  assert_cl_success(err);
  assert_cl_success(clReleaseEvent(dead));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, &live, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &dead, NULL));
  const cl_event with_null[2] = {live, NULL};
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 2, with_null, NULL));
  cl_event buffer_as_event = (cl_event)buffer;
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &buffer_as_event, NULL));

  /* None of the failed calls left an execution pending or ran anything. */
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  assert_cl_success(clFinish(env->queue));
  cl_int got[16] = {0};
  cl_int zero = 0;
  assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, sizeof zero, 0, 64, 0, NULL, NULL));
  kcb_read(env->queue, buffer, 64, got);
  for (int i = 0; i < 16; i++) assert_int_equal(0, got[i]);

  /* Sequential use: a second enqueue while the first is pending fails, on any queue. */
  cl_event gate = kcb_user_event(env->context), first;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &first));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  cl_event second = NULL;
  assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &second));
  assert_null(second);
  assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(1, &q2, cb, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(1, &env->queue, cb, 1, &live, NULL));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &first));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  /* Complete: it may run again, here on the substitute queue. */
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &q2, cb, 1, &live, &second));
  assert_cl_success(clWaitForEvents(1, &second));
  kcb_read(env->queue, buffer, 64, got);
  for (int i = 0; i < 16; i++) assert_int_equal(value, got[i]);

  cl_event events[] = {foreign, live, gate, first, second};
  for (size_t i = 0; i < 5; i++) assert_cl_success(clReleaseEvent(events[i]));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseCommandQueue(other_queue));
  assert_cl_success(clReleaseContext(other));
  assert_cl_success(clReleaseCommandQueue(q2));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* ---- replay results ---- */

static void test_copy_fill_rect_results(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 1024 };
  unsigned char src[BYTES], initial[BYTES];
  memset(initial, 0xEE, sizeof initial);
  cl_mem s = kcb_buffer(env->context, BYTES);
  cl_mem d[4];
  for (int i = 0; i < 4; i++) d[i] = kcb_buffer(env->context, BYTES);

  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, s, d[0], 100, 40, 512, 0, NULL, NULL, NULL));
  const cl_uint pattern8[2] = {0x11223344u, 0x55667788u};
  const unsigned char pattern1 = 0x5A;
  assert_cl_success(
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, d[1], pattern8, sizeof pattern8, 16, 256, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, d[1], &pattern1, 1, 513, 100, 0, NULL, NULL, NULL));
  unsigned char pattern64[64];
  for (int i = 0; i < 64; i++) pattern64[i] = (unsigned char)(3 * i + 1);
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, d[1], pattern64, 64, 768, 192, 0, NULL, NULL, NULL));
  const size_t so2[3] = {4, 2, 0}, do2[3] = {8, 1, 0}, r2[3] = {20, 5, 1};
  assert_cl_success(
      kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, s, d[2], so2, do2, r2, 64, 0, 48, 0, 0, NULL, NULL, NULL));
  const size_t so3[3] = {2, 1, 1}, do3[3] = {1, 0, 2}, r3[3] = {6, 3, 2};
  assert_cl_success(
      kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, s, d[3], so3, do3, r3, 64, 256, 10, 40, 0, NULL, NULL, NULL));
  /* Same buffer, disjoint: a rectangle moved within d[3] after the copy above. */
  const size_t from[3] = {0, 0, 2}, to[3] = {0, 0, 20}, r4[3] = {10, 4, 2};
  assert_cl_success(
      kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, d[3], d[3], from, to, r4, 10, 40, 10, 40, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  cl_uint seed = 12345;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < BYTES; i++) src[i] = (unsigned char)kcb_random(&seed);
    kcb_write(env->queue, s, BYTES, src);
    for (int i = 0; i < 4; i++) kcb_write(env->queue, d[i], BYTES, initial);
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));

    unsigned char want[4][BYTES], got[BYTES];
    for (int i = 0; i < 4; i++) memcpy(want[i], initial, BYTES);
    memcpy(want[0] + 40, src + 100, 512);
    for (int i = 0; i < 256; i += 8) memcpy(want[1] + 16 + i, pattern8, 8);
    memset(want[1] + 513, pattern1, 100);
    for (int i = 0; i < 192; i += 64) memcpy(want[1] + 768 + i, pattern64, 64);
    kiln_test_rect_copy(want[2], do2, 48, 48 * 5, src, so2, 64, 64 * 5, r2);
    kiln_test_rect_copy(want[3], do3, 10, 40, src, so3, 64, 256, r3);
    kiln_test_rect_copy(want[3], to, 10, 40, want[3], from, 10, 40, r4);
    for (int i = 0; i < 4; i++) {
      kcb_read(env->queue, d[i], BYTES, got);
      for (int b = 0; b < BYTES; b++)
        if (got[b] != want[i][b])
          fail_msg("round %d, buffer %d, byte %d: 0x%02x, expected 0x%02x", round, i, b, got[b], want[i][b]);
    }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(s));
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(d[i]));
}

/* The image commands recorded and replayed with new input: buffer to image, fill, image to
 * image (a 2D image into a slice of a 3D one), image to buffer, and a kernel whose image and
 * sampler arguments were set before recording, the image released by the application. */
static void test_image_commands_results(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 8, H = 6, BYTES2 = W * H * 4, BYTES3 = BYTES2 * 2 };
  cl_int err;
  const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
  const cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
  const cl_image_desc d3 = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = W, .image_height = H, .image_depth = 2};
  cl_mem a = clCreateImage(env->context, 0, &rgba8, &d2, NULL, &err);
  assert_cl_success(err);
  cl_mem b = clCreateImage(env->context, 0, &rgba8, &d3, NULL, &err);
  assert_cl_success(err);
  cl_mem src = kcb_buffer(env->context, BYTES2), dst = kcb_buffer(env->context, BYTES3);
  cl_mem out = kcb_buffer(env->context, 3 * sizeof(cl_int));
  cl_sampler sampler = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  cl_kernel probe = kcb_kernel(program, "probe");
  assert_cl_success(clSetKernelArg(probe, 0, sizeof a, &a));
  assert_cl_success(clSetKernelArg(probe, 1, sizeof sampler, &sampler));
  kcb_arg_mem(probe, 2, out);

  const size_t zero[3] = {0, 0, 0}, whole2[3] = {W, H, 1}, whole3[3] = {W, H, 2};
  const size_t fill_origin[3] = {1, 1, 0}, fill_region[3] = {3, 2, 1}, slice1[3] = {0, 0, 1};
  const cl_float color[4] = {1.0f, 0.0f, 0.5f, 1.0f};
  const unsigned char color8[4] = {255, 0, 128, 255};
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr s_in, s_fill, s_copy, s_out;
  assert_cl_success(kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, src, a, 0, zero, whole2, 0, NULL, &s_in, NULL));
  assert_cl_success(
      kcb.clCommandFillImageKHR(cb, NULL, NULL, a, color, fill_origin, fill_region, 1, &s_in, &s_fill, NULL));
  assert_cl_success(kcb.clCommandCopyImageKHR(cb, NULL, NULL, a, b, zero, slice1, whole2, 1, &s_fill, &s_copy, NULL));
  assert_cl_success(kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, b, dst, zero, whole3, 0, 1, &s_copy, &s_out, NULL));
  const size_t one = 1;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, probe, 1, NULL, &one, NULL, 1, &s_fill, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(a)); /* the recorded commands hold it */
  assert_cl_success(clReleaseSampler(sampler)); /* its bits were copied at clSetKernelArg */

  cl_uint seed = 4242;
  for (int round = 0; round < 3; round++) {
    unsigned char in[BYTES2], zeros[BYTES3] = {0}, want[BYTES3], got[BYTES3];
    for (int i = 0; i < BYTES2; i++) in[i] = (unsigned char)kcb_random(&seed);
    kcb_write(env->queue, src, BYTES2, in);
    assert_cl_success(clEnqueueWriteImage(env->queue, b, CL_TRUE, zero, whole3, 0, 0, zeros, 0, NULL, NULL));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    /* slice 0 of b stays zero; slice 1 is the source with the filled rectangle */
    memset(want, 0, BYTES2);
    memcpy(want + BYTES2, in, BYTES2);
    for (size_t y = 1; y < 3; y++)
      for (size_t x = 1; x < 4; x++) memcpy(want + BYTES2 + (y * W + x) * 4, color8, 4);
    kcb_read(env->queue, dst, BYTES3, got);
    assert_memory_equal(got, want, BYTES3);
    cl_int probed[3];
    kcb_read(env->queue, out, sizeof probed, probed);
    assert_int_equal(probed[0], W);
    assert_int_equal(probed[1], H);
    assert_int_equal(probed[2], 255);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(probe));
  cl_mem all[] = {b, src, dst, out};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[i]));
}

/* "Any changes to kernel after calling clCommandNDRangeKernelKHR ... have no effect on
 * the recorded command": each recorded command keeps the arguments it was recorded with. */
static void test_kernel_arguments_captured(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  cl_mem a = kcb_buffer(env->context, N * sizeof(cl_int)), b = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_mem c = kcb_buffer(env->context, N * sizeof(cl_int)), r = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_int zeros[N] = {0}, got[N];
  for (int i = 0; i < 4; i++) kcb_write(env->queue, (cl_mem[]){a, b, c, r}[i], sizeof zeros, zeros);
  cl_kernel put = kcb_kernel(program, "put");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  const size_t global = N;
  kcb_arg_mem(put, 0, a);
  kcb_arg_int(put, 1, 5);
  cl_sync_point_khr s_a, s_b;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put, 1, NULL, &global, NULL, 0, NULL, &s_a, NULL));
  kcb_arg_mem(put, 0, b);
  kcb_arg_int(put, 1, 7);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put, 1, NULL, &global, NULL, 0, NULL, &s_b, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, b, r, 0, 0, sizeof got, 1, &s_b, NULL, NULL));
  kcb_arg_mem(put, 0, c);
  kcb_arg_int(put, 1, 9);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  /* The kernel as it is now runs on the queue, unaffected by the recording... */
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, put, 1, NULL, &global, NULL, 0, NULL, NULL));
  kcb_read(env->queue, c, sizeof got, got);
  for (int i = 0; i < N; i++) assert_int_equal(9, got[i]);
  assert_cl_success(clEnqueueFillBuffer(env->queue, c, &zeros[0], sizeof(cl_int), 0, sizeof got, 0, NULL, NULL));
  /* ...and the recorded commands still use theirs after the kernel object and b are
   * released (the spec leaves releasing a kernel argument early undefined; Kiln keeps
   * the recorded ones alive). */
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(b));
  for (int round = 0; round < 2; round++) {
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, a, sizeof got, got);
    for (int i = 0; i < N; i++) assert_int_equal(5, got[i]);
    kcb_read(env->queue, r, sizeof got, got);
    for (int i = 0; i < N; i++) assert_int_equal(7, got[i]);
    kcb_read(env->queue, c, sizeof got, got);
    for (int i = 0; i < N; i++) assert_int_equal(0, got[i]);
    kcb_write(env->queue, a, sizeof zeros, zeros);
    kcb_write(env->queue, r, sizeof zeros, zeros);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(c));
  assert_cl_success(clReleaseMemObject(r));
}

/* CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR: a recorded kernel that enqueues
 * kernels runs with them at every replay (the replay's command completes after its
 * children), and two replays in flight at once (simultaneous use) keep theirs apart. */
static void test_device_side_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  const char *enqueue_source =
      "kernel void parent(global int *p, queue_t q) {\n"
      "  size_t i = get_global_id(0);\n"
      "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4), ^{ p[i * 4 + get_global_id(0)] += 1; });\n"
      "}\n";
  cl_int err;
  cl_program enqueueing = clCreateProgramWithSource(env->context, 1, &enqueue_source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(enqueueing, 1, &env->device, "-cl-std=CL2.0", NULL, NULL));
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue device_queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  enum { N = 64 };
  cl_mem p = kcb_buffer(env->context, 4 * N * sizeof(cl_int));
  cl_int zeros[4 * N] = {0}, got[4 * N];
  kcb_write(env->queue, p, sizeof zeros, zeros);
  cl_kernel parent = kcb_kernel(enqueueing, "parent");
  kcb_arg_mem(parent, 0, p);
  assert_cl_success(clSetKernelArg(parent, 1, sizeof device_queue, &device_queue));
  cl_command_buffer_khr cb = kcb_create(env->queue, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  const size_t global = N;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, parent, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(parent));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  kcb_read(env->queue, p, sizeof got, got);
  for (int i = 0; i < 4 * N; i++) assert_int_equal(1, got[i]);
  cl_event replays[2];
  for (int i = 0; i < 2; i++) assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &replays[i]));
  assert_cl_success(clWaitForEvents(2, replays));
  for (int i = 0; i < 2; i++) assert_cl_success(clReleaseEvent(replays[i]));
  kcb_read(env->queue, p, sizeof got, got);
  for (int i = 0; i < 4 * N; i++) assert_int_equal(3, got[i]);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(p));
  assert_cl_success(clReleaseCommandQueue(device_queue));
  assert_cl_success(clReleaseProgram(enqueueing));
}

/* The command buffer holds the memory objects its commands use, and the kernels: the
 * application releases its handles before finalizing and replaying. */
static void test_memory_objects_retained(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int in[N], got[N], want[N];
  cl_uint seed = 99;
  kcb_random_ints(&seed, in, N, 1 << 20);
  cl_mem a = kcb_buffer_with(env->context, N, in), b = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_mem r = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_program own_program = kcb_program(env->context, env->device, source, NULL);
  cl_kernel scale = kcb_kernel(own_program, "scale");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, a, b, 0, 0, N * sizeof(cl_int), 0, NULL, NULL, NULL));
  const cl_int minus = -1;
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, b, &minus, sizeof minus, N / 2 * sizeof(cl_int),
                                               N / 2 * sizeof(cl_int), 0, NULL, NULL, NULL));
  kiln_test_scale_args(scale, b, r, 3, 1);
  const size_t global = N;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(clReleaseKernel(scale));
  assert_cl_success(clReleaseProgram(own_program));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  for (int i = 0; i < N; i++) want[i] = (i < N / 2 ? in[i] : -1) * 3 + 1;
  for (int round = 0; round < 3; round++) {
    cl_int zeros[N] = {0};
    kcb_write(env->queue, r, sizeof zeros, zeros);
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, r, sizeof got, got);
    kcb_expect_ints(want, got, N, "replay with released handles");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(r));
}

/* A sync-point DAG with fan-out and fan-in, replayed with new host input each time:
 *   copy IN->A, fill X  ->  B = 2A + X + i,  C = 3A + X + i  ->  D = B + C  ->  copy D->OUT */
static void test_dag_replays(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096, ROUNDS = 25 };
  const size_t bytes = N * sizeof(cl_int), global = N;
  cl_mem in = kcb_buffer(env->context, bytes), a = kcb_buffer(env->context, bytes), x = kcb_buffer(env->context, bytes);
  cl_mem b = kcb_buffer(env->context, bytes), c = kcb_buffer(env->context, bytes), d = kcb_buffer(env->context, bytes);
  cl_mem out = kcb_buffer(env->context, bytes);
  cl_kernel mix = kcb_kernel(program, "mix"), sum = kcb_kernel(program, "sum");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);

  cl_sync_point_khr s_copy, s_fill, s_b, s_c, s_d, s_out;
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, in, a, 0, 0, bytes, 0, NULL, &s_copy, NULL));
  const cl_int five = 5;
  assert_cl_success(
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, x, &five, sizeof five, 0, bytes, 0, NULL, &s_fill, NULL));
  const cl_sync_point_khr inputs[2] = {s_copy, s_fill};
  kcb_arg_mem(mix, 0, a);
  kcb_arg_mem(mix, 1, x);
  kcb_arg_mem(mix, 2, b);
  kcb_arg_int(mix, 3, 2);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, mix, 1, NULL, &global, NULL, 2, inputs, &s_b, NULL));
  kcb_arg_mem(mix, 2, c);
  kcb_arg_int(mix, 3, 3);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, mix, 1, NULL, &global, NULL, 2, inputs, &s_c, NULL));
  const cl_sync_point_khr branches[2] = {s_c, s_b};
  kcb_arg_mem(sum, 0, b);
  kcb_arg_mem(sum, 1, c);
  kcb_arg_mem(sum, 2, d);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, sum, 1, NULL, &global, NULL, 2, branches, &s_d, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, d, out, 0, 0, bytes, 1, &s_d, &s_out, NULL));
  const cl_sync_point_khr all[6] = {s_copy, s_fill, s_b, s_c, s_d, s_out};
  for (int i = 0; i < 6; i++) {
    assert_int_not_equal(0, all[i]);
    for (int j = 0; j < i; j++) assert_int_not_equal(all[i], all[j]);
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(mix));
  assert_cl_success(clReleaseKernel(sum));

  static cl_int host[N], got[N], want[N];
  cl_uint seed = 2024;
  for (int round = 0; round < ROUNDS; round++) {
    kcb_random_ints(&seed, host, N, 1 << 24);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, in, CL_FALSE, 0, bytes, host, 0, NULL, NULL));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, out, bytes, got);
    for (int i = 0; i < N; i++) want[i] = (2 * host[i] + 5 + i) + (3 * host[i] + 5 + i);
    char what[32];
    snprintf(what, sizeof what, "round %d", round);
    kcb_expect_ints(want, got, N, what);
  }
  /* The intermediate buffers of the last round. */
  kcb_read(env->queue, b, bytes, got);
  for (int i = 0; i < N; i++) want[i] = 2 * host[i] + 5 + i;
  kcb_expect_ints(want, got, N, "B");
  kcb_read(env->queue, c, bytes, got);
  for (int i = 0; i < N; i++) want[i] = 3 * host[i] + 5 + i;
  kcb_expect_ints(want, got, N, "C");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  cl_mem all_mem[] = {in, a, x, b, c, d, out};
  for (int i = 0; i < 7; i++) assert_cl_success(clReleaseMemObject(all_mem[i]));
}

static void test_barriers(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1024 };
  const size_t bytes = N * sizeof(cl_int), global = N;
  cl_mem m[6];
  for (int i = 0; i < 6; i++) m[i] = kcb_buffer(env->context, bytes);
  cl_kernel sum = kcb_kernel(program, "sum"), add1 = kcb_kernel(program, "add1");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  const cl_int one = 1, two = 2, four = 4;
  cl_sync_point_khr s_fill_a, s_fill_b, s_barrier, s_sum, s_barrier2, s_copy, s_last;
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, m[0], &one, 4, 0, bytes, 0, NULL, &s_fill_a, NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, m[1], &two, 4, 0, bytes, 0, NULL, &s_fill_b, NULL));
  /* Without a wait list: waits for everything recorded before it. */
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, &s_barrier, NULL));
  kcb_arg_mem(sum, 0, m[0]);
  kcb_arg_mem(sum, 1, m[1]);
  kcb_arg_mem(sum, 2, m[2]);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, sum, 1, NULL, &global, NULL, 1, &s_barrier, &s_sum, NULL));
  /* With a wait list; later commands that name no sync point still run after it. */
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 1, &s_sum, &s_barrier2, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, m[2], m[3], 0, 0, bytes, 0, NULL, &s_copy, NULL));
  kcb_arg_mem(add1, 0, m[3]);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add1, 1, NULL, &global, NULL, 2,
                                                  (cl_sync_point_khr[]){s_copy, s_barrier2}, NULL, NULL));
  assert_cl_success(
      kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 2, (cl_sync_point_khr[]){s_copy, s_fill_a}, &s_last, NULL));
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, m[4], &four, 4, 0, bytes, 1, &s_last, NULL, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, m[4], m[5], 0, 0, bytes, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  for (int round = 0; round < 3; round++) {
    cl_int zeros[N] = {0}, got[N];
    for (int i = 0; i < 6; i++) kcb_write(env->queue, m[i], bytes, zeros);
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    const cl_int want[6] = {1, 2, 3, 4, 4, 4};
    for (int b = 0; b < 6; b++) {
      kcb_read(env->queue, m[b], bytes, got);
      for (int i = 0; i < N; i++)
        if (got[i] != want[b])
          fail_msg("round %d, buffer %d, element %d: %d, expected %d", round, b, i, got[i], want[b]);
    }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(sum));
  assert_cl_success(clReleaseKernel(add1));
  for (int i = 0; i < 6; i++) assert_cl_success(clReleaseMemObject(m[i]));
}

/* What a recording call reads is copied: the fill pattern, the geometry arrays and the
 * sync-point list may change right after the call. Commands recorded without sync points
 * on a command buffer of an in-order queue run in recording order, and an empty NDRange
 * (no or zero global size) is a valid command that does nothing. */
static void test_recorded_arguments_and_order(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  const size_t bytes = N * sizeof(cl_int);
  cl_mem a = kcb_buffer(env->context, bytes), b = kcb_buffer(env->context, bytes);
  cl_kernel add1 = kcb_kernel(program, "add1");
  kcb_arg_mem(add1, 0, a);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_int pattern = 10;
  cl_sync_point_khr list[1] = {0}, empty_point = 0;
  assert_cl_success(
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, a, &pattern, sizeof pattern, 0, bytes, 0, NULL, &list[0], NULL));
  pattern = 99;
  size_t global[1] = {N / 2}, offset[1] = {N / 2}, local[1] = {4};
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add1, 1, offset, global, local, 1, list, NULL, NULL));
  global[0] = N, offset[0] = 0, local[0] = 1, list[0] = 0;
  /* No sync points: ordered after the kernel above by the in-order creation queue. */
  for (int i = 0; i < 3; i++)
    assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add1, 1, NULL, global, NULL, 0, NULL, NULL, NULL));
  const size_t zero = 0;
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add1, 1, NULL, &zero, NULL, 0, NULL, &empty_point, NULL));
  assert_int_not_equal(0, empty_point);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add1, 1, NULL, NULL, NULL, 1, &empty_point, NULL, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, a, b, 0, 0, bytes, 1, &empty_point, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(add1));
  cl_int got[N], want[N];
  for (int i = 0; i < N; i++) want[i] = 10 + 3 + (i >= N / 2);
  for (int round = 0; round < 2; round++) {
    cl_int junk = -1;
    assert_cl_success(clEnqueueFillBuffer(env->queue, b, &junk, sizeof junk, 0, bytes, 0, NULL, NULL));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, b, bytes, got);
    kcb_expect_ints(want, got, N, "recorded arguments, in-order recording");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* Kernels whose arguments take every path of a recorded launch: local memory, a by-value
 * argument too wide for the command's inline payload, and more memory objects than the
 * command holds inline. Arguments change and buffers are released after recording. */
static void test_kernel_argument_kinds(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096, GROUP = 64, GROUPS = N / GROUP };
  const size_t bytes = N * sizeof(cl_int), global = N, local = GROUP;
  static cl_int host[6][N], got[N], want[N];
  cl_uint seed = 4321;
  cl_mem in[5], out_sum = kcb_buffer(env->context, GROUPS * sizeof(cl_int));
  cl_mem out_wide = kcb_buffer(env->context, bytes), out_six = kcb_buffer(env->context, bytes);
  for (int i = 0; i < 5; i++) {
    kcb_random_ints(&seed, host[i], N, 1 << 16);
    in[i] = kcb_buffer_with(env->context, N, host[i]);
  }
  cl_kernel group_sum = kcb_kernel(program, "group_sum"), wide = kcb_kernel(program, "wide");
  cl_kernel six = kcb_kernel(program, "six");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);

  kiln_test_group_sum_args(group_sum, in[0], out_sum, GROUP);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, group_sum, 1, NULL, &global, &local, 0, NULL, NULL, NULL));
  assert_cl_success(clSetKernelArg(group_sum, 2, 4 * sizeof(cl_int), NULL));
  kcb_arg_mem(group_sum, 0, in[1]);

  cl_int16 v;
  for (int i = 0; i < 16; i++) v.s[i] = 100 * i + 1;
  const cl_long k = 3;
  kcb_arg_mem(wide, 0, out_wide);
  assert_cl_success(clSetKernelArg(wide, 1, sizeof v, &v));
  assert_cl_success(clSetKernelArg(wide, 2, sizeof k, &k));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, wide, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  const cl_int16 zero16 = {{0}};
  assert_cl_success(clSetKernelArg(wide, 1, sizeof zero16, &zero16));

  for (int i = 0; i < 5; i++) kcb_arg_mem(six, (cl_uint)i, in[i]);
  kcb_arg_mem(six, 5, out_six);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, six, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  kcb_arg_mem(six, 0, out_six);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  cl_kernel kernels[] = {group_sum, wide, six};
  for (int i = 0; i < 3; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseMemObject(in[i]));

  for (int round = 0; round < 3; round++) {
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kiln_test_expect_group_sums(env->queue, out_sum, host[0], N, GROUP, "group sums (local memory)");
    kcb_read(env->queue, out_wide, bytes, got);
    for (int i = 0; i < N; i++) want[i] = v.s[0] + v.s[7] * i + v.s[15] * (cl_int)k;
    kcb_expect_ints(want, got, N, "wide by-value argument");
    kcb_read(env->queue, out_six, bytes, got);
    for (int i = 0; i < N; i++)
      want[i] = host[0][i] + 2 * host[1][i] + 3 * host[2][i] + 4 * host[3][i] + 5 * host[4][i];
    kcb_expect_ints(want, got, N, "six memory objects");
    cl_int junk = 0;
    assert_cl_success(clEnqueueFillBuffer(env->queue, out_six, &junk, sizeof junk, 0, bytes, 0, NULL, NULL));
    assert_cl_success(clEnqueueFillBuffer(env->queue, out_wide, &junk, sizeof junk, 0, bytes, 0, NULL, NULL));
    assert_cl_success(
        clEnqueueFillBuffer(env->queue, out_sum, &junk, sizeof junk, 0, GROUPS * sizeof(cl_int), 0, NULL, NULL));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(out_sum));
  assert_cl_success(clReleaseMemObject(out_wide));
  assert_cl_success(clReleaseMemObject(out_six));
}

/* 1-, 2- and 3-D NDRanges with global offsets and given or chosen local sizes. */
static void test_ndrange_dimensions_and_offsets(void **state) {
  struct kiln_test_env *env = *state;
  const struct {
    cl_uint dim;
    size_t offset[3], global[3], local[3];
    bool has_local;
  } launches[] = {
      {1, {7, 0, 0}, {96, 1, 1}, {0}, false},  {2, {3, 5, 0}, {16, 8, 1}, {4, 2, 1}, true},
      {2, {0, 0, 0}, {12, 10, 1}, {0}, false}, {3, {1, 2, 3}, {8, 4, 6}, {2, 2, 3}, true},
      {3, {4, 0, 9}, {5, 6, 7}, {0}, false},
  };
  enum { COUNT = sizeof launches / sizeof launches[0] };
  cl_kernel ids = kcb_kernel(program, "ids");
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_mem out[COUNT], ok[COUNT];
  size_t items[COUNT];
  for (int l = 0; l < COUNT; l++) {
    items[l] = launches[l].global[0] * launches[l].global[1] * launches[l].global[2];
    out[l] = kcb_buffer(env->context, items[l] * sizeof(cl_int));
    ok[l] = kcb_buffer(env->context, items[l] * sizeof(cl_int));
    kcb_arg_mem(ids, 0, out[l]);
    kcb_arg_mem(ids, 1, ok[l]);
    assert_cl_success(clSetKernelArg(ids, 2, sizeof(cl_uint), &launches[l].dim));
    assert_cl_success(
        kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, ids, launches[l].dim, launches[l].offset, launches[l].global,
                                      launches[l].has_local ? launches[l].local : NULL, 0, NULL, NULL, NULL));
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(ids));
  for (int round = 0; round < 2; round++) {
    for (int l = 0; l < COUNT; l++) {
      cl_int *zeros = calloc(items[l], sizeof(cl_int));
      kcb_write(env->queue, out[l], items[l] * sizeof(cl_int), zeros);
      kcb_write(env->queue, ok[l], items[l] * sizeof(cl_int), zeros);
      free(zeros);
    }
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    for (int l = 0; l < COUNT; l++) {
      cl_int *got = malloc(items[l] * sizeof(cl_int)), *good = malloc(items[l] * sizeof(cl_int));
      kcb_read(env->queue, out[l], items[l] * sizeof(cl_int), got);
      kcb_read(env->queue, ok[l], items[l] * sizeof(cl_int), good);
      const size_t *g = launches[l].global, *o = launches[l].offset;
      for (size_t z = 0; z < g[2]; z++)
        for (size_t y = 0; y < g[1]; y++)
          for (size_t x = 0; x < g[0]; x++) {
            size_t i = (z * g[1] + y) * g[0] + x;
            cl_int want = (cl_int)((x + o[0]) + 100 * (y + o[1]) + 10000 * (z + o[2]));
            if (got[i] != want || good[i] != 1)
              fail_msg("launch %d item (%zu,%zu,%zu): id %d (expected %d), consistent %d", l, x, y, z, got[i], want,
                       good[i]);
          }
      free(got);
      free(good);
    }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  for (int l = 0; l < COUNT; l++) {
    assert_cl_success(clReleaseMemObject(out[l]));
    assert_cl_success(clReleaseMemObject(ok[l]));
  }
}

/* A kernel of 1 << 20 work-items: many work-groups, shared among the workers. */
static void test_many_work_groups(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 20 };
  const size_t bytes = (size_t)N * sizeof(cl_int), global = N;
  cl_int *host = malloc(bytes), *got = malloc(bytes);
  cl_mem in = kcb_buffer(env->context, bytes), out = kcb_buffer(env->context, bytes);
  cl_kernel big = kcb_kernel(program, "big");
  kcb_arg_mem(big, 0, in);
  kcb_arg_mem(big, 1, out);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, big, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  const size_t local = 64, half = N / 2;
  cl_sync_point_khr first;
  /* The same kernel again over the second half, with a given local size, after the first. */
  assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, &first, NULL));
  kcb_arg_mem(big, 0, out);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, big, 1, &half, &half, &local, 1, &first, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(big));
  cl_uint seed = 7;
  for (int round = 0; round < 3; round++) {
    kcb_random_ints(&seed, host, N, 1 << 20);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, in, CL_FALSE, 0, bytes, host, 0, NULL, NULL));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    kcb_read(env->queue, out, bytes, got);
    for (size_t i = 0; i < (size_t)N; i++) {
      cl_int want = host[i] * 3 + (cl_int)(i & 0xFFFF);
      if (i >= half) want = want * 3 + (cl_int)(i & 0xFFFF);
      if (got[i] != want) fail_msg("round %d, item %zu: %d, expected %d", round, i, got[i], want);
    }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
  free(host);
  free(got);
}

/* ---- the event of an execution ---- */

static void test_event_info_and_profiling(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 16 };
  const size_t bytes = N * sizeof(cl_int), global = N;
  cl_mem in = kcb_buffer(env->context, bytes), out = kcb_buffer(env->context, bytes);
  cl_kernel big = kcb_kernel(program, "big");
  kcb_arg_mem(big, 0, in);
  kcb_arg_mem(big, 1, out);
  cl_command_queue profiling = kcb_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  cl_command_buffer_khr cb = kcb_create(profiling, 0);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, big, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  cl_event event;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &event));
  assert_cl_success(clWaitForEvents(1, &event));
  kiln_test_expect_event_info(event, CL_COMMAND_COMMAND_BUFFER_KHR, profiling, env->context);
  assert_int_equal(CL_COMPLETE, kcb_event_status(event));
  cl_ulong t[5] = {0};
  kiln_test_profiling_times(event, t, "execution on a profiling queue");
  assert_cl_success(clReleaseEvent(event));

  /* On the default, non-profiling queue there is no profiling information; on a profiling
   * substitute queue there is. */
  cl_command_buffer_khr plain = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(plain, NULL, NULL, big, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(plain));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, plain, 0, NULL, &event));
  assert_cl_success(clWaitForEvents(1, &event));
  cl_ulong when;
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof when, &when, NULL));
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &profiling, plain, 0, NULL, &event));
  assert_cl_success(clWaitForEvents(1, &event));
  cl_command_queue queue = NULL;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL));
  assert_ptr_equal(profiling, queue);
  cl_ulong start = 0, end = 0;
  assert_cl_success(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
  assert_cl_success(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
  assert_true(start > 0 && end >= start);
  assert_cl_success(clReleaseEvent(event));

  assert_cl_success(kcb.clReleaseCommandBufferKHR(plain));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseCommandQueue(profiling));
  assert_cl_success(clReleaseKernel(big));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
}

/* A user event in the wait list holds the execution back: nothing is written and the
 * command buffer is pending until it is set. */
static void test_user_event_gates_execution(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  cl_mem m = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_int zeros[N] = {0}, got[N];
  kcb_write(env->queue, m, sizeof zeros, zeros);
  const cl_int value = 31;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(
      kcb.clCommandFillBufferKHR(cb, NULL, NULL, m, &value, sizeof value, 0, sizeof got, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  cl_event gate = kcb_user_event(env->context), event;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &event));
  assert_cl_success(clFlush(env->queue));
  usleep(20000);
  assert_true(kcb_event_status(event) > CL_COMPLETE);
  assert_int_equal(CL_COMMAND_BUFFER_STATE_PENDING_KHR, kcb_state(cb));
  cl_command_queue reader = kcb_queue(env->context, env->device, 0);
  kcb_read(reader, m, sizeof got, got);
  for (int i = 0; i < N; i++) assert_int_equal(0, got[i]);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(CL_COMPLETE, kcb_event_status(event));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  kcb_read(reader, m, sizeof got, got);
  for (int i = 0; i < N; i++) assert_int_equal(value, got[i]);
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(reader));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(m));
}

/* ---- ordering with other commands ---- */

/* On an in-order queue an execution runs after the commands before it and before those
 * after it. Everything is queued behind a user event before anything runs. */
static void test_in_order_queue_ordering(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 2048 };
  const size_t bytes = N * sizeof(cl_int), global = N;
  cl_mem x = kcb_buffer(env->context, bytes), y = kcb_buffer(env->context, bytes), z = kcb_buffer(env->context, bytes);
  cl_kernel scale = kcb_kernel(program, "scale"), add1 = kcb_kernel(program, "add1");
  kiln_test_scale_args(scale, x, y, 2, 0);
  kcb_arg_mem(add1, 0, y);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr s;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 0, NULL, &s, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, y, z, 0, 0, bytes, 1, &s, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));

  static cl_int in[N], got_x[N], got_y[N], got_z[N], want[N];
  cl_uint seed = 5;
  for (int round = 0; round < 3; round++) {
    kcb_random_ints(&seed, in, N, 1 << 20);
    cl_event gate = kcb_user_event(env->context), read_done;
    const cl_int zero = 0;
    assert_cl_success(clEnqueueWriteBuffer(env->queue, x, CL_FALSE, 0, bytes, in, 1, &gate, NULL));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    assert_cl_success(clEnqueueFillBuffer(env->queue, x, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, add1, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, x, CL_FALSE, 0, bytes, got_x, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, y, CL_FALSE, 0, bytes, got_y, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, z, CL_FALSE, 0, bytes, got_z, 0, NULL, &read_done));
    assert_true(kcb_event_status(read_done) > CL_COMPLETE);
    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    assert_cl_success(clWaitForEvents(1, &read_done));
    for (int i = 0; i < N; i++) want[i] = 0;
    kcb_expect_ints(want, got_x, N, "x: filled after the execution");
    for (int i = 0; i < N; i++) want[i] = 2 * in[i] + 1;
    kcb_expect_ints(want, got_y, N, "y: incremented after the execution");
    for (int i = 0; i < N; i++) want[i] = 2 * in[i];
    kcb_expect_ints(want, got_z, N, "z: copied by the execution");
    assert_cl_success(clReleaseEvent(gate));
    assert_cl_success(clReleaseEvent(read_done));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(scale));
  assert_cl_success(clReleaseKernel(add1));
  assert_cl_success(clReleaseMemObject(x));
  assert_cl_success(clReleaseMemObject(y));
  assert_cl_success(clReleaseMemObject(z));
}

/* On an out-of-order queue an execution is ordered by events and barriers only. */
static void test_out_of_order_queue(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  const size_t bytes = N * sizeof(cl_int), global = N;
  cl_command_queue ooo = kcb_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_mem in = kcb_buffer(env->context, bytes), mid = kcb_buffer(env->context, bytes);
  cl_mem out = kcb_buffer(env->context, bytes), other = kcb_buffer(env->context, bytes);
  cl_kernel scale = kcb_kernel(program, "scale"), put = kcb_kernel(program, "put");
  kiln_test_scale_args(scale, in, mid, -4, 9);
  kcb_arg_mem(put, 0, other);
  kcb_arg_int(put, 1, 123);
  cl_command_buffer_khr cb = kcb_create(ooo, 0), side = kcb_create(ooo, 0);
  cl_sync_point_khr s;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 0, NULL, &s, NULL));
  assert_cl_success(kcb.clCommandCopyBufferKHR(cb, NULL, NULL, mid, out, 0, 0, bytes, 1, &s, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(side, NULL, NULL, put, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(side));

  static cl_int host[N], got[N], got_other[N], want[N];
  cl_uint seed = 77;
  for (int round = 0; round < 5; round++) {
    kcb_random_ints(&seed, host, N, 1 << 20);
    cl_event written, ran, side_ran, read;
    assert_cl_success(clEnqueueWriteBuffer(ooo, in, CL_FALSE, 0, bytes, host, 0, NULL, &written));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &written, &ran));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, side, 0, NULL, &side_ran));
    assert_cl_success(clEnqueueReadBuffer(ooo, out, CL_FALSE, 0, bytes, got, 1, &ran, &read));
    /* A barrier orders the read of `other` after the side execution. */
    assert_cl_success(clEnqueueBarrierWithWaitList(ooo, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(ooo, other, CL_TRUE, 0, bytes, got_other, 0, NULL, NULL));
    assert_cl_success(clWaitForEvents(1, &read));
    for (int i = 0; i < N; i++) want[i] = -4 * host[i] + 9;
    kcb_expect_ints(want, got, N, "out-of-order execution");
    for (int i = 0; i < N; i++) want[i] = 123;
    kcb_expect_ints(want, got_other, N, "side execution");
    assert_int_equal(CL_COMPLETE, kcb_event_status(side_ran));
    cl_event events[] = {written, ran, side_ran, read};
    for (int i = 0; i < 4; i++) assert_cl_success(clReleaseEvent(events[i]));
  }
  assert_cl_success(clFinish(ooo));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(side));
  assert_cl_success(clReleaseKernel(scale));
  assert_cl_success(clReleaseKernel(put));
  cl_mem mems[] = {in, mid, out, other};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  assert_cl_success(clReleaseCommandQueue(ooo));
}

/* ---- the specification's sample ---- */

/* cl_khr_command_buffer.asciidoc "Sample Code", in C and with 0.9.7's signatures: a frame
 * is processed in 16 tiles (copy, copy, kernel, copy, each tile after the previous one's
 * last copy) on an out-of-order queue, for 60 frames of random input; every frame's
 * result is read back and checked. */
static void test_specification_sample(void **state) {
  struct kiln_test_env *env = *state;
  cl_context context = env->context;
  cl_int error;
  cl_kernel kernel = clCreateKernel(program, "vector_addition", &error);
  assert_cl_success(error);

  enum { frame_count = 60, frame_elements = 1024, tile_count = 16 };
  const size_t frame_size = frame_elements * sizeof(cl_int);
  const size_t tile_elements = frame_elements / tile_count;
  const size_t tile_size = tile_elements * sizeof(cl_int);

  cl_mem buffer_tile1 = clCreateBuffer(context, CL_MEM_READ_ONLY, tile_size, NULL, &error);
  assert_cl_success(error);
  cl_mem buffer_tile2 = clCreateBuffer(context, CL_MEM_READ_ONLY, tile_size, NULL, &error);
  assert_cl_success(error);
  cl_mem buffer_res = clCreateBuffer(context, CL_MEM_WRITE_ONLY, tile_size, NULL, &error);
  assert_cl_success(error);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof(buffer_tile1), &buffer_tile1));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof(buffer_tile2), &buffer_tile2));
  assert_cl_success(clSetKernelArg(kernel, 2, sizeof(buffer_res), &buffer_res));

  cl_command_queue command_queue = kcb_queue(context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_command_buffer_khr command_buffer = kcb.clCreateCommandBufferKHR(1, &command_queue, NULL, &error);
  assert_cl_success(error);

  cl_mem buffer_src1 = clCreateBuffer(context, CL_MEM_READ_ONLY, frame_size, NULL, &error);
  assert_cl_success(error);
  cl_mem buffer_src2 = clCreateBuffer(context, CL_MEM_READ_ONLY, frame_size, NULL, &error);
  assert_cl_success(error);
  cl_mem buffer_dst = clCreateBuffer(context, CL_MEM_WRITE_ONLY, frame_size, NULL, &error);
  assert_cl_success(error);

  cl_sync_point_khr tile_sync_point = 0;
  for (size_t tile_index = 0; tile_index < tile_count; tile_index++) {
    cl_sync_point_khr copy_sync_points[2];
    assert_cl_success(kcb.clCommandCopyBufferKHR(
        command_buffer, NULL, NULL, buffer_src1, buffer_tile1, tile_index * tile_size, 0, tile_size,
        tile_sync_point ? 1 : 0, tile_sync_point ? &tile_sync_point : NULL, &copy_sync_points[0], NULL));
    assert_cl_success(kcb.clCommandCopyBufferKHR(
        command_buffer, NULL, NULL, buffer_src2, buffer_tile2, tile_index * tile_size, 0, tile_size,
        tile_sync_point ? 1 : 0, tile_sync_point ? &tile_sync_point : NULL, &copy_sync_points[1], NULL));
    cl_sync_point_khr nd_sync_point;
    assert_cl_success(kcb.clCommandNDRangeKernelKHR(command_buffer, NULL, NULL, kernel, 1, NULL, &tile_elements, NULL,
                                                    2, copy_sync_points, &nd_sync_point, NULL));
    assert_cl_success(kcb.clCommandCopyBufferKHR(command_buffer, NULL, NULL, buffer_res, buffer_dst, 0,
                                                 tile_index * tile_size, tile_size, 1, &nd_sync_point, &tile_sync_point,
                                                 NULL));
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(command_buffer));

  /* Random values in [0, INT_MAX / 2], as the sample's distribution. */
  cl_uint seed = 0x9E3779B9u;
  static cl_int src1[frame_elements], src2[frame_elements], dst[frame_elements];
  for (size_t frame_index = 0; frame_index < frame_count; frame_index++) {
    cl_event write_src_events[2];
    for (size_t i = 0; i < frame_elements; i++) src1[i] = (cl_int)(kcb_random(&seed) % (CL_INT_MAX / 2 + 1u));
    assert_cl_success(
        clEnqueueWriteBuffer(command_queue, buffer_src1, CL_FALSE, 0, frame_size, src1, 0, NULL, &write_src_events[0]));
    for (size_t i = 0; i < frame_elements; i++) src2[i] = (cl_int)(kcb_random(&seed) % (CL_INT_MAX / 2 + 1u));
    assert_cl_success(
        clEnqueueWriteBuffer(command_queue, buffer_src2, CL_FALSE, 0, frame_size, src2, 0, NULL, &write_src_events[1]));
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, command_buffer, 2, write_src_events, NULL));
    assert_cl_success(clFinish(command_queue));
    assert_cl_success(clReleaseEvent(write_src_events[0]));
    assert_cl_success(clReleaseEvent(write_src_events[1]));

    assert_cl_success(clEnqueueReadBuffer(command_queue, buffer_dst, CL_TRUE, 0, frame_size, dst, 0, NULL, NULL));
    for (size_t i = 0; i < frame_elements; i++)
      if (dst[i] != src1[i] + src2[i])
        fail_msg("frame %zu, element %zu: %d, expected %d + %d", frame_index, i, dst[i], src1[i], src2[i]);
  }

  assert_cl_success(kcb.clReleaseCommandBufferKHR(command_buffer));
  assert_cl_success(clReleaseCommandQueue(command_queue));
  assert_cl_success(clReleaseMemObject(buffer_src1));
  assert_cl_success(clReleaseMemObject(buffer_src2));
  assert_cl_success(clReleaseMemObject(buffer_dst));
  assert_cl_success(clReleaseMemObject(buffer_tile1));
  assert_cl_success(clReleaseMemObject(buffer_tile2));
  assert_cl_success(clReleaseMemObject(buffer_res));
  assert_cl_success(clReleaseKernel(kernel));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_enqueue_errors),
      KCB_TEST(test_copy_fill_rect_results),
      KCB_TEST(test_image_commands_results),
      KCB_TEST(test_kernel_arguments_captured),
      KCB_TEST(test_memory_objects_retained),
      KCB_TEST(test_kernel_argument_kinds),
      KCB_TEST(test_dag_replays),
      KCB_TEST(test_barriers),
      KCB_TEST(test_recorded_arguments_and_order),
      KCB_TEST(test_ndrange_dimensions_and_offsets),
      KCB_TEST(test_many_work_groups),
      KCB_TEST(test_event_info_and_profiling),
      KCB_TEST(test_user_event_gates_execution),
      KCB_TEST(test_in_order_queue_ordering),
      KCB_TEST(test_out_of_order_queue),
      KCB_TEST(test_specification_sample),
      KCB_TEST(test_device_side_enqueue),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
