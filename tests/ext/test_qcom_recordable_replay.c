/* cl_qcom_recordable_queues, executing recordings: the specification's sample flow,
 * every kind of update (kernel arguments — buffers, scalars, local-memory sizes — global
 * offsets, global sizes, local sizes including NULL), several at once, on several
 * dispatches, the same kernel recorded twice, persistence across replays, isolation from
 * the application's kernel objects and from executions already enqueued; every error of
 * clEnqueueRecordingQCOM and clEnqueueRecordingSVMQCOM, and that a failing call applies
 * none of its updates; the event a replay returns (info, wait lists, callbacks,
 * profiling), ordering with ordinary commands, releasing everything while an execution
 * is pending, a kernel of many work-groups, and image and sampler arguments updated.
 * Results are checked on the host. */
#include "qcom_recordable_test.h"

#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#define GX 64
#define GY 16
#define GZ 8
#define GRID (GX * GY * GZ)
#define INFO 16

static const char *source =
    "kernel void stage1(int mul, int add, global int *out, global const int *in) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * mul + add;\n"
    "}\n"
    "kernel void stage2(global const int *in, global int *out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), i = y * get_global_size(0) + x;\n"
    "  out[i] = in[i] + (int)(x * 3 + y * 7);\n"
    "}\n"
    "kernel void stage3(global const int *in, global int *out) {\n"
    "  size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = in[i] * 2 - (int)get_global_id(2);\n"
    "}\n"
    "kernel void put(global int *p, int v) { p[get_global_id(0)] = v; }\n"
    "kernel void probe(read_only image2d_t im, sampler_t s, global int *out) {\n"
    "  out[0] = get_image_width(im);\n"
    "  out[1] = (int)(read_imagef(im, s, (float2)(-4.0f, 0.5f)).x * 255.0f + 0.5f);\n"
    "}\n"
    KILN_TEST_SCALE_SOURCE
    KILN_TEST_GROUP_SUM_SOURCE
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "#define GROUP_SIZE(d) get_enqueued_local_size(d)\n"
    "#else\n"
    "#define GROUP_SIZE(d) get_local_size(d)\n"
    "#endif\n"
    "#define GX 64\n"
    "#define GY 16\n"
    "#define GZ 8\n"
    /* Tags the grid cells of its work-items; the work-item at the global offset reports the
     * geometry, and any work-item whose ids disagree with it sets info[15]. */
    "kernel void mark(global int *grid, global int *info, int tag) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  if (x < GX && y < GY && z < GZ) grid[(z * GY + y) * GX + x] = tag;\n"
    "  int ok = 1;\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    ok &= get_group_id(d) * GROUP_SIZE(d) + get_local_id(d) + get_global_offset(d) == get_global_id(d);\n"
    "    ok &= get_num_groups(d) == (get_global_size(d) + GROUP_SIZE(d) - 1) / GROUP_SIZE(d);\n"
    "  }\n"
    "  if (!ok) atomic_or(&info[15], 1);\n"
    "  if (x == get_global_offset(0) && y == get_global_offset(1) && z == get_global_offset(2)) {\n"
    "    info[0] = (int)get_work_dim();\n"
    "    for (uint d = 0; d < 3; d++) {\n"
    "      info[1 + d] = (int)get_global_size(d);\n"
    "      info[4 + d] = (int)GROUP_SIZE(d);\n"
    "      info[7 + d] = (int)get_global_offset(d);\n"
    "      info[10 + d] = (int)get_num_groups(d);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "__attribute__((reqd_work_group_size(4, 1, 1))) kernel void fixed(global int *p, int v) {\n"
    "  p[get_global_id(0)] = v + (int)get_local_size(0);\n"
    "}\n"
    "kernel void big(global const int *in, global int *out, int add) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 3 + (int)(i & 0xFFFF) + add;\n"
    "}\n";

static cl_program program;     /* -cl-std=CL1.2: uniform work-groups */
static cl_program program_cl3; /* -cl-std=CL3.0: non-uniform work-groups allowed */

static int setup(void **state) {
  qrq_setup(state);
  struct kiln_test_env *env = *state;
  program = qrq_program(env->context, env->device, source, "-cl-std=CL1.2");
  program_cl3 = qrq_program(env->context, env->device, source, "-cl-std=CL3.0");
  return 0;
}

static int teardown(void **state) {
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseProgram(program_cl3));
  return kiln_test_env_teardown(state);
}

/* ---- helpers ---- */

/* Every update list of both entry points. */
struct updates {
  size_t num_args;
  const cl_array_arg_qcom *args;
  size_t num_offsets;
  const cl_offset_qcom *offsets;
  size_t num_global;
  const cl_workgroup_qcom *global;
  size_t num_local;
  const cl_workgroup_qcom *local;
  size_t num_svm;
  const cl_array_arg_qcom *svm;
  size_t num_exec;
  const cl_array_kernel_exec_info_qcom *exec;
};

/* clEnqueueRecordingSVMQCOM when `svm_entry`, else clEnqueueRecordingQCOM (which has no
 * SVM or exec-info lists). */
static cl_int enqueue(bool svm_entry, cl_command_queue q, cl_recording_qcom r, const struct updates *u,
                      cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (svm_entry)
    return qrq.clEnqueueRecordingSVMQCOM(q, r, u->num_args, u->args, u->num_svm, u->svm, u->num_offsets, u->offsets,
                                         u->num_global, u->global, u->num_local, u->local, u->num_exec, u->exec,
                                         num_events, wait_list, event);
  if (u->num_svm || u->svm || u->num_exec || u->exec) fail_msg("clEnqueueRecordingQCOM has no SVM or exec-info lists");
  return qrq.clEnqueueRecordingQCOM(q, r, u->num_args, u->args, u->num_offsets, u->offsets, u->num_global, u->global,
                                    u->num_local, u->local, num_events, wait_list, event);
}

/* Enqueues with updates and waits for the execution. */
static void replay_with(bool svm_entry, cl_command_queue q, cl_recording_qcom r, const struct updates *u) {
  cl_event done = NULL;
  cl_int err = enqueue(svm_entry, q, r, u, 0, NULL, &done);
  if (err != CL_SUCCESS)
    fail_msg("%s with updates: %d", svm_entry ? "clEnqueueRecordingSVMQCOM" : "clEnqueueRecordingQCOM", err);
  assert_non_null(done);
  assert_cl_success(clWaitForEvents(1, &done));
  assert_int_equal(CL_COMPLETE, qrq_event_status(done));
  assert_cl_success(clReleaseEvent(done));
}

/* A `mark` dispatch's buffers: the grid (-1 where untouched) and its geometry report. */
struct marked {
  cl_mem grid, info;
};

static struct marked marked_new(struct kiln_test_env *env) {
  struct marked m = {qrq_buffer_filled(env->queue, env->context, GRID, -1),
                     qrq_buffer_filled(env->queue, env->context, INFO, 0)};
  return m;
}

static void marked_reset(struct kiln_test_env *env, struct marked *m) {
  qrq_fill(env->queue, m->grid, GRID, -1);
  qrq_fill(env->queue, m->info, INFO, 0);
}

static void marked_release(struct marked *m) {
  assert_cl_success(clReleaseMemObject(m->grid));
  assert_cl_success(clReleaseMemObject(m->info));
}

static cl_kernel mark_kernel(cl_program from, struct marked *m, cl_int tag) {
  cl_kernel k = qrq_kernel(from, "mark");
  qrq_arg_mem(k, 0, m->grid);
  qrq_arg_mem(k, 1, m->info);
  qrq_arg_int(k, 2, tag);
  return k;
}

/* The grid holds `tag` exactly on the box offset + [0, global) of a `dim`-dimensional
 * launch (dimensions past dim: offset 0, size 1), -1 elsewhere; the report gives that
 * geometry, and `local` (when not NULL) as the work-group size. */
static void expect_marked(struct kiln_test_env *env, struct marked *m, cl_uint dim, const size_t *offset,
                          const size_t *global, const size_t *local, cl_int tag, const char *what) {
  size_t off[3] = {0, 0, 0}, size[3] = {1, 1, 1};
  for (cl_uint d = 0; d < dim; d++) {
    off[d] = offset ? offset[d] : 0;
    size[d] = global[d];
  }
  static cl_int grid[GRID];
  cl_int info[INFO];
  qrq_read(env->queue, m->grid, sizeof grid, grid);
  qrq_read(env->queue, m->info, sizeof info, info);
  for (size_t z = 0; z < GZ; z++)
    for (size_t y = 0; y < GY; y++)
      for (size_t x = 0; x < GX; x++) {
        bool in = x >= off[0] && x < off[0] + size[0] && y >= off[1] && y < off[1] + size[1] && z >= off[2] &&
                  z < off[2] + size[2];
        cl_int want = in ? tag : -1, got = grid[(z * GY + y) * GX + x];
        if (got != want) fail_msg("%s: cell (%zu, %zu, %zu) is %d, expected %d", what, x, y, z, got, want);
      }
  if (info[0] != (cl_int)dim) fail_msg("%s: work_dim %d, expected %u", what, info[0], dim);
  for (cl_uint d = 0; d < 3; d++) {
    if (info[1 + d] != (cl_int)size[d])
      fail_msg("%s: global size %u is %d, expected %zu", what, d, info[1 + d], size[d]);
    if (info[7 + d] != (cl_int)off[d]) fail_msg("%s: offset %u is %d, expected %zu", what, d, info[7 + d], off[d]);
    if (local) {
      size_t l = d < dim ? local[d] : 1;
      if (info[4 + d] != (cl_int)l) fail_msg("%s: local size %u is %d, expected %zu", what, d, info[4 + d], l);
    }
    size_t groups = (size[d] + (size_t)info[4 + d] - 1) / (size_t)info[4 + d];
    if (info[10 + d] != (cl_int)groups) fail_msg("%s: %u groups in %u, expected %zu", what, info[10 + d], d, groups);
  }
  if (info[15] != 0) fail_msg("%s: work-item ids inconsistent with the geometry", what);
}

/* ---- the specification's sample ---- */

enum { SAMPLE_N = 64, SAMPLE_BIG = 128 };

static void sample_expected(const cl_int *in, cl_int mul, cl_int add, size_t n1, cl_int *m1, cl_int *m2, cl_int *m3) {
  for (size_t i = 0; i < n1; i++) m1[i] = in[i] * mul + add;
  for (size_t y = 0; y < 8; y++) /* stage2: 8 x 8 */
    for (size_t x = 0; x < 8; x++) m2[y * 8 + x] = m1[y * 8 + x] + (cl_int)(x * 3 + y * 7);
  for (size_t i = 0; i < SAMPLE_N; i++) m3[i] = m2[i] * 2 - (cl_int)(i / 16); /* stage3: 4 x 4 x 4 */
}

static void test_spec_sample(void **state) {
  struct kiln_test_env *env = *state;
  cl_context context = env->context;
  cl_device_id device = env->device;
  cl_int errcode;
  cl_uint max_recordable_queue_size = 0;
  size_t ret_size = 0;
  errcode = clGetDeviceInfo(device, CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE, sizeof(cl_uint), &max_recordable_queue_size,
                            &ret_size);
  assert_cl_success(errcode);
  assert_true(max_recordable_queue_size >= 3);

  cl_command_queue live_queue = clCreateCommandQueue(context, device, 0, &errcode);
  assert_cl_success(errcode);

  cl_int in[SAMPLE_BIG], new_in[SAMPLE_BIG];
  qrq_random_ints(1, in, SAMPLE_BIG, 2000);
  qrq_random_ints(2, new_in, SAMPLE_BIG, 2000);
  cl_mem input_buffer = qrq_buffer_with(context, SAMPLE_BIG, in),
         new_input_buffer = qrq_buffer_with(context, SAMPLE_BIG, new_in);
  cl_mem m1 = qrq_buffer_filled(live_queue, context, SAMPLE_BIG, 0),
         m2 = qrq_buffer_filled(live_queue, context, SAMPLE_N, 0),
         m3 = qrq_buffer_filled(live_queue, context, SAMPLE_N, 0);
  cl_kernel kernel1 = qrq_kernel(program, "stage1"), kernel2 = qrq_kernel(program, "stage2"),
            kernel3 = qrq_kernel(program, "stage3");
  qrq_arg_int(kernel1, 0, 3);
  qrq_arg_int(kernel1, 1, -4);
  qrq_arg_mem(kernel1, 2, m1);
  qrq_arg_mem(kernel1, 3, input_buffer);
  qrq_arg_mem(kernel2, 0, m1);
  qrq_arg_mem(kernel2, 1, m2);
  qrq_arg_mem(kernel3, 0, m2);
  qrq_arg_mem(kernel3, 1, m3);

  cl_command_queue recordable_queue = clCreateCommandQueue(context, device, CL_QUEUE_RECORDABLE_QCOM, &errcode);
  assert_cl_success(errcode);
  cl_recording_qcom recording = qrq.clNewRecordingQCOM(recordable_queue, &errcode);
  assert_cl_success(errcode);
  const size_t global_size1[1] = {SAMPLE_N}, global_size2[2] = {8, 8}, global_size3[3] = {4, 4, 4};
  errcode = clEnqueueNDRangeKernel(recordable_queue, kernel1, 1, NULL, global_size1, NULL, 0, NULL, NULL);
  assert_cl_success(errcode);
  errcode = clEnqueueNDRangeKernel(recordable_queue, kernel2, 2, NULL, global_size2, NULL, 0, NULL, NULL);
  assert_cl_success(errcode);
  errcode = clEnqueueNDRangeKernel(recordable_queue, kernel3, 3, NULL, global_size3, NULL, 0, NULL, NULL);
  assert_cl_success(errcode);
  errcode = qrq.clEndRecordingQCOM(recording);
  assert_cl_success(errcode);
  /* Recording ran nothing. */
  qrq_expect_all(live_queue, m3, SAMPLE_N, 0, "after recording");

  cl_event event = NULL;
  errcode = qrq.clEnqueueRecordingQCOM(live_queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &event);
  assert_cl_success(errcode);
  assert_cl_success(clWaitForEvents(1, &event));
  assert_cl_success(clReleaseEvent(event));
  cl_int w1[SAMPLE_BIG] = {0}, w2[SAMPLE_N], w3[SAMPLE_N], got[SAMPLE_BIG];
  sample_expected(in, 3, -4, SAMPLE_N, w1, w2, w3);
  qrq_read(live_queue, m1, sizeof got, got);
  qrq_expect_ints(w1, got, SAMPLE_BIG, "first replay, stage 1");
  qrq_read(live_queue, m2, sizeof w2, got);
  qrq_expect_ints(w2, got, SAMPLE_N, "first replay, stage 2");
  qrq_read(live_queue, m3, sizeof w3, got);
  qrq_expect_ints(w3, got, SAMPLE_N, "first replay, stage 3");

  /* Argument 3 of dispatch 0 becomes new_input_buffer and its global size grows (a 1-D
   * dispatch: the other two elements are ignored). */
  cl_array_arg_qcom update_args[1];
  cl_workgroup_qcom update_global_size[1];
  size_t new_global_size[3] = {SAMPLE_BIG, 5, 7};
  update_args[0].dispatch_index = 0;
  update_args[0].arg_index = 3;
  update_args[0].arg_size = sizeof(cl_mem);
  update_args[0].arg_value = &new_input_buffer;
  update_global_size[0].dispatch_index = 0;
  update_global_size[0].workgroup_size = new_global_size;
  errcode = qrq.clEnqueueRecordingQCOM(live_queue, recording, 1, update_args, 0, NULL, 1, update_global_size, 0, NULL,
                                       0, NULL, &event);
  assert_cl_success(errcode);
  assert_cl_success(clWaitForEvents(1, &event));
  assert_cl_success(clReleaseEvent(event));
  sample_expected(new_in, 3, -4, SAMPLE_BIG, w1, w2, w3);
  qrq_read(live_queue, m1, sizeof got, got);
  qrq_expect_ints(w1, got, SAMPLE_BIG, "updated replay, stage 1");
  qrq_read(live_queue, m2, sizeof w2, got);
  qrq_expect_ints(w2, got, SAMPLE_N, "updated replay, stage 2");
  qrq_read(live_queue, m3, sizeof w3, got);
  qrq_expect_ints(w3, got, SAMPLE_N, "updated replay, stage 3");

  /* The SVM part: argument 3 of dispatch 0 becomes an SVM allocation. The sample's
   * literal call (num_args 1 with a NULL arg_array) is refused as an invalid list and
   * changes nothing; the corrected call (num_args 0) takes effect and stays. */
  cl_int svm_in[SAMPLE_BIG];
  qrq_random_ints(3, svm_in, SAMPLE_BIG, 2000);
  cl_int *svm_buffer = clSVMAlloc(context, CL_MEM_READ_ONLY, sizeof svm_in, 0);
  assert_non_null(svm_buffer);
  memcpy(svm_buffer, svm_in, sizeof svm_in);
  cl_array_arg_qcom set_svm_args[1];
  set_svm_args[0].dispatch_index = 0;
  set_svm_args[0].arg_index = 3;
  set_svm_args[0].arg_value = svm_buffer;
  set_svm_args[0].arg_size = 0;
  event = NULL;
  assert_int_equal(CL_INVALID_VALUE, qrq.clEnqueueRecordingSVMQCOM(live_queue, recording, 1, NULL, 1, set_svm_args, 0,
                                                                   NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &event));
  assert_null(event);
  assert_cl_success(qrq.clEnqueueRecordingSVMQCOM(live_queue, recording, 0, NULL, 1, set_svm_args, 0, NULL, 0, NULL,
                                                  0, NULL, 0, NULL, 0, NULL, &event));
  assert_cl_success(clWaitForEvents(1, &event));
  assert_cl_success(clReleaseEvent(event));
  sample_expected(svm_in, 3, -4, SAMPLE_BIG, w1, w2, w3);
  for (int replay = 0; replay < 2; replay++) { /* the update, then a plain replay that keeps it */
    if (replay) {
      qrq_fill(live_queue, m1, SAMPLE_BIG, 0);
      qrq_replay(live_queue, recording);
    }
    qrq_read(live_queue, m1, sizeof got, got);
    qrq_expect_ints(w1, got, SAMPLE_BIG, "SVM replay, stage 1");
    qrq_read(live_queue, m2, sizeof w2, got);
    qrq_expect_ints(w2, got, SAMPLE_N, "SVM replay, stage 2");
    qrq_read(live_queue, m3, sizeof w3, got);
    qrq_expect_ints(w3, got, SAMPLE_N, "SVM replay, stage 3");
  }

  errcode = qrq.clReleaseRecordingQCOM(recording);
  assert_cl_success(errcode);
  clSVMFree(context, svm_buffer);
  assert_cl_success(clReleaseCommandQueue(recordable_queue));
  assert_cl_success(clReleaseKernel(kernel1));
  assert_cl_success(clReleaseKernel(kernel2));
  assert_cl_success(clReleaseKernel(kernel3));
  cl_mem all[] = {input_buffer, new_input_buffer, m1, m2, m3};
  for (size_t i = 0; i < 5; i++) assert_cl_success(clReleaseMemObject(all[i]));
  assert_cl_success(clReleaseCommandQueue(live_queue));
}

/* ---- updates ---- */

/* Buffer and scalar arguments, through both entry points. */
static void test_update_buffer_and_scalar_args(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int in_a[N], in_b[N];
  qrq_random_ints(3, in_a, N, 10000);
  qrq_random_ints(4, in_b, N, 10000);
  cl_mem a = qrq_buffer_with(env->context, N, in_a), b = qrq_buffer_with(env->context, N, in_b);
  cl_mem out1 = qrq_buffer_filled(env->queue, env->context, N, -1),
         out2 = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel k = qrq_kernel(program, "scale");
  kiln_test_scale_args(k, a, out1, 2, 1);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N;
  cl_recording_qcom r = qrq_record(rq, k, 1, &n, NULL);
  qrq_replay(env->queue, r);
  kiln_test_expect_scaled(env->queue, out1, in_a, N, 2, 1, "as recorded");

  for (int svm_entry = 0; svm_entry < 2; svm_entry++) {
    qrq_fill(env->queue, out1, N, -1);
    qrq_fill(env->queue, out2, N, -1);
    cl_int mul = svm_entry ? -3 : 5, add = svm_entry ? 9 : -7;
    cl_array_arg_qcom args[] = {qrq_arg(0, 0, sizeof b, &b), qrq_arg(0, 1, sizeof out2, &out2),
                                qrq_arg(0, 2, sizeof mul, &mul), qrq_arg(0, 3, sizeof add, &add)};
    struct updates u = {.num_args = 4, .args = args};
    replay_with(svm_entry, env->queue, r, &u);
    kiln_test_expect_scaled(env->queue, out2, in_b, N, mul, add, "updated buffers and scalars");
    qrq_expect_all(env->queue, out1, N, -1, "the recorded output, no longer an argument");
    /* Only the input back to a: the rest stays as updated. */
    cl_array_arg_qcom back = qrq_arg(0, 0, sizeof a, &a);
    u.num_args = 1;
    u.args = &back;
    replay_with(svm_entry, env->queue, r, &u);
    kiln_test_expect_scaled(env->queue, out2, in_a, N, mul, add, "input restored, other updates kept");
    /* And out1 for the next round. */
    cl_array_arg_qcom out_back = qrq_arg(0, 1, sizeof out1, &out1);
    assert_cl_success(qrq_replay_args(env->queue, r, 1, &out_back));
    assert_cl_success(clFinish(env->queue));
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  cl_mem all[] = {a, b, out1, out2};
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[i]));
}

/* Image and sampler arguments: recorded as set, updated to another image and sampler, and
 * the recorded image kept alive after the application releases it. */
static void test_update_image_and_sampler_args(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 2};
  cl_mem narrow = clCreateImage(env->context, CL_MEM_READ_ONLY, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  desc.image_width = 9;
  cl_mem wide = clCreateImage(env->context, CL_MEM_READ_ONLY, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  const cl_float white[4] = {1, 1, 1, 1};
  const size_t origin[3] = {0, 0, 0}, narrow_region[3] = {4, 2, 1}, wide_region[3] = {9, 2, 1};
  assert_cl_success(clEnqueueFillImage(env->queue, narrow, white, origin, narrow_region, 0, NULL, NULL));
  assert_cl_success(clEnqueueFillImage(env->queue, wide, white, origin, wide_region, 0, NULL, NULL));
  /* unnormalized: x = -4 is the edge pixel with clamp-to-edge, the border (0) with clamp */
  cl_sampler edge = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  cl_sampler border = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  cl_mem out = qrq_buffer_filled(env->queue, env->context, 2, -1);
  cl_kernel k = qrq_kernel(program, "probe");
  assert_cl_success(clSetKernelArg(k, 0, sizeof narrow, &narrow));
  assert_cl_success(clSetKernelArg(k, 1, sizeof edge, &edge));
  qrq_arg_mem(k, 2, out);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t one = 1;
  cl_recording_qcom r = qrq_record(rq, k, 1, &one, NULL);
  assert_cl_success(clReleaseMemObject(narrow)); /* the recording holds it */
  qrq_replay(env->queue, r);
  cl_int got[2];
  qrq_read(env->queue, out, sizeof got, got);
  assert_int_equal(got[0], 4);
  assert_int_equal(got[1], 255);
  cl_array_arg_qcom args[] = {qrq_arg(0, 0, sizeof wide, &wide), qrq_arg(0, 1, sizeof border, &border)};
  assert_cl_success(qrq_replay_args(env->queue, r, 2, args));
  assert_cl_success(clFinish(env->queue));
  qrq_read(env->queue, out, sizeof got, got);
  assert_int_equal(got[0], 9);
  assert_int_equal(got[1], 0);
  /* an update is checked as clSetKernelArg checks it */
  cl_array_arg_qcom bad[] = {qrq_arg(0, 1, sizeof out, &out)};
  assert_int_equal(qrq_replay_args(env->queue, r, 1, bad), CL_INVALID_SAMPLER);
  cl_array_arg_qcom not_image[] = {qrq_arg(0, 0, sizeof out, &out)};
  assert_int_equal(qrq_replay_args(env->queue, r, 1, not_image), CL_INVALID_MEM_OBJECT);
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseSampler(edge));
  assert_cl_success(clReleaseSampler(border));
  assert_cl_success(clReleaseMemObject(wide));
  assert_cl_success(clReleaseMemObject(out));
}

/* A local-memory argument (arg_value NULL, a size) can be updated: the dispatch's
 * work-groups grow with a matching scratch size; a size the device cannot give is refused
 * as clEnqueueNDRangeKernel refuses it, and changes nothing. */
static void test_update_local_memory_arg(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1024 };
  cl_int host[N];
  qrq_random_ints(6, host, N, 1000);
  cl_mem in = qrq_buffer_with(env->context, N, host), out = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel k = qrq_kernel(program, "group_sum");
  kiln_test_group_sum_args(k, in, out, 16);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N, l16 = 16;
  cl_recording_qcom r = qrq_record(rq, k, 1, &n, &l16);
  qrq_replay(env->queue, r);
  kiln_test_expect_group_sums(env->queue, out, host, N, 16, "groups of 16");

  const size_t l128[1] = {128};
  cl_array_arg_qcom scratch = qrq_arg(0, 2, 128 * sizeof(cl_int), NULL);
  cl_workgroup_qcom local = {0, l128};
  struct updates u = {.num_args = 1, .args = &scratch, .num_local = 1, .local = &local};
  replay_with(false, env->queue, r, &u);
  kiln_test_expect_group_sums(env->queue, out, host, N, 128, "groups of 128");

  /* More local memory than the device has: the plain launch's error, nothing applied. */
  cl_ulong local_mem = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL));
  assert_cl_success(clSetKernelArg(k, 2, (size_t)local_mem + 4, NULL));
  cl_int plain = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, &l16, 0, NULL, NULL);
  assert_int_equal(CL_OUT_OF_RESOURCES, plain);
  cl_array_arg_qcom too_big = qrq_arg(0, 2, (size_t)local_mem + 4, NULL);
  cl_event ev = NULL;
  assert_int_equal(plain,
                   qrq.clEnqueueRecordingQCOM(env->queue, r, 1, &too_big, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &ev));
  assert_null(ev);
  qrq_fill(env->queue, out, N, -1);
  qrq_replay(env->queue, r);
  kiln_test_expect_group_sums(env->queue, out, host, N, 128, "after the refused update");

  /* Back to groups of 32, with a scratch of exactly 32 ints. */
  const size_t l32[1] = {32};
  scratch.arg_size = 32 * sizeof(cl_int);
  local.workgroup_size = l32;
  replay_with(true, env->queue, r, &u);
  kiln_test_expect_group_sums(env->queue, out, host, N, 32, "groups of 32");
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
}

/* Three `mark` dispatches, 1-, 2- and 3-D, each with its own buffers. */
struct three_marks {
  struct marked m[3];
  cl_kernel k[3];
  cl_command_queue rq;
  cl_recording_qcom r;
};

static const cl_uint three_dims[3] = {1, 2, 3};
static const size_t three_global[3][3] = {{8, 1, 1}, {4, 3, 1}, {2, 2, 2}};
static const size_t three_local[3][3] = {{2, 1, 1}, {2, 3, 1}, {1, 2, 2}};
static const size_t three_offset[3][3] = {{0, 0, 0}, {1, 2, 0}, {0, 1, 1}}; /* as recorded */

static void three_marks_record(struct kiln_test_env *env, struct three_marks *t, cl_program from) {
  t->rq = qrq_recordable_queue(env);
  t->r = qrq_new(t->rq);
  for (int i = 0; i < 3; i++) {
    t->m[i] = marked_new(env);
    t->k[i] = mark_kernel(from, &t->m[i], 10 + i);
    assert_cl_success(clEnqueueNDRangeKernel(t->rq, t->k[i], three_dims[i], three_offset[i], three_global[i],
                                             three_local[i], 0, NULL, NULL));
  }
  assert_cl_success(qrq.clEndRecordingQCOM(t->r));
}

static void three_marks_reset(struct kiln_test_env *env, struct three_marks *t) {
  for (int i = 0; i < 3; i++) marked_reset(env, &t->m[i]);
}

static void three_marks_release(struct three_marks *t) {
  assert_cl_success(qrq.clReleaseRecordingQCOM(t->r));
  assert_cl_success(clReleaseCommandQueue(t->rq));
  for (int i = 0; i < 3; i++) {
    assert_cl_success(clReleaseKernel(t->k[i]));
    marked_release(&t->m[i]);
  }
}

/* Global offsets, in 1, 2 and 3 dimensions; elements past a dispatch's work_dim are
 * ignored. */
static void test_update_global_offsets(void **state) {
  struct kiln_test_env *env = *state;
  struct three_marks t;
  three_marks_record(env, &t, program);
  qrq_replay(env->queue, t.r);
  for (int i = 0; i < 3; i++)
    expect_marked(env, &t.m[i], three_dims[i], three_offset[i], three_global[i], three_local[i], 10 + i, "as recorded");

  cl_offset_qcom offsets[3] = {{0, {5, 1000, 1000}}, {1, {10, 3, 999}}, {2, {1, 2, 3}}};
  for (int svm_entry = 0; svm_entry < 2; svm_entry++) {
    three_marks_reset(env, &t);
    struct updates u = {.num_offsets = 3, .offsets = offsets};
    replay_with(svm_entry, env->queue, t.r, &u);
    for (int i = 0; i < 3; i++)
      expect_marked(env, &t.m[i], three_dims[i], offsets[i].offsets, three_global[i], three_local[i], 10 + i,
                    "offsets updated");
    /* Persistent: a plain replay uses them. */
    three_marks_reset(env, &t);
    qrq_replay(env->queue, t.r);
    for (int i = 0; i < 3; i++)
      expect_marked(env, &t.m[i], three_dims[i], offsets[i].offsets, three_global[i], three_local[i], 10 + i,
                    "offsets kept");
    /* Only dispatch 1 moves again. */
    cl_offset_qcom again = {1, {40, 0, 5}};
    three_marks_reset(env, &t);
    u.num_offsets = 1;
    u.offsets = &again;
    replay_with(svm_entry, env->queue, t.r, &u);
    expect_marked(env, &t.m[0], 1, offsets[0].offsets, three_global[0], three_local[0], 10, "dispatch 0");
    expect_marked(env, &t.m[1], 2, again.offsets, three_global[1], three_local[1], 11, "dispatch 1 moved again");
    expect_marked(env, &t.m[2], 3, offsets[2].offsets, three_global[2], three_local[2], 12, "dispatch 2");
    offsets[0].offsets[0] = 20;
    offsets[1].offsets[0] = 30;
    offsets[2].offsets[2] = 0;
  }
  three_marks_release(&t);
}

/* Global sizes, in 1, 2 and 3 dimensions, given as arrays of exactly work_dim elements;
 * a dispatch recorded with no work (NULL global size, valid in OpenCL 3.0) runs once it is
 * given one. */
static void test_update_global_sizes(void **state) {
  struct kiln_test_env *env = *state;
  struct three_marks t;
  three_marks_record(env, &t, program);
  const size_t g0[1] = {20}, g1[2] = {6, 9}, g2[3] = {3, 4, 6};
  cl_workgroup_qcom sizes[3] = {{0, g0}, {1, g1}, {2, g2}};
  three_marks_reset(env, &t);
  struct updates u = {.num_global = 3, .global = sizes};
  replay_with(false, env->queue, t.r, &u);
  const size_t *want[3] = {g0, g1, g2};
  for (int i = 0; i < 3; i++)
    expect_marked(env, &t.m[i], three_dims[i], three_offset[i], want[i], three_local[i], 10 + i,
                  "global sizes updated");
  three_marks_reset(env, &t);
  qrq_replay(env->queue, t.r);
  for (int i = 0; i < 3; i++)
    expect_marked(env, &t.m[i], three_dims[i], three_offset[i], want[i], three_local[i], 10 + i, "global sizes kept");
  /* A 1-D dispatch given a 3-element array uses the first. */
  const size_t wide[3] = {GX, 7, 5};
  cl_workgroup_qcom one = {0, wide};
  three_marks_reset(env, &t);
  u.num_global = 1;
  u.global = &one;
  replay_with(true, env->queue, t.r, &u);
  expect_marked(env, &t.m[0], 1, three_offset[0], wide, three_local[0], 10, "1-D dispatch, 3 elements given");
  expect_marked(env, &t.m[1], 2, three_offset[1], g1, three_local[1], 11, "dispatch 1 untouched");
  three_marks_release(&t);

  /* No work when recorded. */
  struct marked m = marked_new(env);
  cl_kernel k = mark_kernel(program, &m, 7);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, NULL, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_record(rq, k, 2, NULL, NULL);
  qrq_replay(env->queue, r);
  qrq_expect_all(env->queue, m.grid, GRID, -1, "a recorded launch without work");
  const size_t g[2] = {5, 3};
  cl_workgroup_qcom given = {0, g};
  struct updates v = {.num_global = 1, .global = &given};
  replay_with(false, env->queue, r, &v);
  expect_marked(env, &m, 2, NULL, g, NULL, 7, "work given by an update");
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  marked_release(&m);
}

/* Local sizes: explicit ones, NULL (Kiln picks, exactly as for clEnqueueNDRangeKernel with
 * a NULL local size), the uniform-size rule of OpenCL C 1.2 programs and its absence in
 * OpenCL C 3.0 ones, and a global size that only fits with the new local size of the same
 * call. */
static void test_update_local_sizes(void **state) {
  struct kiln_test_env *env = *state;
  struct marked m = marked_new(env);
  cl_kernel k = mark_kernel(program, &m, 3);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t global[2] = {16, 8}, local[2] = {4, 2};
  cl_recording_qcom r = qrq_record(rq, k, 2, global, local);
  qrq_replay(env->queue, r);
  expect_marked(env, &m, 2, NULL, global, local, 3, "as recorded");

  const size_t l84[2] = {8, 4};
  cl_workgroup_qcom new_local = {0, l84};
  struct updates u = {.num_local = 1, .local = &new_local};
  marked_reset(env, &m);
  replay_with(false, env->queue, r, &u);
  expect_marked(env, &m, 2, NULL, global, l84, 3, "local 8 x 4");
  marked_reset(env, &m);
  qrq_replay(env->queue, r);
  expect_marked(env, &m, 2, NULL, global, l84, 3, "local 8 x 4 kept");

  /* NULL: what clEnqueueNDRangeKernel with a NULL local size picks. */
  marked_reset(env, &m);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  cl_int plain_info[INFO];
  qrq_read(env->queue, m.info, sizeof plain_info, plain_info);
  const size_t picked[2] = {(size_t)plain_info[4], (size_t)plain_info[5]};
  marked_reset(env, &m);
  new_local.workgroup_size = NULL;
  replay_with(true, env->queue, r, &u);
  expect_marked(env, &m, 2, NULL, global, picked, 3, "NULL local size");

  /* OpenCL C 1.2: 16 % 3 != 0. */
  const size_t l32[2] = {3, 2};
  new_local.workgroup_size = l32;
  cl_event ev = NULL;
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(false, env->queue, r, &u, 0, NULL, &ev));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(true, env->queue, r, &u, 0, NULL, &ev));
  assert_null(ev);
  /* A new global size that the recorded local size does not divide... */
  cl_workgroup_qcom recorded_local = {0, local};
  u.local = &recorded_local;
  replay_with(false, env->queue, r, &u); /* back to 4 x 2 */
  const size_t g18[2] = {18, 8};
  cl_workgroup_qcom new_global = {0, g18};
  struct updates only_global = {.num_global = 1, .global = &new_global};
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(false, env->queue, r, &only_global, 0, NULL, NULL));
  /* ... fits with a local size given in the same call. */
  const size_t l62[2] = {6, 2};
  cl_workgroup_qcom fitting = {0, l62};
  struct updates both = {.num_global = 1, .global = &new_global, .num_local = 1, .local = &fitting};
  marked_reset(env, &m);
  replay_with(false, env->queue, r, &both);
  expect_marked(env, &m, 2, NULL, g18, l62, 3, "global 18 x 8 in groups of 6 x 2");

  /* More work-items than a work-group may have, and a zero size. */
  size_t max_group = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
  const size_t huge[2] = {max_group, 2}, zero[2] = {0, 2};
  const size_t huge_global[2] = {max_group, 2};
  cl_workgroup_qcom huge_g = {0, huge_global}, huge_l = {0, huge}, zero_l = {0, zero};
  struct updates too_many = {.num_global = 1, .global = &huge_g, .num_local = 1, .local = &huge_l};
  struct updates zero_local = {.num_local = 1, .local = &zero_l};
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(false, env->queue, r, &too_many, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(true, env->queue, r, &zero_local, 0, NULL, NULL));
  marked_reset(env, &m);
  qrq_replay(env->queue, r);
  expect_marked(env, &m, 2, NULL, g18, l62, 3, "after the refused sizes");
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));

  /* OpenCL C 3.0 program: non-uniform work-groups are allowed. */
  cl_bool non_uniform = CL_FALSE;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof non_uniform, &non_uniform, NULL));
  assert_true(non_uniform);
  k = mark_kernel(program_cl3, &m, 4);
  rq = qrq_recordable_queue(env);
  r = qrq_record(rq, k, 2, global, local);
  new_local.workgroup_size = l32;
  u.local = &new_local;
  marked_reset(env, &m);
  replay_with(false, env->queue, r, &u);
  expect_marked(env, &m, 2, NULL, global, l32, 4, "OpenCL C 3.0, groups of 3 x 2 over 16 x 8");

  /* A kernel with a required work-group size takes only that size. */
  cl_kernel fixed = qrq_kernel(program, "fixed");
  cl_mem out = qrq_buffer_filled(env->queue, env->context, 16, -1);
  qrq_arg_mem(fixed, 0, out);
  qrq_arg_int(fixed, 1, 100);
  cl_command_queue frq = qrq_recordable_queue(env);
  const size_t sixteen = 16, four = 4, two = 2;
  cl_recording_qcom fr = qrq_record(frq, fixed, 1, &sixteen, NULL);
  cl_workgroup_qcom fixed_two = {0, &two}, fixed_four = {0, &four}, fixed_null = {0, NULL};
  struct updates to_two = {.num_local = 1, .local = &fixed_two};
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE, enqueue(false, env->queue, fr, &to_two, 0, NULL, NULL));
  struct updates to_four = {.num_local = 1, .local = &fixed_four}, to_null = {.num_local = 1, .local = &fixed_null};
  replay_with(false, env->queue, fr, &to_four);
  qrq_expect_all(env->queue, out, 16, 104, "required work-group size given");
  qrq_fill(env->queue, out, 16, -1);
  replay_with(false, env->queue, fr, &to_null);
  qrq_expect_all(env->queue, out, 16, 104, "required work-group size picked");

  assert_cl_success(qrq.clReleaseRecordingQCOM(fr));
  assert_cl_success(clReleaseCommandQueue(frq));
  assert_cl_success(clReleaseKernel(fixed));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  marked_release(&m);
}

/* Every kind of update on one dispatch in one call. */
static void test_update_all_kinds_at_once(void **state) {
  struct kiln_test_env *env = *state;
  struct marked m = marked_new(env), other = marked_new(env);
  cl_kernel k = mark_kernel(program, &m, 1);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t global[3] = {4, 4, 2}, local[3] = {2, 2, 1};
  cl_recording_qcom r = qrq_record(rq, k, 3, global, local);
  for (int svm_entry = 0; svm_entry < 2; svm_entry++) {
    marked_reset(env, &m);
    marked_reset(env, &other);
    cl_int tag = 50 + svm_entry;
    cl_array_arg_qcom args[] = {qrq_arg(0, 0, sizeof other.grid, &other.grid),
                                qrq_arg(0, 1, sizeof other.info, &other.info), qrq_arg(0, 2, sizeof tag, &tag)};
    cl_offset_qcom offset = {0, {3, 2, 1}};
    const size_t g[3] = {8, 6, 4}, l[3] = {4, 3, 2};
    cl_workgroup_qcom new_global = {0, g}, new_local = {0, l};
    struct updates u = {.num_args = 3,
                        .args = args,
                        .num_offsets = 1,
                        .offsets = &offset,
                        .num_global = 1,
                        .global = &new_global,
                        .num_local = 1,
                        .local = &new_local};
    replay_with(svm_entry, env->queue, r, &u);
    expect_marked(env, &other, 3, offset.offsets, g, l, tag, "all updates at once");
    qrq_expect_all(env->queue, m.grid, GRID, -1, "the recorded grid, no longer an argument");
    /* Back to the recorded state, all at once again. */
    cl_array_arg_qcom back[] = {qrq_arg(0, 0, sizeof m.grid, &m.grid), qrq_arg(0, 1, sizeof m.info, &m.info),
                                qrq_arg(0, 2, sizeof(cl_int), &(cl_int){1})};
    cl_offset_qcom zero_offset = {0, {0, 0, 0}};
    cl_workgroup_qcom old_global = {0, global}, old_local = {0, local};
    struct updates restore = {.num_args = 3,
                              .args = back,
                              .num_offsets = 1,
                              .offsets = &zero_offset,
                              .num_global = 1,
                              .global = &old_global,
                              .num_local = 1,
                              .local = &old_local};
    marked_reset(env, &other);
    replay_with(svm_entry, env->queue, r, &restore);
    expect_marked(env, &m, 3, NULL, global, local, 1, "restored");
    qrq_expect_all(env->queue, other.grid, GRID, -1, "the other grid after restoring");
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  marked_release(&m);
  marked_release(&other);
}

/* One kernel object recorded three times is three dispatches: updates in one call name
 * several of them, each changes only its own, and the application's kernel keeps its
 * arguments (checked with a plain launch afterwards). */
static void test_update_several_dispatches(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 64 };
  cl_mem buf[4];
  for (int i = 0; i < 4; i++) buf[i] = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel put = qrq_kernel(program, "put");
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  const size_t half = N / 2;
  for (int i = 0; i < 3; i++) {
    qrq_arg_mem(put, 0, buf[i]);
    qrq_arg_int(put, 1, i + 1);
    assert_cl_success(clEnqueueNDRangeKernel(rq, put, 1, NULL, &half, NULL, 0, NULL, NULL));
  }
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  /* The application's kernel now writes 77 into buf[3]. */
  qrq_arg_mem(put, 0, buf[3]);
  qrq_arg_int(put, 1, 77);

  cl_int ten = 10, thirty = 30;
  cl_array_arg_qcom args[] = {qrq_arg(0, 1, sizeof ten, &ten), qrq_arg(2, 0, sizeof buf[3], &buf[3]),
                              qrq_arg(2, 1, sizeof thirty, &thirty)};
  const size_t full = N;
  cl_workgroup_qcom grow = {1, &full};
  struct updates u = {.num_args = 3, .args = args, .num_global = 1, .global = &grow};
  replay_with(false, env->queue, r, &u);
  cl_int got[N];
  const cl_int want_first[3] = {10, 2, -1};
  for (int i = 0; i < 3; i++) {
    qrq_read(env->queue, buf[i], sizeof got, got);
    for (int j = 0; j < N; j++) {
      cl_int want = j < N / 2 ? want_first[i] : (i == 1 ? 2 : -1);
      if (got[j] != want) fail_msg("buffer %d element %d: %d, expected %d", i, j, got[j], want);
    }
  }
  qrq_read(env->queue, buf[3], sizeof got, got);
  for (int j = 0; j < N; j++)
    if (got[j] != (j < N / 2 ? 30 : -1)) fail_msg("buffer 3 element %d: %d", j, got[j]);

  /* Dispatch 1 alone changes value: 0 and 2 keep theirs. */
  for (int i = 0; i < 4; i++) qrq_fill(env->queue, buf[i], N, -1);
  cl_int twenty = 20;
  cl_array_arg_qcom one = qrq_arg(1, 1, sizeof twenty, &twenty);
  assert_cl_success(qrq_replay_args(env->queue, r, 1, &one));
  assert_cl_success(clFinish(env->queue));
  qrq_read(env->queue, buf[0], sizeof got, got);
  for (int j = 0; j < N; j++)
    if (got[j] != (j < N / 2 ? 10 : -1)) fail_msg("dispatch 0 after dispatch 1's update: element %d is %d", j, got[j]);
  qrq_expect_all(env->queue, buf[1], N, 20, "dispatch 1 updated");
  qrq_expect_all(env->queue, buf[2], N, -1, "dispatch 2's recorded buffer");
  qrq_read(env->queue, buf[3], sizeof got, got);
  for (int j = 0; j < N; j++)
    if (got[j] != (j < N / 2 ? 30 : -1)) fail_msg("dispatch 2 after dispatch 1's update: element %d is %d", j, got[j]);

  /* The application's kernel was never touched. */
  for (int i = 0; i < 4; i++) qrq_fill(env->queue, buf[i], N, -1);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, put, 1, NULL, &full, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  qrq_expect_all(env->queue, buf[3], N, 77, "the application's kernel");
  for (int i = 0; i < 3; i++)
    qrq_expect_all(env->queue, buf[i], N, -1, "buffers the application's kernel does not use");
  /* Nor do the application's later arguments reach the recording. */
  qrq_arg_mem(put, 0, buf[0]);
  qrq_arg_int(put, 1, 88);
  for (int i = 0; i < 4; i++) qrq_fill(env->queue, buf[i], N, -1);
  qrq_replay(env->queue, r);
  qrq_expect_all(env->queue, buf[1], N, 20, "dispatch 1 after the application's clSetKernelArg");
  qrq_read(env->queue, buf[0], sizeof got, got);
  for (int j = 0; j < N; j++)
    if (got[j] != (j < N / 2 ? 10 : -1)) fail_msg("dispatch 0 after the application's clSetKernelArg: %d", got[j]);

  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(put));
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(buf[i]));
}

/* Executions already enqueued run with what they were enqueued with, even when a later
 * call updates the recording before they start. */
static void test_pending_executions_unaffected(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  cl_mem x = qrq_buffer_filled(env->queue, env->context, N, -1), y = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel put = qrq_kernel(program, "put");
  qrq_arg_mem(put, 0, x);
  qrq_arg_int(put, 1, 1);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N;
  cl_recording_qcom r = qrq_record(rq, put, 1, &n, NULL);

  cl_command_queue other = qrq_queue(env->context, env->device, 0);
  cl_event gate = qrq_user_event(env->context), gated = NULL, free_running = NULL;
  assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &gate, &gated));
  /* Updated while the first execution waits: out -> y, value 2, on another queue. */
  cl_int two = 2;
  cl_array_arg_qcom args[] = {qrq_arg(0, 0, sizeof y, &y), qrq_arg(0, 1, sizeof two, &two)};
  assert_cl_success(qrq.clEnqueueRecordingQCOM(other, r, 2, args, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &free_running));
  assert_cl_success(clWaitForEvents(1, &free_running));
  qrq_expect_all(other, y, N, 2, "the updated execution");
  qrq_expect_all(other, x, N, -1, "the gated execution's buffer, before the gate");
  assert_true(qrq_event_status(gated) > CL_COMPLETE);
  qrq_fill(other, y, N, -1);
  /* A second gated execution, updated by its own call: it has the second update. */
  cl_int three = 3;
  cl_array_arg_qcom value3 = qrq_arg(0, 1, sizeof three, &three);
  cl_event gated_updated = NULL;
  assert_cl_success(
      qrq.clEnqueueRecordingQCOM(env->queue, r, 1, &value3, 0, NULL, 0, NULL, 0, NULL, 1, &gate, &gated_updated));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &gated));
  qrq_expect_all(other, x, N, 1, "the gated execution ran as it was enqueued");
  assert_cl_success(clWaitForEvents(1, &gated_updated));
  qrq_expect_all(other, y, N, 3, "the gated execution with its own update");
  qrq_expect_all(other, x, N, 1, "x after the updated execution");
  assert_cl_success(clReleaseEvent(gated));
  assert_cl_success(clReleaseEvent(gated_updated));
  assert_cl_success(clReleaseEvent(free_running));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseCommandQueue(other));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(x));
  assert_cl_success(clReleaseMemObject(y));
}

/* ---- errors ---- */

/* A recording of two dispatches: 0 = scale(in, out, 2, 1) over N items, 1 = group_sum(in,
 * sums, scratch of 16 ints) in groups of 16. */
enum { ERR_N = 64 };
struct error_fixture {
  cl_int host[ERR_N];
  cl_mem in, out, sums;
  cl_kernel scale, sum;
  cl_command_queue rq;
  cl_recording_qcom r;
};

static void error_fixture_new(struct kiln_test_env *env, struct error_fixture *f) {
  qrq_random_ints(8, f->host, ERR_N, 500);
  f->in = qrq_buffer_with(env->context, ERR_N, f->host);
  f->out = qrq_buffer_filled(env->queue, env->context, ERR_N, -1);
  f->sums = qrq_buffer_filled(env->queue, env->context, ERR_N / 16, -1);
  f->scale = qrq_kernel(program, "scale");
  kiln_test_scale_args(f->scale, f->in, f->out, 2, 1);
  f->sum = qrq_kernel(program, "group_sum");
  kiln_test_group_sum_args(f->sum, f->in, f->sums, 16);
  f->rq = qrq_recordable_queue(env);
  f->r = qrq_new(f->rq);
  const size_t n = ERR_N, l = 16;
  assert_cl_success(clEnqueueNDRangeKernel(f->rq, f->scale, 1, NULL, &n, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(f->rq, f->sum, 1, NULL, &n, &l, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(f->r));
}

/* Nothing ran since the outputs were reset, and a plain replay gives the recorded results. */
static void error_fixture_expect_unchanged(struct kiln_test_env *env, struct error_fixture *f, const char *what) {
  assert_cl_success(clFinish(env->queue));
  qrq_expect_all(env->queue, f->out, ERR_N, -1, what);
  qrq_expect_all(env->queue, f->sums, ERR_N / 16, -1, what);
  qrq_replay(env->queue, f->r);
  kiln_test_expect_scaled(env->queue, f->out, f->host, ERR_N, 2, 1, what);
  kiln_test_expect_group_sums(env->queue, f->sums, f->host, ERR_N, 16, what);
  qrq_fill(env->queue, f->out, ERR_N, -1);
  qrq_fill(env->queue, f->sums, ERR_N / 16, -1);
}

static void error_fixture_release(struct error_fixture *f) {
  assert_cl_success(qrq.clReleaseRecordingQCOM(f->r));
  assert_cl_success(clReleaseCommandQueue(f->rq));
  assert_cl_success(clReleaseKernel(f->scale));
  assert_cl_success(clReleaseKernel(f->sum));
  assert_cl_success(clReleaseMemObject(f->in));
  assert_cl_success(clReleaseMemObject(f->out));
  assert_cl_success(clReleaseMemObject(f->sums));
}

/* Calls `u` through each entry point that can take it and expects `expected`, no event
 * and no execution. */
static void expect_refused(struct kiln_test_env *env, cl_command_queue q, cl_recording_qcom r, const struct updates *u,
                           cl_uint num_events, const cl_event *wait_list, cl_int expected, const char *what) {
  bool svm_only = u->num_svm || u->svm || u->num_exec || u->exec;
  for (int svm_entry = svm_only; svm_entry < 2; svm_entry++) {
    cl_event ev = NULL;
    cl_int err = enqueue(svm_entry, q, r, u, num_events, wait_list, &ev);
    if (err != expected)
      fail_msg("%s (%s): %d, expected %d", what, svm_entry ? "clEnqueueRecordingSVMQCOM" : "clEnqueueRecordingQCOM",
               err, expected);
    if (ev) fail_msg("%s: an event was returned", what);
    err = enqueue(svm_entry, q, r, u, num_events, wait_list, NULL);
    if (err != expected) fail_msg("%s (no event): %d, expected %d", what, err, expected);
  }
  (void)env;
}

static void test_enqueue_handle_errors(void **state) {
  struct kiln_test_env *env = *state;
  struct error_fixture f;
  error_fixture_new(env, &f);
  struct updates none = {0};
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);

  /* CL_INVALID_COMMAND_QUEUE (released: nothing is created between release and use). */
  cl_command_queue released_queue = qrq_queue(env->context, env->device, 0);
  assert_cl_success(clReleaseCommandQueue(released_queue));
  const cl_command_queue bad_queues[] = {released_queue, NULL, (cl_command_queue)&fake, (cl_command_queue)env->context,
                                         (cl_command_queue)f.in};
  for (size_t i = 0; i < sizeof bad_queues / sizeof bad_queues[0]; i++)
    expect_refused(env, bad_queues[i], f.r, &none, 0, NULL, CL_INVALID_COMMAND_QUEUE, "invalid queue");

  /* CL_INVALID_VALUE for an invalid recording. */
  cl_command_queue rq2 = qrq_recordable_queue(env);
  cl_recording_qcom released = qrq_new(rq2);
  assert_cl_success(clEnqueueTask(rq2, f.scale, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(released));
  assert_cl_success(qrq.clReleaseRecordingQCOM(released));
  const void *bad_recordings[] = {released, NULL, &fake, env->queue, f.scale};
  for (size_t i = 0; i < sizeof bad_recordings / sizeof bad_recordings[0]; i++)
    expect_refused(env, env->queue, (cl_recording_qcom)bad_recordings[i], &none, 0, NULL, CL_INVALID_VALUE,
                   "invalid recording");

  /* "must be an in-order command queue. It must not be a recordable queue." */
  expect_refused(env, f.rq, f.r, &none, 0, NULL, CL_INVALID_OPERATION, "its own recordable queue");
  expect_refused(env, rq2, f.r, &none, 0, NULL, CL_INVALID_OPERATION, "another recordable queue");
  cl_command_queue ooo = qrq_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_command_queue ooo_prof =
      qrq_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
  expect_refused(env, ooo, f.r, &none, 0, NULL, CL_INVALID_QUEUE_PROPERTIES, "out-of-order queue");
  expect_refused(env, ooo_prof, f.r, &none, 0, NULL, CL_INVALID_QUEUE_PROPERTIES, "out-of-order profiling queue");

  /* CL_INVALID_CONTEXT: a queue of another context. */
  cl_context other_context = kiln_test_context(env->device);
  cl_command_queue foreign = qrq_queue(other_context, env->device, 0);
  expect_refused(env, foreign, f.r, &none, 0, NULL, CL_INVALID_CONTEXT, "queue of another context");

  /* Not closed, and empty. */
  cl_recording_qcom open = qrq_new(rq2);
  assert_cl_success(clEnqueueTask(rq2, f.scale, 0, NULL, NULL));
  expect_refused(env, env->queue, open, &none, 0, NULL, CL_INVALID_OPERATION, "recording not ended");
  assert_cl_success(qrq.clEndRecordingQCOM(open));
  cl_recording_qcom empty = qrq_new(rq2);
  expect_refused(env, env->queue, empty, &none, 0, NULL, CL_INVALID_OPERATION, "empty recording, open");
  assert_cl_success(qrq.clEndRecordingQCOM(empty));
  expect_refused(env, env->queue, empty, &none, 0, NULL, CL_INVALID_OPERATION, "empty recording");
  error_fixture_expect_unchanged(env, &f, "after the handle errors");

  assert_cl_success(qrq.clReleaseRecordingQCOM(open));
  assert_cl_success(qrq.clReleaseRecordingQCOM(empty));
  assert_cl_success(clReleaseCommandQueue(foreign));
  assert_cl_success(clReleaseContext(other_context));
  assert_cl_success(clReleaseCommandQueue(ooo));
  assert_cl_success(clReleaseCommandQueue(ooo_prof));
  assert_cl_success(clReleaseCommandQueue(rq2));
  error_fixture_release(&f);
}

static void test_enqueue_wait_list_errors(void **state) {
  struct kiln_test_env *env = *state;
  struct error_fixture f;
  error_fixture_new(env, &f);
  struct updates none = {0};
  cl_event done = kiln_test_done_marker(env->queue);
  expect_refused(env, env->queue, f.r, &none, 1, NULL, CL_INVALID_EVENT_WAIT_LIST, "count without a list");
  expect_refused(env, env->queue, f.r, &none, 0, &done, CL_INVALID_EVENT_WAIT_LIST, "list without a count");
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(done);
  cl_event with_fake[2] = {done, (cl_event)&fake};
  expect_refused(env, env->queue, f.r, &none, 2, with_fake, CL_INVALID_EVENT_WAIT_LIST, "a foreign event");
  cl_event with_null[2] = {done, NULL};
  expect_refused(env, env->queue, f.r, &none, 2, with_null, CL_INVALID_EVENT_WAIT_LIST, "a NULL event");
  cl_event with_queue[1] = {(cl_event)env->queue};
  expect_refused(env, env->queue, f.r, &none, 1, with_queue, CL_INVALID_EVENT_WAIT_LIST, "a queue as event");
  /* An event of another context: clEnqueueNDRangeKernel's CL_INVALID_CONTEXT. */
  cl_context other_context = kiln_test_context(env->device);
  cl_event foreign = qrq_user_event(other_context);
  const size_t one = 1;
  assert_int_equal(CL_INVALID_CONTEXT,
                   clEnqueueNDRangeKernel(env->queue, f.scale, 1, NULL, &one, NULL, 1, &foreign, NULL));
  expect_refused(env, env->queue, f.r, &none, 1, &foreign, CL_INVALID_CONTEXT, "event of another context");
  /* With updates too: refused before anything is applied. */
  cl_int five = 5;
  cl_array_arg_qcom mul5 = qrq_arg(0, 2, sizeof five, &five);
  struct updates u = {.num_args = 1, .args = &mul5};
  expect_refused(env, env->queue, f.r, &u, 2, with_fake, CL_INVALID_EVENT_WAIT_LIST, "a foreign event, with updates");
  cl_event released = kiln_test_done_marker(env->queue);
  assert_cl_success(clReleaseEvent(released));
  expect_refused(env, env->queue, f.r, &u, 1, &released, CL_INVALID_EVENT_WAIT_LIST, "a released event");
  error_fixture_expect_unchanged(env, &f, "after the wait-list errors");
  assert_cl_success(clSetUserEventStatus(foreign, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseContext(other_context));
  assert_cl_success(clReleaseEvent(done));
  error_fixture_release(&f);
}

/* Update lists: a count with a NULL array, out-of-range dispatch indices, and invalid
 * values; each failing call also carries a valid update (dispatch 0's multiplier becomes
 * 5), which must not be applied. */
static void test_enqueue_update_errors(void **state) {
  struct kiln_test_env *env = *state;
  struct error_fixture f;
  error_fixture_new(env, &f);
  cl_int five = 5;
  const cl_array_arg_qcom mul5 = qrq_arg(0, 2, sizeof five, &five);
  const size_t n[1] = {ERR_N}, l[1] = {16};
  const cl_workgroup_qcom ok_global = {1, n}, ok_local = {1, l};
  const cl_offset_qcom ok_offset = {0, {0, 0, 0}};

  /* A count with a NULL array. */
  struct updates null_lists[] = {
      {.num_args = 1},
      {.num_args = 1, .args = &mul5, .num_offsets = 1},
      {.num_args = 1, .args = &mul5, .num_global = 1},
      {.num_args = 1, .args = &mul5, .num_local = 2},
      {.num_args = 1, .args = &mul5, .num_svm = 1},
      {.num_args = 1, .args = &mul5, .num_exec = 1},
  };
  for (size_t i = 0; i < sizeof null_lists / sizeof null_lists[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "NULL update list %zu", i);
    expect_refused(env, env->queue, f.r, &null_lists[i], 0, NULL, CL_INVALID_VALUE, what);
  }

  /* Out-of-range dispatch indices in each list. */
  cl_mem out = f.out;
  const cl_uint bad_index[] = {2, 3, 0xFFFFFFFFu};
  for (size_t b = 0; b < 3; b++) {
    cl_uint d = bad_index[b];
    cl_array_arg_qcom args[] = {mul5, qrq_arg(d, 1, sizeof out, &out)};
    cl_offset_qcom offsets[] = {ok_offset, {d, {0, 0, 0}}};
    cl_workgroup_qcom globals[] = {ok_global, {d, n}}, locals[] = {ok_local, {d, l}};
    cl_array_arg_qcom svm[] = {qrq_arg(d, 0, 0, f.host)};
    cl_array_kernel_exec_info_qcom exec[] = {{d, 0x7FFF0001u, sizeof(cl_uint), &five}};
    struct updates cases[] = {
        {.num_args = 2, .args = args},
        {.num_args = 1, .args = &mul5, .num_offsets = 2, .offsets = offsets},
        {.num_args = 1, .args = &mul5, .num_global = 2, .global = globals},
        {.num_args = 1, .args = &mul5, .num_local = 2, .local = locals},
        {.num_args = 1, .args = &mul5, .num_svm = 1, .svm = svm},
        {.num_args = 1, .args = &mul5, .num_exec = 1, .exec = exec},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      char what[80];
      snprintf(what, sizeof what, "dispatch index %u in update list %zu", d, i);
      expect_refused(env, env->queue, f.r, &cases[i], 0, NULL, CL_INVALID_KERNEL_ARGS, what);
    }
  }

  /* Argument values: clSetKernelArg's codes. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(f.in);
  cl_mem fake_mem = (cl_mem)&fake, queue_as_mem = (cl_mem)env->queue;
  cl_context other_context = kiln_test_context(env->device);
  cl_mem foreign_mem = qrq_buffer(other_context, ERR_N * sizeof(cl_int));
  short small = 1;
  cl_long wide = 1;
  struct {
    cl_array_arg_qcom bad;
    cl_int expected;
  } values[] = {
      {qrq_arg(0, 4, sizeof five, &five), CL_INVALID_ARG_INDEX},
      {qrq_arg(1, 3, sizeof five, &five), CL_INVALID_ARG_INDEX},
      {qrq_arg(0, 0xFFFFFFFFu, sizeof five, &five), CL_INVALID_ARG_INDEX},
      {qrq_arg(0, 2, sizeof small, &small), CL_INVALID_ARG_SIZE},
      {qrq_arg(0, 2, sizeof wide, &wide), CL_INVALID_ARG_SIZE},
      {qrq_arg(0, 2, sizeof five, NULL), CL_INVALID_ARG_VALUE},
      {qrq_arg(0, 1, sizeof(cl_int), &five), CL_INVALID_ARG_SIZE},
      {qrq_arg(0, 1, sizeof fake_mem, &fake_mem), CL_INVALID_MEM_OBJECT},
      {qrq_arg(0, 0, sizeof queue_as_mem, &queue_as_mem), CL_INVALID_MEM_OBJECT},
      {qrq_arg(0, 0, sizeof foreign_mem, &foreign_mem), CL_INVALID_MEM_OBJECT},
      {qrq_arg(1, 2, 16 * sizeof(cl_int), &five), CL_INVALID_ARG_VALUE}, /* local: value must be NULL */
      {qrq_arg(1, 2, 0, NULL), CL_INVALID_ARG_SIZE},
  };
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    /* The application's kernel gives the same code for the same clSetKernelArg. */
    cl_kernel same = values[i].bad.dispatch_index ? f.sum : f.scale;
    cl_kernel probe = clCloneKernel(same, NULL);
    assert_non_null(probe);
    assert_int_equal(values[i].expected,
                     clSetKernelArg(probe, values[i].bad.arg_index, values[i].bad.arg_size, values[i].bad.arg_value));
    assert_cl_success(clReleaseKernel(probe));
    cl_array_arg_qcom args[] = {mul5, values[i].bad};
    struct updates u = {.num_args = 2, .args = args};
    char what[64];
    snprintf(what, sizeof what, "argument update %zu", i);
    expect_refused(env, env->queue, f.r, &u, 0, NULL, values[i].expected, what);
    /* The bad one first this time. */
    cl_array_arg_qcom reversed[] = {values[i].bad, mul5};
    u.args = reversed;
    expect_refused(env, env->queue, f.r, &u, 0, NULL, values[i].expected, what);
  }

  /* A valid and an invalid update of dispatch 1: the valid one is not kept either. */
  cl_mem decoy = qrq_buffer_filled(env->queue, env->context, ERR_N / 16, -1);
  cl_array_arg_qcom decoy_then_bad[] = {qrq_arg(1, 1, sizeof decoy, &decoy), qrq_arg(1, 2, 0, NULL)};
  struct updates partly_bad = {.num_args = 2, .args = decoy_then_bad};
  expect_refused(env, env->queue, f.r, &partly_bad, 0, NULL, CL_INVALID_ARG_SIZE, "valid then invalid argument");

  /* Geometry. */
  cl_workgroup_qcom null_global = {0, NULL};
  struct updates no_global = {.num_args = 1, .args = &mul5, .num_global = 1, .global = &null_global};
  expect_refused(env, env->queue, f.r, &no_global, 0, NULL, CL_INVALID_GLOBAL_WORK_SIZE, "NULL global size");
  const size_t l5[1] = {5}, g60[1] = {60}, l0[1] = {0}, lhuge[1] = {1u << 20};
  cl_workgroup_qcom bad_locals[] = {{1, l5}, {1, l0}, {1, lhuge}};
  for (size_t i = 0; i < 3; i++) {
    struct updates u = {.num_args = 1, .args = &mul5, .num_local = 1, .local = &bad_locals[i]};
    expect_refused(env, env->queue, f.r, &u, 0, NULL, CL_INVALID_WORK_GROUP_SIZE, "bad local size");
  }
  cl_workgroup_qcom bad_global = {1, g60}; /* 60 % 16 != 0 (OpenCL C 1.2) */
  struct updates u60 = {.num_args = 1, .args = &mul5, .num_global = 1, .global = &bad_global};
  expect_refused(env, env->queue, f.r, &u60, 0, NULL, CL_INVALID_WORK_GROUP_SIZE, "global size not a multiple");

  /* SVM arguments and exec info: clSetKernelArgSVMPointer's and clSetKernelExecInfo's
   * codes (a by-value argument, an index past the last, malformed exec-info values). */
  cl_array_arg_qcom svm_by_value = qrq_arg(0, 2, 0, f.host), svm_no_arg = qrq_arg(0, 9, 0, f.host);
  struct updates svm_update = {.num_args = 1, .args = &mul5, .num_svm = 1, .svm = &svm_by_value};
  expect_refused(env, env->queue, f.r, &svm_update, 0, NULL, CL_INVALID_ARG_VALUE, "SVM argument by value");
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(f.scale, 2, f.host));
  svm_update.svm = &svm_no_arg;
  expect_refused(env, env->queue, f.r, &svm_update, 0, NULL, CL_INVALID_ARG_INDEX, "SVM argument index");
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(f.scale, 9, f.host));
  void *pointers[1] = {f.host};
  cl_bool yes = CL_TRUE;
  struct {
    cl_array_kernel_exec_info_qcom info;
    cl_int expected;
  } infos[] = {
      {{0, 0x7FFF0001u, sizeof yes, &yes}, CL_INVALID_VALUE},
      {{1, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof pointers - 1, pointers}, CL_INVALID_VALUE},
      {{0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, NULL}, CL_INVALID_VALUE},
  };
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(infos[i].expected, clSetKernelExecInfo(f.scale, infos[i].info.param_name,
                                                            infos[i].info.param_value_size, infos[i].info.param_value));
    struct updates u = {.num_args = 1, .args = &mul5, .num_exec = 1, .exec = &infos[i].info};
    expect_refused(env, env->queue, f.r, &u, 0, NULL, infos[i].expected, "exec info");
  }
  error_fixture_expect_unchanged(env, &f, "after the update errors");

  /* Later valid updates of other arguments of the same dispatches build on the recorded
   * values, not on anything a refused call set. */
  cl_int three = 3;
  cl_array_arg_qcom other_args[] = {qrq_arg(0, 3, sizeof three, &three), qrq_arg(1, 2, 16 * sizeof(cl_int), NULL)};
  struct updates other_updates = {.num_args = 2, .args = other_args};
  replay_with(false, env->queue, f.r, &other_updates);
  kiln_test_expect_scaled(env->queue, f.out, f.host, ERR_N, 2, 3, "a later update of another argument");
  kiln_test_expect_group_sums(env->queue, f.sums, f.host, ERR_N, 16, "a later update of the local argument");
  qrq_expect_all(env->queue, decoy, ERR_N / 16, -1, "the buffer of a refused update");
  /* The multiplier update alone is fine (the fixture is not broken). */
  struct updates good = {.num_args = 1, .args = &mul5};
  replay_with(true, env->queue, f.r, &good);
  kiln_test_expect_scaled(env->queue, f.out, f.host, ERR_N, 5, 3, "the valid update alone");
  assert_cl_success(clReleaseMemObject(decoy));
  assert_cl_success(clReleaseMemObject(foreign_mem));
  assert_cl_success(clReleaseContext(other_context));
  error_fixture_release(&f);
}

/* ---- events and ordering ---- */

/* user_data: int[3], calls seen for CL_SUBMITTED, CL_RUNNING and CL_COMPLETE. */
static void CL_CALLBACK count_callback(cl_event event, cl_int status, void *user_data) {
  (void)event;
  int *calls = user_data;
  if (status >= CL_COMPLETE && status <= CL_SUBMITTED)
    __atomic_add_fetch(&calls[CL_SUBMITTED - status], 1, __ATOMIC_SEQ_CST);
}

/* The returned event behaves like any command's: its info, gating by a wait list, other
 * commands waiting for it, callbacks. */
static void test_event(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 128 };
  cl_mem out = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel put = qrq_kernel(program, "put");
  qrq_arg_mem(put, 0, out);
  qrq_arg_int(put, 1, 6);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N;
  cl_recording_qcom r = qrq_record(rq, put, 1, &n, NULL);

  cl_event gate = qrq_user_event(env->context), ran = NULL;
  int callbacks[3] = {0, 0, 0};
  assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &gate, &ran));
  assert_non_null(ran);
  assert_cl_success(clSetEventCallback(ran, CL_SUBMITTED, count_callback, callbacks));
  assert_cl_success(clSetEventCallback(ran, CL_RUNNING, count_callback, callbacks));
  assert_cl_success(clSetEventCallback(ran, CL_COMPLETE, count_callback, callbacks));
  kiln_test_expect_event_info(ran, CL_COMMAND_NDRANGE_KERNEL, env->queue, env->context);
  /* Another queue's read waits for the execution. */
  cl_command_queue other = qrq_queue(env->context, env->device, 0);
  cl_int got[N];
  cl_event read = NULL;
  assert_cl_success(clEnqueueReadBuffer(other, out, CL_FALSE, 0, sizeof got, got, 1, &ran, &read));
  assert_cl_success(clFlush(env->queue));
  assert_cl_success(clFlush(other));
  usleep(20000);
  assert_true(qrq_event_status(ran) > CL_COMPLETE);
  assert_true(qrq_event_status(read) > CL_COMPLETE);
  assert_int_equal(0, __atomic_load_n(&callbacks[1], __ATOMIC_SEQ_CST)); /* not running */
  assert_int_equal(0, __atomic_load_n(&callbacks[2], __ATOMIC_SEQ_CST)); /* not complete */
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &read));
  assert_int_equal(CL_COMPLETE, qrq_event_status(ran));
  for (int i = 0; i < N; i++) assert_int_equal(6, got[i]);
  for (int i = 0; i < 2000 && __atomic_load_n(&callbacks[2], __ATOMIC_SEQ_CST) == 0; i++) usleep(1000);
  for (int c = 0; c < 3; c++)
    if (__atomic_load_n(&callbacks[c], __ATOMIC_SEQ_CST) != 1)
      fail_msg("callback for status %d called %d times", CL_SUBMITTED - c,
               __atomic_load_n(&callbacks[c], __ATOMIC_SEQ_CST));
  /* No profiling on a queue without it. */
  cl_ulong t = 0;
  assert_int_equal(CL_PROFILING_INFO_NOT_AVAILABLE,
                   clGetEventProfilingInfo(ran, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL));
  /* A NULL event pointer is fine. */
  qrq_fill(env->queue, out, N, -1);
  assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEnqueueRecordingSVMQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL,
                                                  0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  qrq_expect_all(env->queue, out, N, 6, "replays without events");

  /* A failed dependency: the replay ends as a plain launch waiting for it ends, without
   * running. */
  qrq_fill(env->queue, out, N, -1);
  cl_event bad_gate = qrq_user_event(env->context), plain = NULL, replayed = NULL;
  assert_cl_success(clEnqueueNDRangeKernel(other, put, 1, NULL, &n, NULL, 1, &bad_gate, &plain));
  assert_cl_success(
      qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &bad_gate, &replayed));
  assert_cl_success(clSetUserEventStatus(bad_gate, -7));
  clWaitForEvents(1, &plain);
  clWaitForEvents(1, &replayed);
  cl_int plain_status = qrq_event_status(plain);
  assert_true(plain_status < 0);
  assert_int_equal(plain_status, qrq_event_status(replayed));
  assert_cl_success(clFinish(other));
  assert_cl_success(clFinish(env->queue));
  qrq_expect_all(env->queue, out, N, -1, "after the failed dependency");
  assert_cl_success(clReleaseEvent(plain));
  assert_cl_success(clReleaseEvent(replayed));
  assert_cl_success(clReleaseEvent(bad_gate));

  assert_cl_success(clReleaseEvent(read));
  assert_cl_success(clReleaseEvent(ran));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(other));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

static void test_profiling(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 16 };
  cl_mem out = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel put = qrq_kernel(program, "put");
  qrq_arg_mem(put, 0, out);
  qrq_arg_int(put, 1, 9);
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  const size_t n = N;
  for (int i = 0; i < 4; i++) assert_cl_success(clEnqueueNDRangeKernel(rq, put, 1, NULL, &n, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  cl_command_queue profiling = qrq_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  for (int svm_entry = 0; svm_entry < 2; svm_entry++) {
    cl_event ev = NULL;
    struct updates none = {0};
    assert_cl_success(enqueue(svm_entry, profiling, r, &none, 0, NULL, &ev));
    assert_cl_success(clWaitForEvents(1, &ev));
    cl_ulong t[5];
    kiln_test_profiling_times(ev, t, svm_entry ? "clEnqueueRecordingSVMQCOM" : "clEnqueueRecordingQCOM");
    assert_true(t[3] > t[2]); /* four launches of 65536 items take some time */
    assert_cl_success(clReleaseEvent(ev));
  }
  qrq_expect_all(profiling, out, N, 9, "profiled replay");
  assert_cl_success(clReleaseCommandQueue(profiling));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseMemObject(out));
}

/* On an in-order queue a replay runs after the commands before it and before those after
 * it: write, replay, read, replay with an update, read — all non-blocking, behind a gate. */
static void test_in_order_with_ordinary_commands(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  static cl_int first[N], second[N], got1[N], got2[N], got3[N];
  qrq_random_ints(21, first, N, 100000);
  qrq_random_ints(22, second, N, 100000);
  cl_mem in = qrq_buffer_filled(env->queue, env->context, N, 0),
         out = qrq_buffer_filled(env->queue, env->context, N, 0);
  cl_kernel scale = qrq_kernel(program, "scale");
  kiln_test_scale_args(scale, in, out, 3, 0);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N;
  cl_recording_qcom r = qrq_record(rq, scale, 1, &n, NULL);

  cl_command_queue q = qrq_queue(env->context, env->device, 0);
  cl_event gate = qrq_user_event(env->context), last;
  assert_cl_success(clEnqueueWriteBuffer(q, in, CL_FALSE, 0, sizeof first, first, 1, &gate, NULL));
  assert_cl_success(qrq.clEnqueueRecordingQCOM(q, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(q, out, CL_FALSE, 0, sizeof got1, got1, 0, NULL, NULL));
  assert_cl_success(clEnqueueWriteBuffer(q, in, CL_FALSE, 0, sizeof second, second, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(q, out, CL_FALSE, 0, sizeof got2, got2, 0, NULL, NULL));
  cl_int add = 11;
  cl_array_arg_qcom a = qrq_arg(0, 3, sizeof add, &add);
  assert_cl_success(qrq.clEnqueueRecordingQCOM(q, r, 1, &a, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(q, out, CL_FALSE, 0, sizeof got3, got3, 0, NULL, &last));
  assert_cl_success(clFlush(q));
  usleep(10000);
  assert_true(qrq_event_status(last) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &last));
  for (int i = 0; i < N; i++) {
    if (got1[i] != first[i] * 3) fail_msg("first read, element %d: %d, expected %d", i, got1[i], first[i] * 3);
    if (got2[i] != first[i] * 3) fail_msg("second read (before the second replay), element %d: %d", i, got2[i]);
    if (got3[i] != second[i] * 3 + 11)
      fail_msg("third read, element %d: %d, expected %d", i, got3[i], second[i] * 3 + 11);
  }
  assert_cl_success(clReleaseEvent(last));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(q));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(scale));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
}

/* Everything the recording uses is released while executions are pending (the recording,
 * its recordable queue, the kernels, their program, the input buffer): they still run
 * correctly, and nothing leaks (the suite runs with KILN_LEAK_CHECK=1). */
static void test_release_while_pending(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 2048 };
  static cl_int host[N];
  qrq_random_ints(31, host, N, 100000);
  cl_program own = qrq_program(env->context, env->device, source, NULL);
  cl_mem in = qrq_buffer_with(env->context, N, host);
  cl_mem out = qrq_buffer_filled(env->queue, env->context, N, -1),
         out2 = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel scale = qrq_kernel(own, "scale");
  kiln_test_scale_args(scale, in, out, -2, 5);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N;
  cl_recording_qcom r = qrq_record(rq, scale, 1, &n, NULL);
  /* The application's kernel and program go first: updates still work. */
  assert_cl_success(clReleaseKernel(scale));
  assert_cl_success(clReleaseProgram(own));
  cl_int eight = 8;
  cl_array_arg_qcom add8 = qrq_arg(0, 3, sizeof eight, &eight);
  struct updates u = {.num_args = 1, .args = &add8};
  replay_with(false, env->queue, r, &u);
  kiln_test_expect_scaled(env->queue, out, host, N, -2, 8, "updated after the kernel and program were released");
  qrq_fill(env->queue, out, N, -1);
  cl_event gate = qrq_user_event(env->context), first = NULL, second = NULL;
  assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 1, &gate, &first));
  cl_int seven = 7;
  cl_array_arg_qcom args[] = {qrq_arg(0, 1, sizeof out2, &out2), qrq_arg(0, 3, sizeof seven, &seven)};
  assert_cl_success(qrq.clEnqueueRecordingQCOM(env->queue, r, 2, args, 0, NULL, 0, NULL, 0, NULL, 1, &gate, &second));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clFlush(env->queue));
  usleep(10000);
  assert_true(qrq_event_status(first) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &second));
  assert_int_equal(CL_COMPLETE, qrq_event_status(first));
  assert_int_equal(CL_COMPLETE, qrq_event_status(second));
  kiln_test_expect_scaled(env->queue, out, host, N, -2, 8, "pending execution of a released recording");
  kiln_test_expect_scaled(env->queue, out2, host, N, -2, 7, "pending updated execution of a released recording");
  assert_cl_success(clReleaseEvent(first));
  assert_cl_success(clReleaseEvent(second));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseMemObject(out2));
}

/* A dispatch of 1 << 18 work-items (many work-groups, shared by the workers), replayed on
 * two queues and with a smaller global size and another input. */
static void test_many_work_groups(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 18 };
  cl_int *host = malloc(N * sizeof *host), *host2 = malloc(N * sizeof *host2), *got = malloc(N * sizeof *got);
  qrq_random_ints(41, host, N, 1 << 20);
  qrq_random_ints(42, host2, N, 1 << 20);
  cl_mem in = qrq_buffer_with(env->context, N, host), in2 = qrq_buffer_with(env->context, N, host2);
  cl_mem out = qrq_buffer_filled(env->queue, env->context, N, -1);
  cl_kernel big = qrq_kernel(program, "big");
  qrq_arg_mem(big, 0, in);
  qrq_arg_mem(big, 1, out);
  qrq_arg_int(big, 2, 0);
  cl_command_queue rq = qrq_recordable_queue(env);
  const size_t n = N, l = 64;
  cl_recording_qcom r = qrq_record(rq, big, 1, &n, &l);
  cl_command_queue other = qrq_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  cl_command_queue queues[2] = {env->queue, other};
  for (int q = 0; q < 2; q++) {
    qrq_fill(env->queue, out, N, -1);
    qrq_replay(queues[q], r);
    qrq_read(queues[q], out, N * sizeof *got, got);
    for (size_t i = 0; i < N; i++) {
      cl_int want = host[i] * 3 + (cl_int)(i & 0xFFFF);
      if (got[i] != want) fail_msg("queue %d, element %zu: %d, expected %d", q, i, got[i], want);
    }
  }
  qrq_fill(env->queue, out, N, -1);
  const size_t half = N / 2;
  cl_workgroup_qcom g = {0, &half};
  cl_array_arg_qcom a[] = {qrq_arg(0, 0, sizeof in2, &in2), qrq_arg(0, 2, sizeof(cl_int), &(cl_int){-9})};
  struct updates u = {.num_args = 2, .args = a, .num_global = 1, .global = &g};
  replay_with(false, env->queue, r, &u);
  qrq_read(env->queue, out, N * sizeof *got, got);
  for (size_t i = 0; i < N; i++) {
    cl_int want = i < half ? host2[i] * 3 + (cl_int)(i & 0xFFFF) - 9 : -1;
    if (got[i] != want) fail_msg("updated, element %zu: %d, expected %d", i, got[i], want);
  }
  assert_cl_success(clReleaseCommandQueue(other));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(big));
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(in2));
  assert_cl_success(clReleaseMemObject(out));
  free(host);
  free(host2);
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      QRQ_TEST(test_spec_sample),
      QRQ_TEST(test_update_buffer_and_scalar_args),
      QRQ_TEST(test_update_local_memory_arg),
      QRQ_TEST(test_update_image_and_sampler_args),
      QRQ_TEST(test_update_global_offsets),
      QRQ_TEST(test_update_global_sizes),
      QRQ_TEST(test_update_local_sizes),
      QRQ_TEST(test_update_all_kinds_at_once),
      QRQ_TEST(test_update_several_dispatches),
      QRQ_TEST(test_pending_executions_unaffected),
      QRQ_TEST(test_enqueue_handle_errors),
      QRQ_TEST(test_enqueue_wait_list_errors),
      QRQ_TEST(test_enqueue_update_errors),
      QRQ_TEST(test_event),
      QRQ_TEST(test_profiling),
      QRQ_TEST(test_in_order_with_ordinary_commands),
      QRQ_TEST(test_release_while_pending),
      QRQ_TEST(test_many_work_groups),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
