/* The SVM rows of the seed extensions. cl_khr_command_buffer: clCommandSVMMemFillKHR,
 * clCommandSVMMemcpyKHR and a kernel with SVM pointer arguments recorded with sync points
 * and replayed, reading what the host wrote before each replay (their errors:
 * test_khr_command_buffer_record.c). cl_qcom_recordable_queues: clEnqueueRecordingSVMQCOM
 * with SVM argument updates for chosen dispatches and CL_KERNEL_EXEC_INFO_SVM_PTRS
 * exec-info updates, kept by later plain replays; a failing update changes nothing. */
#include "khr_command_buffer_test.h"
#include "qcom_recordable_test.h"

#include <stdint.h>

static const char *source =
    "kernel void scale(global const int *in, global int *out, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * k;\n"
    "}\n"
    "kernel void through_table(global int *global *table, int tables) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int t = 0; t < tables; t++) table[t][i] += 1;\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  kiln_test_program_setup(state, kiln_test_env_setup, &program, source, "-cl-std=CL3.0"); /* pointer-to-pointer parameters */
  struct kiln_test_env *env = *state;
  kcb_load(env->platform);
  qrq_load(env->platform);
  return 0;
}
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

enum { N = 1024 };

static void test_command_buffer_svm_commands(void **state) {
  struct kiln_test_env *env = *state;
  int *src = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  int *mid = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(int), 0);
  int *out = malloc(N * sizeof *out); /* system SVM */
  assert_non_null(src);
  assert_non_null(mid);
  cl_kernel scale = kcb_kernel(program, "scale");
  assert_cl_success(clSetKernelArgSVMPointer(scale, 0, mid));
  assert_cl_success(clSetKernelArgSVMPointer(scale, 1, out));
  kcb_arg_int(scale, 2, 3);
  cl_int err;
  cl_command_buffer_khr cb = kcb.clCreateCommandBufferKHR(1, &env->queue, NULL, &err);
  assert_cl_success(err);
  /* fill out with -1 | copy src -> mid (after nothing) | scale mid -> out (after both) */
  cl_int minus_one = -1;
  cl_sync_point_khr filled = 0, copied = 0;
  assert_cl_success(
      kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, out, &minus_one, sizeof minus_one, N * sizeof(int), 0, NULL, &filled, NULL));
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, mid, src, N * sizeof(int), 0, NULL, &copied, NULL));
  const cl_sync_point_khr both[] = {filled, copied};
  size_t global = N / 2; /* half of out is scaled, the rest keeps the fill */
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 2, both, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  /* Arguments were captured at record time: changing them now does not matter. */
  kcb_arg_int(scale, 2, 1000);
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) src[i] = i * (round + 1);
    memset(out, 0, N * sizeof *out);
    cl_event done;
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &done));
    assert_cl_success(clWaitForEvents(1, &done));
    assert_cl_success(clReleaseEvent(done));
    for (int i = 0; i < N; i++) {
      assert_int_equal(i * (round + 1), mid[i]);
      assert_int_equal(i < N / 2 ? 3 * i * (round + 1) : -1, out[i]);
    }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(scale));
  clSVMFree(env->context, src);
  clSVMFree(env->context, mid);
  free(out);
}

static void expect_ints(const int *got, const int *want, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) fail_msg("%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
}

/* Two dispatches of scale (in -> a, in -> b); updates point one dispatch at other SVM
 * memory; a plain replay keeps the update. */
static void test_recording_svm_argument_updates(void **state) {
  struct kiln_test_env *env = *state;
  int *in = clSVMAlloc(env->context, CL_MEM_READ_ONLY, N * sizeof(int), 0);
  int *other_in = malloc(N * sizeof(int));
  int *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(int), 0);
  int *b = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(int), 0);
  int *c = malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) in[i] = i, other_in[i] = 10 * i;
  cl_kernel k0 = kcb_kernel(program, "scale"), k1 = kcb_kernel(program, "scale");
  assert_cl_success(clSetKernelArgSVMPointer(k0, 0, in));
  assert_cl_success(clSetKernelArgSVMPointer(k0, 1, a));
  kcb_arg_int(k0, 2, 2);
  assert_cl_success(clSetKernelArgSVMPointer(k1, 0, in));
  assert_cl_success(clSetKernelArgSVMPointer(k1, 1, b));
  kcb_arg_int(k1, 2, 5);
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(rq, k0, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(rq, k1, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  int want_a[N], want_b[N], want_c[N];
  qrq_replay(env->queue, r);
  for (int i = 0; i < N; i++) want_a[i] = 2 * i, want_b[i] = 5 * i;
  expect_ints(a, want_a, N, "first replay, a");
  expect_ints(b, want_b, N, "first replay, b");

  /* Dispatch 1 reads other_in and writes c (both malloc'd); dispatch 0 is unchanged. */
  cl_array_arg_qcom updates[2] = {qrq_arg(1, 0, 0, other_in), qrq_arg(1, 1, 0, c)};
  memset(a, 0, N * sizeof(int));
  memset(c, 0, N * sizeof(int));
  cl_event done;
  assert_cl_success(qrq.clEnqueueRecordingSVMQCOM(env->queue, r, 0, NULL, 2, updates, 0, NULL, 0, NULL, 0, NULL, 0,
                                                  NULL, 0, NULL, &done));
  assert_cl_success(clWaitForEvents(1, &done));
  assert_cl_success(clReleaseEvent(done));
  for (int i = 0; i < N; i++) want_c[i] = 50 * i;
  expect_ints(a, want_a, N, "updated replay, a");
  expect_ints(c, want_c, N, "updated replay, c");
  /* The kernels themselves were not changed. */
  memset(b, 0, N * sizeof(int));
  memset(c, 0, N * sizeof(int));
  qrq_replay(env->queue, r); /* keeps the update: c again, b untouched */
  expect_ints(c, want_c, N, "plain replay after the update, c");
  for (int i = 0; i < N; i++) assert_int_equal(0, b[i]);

  /* A failing update (a by-value argument as SVM) applies nothing, not even its valid part. */
  cl_array_arg_qcom bad[2] = {qrq_arg(0, 1, 0, c), qrq_arg(0, 2, 0, c)};
  assert_int_equal(CL_INVALID_ARG_VALUE, qrq.clEnqueueRecordingSVMQCOM(env->queue, r, 0, NULL, 2, bad, 0, NULL, 0,
                                                                       NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  memset(a, 0, N * sizeof(int));
  qrq_replay(env->queue, r);
  expect_ints(a, want_a, N, "replay after a refused update, a");

  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k0));
  assert_cl_success(clReleaseKernel(k1));
  clSVMFree(env->context, in);
  clSVMFree(env->context, a);
  clSVMFree(env->context, b);
  free(other_in);
  free(c);
}

/* A dispatch reaching arrays only through a table: the update names a new table (SVM
 * argument) and the arrays it reaches (CL_KERNEL_EXEC_INFO_SVM_PTRS); malformed exec info
 * is refused with clSetKernelExecInfo's code. */
static void test_recording_exec_info_updates(void **state) {
  struct kiln_test_env *env = *state;
  int *arrays[4];
  for (int t = 0; t < 4; t++) {
    arrays[t] = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(int), 0);
    assert_non_null(arrays[t]);
    for (int i = 0; i < N; i++) arrays[t][i] = t * 100000 + i;
  }
  int **first = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 2 * sizeof(int *), 0);
  int **second = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 2 * sizeof(int *), 0);
  first[0] = arrays[0], first[1] = arrays[1];
  second[0] = arrays[2], second[1] = arrays[3];
  cl_kernel k = kcb_kernel(program, "through_table");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, first));
  kcb_arg_int(k, 1, 2);
  void *first_reached[2] = {arrays[0], arrays[1]};
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof first_reached, first_reached));
  cl_command_queue rq = qrq_recordable_queue(env);
  size_t global = N;
  cl_recording_qcom r = qrq_record(rq, k, 1, &global, NULL);
  qrq_replay(env->queue, r); /* arrays 0 and 1 += 1 */

  cl_array_arg_qcom table = qrq_arg(0, 0, 0, second);
  void *second_reached[2] = {arrays[2], arrays[3]};
  cl_array_kernel_exec_info_qcom info = {0, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof second_reached, second_reached};
  cl_event done;
  assert_cl_success(qrq.clEnqueueRecordingSVMQCOM(env->queue, r, 0, NULL, 1, &table, 0, NULL, 0, NULL, 0, NULL, 1,
                                                  &info, 0, NULL, &done));
  assert_cl_success(clWaitForEvents(1, &done));
  assert_cl_success(clReleaseEvent(done));
  qrq_replay(env->queue, r); /* arrays 2 and 3 += 1 again */
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < N; i++) assert_int_equal(t * 100000 + i + (t < 2 ? 1 : 2), arrays[t][i]);

  cl_array_kernel_exec_info_qcom malformed[] = {
      {0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, second_reached},
      {0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool), NULL},
  };
  for (int m = 0; m < 2; m++)
    assert_int_equal(CL_INVALID_VALUE, qrq.clEnqueueRecordingSVMQCOM(env->queue, r, 0, NULL, 0, NULL, 0, NULL, 0,
                                                                     NULL, 0, NULL, 1, &malformed[m], 0, NULL, NULL));
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  for (int t = 0; t < 4; t++) clSVMFree(env->context, arrays[t]);
  clSVMFree(env->context, first);
  clSVMFree(env->context, second);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_command_buffer_svm_commands),
      KILN_GATED_TEST(test_recording_svm_argument_updates),
      KILN_GATED_TEST(test_recording_exec_info_updates),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
