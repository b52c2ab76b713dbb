/* cl_intel_command_queue_families 1.0.0, what the families allow and do: on the compute
 * family (default capabilities) every enqueue API works; on the copy and immediate
 * families each enqueue API of the capability table works, and every other one
 * (NDRange, task, native kernel, migration, clEnqueueWaitForEvents, command-buffer and
 * recording replays, kernels recorded into a command buffer) is CL_INVALID_OPERATION and
 * does nothing; the event rules (the immediate family creates and waits on no event, the
 * copy family's events cross queues both ways, user events included); real work with
 * every byte checked on every (family, index); and what backs each family: copy-family
 * transfers complete while every worker is busy (copy engine threads), the two copy
 * indices do not wait for each other, immediate-family commands are complete when the
 * enqueue call returns, and compute-family indices are submission lanes served in turn.
 * The table's image calls run on every family too.
 * Every wait that could hang polls with a bound and never runs queued work itself. The
 * rules over capability sets no family has are unit_test_family_rules' subject. */
#include "khr_command_buffer_test.h" /* first: see that header */
#include "qcom_recordable_test.h"

#include "intel_families_test.h"

static const char *source =
    "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    "kernel void triple_u(global uint *p) { size_t i = get_global_id(0); p[i] = p[i] * 3u + 1u; }\n"
    "kernel void scale_add(global const int *in, global int *out, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * k + (int)i;\n"
    "}\n"
    /* Occupies a worker until the host sets *flag (host memory of a CL_MEM_USE_HOST_PTR buffer). */
    "kernel void spin(volatile global int *flag, volatile global int *started, int id) {\n"
    "  started[id] = 1;\n"
    "  while (flag[0] == 0) { }\n"
    "}\n"
    /* Appends its id to the log when it starts, then keeps its worker busy for a while. */
    "kernel void logged(global int *counter, global int *log, int id, int iters, volatile global const int *noise) {\n"
    "  int pos = atomic_inc(counter);\n"
    "  log[pos] = id;\n"
    "  int acc = 0;\n"
    "  for (int i = 0; i < iters; i++) acc += noise[i & 15];\n"
    "  if (acc == 0x7fffffff) log[pos] = -1;\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  kiln_test_program_setup(state, kcb_setup, &program, source, NULL);
  qrq_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* A user event already set complete. */
static cl_event done_user_event(cl_context context) {
  cl_int err = CL_INVALID_VALUE;
  cl_event event = clCreateUserEvent(context, &err);
  assert_cl_success(err);
  assert_cl_success(clSetUserEventStatus(event, CL_COMPLETE));
  return event;
}

/* ---- every worker busy (spinning kernels), released by the teardown if a test fails ---- */

#define MAX_UNITS 64

static struct {
  bool active;
  cl_uint count;
  cl_command_queue queue;
  cl_kernel kernel;
  volatile cl_int *flag, *started;
  cl_mem flag_buffer, started_buffer;
  cl_event events[MAX_UNITS];
} spin;

/* Lets the spinning kernels end (no OpenCL call). */
static void spinners_release(void) {
  if (spin.active)
    spin.flag[0] = 1;
}

static void spinners_stop(void) {
  if (!spin.active)
    return;
  spin.flag[0] = 1;
  if (spin.queue)
    clFinish(spin.queue);
  for (cl_uint i = 0; i < MAX_UNITS; i++)
    if (spin.events[i])
      clReleaseEvent(spin.events[i]);
  if (spin.kernel)
    clReleaseKernel(spin.kernel);
  if (spin.flag_buffer)
    clReleaseMemObject(spin.flag_buffer);
  if (spin.started_buffer)
    clReleaseMemObject(spin.started_buffer);
  if (spin.queue)
    clReleaseCommandQueue(spin.queue);
  free((void *)spin.flag);
  free((void *)spin.started);
  memset(&spin, 0, sizeof spin);
}

/* One spinning kernel per compute unit (the worker pool has one worker per compute unit),
 * each a single work-item; returns once every one has started, so none is left queued. */
static void spinners_start(struct kiln_test_env *env) {
  assert_false(spin.active);
  spin.active = true;
  spin.count = kiln_test_compute_units(env->device);
  assert_true(spin.count <= MAX_UNITS);
  spin.flag = kiln_test_host_alloc(64);
  spin.started = kiln_test_host_alloc(MAX_UNITS * sizeof(cl_int));
  spin.flag_buffer = kiln_test_host_buffer(env->context, (void *)spin.flag, 64);
  spin.started_buffer = kiln_test_host_buffer(env->context, (void *)spin.started, MAX_UNITS * sizeof(cl_int));
  spin.queue = ifam_queue(env->context, env->device, IFAM_COMPUTE, 0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  spin.kernel = kiln_test_kernel(program, "spin");
  kiln_test_arg_mem(spin.kernel, 0, spin.flag_buffer);
  kiln_test_arg_mem(spin.kernel, 1, spin.started_buffer);
  const size_t one = 1;
  for (cl_uint i = 0; i < spin.count; i++) {
    kiln_test_arg_int(spin.kernel, 2, (cl_int)i);
    assert_cl_success(clEnqueueNDRangeKernel(spin.queue, spin.kernel, 1, NULL, &one, &one, 0, NULL, &spin.events[i]));
  }
  assert_cl_success(clFlush(spin.queue));
  if (!kiln_test_poll_ints(spin.started, spin.count, 1, true, IFAM_TIMEOUT_MS))
    fail_msg("the %u spinning kernels did not all start within %d ms", spin.count, IFAM_TIMEOUT_MS);
}

static bool spinners_all_running(void) {
  for (cl_uint i = 0; i < spin.count; i++)
    if (kiln_test_event_status(spin.events[i]) != CL_RUNNING)
      return false;
  return spin.flag[0] == 0;
}

static int test_teardown(void **state) {
  spinners_stop();
  return kiln_test_gates_open(state);
}

#define IFAM_TEST(f) cmocka_unit_test_teardown(f, test_teardown)

/* ---- the capability table: every enqueue API on a queue ---- */

enum { N = 128 };   /* ints per buffer: 8 rows of 64 bytes */
#define ROW_INTS 16 /* a 64-byte row */
static const cl_int pattern_seven = 7;

/* The calls of the capability table, each valid, in order on `q` (in order), with `nwait`
 * events in every wait list and an event requested from every call when `events`; the
 * results checked. The two buffers are set to 1 and 2 first. */
static void table_calls(struct kiln_test_env *env, cl_command_queue q, cl_mem a, cl_mem b, cl_uint nwait,
                        const cl_event *wait, bool events, const char *what) {
  kiln_test_fill_ints(env->queue, a, N, 1);
  kiln_test_fill_ints(env->queue, b, N, 2);
  cl_int ma[N], mb[N], host1[N], got[N], host2[8], hostr[8], want_hostr[8];
  for (int i = 0; i < N; i++)
    ma[i] = 1, mb[i] = 2, host1[i] = 100 + i;
  for (int i = 0; i < 8; i++)
    host2[i] = -10 - i, hostr[i] = -1, want_hostr[i] = -1;
  cl_event evs[16] = {NULL};
  size_t ne = 0;
#define EV (events ? &evs[ne++] : NULL)
  assert_cl_success(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, sizeof host1, host1, nwait, wait, EV));
  memcpy(ma, host1, sizeof ma);
  assert_cl_success(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof got, got, nwait, wait, EV));
  kiln_test_expect_ints(ma, got, N, what);
  assert_cl_success(clEnqueueCopyBuffer(q, a, b, 0, 0, sizeof ma, nwait, wait, EV));
  memcpy(mb, ma, sizeof mb);
  assert_cl_success(
      clEnqueueFillBuffer(q, b, &pattern_seven, sizeof pattern_seven, 0, N / 2 * sizeof(cl_int), nwait, wait, EV));
  for (int i = 0; i < N / 2; i++)
    mb[i] = 7;
  /* Rects in ints: rows of ROW_INTS. */
  const size_t w_borg[3] = {8, 1, 0}, w_horg[3] = {0, 0, 0}, w_region[3] = {16, 2, 1};
  assert_cl_success(
      clEnqueueWriteBufferRect(q, a, CL_TRUE, w_borg, w_horg, w_region, 64, 0, 16, 0, host2, nwait, wait, EV));
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 4; x++)
      ma[(1 + y) * ROW_INTS + 2 + x] = host2[y * 4 + x];
  const size_t r_borg[3] = {0, 2, 0}, r_horg[3] = {4, 0, 0}, r_region[3] = {12, 2, 1};
  assert_cl_success(
      clEnqueueReadBufferRect(q, b, CL_TRUE, r_borg, r_horg, r_region, 64, 0, 16, 0, hostr, nwait, wait, EV));
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 3; x++)
      want_hostr[y * 4 + 1 + x] = mb[(2 + y) * ROW_INTS + x];
  kiln_test_expect_ints(want_hostr, hostr, 8, what);
  const size_t c_src[3] = {0, 1, 0}, c_dst[3] = {16, 3, 0}, c_region[3] = {32, 2, 1};
  assert_cl_success(clEnqueueCopyBufferRect(q, a, b, c_src, c_dst, c_region, 64, 0, 64, 0, nwait, wait, EV));
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 8; x++)
      mb[(3 + y) * ROW_INTS + 4 + x] = ma[(1 + y) * ROW_INTS + x];
  cl_int err = CL_INVALID_VALUE;
  cl_int *mapped =
      clEnqueueMapBuffer(q, a, CL_TRUE, CL_MAP_WRITE, 32 * sizeof(cl_int), 8 * sizeof(cl_int), nwait, wait, EV, &err);
  assert_cl_success(err);
  assert_non_null(mapped);
  for (int i = 0; i < 8; i++)
    mapped[i] = 500 + i, ma[32 + i] = 500 + i;
  assert_cl_success(clEnqueueUnmapMemObject(q, a, mapped, nwait, wait, EV));
  assert_cl_success(clEnqueueMarkerWithWaitList(q, nwait, wait, EV));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, nwait, wait, EV));
  assert_cl_success(clEnqueueBarrier(q));
  if (events)
    assert_cl_success(clEnqueueMarker(q, EV));
#undef EV
  for (size_t i = 0; i < ne; i++) {
    assert_non_null(evs[i]);
    cl_command_queue owner = NULL;
    assert_cl_success(clGetEventInfo(evs[i], CL_EVENT_COMMAND_QUEUE, sizeof owner, &owner, NULL));
    assert_ptr_equal(q, owner);
  }
  if (ne)
    assert_cl_success(clWaitForEvents((cl_uint)ne, evs));
  for (size_t i = 0; i < ne; i++)
    assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clFinish(q));
  kiln_test_read(env->queue, a, sizeof got, got);
  kiln_test_expect_ints(ma, got, N, what);
  kiln_test_read(env->queue, b, sizeof got, got);
  kiln_test_expect_ints(mb, got, N, what);
}

/* The image calls of the capability table (read, write, copy, fill, map and unmap of images,
 * copies between images and buffers), each valid, on `q`, as table_calls makes the buffer
 * ones; the results checked through the fixture's queue. */
static void image_table_calls(struct kiln_test_env *env, cl_command_queue q, cl_uint nwait, const cl_event *wait,
                              bool events, const char *what) {
  enum { W = 8, H = 4, BYTES = W * H * 4 };
  const cl_image_format rgba8 = {CL_RGBA, CL_UNSIGNED_INT8};
  const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
  cl_int err;
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  cl_mem copy = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  cl_mem buffer = kiln_test_buffer(env->context, BYTES);
  unsigned char in[BYTES], got[BYTES], want[BYTES];
  for (int i = 0; i < BYTES; i++) in[i] = (unsigned char)(i * 3 + 1);
  const size_t origin[3] = {0, 0, 0}, whole[3] = {W, H, 1}, fill_origin[3] = {2, 1, 0}, fill_region[3] = {3, 2, 1};
  const cl_uint color[4] = {9, 8, 7, 6};
  cl_event evs[8] = {NULL};
  size_t ne = 0;
#define EV (events ? &evs[ne++] : NULL)
  assert_cl_success(clEnqueueWriteImage(q, image, CL_FALSE, origin, whole, 0, 0, in, nwait, wait, EV));
  assert_cl_success(clEnqueueReadImage(q, image, CL_TRUE, origin, whole, 0, 0, got, nwait, wait, EV));
  if (memcmp(got, in, BYTES) != 0) fail_msg("%s: clEnqueueReadImage", what);
  assert_cl_success(clEnqueueCopyImage(q, image, copy, origin, origin, whole, nwait, wait, EV));
  assert_cl_success(clEnqueueFillImage(q, copy, color, fill_origin, fill_region, nwait, wait, EV));
  memcpy(want, in, BYTES);
  for (int y = 1; y < 3; y++)
    for (int x = 2; x < 5; x++)
      for (int c = 0; c < 4; c++) want[(y * W + x) * 4 + c] = (unsigned char)color[c];
  size_t row_pitch = 0;
  unsigned char *mapped =
      clEnqueueMapImage(q, copy, CL_TRUE, CL_MAP_WRITE, origin, whole, &row_pitch, NULL, nwait, wait, EV, &err);
  assert_cl_success(err);
  mapped[0] = want[0] = 200;
  mapped[row_pitch * 3 + 5] = want[W * 4 * 3 + 5] = 201;
  assert_cl_success(clEnqueueUnmapMemObject(q, copy, mapped, nwait, wait, EV));
  assert_cl_success(clEnqueueCopyImageToBuffer(q, copy, buffer, origin, whole, 0, nwait, wait, EV));
  assert_cl_success(clEnqueueCopyBufferToImage(q, buffer, image, 0, origin, whole, nwait, wait, EV));
#undef EV
  for (size_t i = 0; i < ne; i++) {
    cl_command_queue owner = NULL;
    assert_cl_success(clGetEventInfo(evs[i], CL_EVENT_COMMAND_QUEUE, sizeof owner, &owner, NULL));
    assert_ptr_equal(q, owner);
  }
  if (ne) assert_cl_success(clWaitForEvents((cl_uint)ne, evs));
  for (size_t i = 0; i < ne; i++) assert_cl_success(clReleaseEvent(evs[i]));
  assert_cl_success(clFinish(q));
  kiln_test_read(env->queue, buffer, BYTES, got);
  if (memcmp(got, want, BYTES) != 0) fail_msg("%s: the image copied to a buffer", what);
  assert_cl_success(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, whole, 0, 0, got, 0, NULL, NULL));
  if (memcmp(got, want, BYTES) != 0) fail_msg("%s: the buffer copied to an image", what);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(copy));
  assert_cl_success(clReleaseMemObject(buffer));
}

static void CL_CALLBACK native_add_one(void *args) {
  cl_int **p = args;
  (**p)++;
}

/* The objects the calls outside the table need. */
struct outside {
  cl_kernel put;
  cl_mem out[6];
  cl_command_buffer_khr kernel_cb; /* created on env->queue: put(out[2], 13) */
  cl_recording_qcom recordings[2]; /* put(out[4], 15) and put(out[5], 16) */
  cl_command_queue recordable[2];
  cl_int native_counter;
};

static void outside_create(struct kiln_test_env *env, struct outside *o) {
  memset(o, 0, sizeof *o);
  o->put = kiln_test_kernel(program, "put");
  for (int i = 0; i < 6; i++)
    o->out[i] = kiln_test_buffer(env->context, N * sizeof(cl_int));
  const size_t global = N;
  o->kernel_cb = kcb_create(env->queue, 0);
  kiln_test_arg_mem(o->put, 0, o->out[2]);
  kiln_test_arg_int(o->put, 1, 13);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(o->kernel_cb, NULL, NULL, o->put, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(o->kernel_cb));
  for (int r = 0; r < 2; r++) {
    o->recordable[r] = qrq_recordable_queue(env);
    o->recordings[r] = qrq_new(o->recordable[r]);
    kiln_test_arg_mem(o->put, 0, o->out[4 + r]);
    kiln_test_arg_int(o->put, 1, 15 + r);
    assert_cl_success(clEnqueueNDRangeKernel(o->recordable[r], o->put, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(qrq.clEndRecordingQCOM(o->recordings[r]));
  }
}

static void outside_release(struct outside *o) {
  assert_cl_success(clReleaseKernel(o->put));
  for (int i = 0; i < 6; i++)
    assert_cl_success(clReleaseMemObject(o->out[i]));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(o->kernel_cb));
  for (int r = 0; r < 2; r++) {
    assert_cl_success(qrq.clReleaseRecordingQCOM(o->recordings[r]));
    assert_cl_success(clReleaseCommandQueue(o->recordable[r]));
  }
}

/* The calls outside the table, each valid, on `q` (in order): each returns `want`; when it
 * is CL_SUCCESS every one took effect, otherwise none did and no event came back. */
static void outside_calls(struct kiln_test_env *env, cl_command_queue q, struct outside *o, cl_uint nwait,
                          const cl_event *wait, bool events, cl_int want, const char *what) {
  for (int i = 0; i < 6; i++)
    kiln_test_fill_ints(env->queue, o->out[i], N, 0);
  o->native_counter = 0;
  cl_mem migrate = o->out[0];
  cl_event done = kiln_test_done_marker(env->queue);
  const size_t global = N;
  struct {
    const char *name;
    cl_int err;
    cl_event event;
  } calls[16];
  size_t n = 0;
#define CALL(label, expr)                                                                                              \
  do {                                                                                                                 \
    calls[n].event = NULL;                                                                                             \
    calls[n].name = label;                                                                                             \
    cl_event *ev = events ? &calls[n].event : NULL;                                                                    \
    calls[n++].err = (expr);                                                                                           \
  } while (0)
  kiln_test_arg_mem(o->put, 0, o->out[0]);
  kiln_test_arg_int(o->put, 1, 11);
  CALL("clEnqueueNDRangeKernel", clEnqueueNDRangeKernel(q, o->put, 1, NULL, &global, NULL, nwait, wait, ev));
  kiln_test_arg_mem(o->put, 0, o->out[1]);
  kiln_test_arg_int(o->put, 1, 12);
  CALL("clEnqueueTask", clEnqueueTask(q, o->put, nwait, wait, ev));
  cl_int *native_target = &o->native_counter;
  CALL("clEnqueueNativeKernel",
       clEnqueueNativeKernel(q, native_add_one, &native_target, sizeof native_target, 0, NULL, NULL, nwait, wait, ev));
  CALL("clEnqueueMigrateMemObjects",
       clEnqueueMigrateMemObjects(q, 1, &migrate, CL_MIGRATE_MEM_OBJECT_HOST, nwait, wait, ev));
  calls[n].event = NULL;
  calls[n].name = "clEnqueueWaitForEvents";
  calls[n++].err = clEnqueueWaitForEvents(q, 1, &done);
  cl_command_queue substitute = q;
  CALL("clEnqueueCommandBufferKHR (substitute queue)",
       kcb.clEnqueueCommandBufferKHR(1, &substitute, o->kernel_cb, nwait, wait, ev));
  /* A command buffer of the queue itself, with a fill (recordable on every family). */
  cl_command_buffer_khr own = kcb_create(q, 0);
  const cl_int fourteen = 14;
  assert_cl_success(kcb.clCommandFillBufferKHR(own, NULL, NULL, o->out[3], &fourteen, sizeof fourteen, 0,
                                               N * sizeof(cl_int), 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(own));
  CALL("clEnqueueCommandBufferKHR (its own queue)", kcb.clEnqueueCommandBufferKHR(0, NULL, own, nwait, wait, ev));
  CALL("clEnqueueRecordingQCOM",
       qrq.clEnqueueRecordingQCOM(q, o->recordings[0], 0, NULL, 0, NULL, 0, NULL, 0, NULL, nwait, wait, ev));
  CALL("clEnqueueRecordingSVMQCOM", qrq.clEnqueueRecordingSVMQCOM(q, o->recordings[1], 0, NULL, 0, NULL, 0, NULL, 0,
                                                                  NULL, 0, NULL, 0, NULL, nwait, wait, ev));
#undef CALL
  for (size_t i = 0; i < n; i++) {
    if (calls[i].err != want)
      fail_msg("%s, %s: %d, expected %d", what, calls[i].name, calls[i].err, want);
    if (want != CL_SUCCESS && calls[i].event)
      fail_msg("%s, %s: refused but returned an event", what, calls[i].name);
    if (want == CL_SUCCESS && events && i != 4 && !calls[i].event)
      fail_msg("%s, %s: no event returned", what, calls[i].name);
  }
  assert_cl_success(clFinish(q));
  for (size_t i = 0; i < n; i++)
    if (calls[i].event) {
      assert_int_equal(CL_COMPLETE, kiln_test_event_status(calls[i].event));
      assert_cl_success(clReleaseEvent(calls[i].event));
    }
  bool ran = want == CL_SUCCESS;
  qrq_expect_all(env->queue, o->out[0], N, ran ? 11 : 0, "clEnqueueNDRangeKernel's output");
  cl_int first = -1;
  kiln_test_read(env->queue, o->out[1], sizeof first, &first);
  assert_int_equal(ran ? 12 : 0, first);
  assert_int_equal(ran ? 1 : 0, o->native_counter);
  qrq_expect_all(env->queue, o->out[2], N, ran ? 13 : 0, "the substitute command buffer's output");
  qrq_expect_all(env->queue, o->out[3], N, ran ? 14 : 0, "the own command buffer's output");
  qrq_expect_all(env->queue, o->out[4], N, ran ? 15 : 0, "the recording's output");
  qrq_expect_all(env->queue, o->out[5], N, ran ? 16 : 0, "the SVM recording's output");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(own));
  assert_cl_success(clReleaseEvent(done));
}

/* Default capabilities: every enqueue API works on every compute index, with events,
 * and with wait lists holding a user event and a copy-family event. */
static void test_compute_family_allows_every_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint lanes = ifam_family_count(env->device, IFAM_COMPUTE);
  cl_mem a = kiln_test_buffer(env->context, N * sizeof(cl_int)), b = kiln_test_buffer(env->context, N * sizeof(cl_int));
  struct outside o;
  outside_create(env, &o);
  cl_command_queue copy = ifam_queue(env->context, env->device, IFAM_COPY, 0, 0);
  cl_event wait[2] = {done_user_event(env->context), kiln_test_done_marker(copy)};
  char what[96];
  for (cl_uint index = 0; index < lanes; index++) {
    cl_command_queue q = ifam_queue(env->context, env->device, IFAM_COMPUTE, index, 0);
    for (int with = 0; with < 2; with++) {
      snprintf(what, sizeof what, "compute index %u%s", index, with ? " with events" : "");
      table_calls(env, q, a, b, with ? 2 : 0, with ? wait : NULL, with, what);
      image_table_calls(env, q, with ? 2 : 0, with ? wait : NULL, with, what);
      outside_calls(env, q, &o, with ? 2 : 0, with ? wait : NULL, with, CL_SUCCESS, what);
    }
    assert_cl_success(clReleaseCommandQueue(q));
  }
  for (int i = 0; i < 2; i++)
    assert_cl_success(clReleaseEvent(wait[i]));
  assert_cl_success(clReleaseCommandQueue(copy));
  outside_release(&o);
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* The copy family: the table's calls work on both indices, with and without events and
 * wait lists (its own events, another queue's, a user event); nothing else is enqueued. */
static void test_copy_family_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem a = kiln_test_buffer(env->context, N * sizeof(cl_int)), b = kiln_test_buffer(env->context, N * sizeof(cl_int));
  struct outside o;
  outside_create(env, &o);
  char what[96];
  for (cl_uint index = 0; index < 2; index++) {
    cl_command_queue q = ifam_queue(env->context, env->device, IFAM_COPY, index, 0);
    cl_event wait[3] = {kiln_test_done_marker(q), done_user_event(env->context), kiln_test_done_marker(env->queue)};
    for (int with = 0; with < 2; with++) {
      snprintf(what, sizeof what, "copy index %u%s", index, with ? " with events" : "");
      table_calls(env, q, a, b, with ? 3 : 0, with ? wait : NULL, with, what);
      image_table_calls(env, q, with ? 3 : 0, with ? wait : NULL, with, what);
      outside_calls(env, q, &o, with ? 3 : 0, with ? wait : NULL, with, CL_INVALID_OPERATION, what);
    }
    for (int i = 0; i < 3; i++)
      assert_cl_success(clReleaseEvent(wait[i]));
    assert_cl_success(clReleaseCommandQueue(q));
  }
  outside_release(&o);
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* The immediate family: the table's calls work without events; nothing else is enqueued. */
static void test_immediate_family_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem a = kiln_test_buffer(env->context, N * sizeof(cl_int)), b = kiln_test_buffer(env->context, N * sizeof(cl_int));
  struct outside o;
  outside_create(env, &o);
  cl_command_queue q = ifam_queue(env->context, env->device, IFAM_IMMEDIATE, 0, 0);
  table_calls(env, q, a, b, 0, NULL, false, "immediate family");
  image_table_calls(env, q, 0, NULL, false, "immediate family");
  outside_calls(env, q, &o, 0, NULL, false, CL_INVALID_OPERATION, "immediate family");
  assert_cl_success(clReleaseCommandQueue(q));
  outside_release(&o);
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* A command buffer created on a copy or immediate queue records copies, rects, fills and
 * barriers but no kernel; it cannot run on its own queue, and runs on a compute queue
 * given as substitute. */
static void test_command_buffer_on_transfer_families(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel put = kiln_test_kernel(program, "put");
  cl_mem a = kiln_test_buffer(env->context, N * sizeof(cl_int)), b = kiln_test_buffer(env->context, N * sizeof(cl_int));
  kiln_test_arg_mem(put, 0, a);
  kiln_test_arg_int(put, 1, 99);
  cl_command_queue compute = ifam_queue(env->context, env->device, IFAM_COMPUTE, 1, 0);
  const size_t global = N;
  char what[96];
  for (cl_uint family = IFAM_COPY; family <= IFAM_IMMEDIATE; family++) {
    snprintf(what, sizeof what, "command buffer of a family-%u queue", family);
    cl_command_queue q = ifam_queue(env->context, env->device, family, 0, 0);
    kiln_test_fill_ints(env->queue, a, N, 5);
    kiln_test_fill_ints(env->queue, b, N, 6);
    cl_command_buffer_khr cb = kcb_create(q, 0);
    if (kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, put, 1, NULL, &global, NULL, 0, NULL, NULL, NULL) !=
        CL_INVALID_OPERATION)
      fail_msg("%s: recording a kernel was not CL_INVALID_OPERATION", what);
    const cl_int eight = 8;
    const size_t origin[3] = {0, 0, 0}, dst_origin[3] = {0, 4, 0}, region[3] = {64, 2, 1};
    cl_sync_point_khr fill_point = 0;
    assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, a, &eight, sizeof eight, 0, N / 2 * sizeof(cl_int), 0,
                                                 NULL, &fill_point, NULL));
    assert_cl_success(kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL, NULL));
    assert_cl_success(
        kcb.clCommandCopyBufferKHR(cb, NULL, NULL, a, b, 0, 0, N / 4 * sizeof(cl_int), 1, &fill_point, NULL, NULL));
    assert_cl_success(kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, a, b, origin, dst_origin, region, 64, 0, 64, 0, 0,
                                                     NULL, NULL, NULL));
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
    cl_event ev = NULL;
    assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(1, &q, cb, 0, NULL, NULL));
    if (family == IFAM_COPY)
      assert_int_equal(CL_INVALID_OPERATION, kcb.clEnqueueCommandBufferKHR(1, &q, cb, 0, NULL, &ev));
    assert_null(ev);
    assert_cl_success(clFinish(q));
    qrq_expect_all(env->queue, a, N, 5, what); /* nothing ran */
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(1, &compute, cb, 0, NULL, &ev));
    assert_cl_success(clWaitForEvents(1, &ev));
    assert_cl_success(clReleaseEvent(ev));
    cl_int want_a[N], want_b[N], got[N];
    for (int i = 0; i < N; i++)
      want_a[i] = i < N / 2 ? 8 : 5, want_b[i] = i < N / 4 ? 8 : 6;
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < ROW_INTS; x++)
        want_b[(4 + y) * ROW_INTS + x] = want_a[y * ROW_INTS + x];
    kiln_test_read(env->queue, a, sizeof got, got);
    kiln_test_expect_ints(want_a, got, N, what);
    kiln_test_read(env->queue, b, sizeof got, got);
    kiln_test_expect_ints(want_b, got, N, what);
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
    assert_cl_success(clReleaseCommandQueue(q));
  }
  assert_cl_success(clReleaseCommandQueue(compute));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* ---- the event rules ---- */

/* The immediate family has no event capability: every table call with an event
 * requested is CL_INVALID_EVENT (clEnqueueMarker, which always returns one, too), with a
 * non-empty wait list CL_INVALID_EVENT_WAIT_LIST (user events, other queues' events); such
 * a call does nothing. */
static void test_immediate_family_refuses_events(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = ifam_queue(env->context, env->device, IFAM_IMMEDIATE, 0, 0);
  cl_command_queue copy = ifam_queue(env->context, env->device, IFAM_COPY, 1, 0);
  cl_mem a = kiln_test_buffer(env->context, N * sizeof(cl_int)), b = kiln_test_buffer(env->context, N * sizeof(cl_int));
  kiln_test_fill_ints(env->queue, a, N, 1);
  kiln_test_fill_ints(env->queue, b, N, 2);
  cl_int host[N];
  for (int i = 0; i < N; i++)
    host[i] = 40 + i;
  cl_int err = CL_INVALID_VALUE;
  cl_int *mapped = clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event others[3] = {done_user_event(env->context), kiln_test_done_marker(env->queue), kiln_test_done_marker(copy)};
  const char *other_names[3] = {"a user event", "a compute queue's event", "a copy queue's event"};
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 2, 1};
  for (int mode = 0; mode < 4; mode++) {
    /* mode 0: an event requested; 1..3: a wait list of one of `others`. */
    cl_uint nwait = mode ? 1 : 0;
    const cl_event *wait = mode ? &others[mode - 1] : NULL;
    cl_int want = mode ? CL_INVALID_EVENT_WAIT_LIST : CL_INVALID_EVENT;
    cl_event ev = NULL;
    cl_event *evp = mode ? NULL : &ev;
    struct {
      const char *name;
      cl_int err;
    } calls[16];
    size_t n = 0;
#define CALL(expr) calls[n].name = #expr, calls[n++].err = (expr)
    CALL(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof host, host, nwait, wait, evp));
    CALL(clEnqueueReadBuffer(q, a, CL_FALSE, 0, sizeof host, host, nwait, wait, evp));
    CALL(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, sizeof host, host, nwait, wait, evp));
    CALL(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, sizeof host, host, nwait, wait, evp));
    CALL(clEnqueueCopyBuffer(q, b, a, 0, 0, sizeof host, nwait, wait, evp));
    CALL(clEnqueueReadBufferRect(q, a, CL_TRUE, origin, origin, region, 64, 0, 16, 0, host, nwait, wait, evp));
    CALL(clEnqueueWriteBufferRect(q, a, CL_FALSE, origin, origin, region, 64, 0, 16, 0, host, nwait, wait, evp));
    CALL(clEnqueueCopyBufferRect(q, b, a, origin, origin, region, 64, 0, 64, 0, nwait, wait, evp));
    CALL(clEnqueueFillBuffer(q, a, &pattern_seven, sizeof pattern_seven, 0, sizeof host, nwait, wait, evp));
    CALL(clEnqueueUnmapMemObject(q, b, mapped, nwait, wait, evp));
    CALL(clEnqueueMarkerWithWaitList(q, nwait, wait, evp));
    CALL(clEnqueueBarrierWithWaitList(q, nwait, wait, evp));
    if (!mode)
      CALL(clEnqueueMarker(q, &ev));
#undef CALL
    void *map_result = clEnqueueMapBuffer(q, a, CL_TRUE, CL_MAP_WRITE, 0, sizeof host, nwait, wait, evp, &err);
    calls[n].name = "clEnqueueMapBuffer", calls[n++].err = err;
    assert_null(map_result);
    for (size_t i = 0; i < n; i++)
      if (calls[i].err != want)
        fail_msg("%s, %s: %d, expected %d", mode ? other_names[mode - 1] : "an event requested", calls[i].name,
                 calls[i].err, want);
    assert_null(ev);
  }
  /* Nothing happened: host memory, both buffers; the mapping is still there. */
  for (int i = 0; i < N; i++)
    assert_int_equal(40 + i, host[i]);
  qrq_expect_all(env->queue, a, N, 1, "buffer a after refused calls");
  qrq_expect_all(env->queue, b, N, 2, "buffer b after refused calls");
  assert_int_equal(2, mapped[N - 1]);
  assert_cl_success(clEnqueueUnmapMemObject(q, b, mapped, 0, NULL, NULL));
  /* The same calls without an event or a wait list are fine (test_immediate_family_capabilities). */
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
  assert_cl_success(clEnqueueBarrier(q));
  for (int i = 0; i < 3; i++)
    assert_cl_success(clReleaseEvent(others[i]));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseCommandQueue(copy));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* The copy family's events cross queues both ways: a chain gated by a user event runs
 * compute kernel -> copy (index 0, waits on the kernel) -> copy (index 1, out of order,
 * waits on the first copy) -> compute kernel (waits on the second copy) -> copy (waits on
 * the kernel and a user event) into host memory. Nothing runs before the gate opens; the
 * result is right; the events report their queues and commands; profiling works on a
 * profiling copy queue and is unavailable on the other. */
static void test_copy_family_events_cross_queues(void **state) {
  struct kiln_test_env *env = *state;
  enum { M = 4096 };
  cl_command_queue compute = ifam_queue(env->context, env->device, IFAM_COMPUTE, 0, 0);
  cl_command_queue copy0 = ifam_queue(env->context, env->device, IFAM_COPY, 0, CL_QUEUE_PROFILING_ENABLE);
  cl_command_queue copy1 = ifam_queue(env->context, env->device, IFAM_COPY, 1, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_mem in = kiln_test_buffer(env->context, M * sizeof(cl_int)),
         b1 = kiln_test_buffer(env->context, M * sizeof(cl_int)),
         b2 = kiln_test_buffer(env->context, M * sizeof(cl_int)),
         b3 = kiln_test_buffer(env->context, M * sizeof(cl_int)),
         b4 = kiln_test_buffer(env->context, M * sizeof(cl_int));
  cl_int *result = kiln_test_host_alloc(M * sizeof(cl_int));
  for (int i = 0; i < M; i++)
    result[i] = -5;
  cl_mem out = kiln_test_host_buffer(env->context, result, M * sizeof(cl_int));
  cl_int *input = malloc(M * sizeof(cl_int));
  assert_non_null(input);
  for (int i = 0; i < M; i++)
    input[i] = (i * 37) % 1000 - 400;
  kiln_test_write(env->queue, in, M * sizeof(cl_int), input);

  cl_event gate = kiln_test_gate_new(env->context), late_gate = kiln_test_gate_new(env->context);
  cl_kernel k1 = kiln_test_kernel(program, "scale_add"), k2 = kiln_test_kernel(program, "scale_add");
  kiln_test_arg_mem(k1, 0, in);
  kiln_test_arg_mem(k1, 1, b1);
  kiln_test_arg_int(k1, 2, 3);
  kiln_test_arg_mem(k2, 0, b3);
  kiln_test_arg_mem(k2, 1, b4);
  kiln_test_arg_int(k2, 2, -2);
  const size_t global = M;
  cl_event e[5] = {NULL};
  assert_cl_success(clEnqueueNDRangeKernel(compute, k1, 1, NULL, &global, NULL, 1, &gate, &e[0]));
  assert_cl_success(clEnqueueCopyBuffer(copy0, b1, b2, 0, 0, M * sizeof(cl_int), 1, &e[0], &e[1]));
  assert_cl_success(clEnqueueCopyBuffer(copy1, b2, b3, 0, 0, M * sizeof(cl_int), 1, &e[1], &e[2]));
  assert_cl_success(clEnqueueNDRangeKernel(compute, k2, 1, NULL, &global, NULL, 1, &e[2], &e[3]));
  cl_event last_wait[2] = {e[3], late_gate};
  assert_cl_success(clEnqueueCopyBuffer(copy1, b4, out, 0, 0, M * sizeof(cl_int), 2, last_wait, &e[4]));
  assert_cl_success(clFlush(compute));
  assert_cl_success(clFlush(copy0));
  assert_cl_success(clFlush(copy1));
  kiln_test_sleep_ms(30);
  for (int i = 0; i < 5; i++)
    if (kiln_test_event_status(e[i]) <= CL_RUNNING)
      fail_msg("command %d of the chain started before its gate", i);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  if (!ifam_poll_complete(e[3], IFAM_TIMEOUT_MS))
    fail_msg("the chain did not reach its second kernel");
  kiln_test_sleep_ms(10);
  assert_int_equal(CL_SUBMITTED, kiln_test_event_status(e[4])); /* still behind the user event */
  for (int i = 0; i < M; i++)
    assert_int_equal(-5, result[i]);
  assert_cl_success(clSetUserEventStatus(late_gate, CL_COMPLETE));
  if (!ifam_poll_complete(e[4], IFAM_TIMEOUT_MS))
    fail_msg("the chain's last copy did not complete");
  for (int i = 0; i < M; i++) {
    cl_int want = ((input[i] * 3 + i) * -2) + i;
    if (result[i] != want)
      fail_msg("chain result %d is %d, expected %d", i, result[i], want);
  }
  /* The events' queues and commands. */
  const cl_command_queue owners[5] = {compute, copy0, copy1, compute, copy1};
  const cl_command_type types[5] = {CL_COMMAND_NDRANGE_KERNEL, CL_COMMAND_COPY_BUFFER, CL_COMMAND_COPY_BUFFER,
                                    CL_COMMAND_NDRANGE_KERNEL, CL_COMMAND_COPY_BUFFER};
  for (int i = 0; i < 5; i++) {
    cl_command_queue owner = NULL;
    cl_command_type type = 0;
    assert_cl_success(clGetEventInfo(e[i], CL_EVENT_COMMAND_QUEUE, sizeof owner, &owner, NULL));
    assert_cl_success(clGetEventInfo(e[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    assert_ptr_equal(owners[i], owner);
    assert_int_equal(types[i], type);
  }
  /* Profiling: available on the profiling copy queue, in order; not on the other. */
  cl_ulong t[5] = {0};
  kiln_test_profiling_times(e[1], t, "the profiling copy queue's copy");
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(e[2], CL_PROFILING_COMMAND_START, sizeof t[0], &t[0], NULL));
  for (int i = 0; i < 5; i++)
    assert_cl_success(clReleaseEvent(e[i]));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseEvent(late_gate));
  assert_cl_success(clReleaseKernel(k1));
  assert_cl_success(clReleaseKernel(k2));
  cl_mem mems[6] = {in, b1, b2, b3, b4, out};
  for (int i = 0; i < 6; i++)
    assert_cl_success(clReleaseMemObject(mems[i]));
  assert_cl_success(clReleaseCommandQueue(compute));
  assert_cl_success(clReleaseCommandQueue(copy0));
  assert_cl_success(clReleaseCommandQueue(copy1));
  free(input);
  free(result);
}

/* An out-of-order copy queue: a barrier holds back later commands until earlier ones, and
 * its own events order commands through wait lists. */
static void test_copy_family_out_of_order(void **state) {
  struct kiln_test_env *env = *state;
  enum { M = 1024 };
  cl_command_queue q = ifam_queue(env->context, env->device, IFAM_COPY, 1, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_mem a = kiln_test_buffer(env->context, M * sizeof(cl_int)), b = kiln_test_buffer(env->context, M * sizeof(cl_int)),
         c = kiln_test_buffer(env->context, M * sizeof(cl_int));
  cl_event gate = kiln_test_gate_new(env->context);
  const cl_int nine = 9;
  cl_event filled = NULL, copied = NULL;
  assert_cl_success(clEnqueueFillBuffer(q, a, &nine, sizeof nine, 0, M * sizeof(cl_int), 1, &gate, &filled));
  assert_cl_success(clEnqueueCopyBuffer(q, a, b, 0, 0, M * sizeof(cl_int), 1, &filled, &copied));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
  cl_event last = NULL;
  assert_cl_success(clEnqueueCopyBuffer(q, b, c, 0, 0, M * sizeof(cl_int), 0, NULL, &last));
  assert_cl_success(clFlush(q));
  kiln_test_sleep_ms(20);
  assert_true(kiln_test_event_status(last) > CL_RUNNING);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  if (!ifam_poll_complete(last, IFAM_TIMEOUT_MS))
    fail_msg("the out-of-order copy queue did not finish");
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(copied));
  qrq_expect_all(env->queue, c, M, 9, "out-of-order copy queue");
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseEvent(filled));
  assert_cl_success(clReleaseEvent(copied));
  assert_cl_success(clReleaseEvent(last));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(c));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* ---- what backs the families ---- */

/* Copy engines: with every worker occupied by a kernel that spins until the host sets a
 * flag, non-blocking transfers on a copy queue (each index) still complete. */
static void test_copy_family_runs_beside_busy_workers(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 4 << 20 };
  unsigned char *data = malloc(BYTES), *got = malloc(BYTES), *want = malloc(BYTES);
  assert_true(data && got && want);
  ifam_fill_pattern(data, BYTES, 11);
  cl_mem src = kiln_test_buffer(env->context, BYTES),
         dst[2] = {kiln_test_buffer(env->context, BYTES), kiln_test_buffer(env->context, BYTES)};
  kiln_test_write(env->queue, src, BYTES, data);
  cl_command_queue q[2] = {ifam_queue(env->context, env->device, IFAM_COPY, 0, 0),
                           ifam_queue(env->context, env->device, IFAM_COPY, 1, 0)};
  spinners_start(env);
  cl_event last[2] = {NULL, NULL};
  const cl_uint fill = 0xC0FFEE00u;
  for (int i = 0; i < 2; i++) {
    assert_cl_success(clEnqueueCopyBuffer(q[i], src, dst[i], 0, 0, BYTES, 0, NULL, NULL));
    assert_cl_success(clEnqueueFillBuffer(q[i], dst[i], &fill, sizeof fill, 4096, 8192, 0, NULL, NULL));
    assert_cl_success(clEnqueueWriteBuffer(q[i], dst[i], CL_FALSE, 100000, 5000, data + 7, 0, NULL, NULL));
    assert_cl_success(clEnqueueMarkerWithWaitList(q[i], 0, NULL, &last[i]));
    assert_cl_success(clFlush(q[i]));
  }
  bool done[2];
  double end = kiln_test_now_ms() + IFAM_TIMEOUT_MS;
  for (int i = 0; i < 2; i++)
    done[i] = ifam_poll_complete(last[i], ifam_remaining_ms(end));
  bool busy = spinners_all_running();
  spinners_stop();
  for (int i = 0; i < 2; i++)
    if (!done[i])
      fail_msg("copy index %d: transfers did not complete within %d ms while every worker was busy", i,
               IFAM_TIMEOUT_MS);
  assert_true(busy); /* the workers were still spinning when the transfers had completed */
  memcpy(want, data, BYTES);
  for (size_t i = 4096; i < 4096 + 8192; i += 4)
    memcpy(want + i, &fill, 4);
  memcpy(want + 100000, data + 7, 5000);
  for (int i = 0; i < 2; i++) {
    assert_cl_success(clFinish(q[i]));
    kiln_test_read(env->queue, dst[i], BYTES, got);
    ifam_expect_bytes(want, got, BYTES, i ? "copy index 1 beside busy workers" : "copy index 0 beside busy workers");
    assert_cl_success(clReleaseEvent(last[i]));
    assert_cl_success(clReleaseCommandQueue(q[i]));
    assert_cl_success(clReleaseMemObject(dst[i]));
  }
  assert_cl_success(clReleaseMemObject(src));
  free(data);
  free(got);
  free(want);
}

/* The two copy indices are two engines: a small copy on index 1, enqueued just after a
 * large one on index 0, completes while the large one is still running (a single engine
 * would run them in submission order). Retried a few times against an unlucky schedule. */
static void test_copy_indices_do_not_wait_for_each_other(void **state) {
  struct kiln_test_env *env = *state;
  enum { BIG = 64 << 20, SMALL = 4096, ATTEMPTS = 4 };
  cl_command_queue q0 = ifam_queue(env->context, env->device, IFAM_COPY, 0, 0);
  cl_command_queue q1 = ifam_queue(env->context, env->device, IFAM_COPY, 1, 0);
  cl_mem big_src = kiln_test_buffer(env->context, BIG), big_dst = kiln_test_buffer(env->context, BIG);
  cl_mem small_src = kiln_test_buffer(env->context, SMALL), small_dst = kiln_test_buffer(env->context, SMALL);
  const cl_int ones = 0x01010101;
  assert_cl_success(clEnqueueFillBuffer(q0, big_src, &ones, sizeof ones, 0, BIG, 0, NULL, NULL));
  assert_cl_success(clEnqueueFillBuffer(q1, small_src, &ones, sizeof ones, 0, SMALL, 0, NULL, NULL));
  assert_cl_success(clFinish(q0));
  assert_cl_success(clFinish(q1));
  int overlapped = 0;
  for (int attempt = 0; attempt < ATTEMPTS && !overlapped; attempt++) {
    cl_event big = NULL, small = NULL;
    assert_cl_success(clEnqueueCopyBuffer(q0, big_src, big_dst, 0, 0, BIG, 0, NULL, &big));
    assert_cl_success(clEnqueueCopyBuffer(q1, small_src, small_dst, 0, 0, SMALL, 0, NULL, &small));
    assert_cl_success(clFlush(q0));
    assert_cl_success(clFlush(q1));
    bool small_done = ifam_poll_complete(small, IFAM_TIMEOUT_MS);
    cl_int big_status = kiln_test_event_status(big);
    bool big_done = ifam_poll_complete(big, IFAM_TIMEOUT_MS);
    assert_cl_success(clReleaseEvent(big));
    assert_cl_success(clReleaseEvent(small));
    if (!small_done || !big_done)
      fail_msg("a copy did not complete within %d ms", IFAM_TIMEOUT_MS);
    overlapped = big_status != CL_COMPLETE;
  }
  if (!overlapped)
    fail_msg("in %d attempts, a small copy on copy index 1 never completed before a %d MiB copy on index 0", ATTEMPTS,
             BIG >> 20);
  qrq_expect_all(env->queue, small_dst, SMALL / sizeof(cl_int), ones, "the small copy");
  assert_cl_success(clReleaseMemObject(big_src));
  assert_cl_success(clReleaseMemObject(big_dst));
  assert_cl_success(clReleaseMemObject(small_src));
  assert_cl_success(clReleaseMemObject(small_dst));
  assert_cl_success(clReleaseCommandQueue(q0));
  assert_cl_success(clReleaseCommandQueue(q1));
}

/* The immediate family runs its commands in the enqueueing thread: when a non-blocking
 * call returns, its work is visible in host memory (CL_MEM_USE_HOST_PTR buffers, the
 * read's destination, the mapping) with no further OpenCL call, while every worker is
 * busy (so nothing could have been queued to them) and for a write large enough that
 * another thread would not have finished it. */
static void test_immediate_family_completes_in_the_call(void **state) {
  struct kiln_test_env *env = *state;
  enum { BIG = 32 << 20 };
  unsigned char *data = malloc(BIG), *want = malloc(BIG), *read_back = malloc(BIG);
  assert_true(data && want && read_back);
  ifam_fill_pattern(data, BIG, 21);
  memset(read_back, 0, BIG);
  unsigned char *h1 = kiln_test_host_alloc(BIG), *h2 = kiln_test_host_alloc(BIG);
  cl_mem b1 = kiln_test_host_buffer(env->context, h1, BIG), b2 = kiln_test_host_buffer(env->context, h2, BIG);
  cl_command_queue q = ifam_queue(env->context, env->device, IFAM_IMMEDIATE, 0, 0);
  spinners_start(env);

  assert_cl_success(clEnqueueWriteBuffer(q, b1, CL_FALSE, 0, BIG, data, 0, NULL, NULL));
  if (memcmp(h1 + BIG - 4096, data + BIG - 4096, 4096) != 0 || memcmp(h1, data, BIG) != 0)
    fail_msg("non-blocking write: not complete when the call returned");
  memcpy(want, data, BIG);

  const cl_uint pattern[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
  assert_cl_success(clEnqueueFillBuffer(q, b1, pattern, sizeof pattern, BIG - (1 << 20), 1 << 20, 0, NULL, NULL));
  for (size_t i = BIG - (1 << 20); i < BIG; i += sizeof pattern)
    memcpy(want + i, pattern, sizeof pattern);
  if (memcmp(h1 + BIG - 16, want + BIG - 16, 16) != 0 || memcmp(h1, want, BIG) != 0)
    fail_msg("non-blocking fill: not complete when the call returned");

  assert_cl_success(clEnqueueCopyBuffer(q, b1, b2, 0, 0, BIG, 0, NULL, NULL));
  if (memcmp(h2 + BIG - 4096, want + BIG - 4096, 4096) != 0 || memcmp(h2, want, BIG) != 0)
    fail_msg("non-blocking copy: not complete when the call returned");

  assert_cl_success(clEnqueueReadBuffer(q, b2, CL_FALSE, 0, BIG, read_back, 0, NULL, NULL));
  if (memcmp(read_back + BIG - 4096, want + BIG - 4096, 4096) != 0 || memcmp(read_back, want, BIG) != 0)
    fail_msg("non-blocking read: not complete when the call returned");

  const size_t origin[3] = {128, 3, 2}, host_origin[3] = {0, 0, 0}, region[3] = {256, 10, 4};
  const size_t row = 4096, slice = 4096 * 64;
  assert_cl_success(clEnqueueWriteBufferRect(q, b2, CL_FALSE, origin, host_origin, region, row, slice, 256, 2560, data,
                                             0, NULL, NULL));
  for (size_t z = 0; z < 4; z++)
    for (size_t y = 0; y < 10; y++) {
      size_t at = (2 + z) * slice + (3 + y) * row + 128;
      if (memcmp(h2 + at, data + z * 2560 + y * 256, 256) != 0)
        fail_msg("non-blocking rect write: row %zu of slice %zu not there when the call returned", y, z);
    }
  assert_cl_success(
      clEnqueueCopyBufferRect(q, b2, b1, origin, host_origin, region, row, slice, row, slice, 0, NULL, NULL));
  for (size_t z = 0; z < 4; z++)
    for (size_t y = 0; y < 10; y++)
      if (memcmp(h1 + z * slice + y * row, data + z * 2560 + y * 256, 256) != 0)
        fail_msg("non-blocking rect copy: row %zu of slice %zu not there when the call returned", y, z);

  cl_int err = CL_INVALID_VALUE;
  unsigned char *mapped = clEnqueueMapBuffer(q, b1, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, 8192, 0, NULL, NULL, &err);
  assert_cl_success(err);
  assert_non_null(mapped);
  if (memcmp(mapped, h1, 8192) != 0)
    fail_msg("non-blocking map: the mapping is not ready when the call returned");
  mapped[5] = 0x5A;
  assert_cl_success(clEnqueueUnmapMemObject(q, b1, mapped, 0, NULL, NULL));
  assert_int_equal(0x5A, h1[5]);
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));

  bool busy = spinners_all_running();
  spinners_stop();
  assert_true(busy);
  assert_cl_success(clFinish(q));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(clReleaseMemObject(b1));
  assert_cl_success(clReleaseMemObject(b2));
  free(h1);
  free(h2);
  free(data);
  free(want);
  free(read_back);
}

/* Compute indices are submission lanes served in turn. With every worker held by a
 * spinning kernel (on index 0), JOBS single-work-item kernels of an out-of-order queue at
 * index 0 become ready (a user event), then one more on another queue; the workers are
 * let go; each kernel logs the order it started in. On a queue at index 1 the last kernel
 * starts among the first (a worker looks at the lane after that of its last job first);
 * on another queue at index 0 it waits behind the whole lane. No thread of the test
 * takes queued work (it only polls). Returns the last kernel's place in the log. */
enum { JOBS = 16 };

static int lane_round(struct kiln_test_env *env, cl_command_queue many, cl_command_queue last_queue, cl_int iters) {
  cl_int *counter = kiln_test_host_alloc(64), *log = kiln_test_host_alloc((JOBS + 1) * sizeof(cl_int));
  for (int i = 0; i <= JOBS; i++)
    log[i] = -1;
  cl_mem counter_buffer = kiln_test_host_buffer(env->context, counter, 64);
  cl_mem log_buffer = kiln_test_host_buffer(env->context, log, (JOBS + 1) * sizeof(cl_int));
  cl_mem noise = kiln_test_buffer(env->context, 16 * sizeof(cl_int));
  kiln_test_fill_ints(env->queue, noise, 16, 3);
  cl_kernel k = kiln_test_kernel(program, "logged");
  kiln_test_arg_mem(k, 0, counter_buffer);
  kiln_test_arg_mem(k, 1, log_buffer);
  kiln_test_arg_int(k, 3, iters);
  kiln_test_arg_mem(k, 4, noise);
  spinners_start(env);
  cl_event first_gate = kiln_test_gate_new(env->context), last_gate = kiln_test_gate_new(env->context);
  cl_event events[JOBS + 1];
  const size_t one = 1;
  for (int id = 0; id < JOBS; id++) {
    kiln_test_arg_int(k, 2, id);
    assert_cl_success(clEnqueueNDRangeKernel(many, k, 1, NULL, &one, &one, 1, &first_gate, &events[id]));
  }
  kiln_test_arg_int(k, 2, JOBS);
  assert_cl_success(clEnqueueNDRangeKernel(last_queue, k, 1, NULL, &one, &one, 1, &last_gate, &events[JOBS]));
  assert_cl_success(clFlush(many));
  assert_cl_success(clFlush(last_queue));
  /* The lane's jobs are all queued before the last one is, and all wait for a worker. */
  assert_cl_success(clSetUserEventStatus(first_gate, CL_COMPLETE));
  assert_cl_success(clSetUserEventStatus(last_gate, CL_COMPLETE));
  bool busy = spinners_all_running();
  spinners_release();
  bool done = true;
  double end = kiln_test_now_ms() + IFAM_TIMEOUT_MS;
  for (int i = 0; i <= JOBS && done; i++)
    done = ifam_poll_complete(events[i], ifam_remaining_ms(end));
  spinners_stop();
  if (!done)
    fail_msg("the logged kernels did not complete within %d ms", IFAM_TIMEOUT_MS);
  assert_true(busy);
  assert_int_equal(JOBS + 1, counter[0]);
  int place = -1;
  bool seen[JOBS + 1] = {false};
  for (int i = 0; i <= JOBS; i++) {
    if (log[i] < 0 || log[i] > JOBS || seen[log[i]])
      fail_msg("log entry %d is %d", i, log[i]);
    seen[log[i]] = true;
    if (log[i] == JOBS)
      place = i;
  }
  for (int i = 0; i <= JOBS; i++)
    assert_cl_success(clReleaseEvent(events[i]));
  assert_cl_success(clReleaseEvent(first_gate));
  assert_cl_success(clReleaseEvent(last_gate));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(counter_buffer));
  assert_cl_success(clReleaseMemObject(log_buffer));
  assert_cl_success(clReleaseMemObject(noise));
  free(counter);
  free(log);
  return place;
}

static void test_compute_lanes_served_in_turn(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint lanes = ifam_family_count(env->device, IFAM_COMPUTE);
  cl_uint workers = kiln_test_compute_units(env->device);
  assert_true(lanes >= 2); /* the machine these suites run on has 2 cores */
  const cl_command_queue_properties ooo = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  cl_command_queue lane0 = ifam_queue(env->context, env->device, IFAM_COMPUTE, 0, ooo);
  cl_command_queue lane0_too = ifam_queue(env->context, env->device, IFAM_COMPUTE, 0, ooo);
  cl_command_queue lane1 = ifam_queue(env->context, env->device, IFAM_COMPUTE, 1, ooo);
  const cl_int iters = 1000000; /* about a millisecond per kernel */
  enum { ATTEMPTS = 5 };
  int other_lane[ATTEMPTS], same_lane[ATTEMPTS];
  bool early = false, late = false;
  for (int a = 0; a < ATTEMPTS && !early; a++) {
    other_lane[a] = lane_round(env, lane0, lane1, iters);
    early = other_lane[a] <= (int)workers + 1;
  }
  for (int a = 0; a < ATTEMPTS && !late; a++) {
    same_lane[a] = lane_round(env, lane0, lane0_too, iters);
    late = same_lane[a] >= JOBS - (int)workers;
  }
  if (!early)
    fail_msg("a kernel on compute index 1 started at place %d (and later) behind %d kernels of index 0, expected "
             "<= %u (%u workers)",
             other_lane[0], JOBS, workers + 1, workers);
  if (!late)
    fail_msg("a kernel on another queue of index 0 started at place %d, expected >= %d: the measurement cannot tell "
             "lanes apart",
             same_lane[0], JOBS - (int)workers);
  assert_cl_success(clReleaseCommandQueue(lane0));
  assert_cl_success(clReleaseCommandQueue(lane0_too));
  assert_cl_success(clReleaseCommandQueue(lane1));
}

/* ---- real work on every (family, index) ---- */

enum { S = 4096 };

/* Every transfer the copy capabilities name, on `q`, every byte checked against a model;
 * `barriers` (out-of-order queues) puts a barrier after each command; `events` uses them. */
static void transfer_work(struct kiln_test_env *env, cl_command_queue q, bool barriers, bool events, const char *what) {
  unsigned char *ma = malloc(S), *mb = malloc(S), *tmp = malloc(S), *got = malloc(S), *want = malloc(S);
  assert_true(ma && mb && tmp && got && want);
  cl_mem a = kiln_test_buffer(env->context, S), b = kiln_test_buffer(env->context, S);
#define STEP()                                                                                                         \
  if (barriers)                                                                                                        \
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL))
  ifam_fill_pattern(ma, S, 1);
  ifam_fill_pattern(mb, S, 2);
  assert_cl_success(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, S, ma, 0, NULL, NULL));
  STEP();
  cl_event written = NULL;
  assert_cl_success(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, S, mb, 0, NULL, events ? &written : NULL));
  STEP();
  if (events) {
    assert_cl_success(clWaitForEvents(1, &written));
    assert_cl_success(clReleaseEvent(written));
  }
  assert_cl_success(clEnqueueReadBuffer(q, a, CL_TRUE, 0, S, got, 0, NULL, NULL));
  ifam_expect_bytes(ma, got, S, what);
  assert_cl_success(clFinish(q));
  /* Partial write and read, non-blocking. */
  ifam_fill_pattern(tmp, S, 3);
  assert_cl_success(clEnqueueWriteBuffer(q, a, CL_FALSE, 100, 1000, tmp + 5, 0, NULL, NULL));
  STEP();
  memcpy(ma + 100, tmp + 5, 1000);
  memset(got, 0, S);
  assert_cl_success(clEnqueueReadBuffer(q, b, CL_FALSE, 333, 777, got + 11, 0, NULL, NULL));
  STEP();
  assert_cl_success(clFinish(q));
  ifam_expect_bytes(mb + 333, got + 11, 777, what);
  /* Copies, between buffers and within one. */
  assert_cl_success(clEnqueueCopyBuffer(q, a, b, 50, 1500, 2000, 0, NULL, NULL));
  STEP();
  memcpy(mb + 1500, ma + 50, 2000);
  assert_cl_success(clEnqueueCopyBuffer(q, a, a, 0, 3000, 512, 0, NULL, NULL));
  STEP();
  memmove(ma + 3000, ma, 512);
  /* Fills of every pattern size. */
  for (size_t i = 0, ps = 1; ps <= 128; i++, ps *= 2) {
    unsigned char pattern[128];
    for (size_t k = 0; k < ps; k++)
      pattern[k] = (unsigned char)(0x30 + ps + k);
    size_t offset = 256 * i, size = ps * (256 / ps - (ps < 256 ? 1 : 0));
    if (size == 0)
      size = ps;
    assert_cl_success(clEnqueueFillBuffer(q, b, pattern, ps, offset, size, 0, NULL, NULL));
    STEP();
    for (size_t k = 0; k < size; k++)
      mb[offset + k] = pattern[k % ps];
  }
  /* Rects: a write into a, a read from b, a copy from a to b. */
  ifam_fill_pattern(tmp, S, 4);
  const size_t w_borg[3] = {4, 2, 1}, w_horg[3] = {3, 1, 0}, w_region[3] = {20, 5, 3};
  assert_cl_success(
      clEnqueueWriteBufferRect(q, a, CL_TRUE, w_borg, w_horg, w_region, 64, 1024, 32, 256, tmp, 0, NULL, NULL));
  STEP();
  kiln_test_rect_copy(ma, w_borg, 64, 1024, tmp, w_horg, 32, 256, w_region);
  const size_t r_borg[3] = {7, 1, 2}, r_horg[3] = {1, 2, 1}, r_region[3] = {13, 4, 2};
  memset(got, 0xAB, S);
  memset(want, 0xAB, S);
  assert_cl_success(
      clEnqueueReadBufferRect(q, b, CL_FALSE, r_borg, r_horg, r_region, 48, 480, 24, 192, got, 0, NULL, NULL));
  STEP();
  assert_cl_success(clFinish(q));
  kiln_test_rect_copy(want, r_horg, 24, 192, mb, r_borg, 48, 480, r_region);
  ifam_expect_bytes(want, got, S, what);
  const size_t c_src[3] = {0, 1, 1}, c_dst[3] = {10, 0, 2}, c_region[3] = {30, 6, 2};
  assert_cl_success(clEnqueueCopyBufferRect(q, a, b, c_src, c_dst, c_region, 64, 1024, 40, 400, 0, NULL, NULL));
  STEP();
  kiln_test_rect_copy(mb, c_dst, 40, 400, ma, c_src, 64, 1024, c_region);
  /* Maps: write through one, read through another. */
  cl_int err = CL_INVALID_VALUE;
  cl_event mapped_event = NULL;
  unsigned char *p =
      clEnqueueMapBuffer(q, a, CL_FALSE, CL_MAP_WRITE, 2048, 300, 0, NULL, events ? &mapped_event : NULL, &err);
  assert_cl_success(err);
  if (events) {
    assert_cl_success(clWaitForEvents(1, &mapped_event));
    assert_cl_success(clReleaseEvent(mapped_event));
  } else {
    assert_cl_success(clFinish(q));
  }
  ifam_fill_pattern(tmp, 300, 5);
  memcpy(p, tmp, 300);
  memcpy(ma + 2048, tmp, 300);
  assert_cl_success(clEnqueueUnmapMemObject(q, a, p, 0, NULL, NULL));
  STEP();
  p = clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ, 1000, 600, 0, NULL, NULL, &err);
  assert_cl_success(err);
  ifam_expect_bytes(mb + 1000, p, 600, what);
  assert_cl_success(clEnqueueUnmapMemObject(q, b, p, 0, NULL, NULL));
  STEP();
  /* Synchronization commands. */
  assert_cl_success(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
  assert_cl_success(clEnqueueBarrier(q));
  if (events) {
    cl_event marker = NULL;
    assert_cl_success(clEnqueueMarker(q, &marker));
    assert_cl_success(clWaitForEvents(1, &marker));
    assert_cl_success(clReleaseEvent(marker));
  }
  assert_cl_success(clFinish(q));
  assert_cl_success(clEnqueueReadBuffer(q, a, CL_TRUE, 0, S, got, 0, NULL, NULL));
  ifam_expect_bytes(ma, got, S, what);
  assert_cl_success(clEnqueueReadBuffer(q, b, CL_TRUE, 0, S, got, 0, NULL, NULL));
  ifam_expect_bytes(mb, got, S, what);
  /* Seen the same from another queue. */
  kiln_test_read(env->queue, a, S, got);
  ifam_expect_bytes(ma, got, S, what);
#undef STEP
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  free(ma);
  free(mb);
  free(tmp);
  free(got);
  free(want);
}

/* A kernel on a compute queue, its result checked. */
static void kernel_work(struct kiln_test_env *env, cl_command_queue q, const char *what) {
  enum { M = 2048 };
  cl_uint data[M], got[M];
  for (cl_uint i = 0; i < M; i++)
    data[i] = i * 2654435761u;
  cl_mem buffer = kiln_test_buffer(env->context, sizeof data);
  assert_cl_success(clEnqueueWriteBuffer(q, buffer, CL_FALSE, 0, sizeof data, data, 0, NULL, NULL));
  assert_cl_success(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
  cl_kernel k = kiln_test_kernel(program, "triple_u");
  kiln_test_arg_mem(k, 0, buffer);
  const size_t global = M, local = 64;
  cl_event ran = NULL;
  assert_cl_success(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &ran));
  assert_cl_success(clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, sizeof got, got, 1, &ran, NULL));
  for (cl_uint i = 0; i < M; i++)
    if (got[i] != data[i] * 3u + 1u)
      fail_msg("%s: kernel element %u is %u, expected %u", what, i, got[i], data[i] * 3u + 1u);
  assert_cl_success(clReleaseEvent(ran));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(buffer));
}

static void test_real_work_on_every_family_and_index(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  char what[96];
  for (cl_uint family = 0; family < IFAM_COUNT; family++)
    for (cl_uint index = 0; index < f[family].count; index++) {
      bool events = family != IFAM_IMMEDIATE;
      snprintf(what, sizeof what, "%s family, index %u", ifam_family_names[family], index);
      cl_command_queue q = ifam_queue(env->context, env->device, family, index, 0);
      transfer_work(env, q, false, events, what);
      if (family == IFAM_COMPUTE)
        kernel_work(env, q, what);
      assert_cl_success(clReleaseCommandQueue(q));
      if (f[family].properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        snprintf(what, sizeof what, "%s family, index %u, out of order", ifam_family_names[family], index);
        q = ifam_queue(env->context, env->device, family, index, f[family].properties);
        transfer_work(env, q, true, events, what);
        if (family == IFAM_COMPUTE)
          kernel_work(env, q, what);
        assert_cl_success(clReleaseCommandQueue(q));
      }
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      IFAM_TEST(test_compute_family_allows_every_enqueue),
      IFAM_TEST(test_copy_family_capabilities),
      IFAM_TEST(test_immediate_family_capabilities),
      IFAM_TEST(test_command_buffer_on_transfer_families),
      IFAM_TEST(test_immediate_family_refuses_events),
      IFAM_TEST(test_copy_family_events_cross_queues),
      IFAM_TEST(test_copy_family_out_of_order),
      IFAM_TEST(test_copy_family_runs_beside_busy_workers),
      IFAM_TEST(test_copy_indices_do_not_wait_for_each_other),
      IFAM_TEST(test_immediate_family_completes_in_the_call),
      IFAM_TEST(test_compute_lanes_served_in_turn),
      IFAM_TEST(test_real_work_on_every_family_and_index),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
