/* cl_arm_scheduling_controls 0.6.0, what the scheduler does, observed:
 * - the work-group batches, from the scheduling trace: the runtime's default (checked
 *   against the documented plan: first size, last round's size, batch count), the batch-size hint and the modifier arithmetic on
 *   1-, 2- and 3-D ranges, one-group and empty ranges; hints read at enqueue (a command
 *   gated by a user event keeps the values of its enqueue), at record time into command
 *   buffers and recordings, and a recording's exec-info update;
 * - results checked element by element under every hint and every queue property
 *   combination, for ordinary enqueues, command buffers and recordings;
 * - the compute-unit limit, both from the trace (threads that ran batches) and from a
 *   kernel measuring its own concurrency with atomics: one queue's kernels together, also
 *   on an out-of-order queue and inside command-buffer and recording executions, never
 *   use more threads than the limit, and without a limit they do use several;
 * - kernel batching and deferred flush, from host memory of CL_MEM_USE_HOST_PTR buffers
 *   watched without any OpenCL call: with batching, nothing runs before a flush point
 *   (clFlush, an event status query, clSetEventCallback, clReleaseCommandQueue); without
 *   it, work runs unflushed; a deferred flush leaves the work to a runtime thread (a
 *   kernel that waits for the host to release it completes after clFlush returned); a
 *   flush that is not deferred has run a one-group kernel when clFlush returns.
 * Checks that a worker which happened to be awake could spoil are retried (three times),
 * never loosened. */
#include "khr_command_buffer_test.h"
#include "qcom_recordable_test.h"

#include "arm_sched_test.h"

#include <stdatomic.h>

static const char *source =
    "size_t linear_id(void) {\n"
    "  return get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));\n"
    "}\n"
    "kernel void vec(global const int *a, global const int *b, global int *c) {\n"
    "  size_t i = linear_id();\n"
    "  c[i] = a[i] * 3 + b[i] + (int)i;\n"
    "}\n"
    "kernel void vec2(global const int *a, global int *c) {\n"
    "  size_t i = linear_id();\n"
    "  c[i] = a[i] - 5 * (int)i;\n"
    "}\n"
    "kernel void mark(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    /* state[0]: work-groups running now; state[1]: the most seen at once; state[16]: 1. */
    "kernel void overlap(global int *state, int spin, global int *out) {\n"
    "  volatile global int *s = state;\n"
    "  int now = atomic_inc(&state[0]) + 1;\n"
    "  atomic_max(&state[1], now);\n"
    "  int acc = 0;\n"
    "  for (int k = 0; k < spin; k++) acc += s[16];\n"
    "  atomic_dec(&state[0]);\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    /* Waits (boundedly) for the host to set flag[0]: out[1] = 2 when it did, 3 when not. */
    "kernel void wait_host(volatile global int *flag, volatile global int *out) {\n"
    "  out[0] = 1;\n"
    "  for (long i = 0; i < 4000000000L && flag[0] == 0; i++) {}\n"
    "  out[1] = flag[0] ? 2 : 3;\n"
    "}\n";

#define MAX_ITEMS 65536

static cl_program program;
static cl_mem a_buf, b_buf, c_buf, d_buf;
static cl_int a_host[MAX_ITEMS], b_host[MAX_ITEMS];
static cl_uint units;

static int setup(void **state) {
  kiln_test_program_setup(state, kcb_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
  qrq_load(env->platform);
  for (size_t i = 0; i < MAX_ITEMS; i++) {
    a_host[i] = (cl_int)(i * 37 % 2003) - 1000;
    b_host[i] = (cl_int)(i * 11 % 307);
  }
  a_buf = kiln_test_buffer(env->context, sizeof a_host);
  b_buf = kiln_test_buffer(env->context, sizeof b_host);
  c_buf = kiln_test_buffer(env->context, sizeof a_host);
  d_buf = kiln_test_buffer(env->context, sizeof a_host);
  kiln_test_write(env->queue, a_buf, sizeof a_host, a_host);
  kiln_test_write(env->queue, b_buf, sizeof b_host, b_host);
  units = kiln_test_compute_units(env->device);
  return 0;
}

static int teardown(void **state) {
  cl_mem buffers[] = {a_buf, b_buf, c_buf, d_buf};
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(buffers[i]));
  return kiln_test_program_teardown(state, program);
}

/* ---- vec and vec2 over a geometry ---- */

struct geometry {
  cl_uint dims;
  size_t global[3], local[3];
};

static unsigned long long geometry_items(const struct geometry *g) {
  unsigned long long items = 1;
  for (cl_uint d = 0; d < g->dims; d++) items *= g->global[d];
  return items;
}

static unsigned long long geometry_groups(const struct geometry *g) {
  unsigned long long groups = 1;
  for (cl_uint d = 0; d < g->dims; d++) groups *= (g->global[d] + g->local[d] - 1) / g->local[d];
  return groups;
}

static const char *geometry_name(const struct geometry *g) {
  static char name[96];
  if (g->dims == 1) snprintf(name, sizeof name, "%zu/%zu", g->global[0], g->local[0]);
  else if (g->dims == 2)
    snprintf(name, sizeof name, "%zux%zu/%zux%zu", g->global[0], g->global[1], g->local[0], g->local[1]);
  else
    snprintf(name, sizeof name, "%zux%zux%zu/%zux%zux%zu", g->global[0], g->global[1], g->global[2], g->local[0],
             g->local[1], g->local[2]);
  return name;
}

static cl_kernel vec_kernel(void) {
  cl_kernel kernel = kiln_test_kernel(program, "vec");
  kiln_test_arg_mem(kernel, 0, a_buf);
  kiln_test_arg_mem(kernel, 1, b_buf);
  kiln_test_arg_mem(kernel, 2, c_buf);
  return kernel;
}

static cl_kernel vec2_kernel(void) {
  cl_kernel kernel = kiln_test_kernel(program, "vec2");
  kiln_test_arg_mem(kernel, 0, a_buf);
  kiln_test_arg_mem(kernel, 1, d_buf);
  return kernel;
}

/* Sets the first `items` ints of c and d to a value no kernel writes (completed on return). */
static void poison_outputs(cl_command_queue queue, unsigned long long items) {
  cl_int poison = INT_MIN + 17;
  assert_cl_success(clEnqueueFillBuffer(queue, c_buf, &poison, sizeof poison, 0, items * sizeof poison, 0, NULL, NULL));
  assert_cl_success(clEnqueueFillBuffer(queue, d_buf, &poison, sizeof poison, 0, items * sizeof poison, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
}

static void expect_vec_results(cl_command_queue queue, unsigned long long items, const char *what) {
  static cl_int got[MAX_ITEMS];
  kiln_test_read(queue, c_buf, items * sizeof(cl_int), got);
  for (size_t i = 0; i < items; i++) {
    cl_int want = a_host[i] * 3 + b_host[i] + (cl_int)i;
    if (got[i] != want) fail_msg("%s: vec element %zu is %d, expected %d", what, i, got[i], want);
  }
}

static void expect_vec2_results(cl_command_queue queue, unsigned long long items, const char *what) {
  static cl_int got[MAX_ITEMS];
  kiln_test_read(queue, d_buf, items * sizeof(cl_int), got);
  for (size_t i = 0; i < items; i++) {
    cl_int want = a_host[i] - 5 * (cl_int)i;
    if (got[i] != want) fail_msg("%s: vec2 element %zu is %d, expected %d", what, i, got[i], want);
  }
}

static void enqueue_geometry(cl_command_queue queue, cl_kernel kernel, const struct geometry *g, cl_event *event) {
  assert_cl_success(clEnqueueNDRangeKernel(queue, kernel, g->dims, NULL, g->global, g->local, 0, NULL, event));
}

/* Runs vec over `g` on `queue`, checks every result, returns the trace line. */
static struct kiln_sched_line run_vec(cl_command_queue queue, cl_kernel kernel, const struct geometry *g, const char *what) {
  unsigned long long items = geometry_items(g);
  poison_outputs(queue, items);
  long mark = kiln_sched_trace_mark();
  enqueue_geometry(queue, kernel, g, NULL);
  assert_cl_success(clFinish(queue));
  struct kiln_sched_line line = kiln_sched_trace_one(mark, "vec", what);
  if (line.groups != geometry_groups(g))
    fail_msg("%s: trace groups=%llu, expected %llu", what, line.groups, geometry_groups(g));
  expect_vec_results(queue, items, what);
  return line;
}

/* The runtime's own first batch size for `g` (what the modifier is added to), from the
 * trace of a kernel without hints. */
static unsigned long long learned_default(cl_command_queue queue, const struct geometry *g) {
  cl_kernel kernel = vec_kernel();
  struct kiln_sched_line line = run_vec(queue, kernel, g, "no hints");
  assert_cl_success(clReleaseKernel(kernel));
  return line.batch_size;
}

static const struct geometry geometries[] = {
    {1, {16, 1, 1}, {16, 1, 1}},    {1, {512, 1, 1}, {16, 1, 1}},  {1, {1008, 1, 1}, {16, 1, 1}},
    {1, {1024, 1, 1}, {16, 1, 1}},  {1, {4096, 1, 1}, {16, 1, 1}}, {1, {4096, 1, 1}, {1, 1, 1}},
    {1, {65536, 1, 1}, {64, 1, 1}}, {2, {64, 32, 1}, {8, 4, 1}},   {2, {16, 8, 1}, {4, 2, 1}},
    {3, {16, 16, 8}, {4, 4, 2}},    {3, {8, 4, 2}, {2, 2, 1}},
};
#define GEOMETRY_COUNT (sizeof geometries / sizeof geometries[0])

/* ---- batches ---- */

static unsigned long long geometry_group_items(const struct geometry *g) {
  unsigned long long items = 1;
  for (cl_uint d = 0; d < g->dims; d++) items *= g->local[d];
  return items;
}

/* The first batch's size, the last round's and the batch count are the documented plan's. */
static void test_default_batch_size(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  for (size_t i = 0; i < GEOMETRY_COUNT; i++) {
    const struct geometry *g = &geometries[i];
    struct kiln_sched_line got = run_vec(env->queue, kernel, g, "no hints");
    struct ast_plan want =
        ast_documented_default(geometry_groups(g), geometry_items(g), geometry_group_items(g), units, true);
    if (got.batch_size != want.largest || got.batch_smallest != want.smallest || got.batches != want.batches)
      fail_msg("%s: default batch_size=%llu..%llu in %llu batches, documented %llu..%llu in %llu (%llu groups, %u "
               "compute units)",
               geometry_name(g), got.batch_size, got.batch_smallest, got.batches, want.largest, want.smallest,
               want.batches, geometry_groups(g), units);
  }
  assert_cl_success(clReleaseKernel(kernel));
}

/* Every batch size and modifier of interest on ranges small and large, 1-, 2- and 3-D:
 * the batch size that ran is the extension's arithmetic, the results are right. */
static void test_batch_hints(void **state) {
  struct kiln_test_env *env = *state;
  const size_t picked[] = {1, 4, 6, 7, 9, 10};
  cl_kernel kernel = vec_kernel();
  for (size_t p = 0; p < sizeof picked / sizeof picked[0]; p++) {
    const struct geometry *g = &geometries[picked[p]];
    unsigned long long groups = geometry_groups(g), fallback = learned_default(env->queue, g);
    const cl_uint sizes[] = {0, 1, 2, 7, (cl_uint)groups - 1, (cl_uint)groups, (cl_uint)groups + 1, UINT_MAX};
    const cl_int modifiers[] = {0, -1, 3, INT_MIN, INT_MAX};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t m = 0; m < sizeof modifiers / sizeof modifiers[0]; m++) {
        ast_set_hints(kernel, sizes[s], modifiers[m]);
        char what[160];
        snprintf(what, sizeof what, "%s, batch size %u, modifier %d", geometry_name(g), sizes[s], modifiers[m]);
        struct kiln_sched_line line = run_vec(env->queue, kernel, g, what);
        unsigned long long want = ast_expected_batch(fallback, sizes[s], modifiers[m], groups);
        if (line.batch_size != want) fail_msg("%s: batch_size=%llu, expected %llu", what, line.batch_size, want);
      }
  }
  assert_cl_success(clReleaseKernel(kernel));
}

/* One work-group: one batch of one group whatever the hints. */
static void test_one_group(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {2, {8, 4, 1}, {8, 4, 1}};
  cl_kernel kernel = vec_kernel();
  const cl_uint sizes[] = {0, 1, 5, UINT_MAX};
  const cl_int modifiers[] = {0, -1, 1, INT_MIN, INT_MAX};
  for (size_t s = 0; s < 4; s++)
    for (size_t m = 0; m < 5; m++) {
      ast_set_hints(kernel, sizes[s], modifiers[m]);
      struct kiln_sched_line line = run_vec(env->queue, kernel, &g, "one work-group");
      assert_int_equal(1, line.groups);
      assert_int_equal(1, line.batch_size);
      assert_int_equal(1, line.batches);
      assert_int_equal(1, line.workers);
    }
  assert_cl_success(clReleaseKernel(kernel));
}

/* An empty NDRange runs nothing and writes no line, with or without hints. */
static void test_empty_ndrange(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  const size_t zero[3] = {0, 0, 0}, some[3] = {8, 0, 4};
  long mark = kiln_sched_trace_mark();
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, zero, NULL, 0, NULL, NULL));
  ast_set_hints(kernel, 3, 2);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 3, NULL, some, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(0, kiln_sched_trace_since(mark, NULL, NULL, 0));
  /* The trace itself works: the same kernel on a real range writes its line. */
  const struct geometry g = {1, {64, 1, 1}, {4, 1, 1}};
  assert_int_equal(3 + 2, run_vec(env->queue, kernel, &g, "after the empty ranges").batch_size);
  assert_cl_success(clReleaseKernel(kernel));
}

/* The hints are read at enqueue: a command gated by a user event runs with the values it
 * was enqueued with, not those set before it runs. */
static void test_hints_read_at_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  cl_kernel kernel = vec_kernel();
  poison_outputs(env->queue, 4096);
  cl_event gate = kiln_test_gate_new(env->context);
  long mark = kiln_sched_trace_mark();
  ast_set_hints(kernel, 3, 0);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, g.global, g.local, 1, &gate, NULL));
  ast_set_hints(kernel, 5, 1);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, g.global, g.local, 0, NULL, NULL));
  ast_set_hints(kernel, 40, -1);
  assert_int_equal(0, kiln_sched_trace_since(mark, "vec", NULL, 0)); /* nothing ran yet */
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clFinish(env->queue));
  struct kiln_sched_line lines[4];
  assert_int_equal(2, kiln_sched_trace_since(mark, "vec", lines, 4));
  assert_int_equal(3, lines[0].batch_size);
  assert_int_equal(6, lines[1].batch_size);
  expect_vec_results(env->queue, 4096, "gated commands");
  assert_int_equal(39, run_vec(env->queue, kernel, &g, "the values set last").batch_size);
  assert_cl_success(clReleaseKernel(kernel));
}

/* clCommandNDRangeKernelKHR records the hints as they are then; later changes of the
 * kernel's hints change neither the command buffer nor the reverse. */
static void test_hints_recorded_in_command_buffer(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  unsigned long long fallback = learned_default(env->queue, &g);
  cl_kernel kernel = vec_kernel(), kernel2 = vec2_kernel();
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  ast_set_hints(kernel, 3, 0);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel, 1, NULL, g.global, g.local, 0, NULL, NULL, NULL));
  ast_set_hints(kernel, 0, 2);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel, 1, NULL, g.global, g.local, 0, NULL, NULL, NULL));
  ast_set_hints(kernel2, UINT_MAX, INT_MIN);
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel2, 1, NULL, g.global, g.local, 0, NULL, NULL, NULL));
  ast_set_hints(kernel2, 11, 0);
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  ast_set_hints(kernel, 9, 0);
  for (int round = 0; round < 2; round++) {
    poison_outputs(env->queue, 4096);
    long mark = kiln_sched_trace_mark();
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    struct kiln_sched_line lines[4];
    assert_int_equal(2, kiln_sched_trace_since(mark, "vec", lines, 4));
    assert_int_equal(3, lines[0].batch_size);
    assert_int_equal(ast_expected_batch(fallback, 0, 2, 256), lines[1].batch_size);
    assert_int_equal(ast_expected_batch(fallback, UINT_MAX, INT_MIN, 256),
                     kiln_sched_trace_one(mark, "vec2", "command buffer").batch_size);
    expect_vec_results(env->queue, 4096, "command buffer");
    expect_vec2_results(env->queue, 4096, "command buffer");
    /* An ordinary enqueue in between uses the kernel's current hints. */
    assert_int_equal(9, run_vec(env->queue, kernel, &g, "after recording").batch_size);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(kernel2));
  assert_cl_success(clReleaseKernel(kernel));
}

static void replay_recording(cl_command_queue queue, cl_recording_qcom recording, size_t exec_count,
                             const cl_array_kernel_exec_info_qcom *exec, size_t arg_count,
                             const cl_array_arg_qcom *args) {
  cl_event done = NULL;
  cl_int err = qrq.clEnqueueRecordingSVMQCOM(queue, recording, arg_count, args, 0, NULL, 0, NULL, 0, NULL, 0, NULL,
                                             exec_count, exec, 0, NULL, &done);
  if (err != CL_SUCCESS) fail_msg("clEnqueueRecordingSVMQCOM: %d", err);
  assert_cl_success(clWaitForEvents(1, &done));
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(done));
  assert_cl_success(clReleaseEvent(done));
}

/* A recording keeps the hints of record time; an exec-info update changes the batch size
 * of the dispatch it names (and only of that one); refused updates run nothing. */
static void test_hints_recorded_in_recording(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  unsigned long long fallback = learned_default(env->queue, &g);
  cl_kernel kernel = vec_kernel(), kernel2 = vec2_kernel();
  cl_command_queue recordable = qrq_recordable_queue(env);
  cl_recording_qcom recording = qrq_new(recordable);
  ast_set_hints(kernel, 3, 0);
  enqueue_geometry(recordable, kernel, &g, NULL);
  ast_set_hints(kernel2, 0, -1);
  enqueue_geometry(recordable, kernel2, &g, NULL);
  ast_set_hints(kernel, 9, 0);
  ast_set_hints(kernel2, 0, 0);
  assert_cl_success(qrq.clEndRecordingQCOM(recording));
  struct kiln_sched_line lines[4];

  /* Plain, then with an argument update only: the recorded hints. */
  for (int round = 0; round < 2; round++) {
    poison_outputs(env->queue, 4096);
    long mark = kiln_sched_trace_mark();
    cl_array_arg_qcom arg = qrq_arg(0, 2, sizeof c_buf, &c_buf);
    replay_recording(env->queue, recording, 0, NULL, round, &arg);
    assert_int_equal(3, kiln_sched_trace_one(mark, "vec", "recording").batch_size);
    assert_int_equal(fallback - 1, kiln_sched_trace_one(mark, "vec2", "recording").batch_size);
    expect_vec_results(env->queue, 4096, "recording");
    expect_vec2_results(env->queue, 4096, "recording");
  }

  /* Refused exec-info updates: clSetKernelExecInfo's error, nothing runs. */
  cl_uint five = 5, warps = 1;
  cl_ulong wide = 5;
  const cl_array_kernel_exec_info_qcom refused[] = {
      {0, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof wide, &wide},
      {1, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, sizeof five, NULL},
      {0, CL_KERNEL_EXEC_INFO_WARP_COUNT_LIMIT_ARM, sizeof warps, &warps},
      {1, CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM, sizeof wide, &wide},
  };
  long mark = kiln_sched_trace_mark();
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    assert_int_equal(CL_INVALID_VALUE, qrq.clEnqueueRecordingSVMQCOM(env->queue, recording, 0, NULL, 0, NULL, 0, NULL,
                                                                     0, NULL, 0, NULL, 1, &refused[i], 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(0, kiln_sched_trace_since(mark, NULL, NULL, 0));

  /* Dispatch 0's batch size, then dispatch 1's modifier and batch size. */
  cl_uint ten = 10;
  cl_int plus3 = 3;
  const cl_array_kernel_exec_info_qcom size0 = {0, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof ten, &ten};
  poison_outputs(env->queue, 4096);
  mark = kiln_sched_trace_mark();
  replay_recording(env->queue, recording, 1, &size0, 0, NULL);
  assert_int_equal(10, kiln_sched_trace_one(mark, "vec", "updated dispatch 0").batch_size);
  assert_int_equal(fallback - 1, kiln_sched_trace_one(mark, "vec2", "dispatch 1 beside dispatch 0's update").batch_size);
  expect_vec_results(env->queue, 4096, "updated dispatch 0");
  expect_vec2_results(env->queue, 4096, "updated dispatch 0");
  const cl_array_kernel_exec_info_qcom both1[] = {
      {1, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, sizeof plus3, &plus3},
      {1, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof five, &five}};
  poison_outputs(env->queue, 4096);
  mark = kiln_sched_trace_mark();
  replay_recording(env->queue, recording, 2, both1, 0, NULL);
  assert_int_equal(2, kiln_sched_trace_since(mark, NULL, lines, 4));
  assert_int_equal(5 + 3, kiln_sched_trace_one(mark, "vec2", "updated dispatch 1").batch_size);
  expect_vec_results(env->queue, 4096, "updated dispatch 1");
  expect_vec2_results(env->queue, 4096, "updated dispatch 1");

  assert_cl_success(qrq.clReleaseRecordingQCOM(recording));
  assert_cl_success(clReleaseCommandQueue(recordable));
  assert_cl_success(clReleaseKernel(kernel2));
  assert_cl_success(clReleaseKernel(kernel));
}

/* ---- results under every queue property combination ---- */

/* A queue's scheduling properties; -1 (bool) and 0 (limit) leave one out. */
struct qconfig {
  int batching, deferred;
  cl_uint limit;
  cl_command_queue_properties bits;
};

static cl_command_queue config_queue(struct kiln_test_env *env, const struct qconfig *c) {
  cl_queue_properties props[9];
  size_t n = 0;
  if (c->batching >= 0) {
    props[n++] = CL_QUEUE_KERNEL_BATCHING_ARM;
    props[n++] = (cl_queue_properties)c->batching;
  }
  if (c->deferred >= 0) {
    props[n++] = CL_QUEUE_DEFERRED_FLUSH_ARM;
    props[n++] = (cl_queue_properties)c->deferred;
  }
  if (c->limit) {
    props[n++] = CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM;
    props[n++] = c->limit;
  }
  if (c->bits) {
    props[n++] = CL_QUEUE_PROPERTIES;
    props[n++] = c->bits;
  }
  props[n] = 0;
  return ast_queue(env->context, env->device, n ? props : NULL);
}

static const char *config_name(const struct qconfig *c) {
  static char name[128];
  snprintf(name, sizeof name, "batching %d, deferred flush %d, limit %u, properties 0x%llx", c->batching, c->deferred,
           c->limit, (unsigned long long)c->bits);
  return name;
}

/* Every combination: each bool unset, CL_TRUE or CL_FALSE, the limit unset, 1 or all compute
 * units, with and without out-of-order and profiling. */
static size_t all_configs(struct qconfig *out) {
  const int bools[] = {-1, 1, 0};
  const cl_uint limits[] = {0, 1, units};
  const cl_command_queue_properties bits[] = {0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE};
  size_t n = 0;
  for (size_t b = 0; b < 3; b++)
    for (size_t d = 0; d < 3; d++)
      for (size_t l = 0; l < 3; l++)
        for (size_t p = 0; p < 4; p++) out[n++] = (struct qconfig){bools[b], bools[d], limits[l], bits[p]};
  return n;
}

static void expect_limit(const struct kiln_sched_line *line, cl_uint limit, const char *what) {
  if (line->cu_limit != limit) fail_msg("%s: trace cu_limit=%u, expected %u", what, line->cu_limit, limit);
}

static void test_results_under_queue_properties(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  unsigned long long fallback = learned_default(env->queue, &g);
  struct qconfig configs[108];
  size_t count = all_configs(configs);
  cl_kernel kernel = vec_kernel();
  const struct {
    cl_uint size;
    cl_int modifier;
  } hints[] = {{0, 0}, {1, 0}, {7, 0}, {0, -1}, {2, 3}};
  for (size_t c = 0; c < count; c++) {
    cl_command_queue queue = config_queue(env, &configs[c]);
    for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
      ast_set_hints(kernel, hints[h].size, hints[h].modifier);
      char what[192];
      snprintf(what, sizeof what, "%s, batch size %u, modifier %d", config_name(&configs[c]), hints[h].size,
               hints[h].modifier);
      poison_outputs(queue, 4096);
      long mark = kiln_sched_trace_mark();
      cl_event done = NULL;
      enqueue_geometry(queue, kernel, &g, &done);
      assert_cl_success(clFlush(queue));
      assert_cl_success(clWaitForEvents(1, &done));
      assert_int_equal(CL_COMPLETE, kiln_test_event_status(done));
      assert_cl_success(clReleaseEvent(done));
      struct kiln_sched_line line = kiln_sched_trace_one(mark, "vec", what);
      /* Kiln's default counts the threads the queue may use: one batch under a limit of one. */
      unsigned long long own = configs[c].limit == 1 ? 256 : fallback;
      assert_int_equal(ast_expected_batch(own, hints[h].size, hints[h].modifier, 256), line.batch_size);
      expect_limit(&line, configs[c].limit, what);
      expect_vec_results(queue, 4096, what);
    }
    assert_cl_success(clReleaseCommandQueue(queue));
  }
  assert_cl_success(clReleaseKernel(kernel));
}

/* A command buffer of vec (batch size 1) and vec2 (batch size 7 - 2) on queues of every
 * scheduling property combination, replayed twice. */
static void test_results_in_command_buffers(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  struct qconfig configs[108];
  size_t count = all_configs(configs);
  cl_kernel kernel = vec_kernel(), kernel2 = vec2_kernel();
  ast_set_hints(kernel, 1, 0);
  ast_set_hints(kernel2, 7, -2);
  for (size_t c = 0; c < count; c++) {
    if (configs[c].bits & CL_QUEUE_PROFILING_ENABLE) continue; /* covered by the ordinary enqueues */
    cl_command_queue queue = config_queue(env, &configs[c]);
    cl_command_buffer_khr cb = kcb_create(queue, 0);
    assert_cl_success(
        kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel, 1, NULL, g.global, g.local, 0, NULL, NULL, NULL));
    assert_cl_success(
        kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, kernel2, 1, NULL, g.global, g.local, 0, NULL, NULL, NULL));
    assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
    for (int round = 0; round < 2; round++) {
      const char *what = config_name(&configs[c]);
      poison_outputs(queue, 4096);
      long mark = kiln_sched_trace_mark();
      assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
      assert_cl_success(clFinish(queue));
      struct kiln_sched_line one = kiln_sched_trace_one(mark, "vec", what), two = kiln_sched_trace_one(mark, "vec2", what);
      assert_int_equal(1, one.batch_size);
      assert_int_equal(5, two.batch_size);
      expect_limit(&one, configs[c].limit, what);
      expect_limit(&two, configs[c].limit, what);
      expect_vec_results(queue, 4096, what);
      expect_vec2_results(queue, 4096, what);
    }
    assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
    assert_cl_success(clReleaseCommandQueue(queue));
  }
  assert_cl_success(clReleaseKernel(kernel2));
  assert_cl_success(clReleaseKernel(kernel));
}

/* A recording of vec (batch size 2) and vec2 (modifier INT_MAX) replayed on in-order live
 * queues of every scheduling property combination. */
static void test_results_in_recordings(void **state) {
  struct kiln_test_env *env = *state;
  const struct geometry g = {1, {4096, 1, 1}, {16, 1, 1}};
  cl_kernel kernel = vec_kernel(), kernel2 = vec2_kernel();
  cl_command_queue recordable = qrq_recordable_queue(env);
  cl_recording_qcom recording = qrq_new(recordable);
  ast_set_hints(kernel, 2, 0);
  enqueue_geometry(recordable, kernel, &g, NULL);
  ast_set_hints(kernel2, 0, INT_MAX);
  enqueue_geometry(recordable, kernel2, &g, NULL);
  assert_cl_success(qrq.clEndRecordingQCOM(recording));
  struct qconfig configs[108];
  size_t count = all_configs(configs);
  for (size_t c = 0; c < count; c++) {
    if (configs[c].bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) continue; /* recordings replay in order */
    cl_command_queue queue = config_queue(env, &configs[c]);
    const char *what = config_name(&configs[c]);
    poison_outputs(queue, 4096);
    long mark = kiln_sched_trace_mark();
    cl_event done = NULL;
    assert_cl_success(qrq.clEnqueueRecordingQCOM(queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &done));
    assert_cl_success(clFlush(queue));
    assert_cl_success(clWaitForEvents(1, &done));
    assert_cl_success(clReleaseEvent(done));
    struct kiln_sched_line one = kiln_sched_trace_one(mark, "vec", what), two = kiln_sched_trace_one(mark, "vec2", what);
    assert_int_equal(2, one.batch_size);
    assert_int_equal(256, two.batch_size);
    expect_limit(&one, configs[c].limit, what);
    expect_limit(&two, configs[c].limit, what);
    expect_vec_results(queue, 4096, what);
    expect_vec2_results(queue, 4096, what);
    assert_cl_success(clReleaseCommandQueue(queue));
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(recording));
  assert_cl_success(clReleaseCommandQueue(recordable));
  assert_cl_success(clReleaseKernel(kernel2));
  assert_cl_success(clReleaseKernel(kernel));
}

/* ---- the compute-unit limit ---- */

#define OVERLAP_GROUPS 64
#define OVERLAP_SPIN 200000
#define OVERLAP_TRIES 10

/* The overlap kernels' shared state and their outputs (one buffer per kernel). */
struct overlap {
  cl_mem state;
  cl_mem out[2];
  cl_kernel kernel[2];
};

static struct overlap overlap_new(struct kiln_test_env *env) {
  struct overlap o;
  o.state = kiln_test_buffer(env->context, 32 * sizeof(cl_int));
  for (int k = 0; k < 2; k++) {
    o.out[k] = kiln_test_buffer(env->context, OVERLAP_GROUPS * sizeof(cl_int));
    o.kernel[k] = kiln_test_kernel(program, "overlap");
    kiln_test_arg_mem(o.kernel[k], 0, o.state);
    kiln_test_arg_int(o.kernel[k], 1, OVERLAP_SPIN);
    kiln_test_arg_mem(o.kernel[k], 2, o.out[k]);
    ast_set_batch_size(o.kernel[k], 1); /* one work-group per batch: as many batches as groups */
  }
  return o;
}

static void overlap_free(struct overlap *o) {
  for (int k = 0; k < 2; k++) {
    assert_cl_success(clReleaseKernel(o->kernel[k]));
    assert_cl_success(clReleaseMemObject(o->out[k]));
  }
  assert_cl_success(clReleaseMemObject(o->state));
}

/* Resets the state and the outputs (on `queue`, completed on return). */
static void overlap_reset(cl_command_queue queue, const struct overlap *o) {
  cl_int state[32] = {0};
  state[16] = 1;
  kiln_test_write(queue, o->state, sizeof state, state);
  cl_int zero = 0;
  for (int k = 0; k < 2; k++)
    assert_cl_success(
        clEnqueueFillBuffer(queue, o->out[k], &zero, sizeof zero, 0, OVERLAP_GROUPS * sizeof zero, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
}

/* The most work-groups seen running at once since the reset; checks the outputs of the
 * first `kernels` kernels and that none is still counted as running. */
static cl_int overlap_result(cl_command_queue queue, const struct overlap *o, int kernels, const char *what) {
  cl_int state[32], got[OVERLAP_GROUPS];
  kiln_test_read(queue, o->state, sizeof state, state);
  if (state[0] != 0) fail_msg("%s: %d work-groups still counted as running", what, state[0]);
  for (int k = 0; k < kernels; k++) {
    kiln_test_read(queue, o->out[k], sizeof got, got);
    for (size_t i = 0; i < OVERLAP_GROUPS; i++)
      if (got[i] != OVERLAP_SPIN)
        fail_msg("%s: kernel %d, element %zu is %d, expected %d", what, k, i, got[i], OVERLAP_SPIN);
  }
  return state[1];
}

/* Runs `kernels` overlap kernels enqueued together on `queue`; returns the most groups seen
 * at once; lines[] receives their trace lines. */
static cl_int overlap_run(cl_command_queue queue, const struct overlap *o, int kernels, struct kiln_sched_line *lines,
                          const char *what) {
  const size_t global = OVERLAP_GROUPS, local = 1;
  overlap_reset(queue, o);
  long mark = kiln_sched_trace_mark();
  for (int k = 0; k < kernels; k++)
    assert_cl_success(clEnqueueNDRangeKernel(queue, o->kernel[k], 1, NULL, &global, &local, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
  size_t n = kiln_sched_trace_since(mark, "overlap", lines, 2);
  if (n != (size_t)kernels) fail_msg("%s: %zu overlap trace lines, expected %d", what, n, kernels);
  for (int k = 0; k < kernels; k++) assert_int_equal(OVERLAP_GROUPS, lines[k].batches);
  return overlap_result(queue, o, kernels, what);
}

/* With the limit, never more threads than it allows, in the trace and in the kernel's own
 * count; in order and out of order, where two kernels share the limit. */
static void test_compute_unit_limit(void **state) {
  struct kiln_test_env *env = *state;
  struct overlap o = overlap_new(env);
  struct kiln_sched_line lines[2];
  const cl_command_queue_properties modes[] = {0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  for (size_t m = 0; m < 2; m++) {
    cl_command_queue one = ast_queue_with(env->context, env->device, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, modes[m]);
    int kernels = modes[m] ? 2 : 1;
    for (int run = 0; run < 3; run++) {
      cl_int most = overlap_run(one, &o, kernels, lines, "limit 1");
      if (most != 1)
        fail_msg("limit 1 (properties 0x%llx): %d work-groups ran at once", (unsigned long long)modes[m], most);
      for (int k = 0; k < kernels; k++) {
        assert_int_equal(1, lines[k].workers);
        expect_limit(&lines[k], 1, "limit 1");
      }
    }
    assert_cl_success(clReleaseCommandQueue(one));
    cl_command_queue all = ast_queue_with(env->context, env->device, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, units, modes[m]);
    cl_int most = overlap_run(all, &o, kernels, lines, "limit = compute units");
    if (most > (cl_int)units) fail_msg("limit %u: %d work-groups ran at once", units, most);
    for (int k = 0; k < kernels; k++) expect_limit(&lines[k], units, "limit = compute units");
    assert_cl_success(clReleaseCommandQueue(all));
  }
  overlap_free(&o);
}

/* Without a limit the same kernels do run on several threads (so the limit changes
 * something): some try shows it, in the trace and in the kernel's count. */
static void test_no_limit_uses_several_threads(void **state) {
  struct kiln_test_env *env = *state;
  if (units < 2) {
    /* Nothing to compare with on one compute unit; the limit is then 1 anyway. */
    assert_int_equal(1, units);
    return;
  }
  struct overlap o = overlap_new(env);
  struct kiln_sched_line lines[2];
  const cl_command_queue_properties modes[] = {0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  for (size_t m = 0; m < 2; m++) {
    cl_command_queue queue = kiln_test_queue(env->context, env->device, modes[m]);
    int kernels = modes[m] ? 2 : 1;
    unsigned most_workers = 0;
    cl_int most_groups = 0;
    for (int t = 0; t < OVERLAP_TRIES && (most_workers < 2 || most_groups < 2); t++) {
      cl_int groups = overlap_run(queue, &o, kernels, lines, "no limit");
      if (groups > most_groups) most_groups = groups;
      for (int k = 0; k < kernels; k++) {
        expect_limit(&lines[k], 0, "no limit");
        if (lines[k].workers > most_workers) most_workers = lines[k].workers;
      }
    }
    if (most_workers < 2 || most_groups < 2)
      fail_msg("no limit (properties 0x%llx): in %d tries at most %u threads ran batches and %d groups ran at once",
               (unsigned long long)modes[m], OVERLAP_TRIES, most_workers, most_groups);
    assert_cl_success(clReleaseCommandQueue(queue));
  }
  overlap_free(&o);
}

/* Runs a command buffer (or a recording) holding two overlap dispatches; returns the most
 * groups seen at once. */
static cl_int overlap_replay(cl_command_queue queue, cl_command_queue substitute, cl_command_buffer_khr cb,
                             cl_recording_qcom recording, const struct overlap *o, int executions, cl_uint limit,
                             const char *what) {
  overlap_reset(queue, o);
  long mark = kiln_sched_trace_mark();
  for (int e = 0; e < executions; e++) {
    if (cb)
      assert_cl_success(
          kcb.clEnqueueCommandBufferKHR(substitute ? 1 : 0, substitute ? &substitute : NULL, cb, 0, NULL, NULL));
    else
      assert_cl_success(
          qrq.clEnqueueRecordingQCOM(queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  }
  assert_cl_success(clFinish(substitute ? substitute : queue));
  struct kiln_sched_line lines[8];
  size_t n = kiln_sched_trace_since(mark, "overlap", lines, 8);
  if (n != 2u * (size_t)executions) fail_msg("%s: %zu overlap trace lines, expected %d", what, n, 2 * executions);
  for (size_t i = 0; i < n; i++) {
    expect_limit(&lines[i], limit, what);
    assert_int_equal(OVERLAP_GROUPS, lines[i].batches);
    if (limit == 1) assert_int_equal(1, lines[i].workers);
  }
  return overlap_result(queue, o, 2, what);
}

static cl_command_buffer_khr overlap_command_buffer(cl_command_queue queue, const struct overlap *o,
                                                    cl_command_buffer_flags_khr flags) {
  const size_t global = OVERLAP_GROUPS, local = 1;
  cl_command_buffer_khr cb = kcb_create(queue, flags);
  for (int k = 0; k < 2; k++)
    assert_cl_success(
        kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, o->kernel[k], 1, NULL, &global, &local, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  return cb;
}

/* The kernels of a command-buffer execution obey the limit of the queue it is enqueued
 * to: its creation queue, a substitute queue, and two simultaneous executions on an
 * out-of-order queue; without a limit they use several threads. */
static void test_compute_unit_limit_in_command_buffers(void **state) {
  struct kiln_test_env *env = *state;
  struct overlap o = overlap_new(env);
  cl_command_queue one = ast_queue_with(env->context, env->device, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0);
  cl_command_queue one_ooo = ast_queue_with(env->context, env->device, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1,
                                            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_command_queue free_queue = kiln_test_queue(env->context, env->device, 0);

  cl_command_buffer_khr on_limited = overlap_command_buffer(one, &o, 0);
  cl_int most = overlap_replay(one, NULL, on_limited, NULL, &o, 1, 1, "command buffer on a limit-1 queue");
  if (most != 1) fail_msg("command buffer on a limit-1 queue: %d groups ran at once", most);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(on_limited));

  cl_command_buffer_khr on_free = overlap_command_buffer(free_queue, &o, 0);
  most = overlap_replay(free_queue, one, on_free, NULL, &o, 1, 1, "command buffer on a limit-1 substitute queue");
  if (most != 1) fail_msg("command buffer on a limit-1 substitute queue: %d groups ran at once", most);

  cl_command_buffer_khr simultaneous = overlap_command_buffer(one_ooo, &o, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR);
  most = overlap_replay(one_ooo, NULL, simultaneous, NULL, &o, 2, 1, "two executions on an out-of-order limit-1 queue");
  if (most != 1) fail_msg("two command-buffer executions on an out-of-order limit-1 queue: %d groups at once", most);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(simultaneous));

  if (units >= 2) {
    most = 0;
    for (int t = 0; t < OVERLAP_TRIES && most < 2; t++)
      most = overlap_replay(free_queue, NULL, on_free, NULL, &o, 1, 0, "command buffer without a limit");
    if (most < 2)
      fail_msg("command buffer without a limit: never more than one group at once in %d tries", OVERLAP_TRIES);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(on_free));
  assert_cl_success(clReleaseCommandQueue(free_queue));
  assert_cl_success(clReleaseCommandQueue(one_ooo));
  assert_cl_success(clReleaseCommandQueue(one));
  overlap_free(&o);
}

/* The kernels of a recording's execution obey the limit of the live queue it is enqueued to. */
static void test_compute_unit_limit_in_recordings(void **state) {
  struct kiln_test_env *env = *state;
  struct overlap o = overlap_new(env);
  const size_t global = OVERLAP_GROUPS, local = 1;
  cl_command_queue recordable = qrq_recordable_queue(env);
  cl_recording_qcom recording = qrq_new(recordable);
  for (int k = 0; k < 2; k++)
    assert_cl_success(clEnqueueNDRangeKernel(recordable, o.kernel[k], 1, NULL, &global, &local, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(recording));
  cl_command_queue one = ast_queue_with(env->context, env->device, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0);
  for (int run = 0; run < 2; run++) {
    cl_int most = overlap_replay(one, NULL, NULL, recording, &o, 2, 1, "recording on a limit-1 queue");
    if (most != 1) fail_msg("recording on a limit-1 queue: %d groups ran at once", most);
  }
  if (units >= 2) {
    cl_int most = 0;
    for (int t = 0; t < OVERLAP_TRIES && most < 2; t++)
      most = overlap_replay(env->queue, NULL, NULL, recording, &o, 1, 0, "recording without a limit");
    if (most < 2) fail_msg("recording without a limit: never more than one group at once in %d tries", OVERLAP_TRIES);
  }
  assert_cl_success(clReleaseCommandQueue(one));
  assert_cl_success(qrq.clReleaseRecordingQCOM(recording));
  assert_cl_success(clReleaseCommandQueue(recordable));
  overlap_free(&o);
}

/* ---- kernel batching and deferred flush, seen in host memory ---- */

#define SMALL_ITEMS 1
#define LARGE_ITEMS 65536
#define QUIET_MS 200     /* how long batched work must stay unrun without a flush */
#define ARRIVAL_MS 10000 /* how long work may take to appear once it may run */
#define ATTEMPTS 3

static cl_int next_marker = 1000;

/* A `mark` kernel writing into host memory through a CL_MEM_USE_HOST_PTR buffer. */
struct marked {
  cl_int *host;
  size_t count;
  cl_mem buffer;
  cl_kernel kernel;
  cl_int value;
};

static struct marked marked_new(struct kiln_test_env *env, size_t count) {
  struct marked m = {.count = count};
  m.host = kiln_test_host_alloc(count * sizeof(cl_int));
  m.buffer = kiln_test_host_buffer(env->context, m.host, count * sizeof(cl_int));
  m.kernel = kiln_test_kernel(program, "mark");
  kiln_test_arg_mem(m.kernel, 0, m.buffer);
  return m;
}

static void marked_free(struct marked *m) {
  assert_cl_success(clReleaseKernel(m->kernel));
  assert_cl_success(clReleaseMemObject(m->buffer));
  free(m->host);
}

/* Enqueues the kernel with a fresh marker value, after letting the workers fall asleep. */
static void marked_enqueue(cl_command_queue queue, struct marked *m, cl_event *event) {
  m->value = next_marker++;
  kiln_test_arg_int(m->kernel, 1, m->value);
  const size_t global = m->count, local = m->count < 64 ? m->count : 64;
  kiln_test_sleep_ms(50);
  assert_cl_success(clEnqueueNDRangeKernel(queue, m->kernel, 1, NULL, &global, &local, 0, NULL, event));
}

static bool marked_appears(const struct marked *m, unsigned ms) {
  return kiln_test_poll_ints(m->host, m->count, m->value, true, ms);
}

static bool marked_started(const struct marked *m, unsigned ms) {
  return kiln_test_poll_ints(m->host, m->count, m->value, false, ms);
}

/* Without kernel batching each command wakes workers once ready: it runs with no flush. */
static void test_kernel_batching_off(void **state) {
  struct kiln_test_env *env = *state;
  const size_t sizes[] = {SMALL_ITEMS, LARGE_ITEMS};
  const cl_queue_properties lists[][5] = {
      {CL_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE, 0},
      {CL_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE, CL_QUEUE_DEFERRED_FLUSH_ARM, CL_FALSE, 0}};
  for (size_t l = 0; l < 2; l++)
    for (size_t s = 0; s < 2; s++) {
      cl_command_queue queue = ast_queue(env->context, env->device, lists[l]);
      struct marked m = marked_new(env, sizes[s]);
      long mark = kiln_sched_trace_mark();
      marked_enqueue(queue, &m, NULL);
      bool ran = marked_appears(&m, ARRIVAL_MS);
      assert_cl_success(clFinish(queue)); /* first: a failure leaves nothing queued behind */
      if (!ran)
        fail_msg("kernel batching off (list %zu), %zu work-items: the kernel did not run without a flush in %d ms", l,
                 sizes[s], ARRIVAL_MS);
      struct kiln_sched_line line = kiln_sched_trace_one(mark, "mark", "kernel batching off");
      if (sizes[s] == LARGE_ITEMS && line.batches < 2)
        fail_msg("the large mark kernel ran as %llu batch", line.batches);
      marked_free(&m);
      assert_cl_success(clReleaseCommandQueue(queue));
    }
}

enum flush_point { FLUSH_CALL, FLUSH_STATUS_QUERY, FLUSH_CALLBACK, FLUSH_QUEUE_RELEASE };
static const char *const flush_names[] = {"clFlush", "an event status query", "clSetEventCallback",
                                          "clReleaseCommandQueue"};

static void CL_CALLBACK count_callback(cl_event event, cl_int status, void *data) {
  (void)event;
  (void)status;
  atomic_fetch_add((atomic_int *)data, 1);
}

/* With kernel batching the work waits for a flush point: it has not run QUIET_MS after the
 * enqueue, and runs after `point` without any further OpenCL call. A worker that happened
 * to be awake may take the work early: then the attempt is repeated. */
static void expect_batched(struct kiln_test_env *env, const cl_queue_properties *props, size_t items,
                           enum flush_point point, const char *what) {
  int early = 0;
  for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
    cl_command_queue queue = ast_queue(env->context, env->device, props);
    struct marked m = marked_new(env, items);
    cl_event event = NULL;
    atomic_int callbacks = 0;
    long mark = kiln_sched_trace_mark();
    marked_enqueue(queue, &m, point == FLUSH_CALL || point == FLUSH_QUEUE_RELEASE ? NULL : &event);
    bool ran_early = marked_started(&m, QUIET_MS);
    switch (point) {
    case FLUSH_CALL:
      assert_cl_success(clFlush(queue));
      break;
    case FLUSH_STATUS_QUERY:
      (void)kiln_test_event_status(event);
      break;
    case FLUSH_CALLBACK:
      assert_cl_success(clSetEventCallback(event, CL_COMPLETE, count_callback, &callbacks));
      break;
    case FLUSH_QUEUE_RELEASE:
      assert_cl_success(clReleaseCommandQueue(queue));
      break;
    }
    bool ran = marked_appears(&m, ARRIVAL_MS);
    if (point == FLUSH_CALLBACK)
      for (int i = 0; i < ARRIVAL_MS && atomic_load(&callbacks) == 0; i++) kiln_test_sleep_ms(1);
    if (point != FLUSH_QUEUE_RELEASE) {
      assert_cl_success(clFinish(queue));
      assert_cl_success(clReleaseCommandQueue(queue));
    }
    if (event) assert_cl_success(clReleaseEvent(event));
    if (!ran)
      fail_msg("%s, %zu work-items: the kernel did not run within %d ms of %s", what, items, ARRIVAL_MS,
               flush_names[point]);
    if (point == FLUSH_CALLBACK && atomic_load(&callbacks) != 1)
      fail_msg("%s: the callback ran %d times", what, atomic_load(&callbacks));
    /* The kernel's line; for the large one, that it is several batches (one under a limit
     * of one compute unit: a launch one thread runs alone is one batch). */
    for (int i = 0; i < ARRIVAL_MS && kiln_sched_trace_since(mark, "mark", NULL, 0) == 0; i++) kiln_test_sleep_ms(1);
    struct kiln_sched_line line = kiln_sched_trace_one(mark, "mark", what);
    if (items == LARGE_ITEMS && line.cu_limit != 1 && line.batches < 2)
      fail_msg("the large mark kernel ran as %llu batch", line.batches);
    if (line.cu_limit == 1 && line.batches != 1) fail_msg("%s: %llu batches under a limit of one", what, line.batches);
    marked_free(&m);
    if (!ran_early) return;
    early++;
  }
  fail_msg("%s, %zu work-items: in each of %d attempts the kernel ran within %d ms of its enqueue, before %s", what,
           items, early, QUIET_MS, flush_names[point]);
}

static void test_kernel_batching_waits_for_flush(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties batching[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, 0};
  const cl_queue_properties with_limit[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1,
                                            0};
  const size_t sizes[] = {SMALL_ITEMS, LARGE_ITEMS};
  for (size_t s = 0; s < 2; s++) {
    expect_batched(env, NULL, sizes[s], FLUSH_CALL, "default queue");
    expect_batched(env, batching, sizes[s], FLUSH_CALL, "kernel batching CL_TRUE");
    expect_batched(env, with_limit, sizes[s], FLUSH_CALL, "kernel batching CL_TRUE, limit 1");
  }
}

static void test_kernel_batching_implicit_flushes(void **state) {
  struct kiln_test_env *env = *state;
  const enum flush_point points[] = {FLUSH_STATUS_QUERY, FLUSH_CALLBACK, FLUSH_QUEUE_RELEASE};
  const size_t sizes[] = {SMALL_ITEMS, LARGE_ITEMS};
  for (size_t p = 0; p < 3; p++)
    for (size_t s = 0; s < 2; s++) expect_batched(env, NULL, sizes[s], points[p], "default queue");
}

/* A deferred flush leaves the work to a runtime thread: wait_host, which waits for the
 * host to set its flag, completes with the flag seen although the host only sets it
 * after clFlush returned (had clFlush run it, it would have waited in vain). */
static void test_deferred_flush_on(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties deferred[] = {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_TRUE, 0};
  const cl_queue_properties *lists[] = {NULL, deferred};
  for (size_t l = 0; l < 2; l++) {
    cl_command_queue queue = ast_queue(env->context, env->device, lists[l]);
    cl_int *flag = kiln_test_host_alloc(sizeof(cl_int)), *out = kiln_test_host_alloc(2 * sizeof(cl_int));
    cl_mem flag_buffer = kiln_test_host_buffer(env->context, flag, sizeof(cl_int));
    cl_mem out_buffer = kiln_test_host_buffer(env->context, out, 2 * sizeof(cl_int));
    cl_kernel kernel = kiln_test_kernel(program, "wait_host");
    kiln_test_arg_mem(kernel, 0, flag_buffer);
    kiln_test_arg_mem(kernel, 1, out_buffer);
    assert_cl_success(clEnqueueTask(queue, kernel, 0, NULL, NULL));
    assert_cl_success(clFlush(queue));
    __atomic_store_n(&flag[0], 1, __ATOMIC_SEQ_CST);
    double end = kiln_test_now_ms() + 15000;
    while (__atomic_load_n(&out[1], __ATOMIC_SEQ_CST) == 0 && kiln_test_now_ms() < end) kiln_test_sleep_ms(1);
    cl_int result = __atomic_load_n(&out[1], __ATOMIC_SEQ_CST);
    assert_cl_success(clFinish(queue));
    if (result != 2)
      fail_msg("deferred flush (%s): wait_host ended with %d (3: it ran inside clFlush, 0: it did not end)",
               lists[l] ? "CL_TRUE" : "default", result);
    assert_int_equal(1, out[0]);
    assert_cl_success(clReleaseKernel(kernel));
    assert_cl_success(clReleaseMemObject(flag_buffer));
    assert_cl_success(clReleaseMemObject(out_buffer));
    free(flag);
    free(out);
    assert_cl_success(clReleaseCommandQueue(queue));
  }
}

/* Without deferred flush clFlush runs the claimable work itself: a one-group kernel has run
 * when it returns (checked at once); a multi-batch one is done without further calls. */
static void test_deferred_flush_off(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties lists[][5] = {
      {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_FALSE, 0},
      {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_FALSE, CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, 0},
      {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_FALSE, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0}};
  for (size_t l = 0; l < 3; l++) {
    bool done_at_return = false;
    int early = 0;
    for (int attempt = 0; attempt < ATTEMPTS && !done_at_return; attempt++) {
      cl_command_queue queue = ast_queue(env->context, env->device, lists[l]);
      struct marked m = marked_new(env, SMALL_ITEMS);
      marked_enqueue(queue, &m, NULL);
      bool ran_early = marked_started(&m, 20);
      assert_cl_success(clFlush(queue));
      bool there = kiln_test_ints_are(m.host, m.count, m.value, true);
      assert_cl_success(clFinish(queue));
      assert_true(kiln_test_ints_are(m.host, m.count, m.value, true));
      marked_free(&m);
      assert_cl_success(clReleaseCommandQueue(queue));
      early += ran_early;
      done_at_return = there && !ran_early;
    }
    if (!done_at_return)
      fail_msg("deferred flush CL_FALSE (list %zu): in %d attempts (%d ran before the flush) the one-group kernel had "
               "not run when clFlush returned",
               l, ATTEMPTS, early);
    /* Several batches: some may still be running on workers when clFlush returns. */
    cl_command_queue queue = ast_queue(env->context, env->device, lists[l]);
    struct marked m = marked_new(env, LARGE_ITEMS);
    marked_enqueue(queue, &m, NULL);
    assert_cl_success(clFlush(queue));
    bool ran = marked_appears(&m, ARRIVAL_MS);
    assert_cl_success(clFinish(queue));
    if (!ran) fail_msg("deferred flush CL_FALSE (list %zu): the multi-batch kernel did not complete after clFlush", l);
    marked_free(&m);
    assert_cl_success(clReleaseCommandQueue(queue));
  }
}

int main(void) {
  kiln_sched_trace_enable("arm-sched-behaviour");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_batch_size),
      cmocka_unit_test(test_batch_hints),
      cmocka_unit_test(test_one_group),
      cmocka_unit_test(test_empty_ndrange),
      KILN_GATED_TEST(test_hints_read_at_enqueue),
      cmocka_unit_test(test_hints_recorded_in_command_buffer),
      cmocka_unit_test(test_hints_recorded_in_recording),
      cmocka_unit_test(test_results_under_queue_properties),
      cmocka_unit_test(test_results_in_command_buffers),
      cmocka_unit_test(test_results_in_recordings),
      cmocka_unit_test(test_compute_unit_limit),
      cmocka_unit_test(test_no_limit_uses_several_threads),
      cmocka_unit_test(test_compute_unit_limit_in_command_buffers),
      cmocka_unit_test(test_compute_unit_limit_in_recordings),
      cmocka_unit_test(test_kernel_batching_off),
      cmocka_unit_test(test_kernel_batching_waits_for_flush),
      cmocka_unit_test(test_kernel_batching_implicit_flushes),
      cmocka_unit_test(test_deferred_flush_on),
      cmocka_unit_test(test_deferred_flush_off),
  };
  int failed = cmocka_run_group_tests(tests, setup, teardown);
  kiln_sched_trace_remove();
  return failed;
}
