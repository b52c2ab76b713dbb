/* cl_qcom_recordable_queues with shared virtual memory: clEnqueueRecordingSVMQCOM's
 * arg_svm_array updates, per dispatch_index (one kernel object recorded three times is
 * three dispatches, each updated on its own; SVM updates beside by-value updates in
 * arg_array; pointers into the middle of allocations, and malloc'd memory), persistent for
 * later plain replays and invisible to the kernel object; its non_arg_obj_array updates of
 * CL_KERNEL_EXEC_INFO_SVM_PTRS (per dispatch: a dispatch reaching arrays through a table
 * is pointed at a new table and told of its arrays) and CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM;
 * a replay with updates that waits for its wait list; and the update errors the extension
 * lists (dispatch index out of range, argument index invalid) plus clSetKernelExecInfo's
 * CL_INVALID_VALUE cases for exec-info updates. Every result is checked on the host. */
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

static int setup(void **state) { return kiln_test_program_setup(state, qrq_setup, &program, source, "-cl-std=CL3.0"); }
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

enum { N = 512 };

/* clEnqueueRecordingSVMQCOM with argument, SVM argument and exec-info updates only. */
static cl_int replay_svm(cl_command_queue q, cl_recording_qcom r, size_t num_args, const cl_array_arg_qcom *args,
                         size_t num_svm, const cl_array_arg_qcom *svm, size_t num_exec,
                         const cl_array_kernel_exec_info_qcom *exec, cl_uint num_events, const cl_event *wait,
                         cl_event *event) {
  return qrq.clEnqueueRecordingSVMQCOM(q, r, num_args, args, num_svm, svm, 0, NULL, 0, NULL, 0, NULL, num_exec, exec,
                                       num_events, wait, event);
}

/* The same, waited for. */
static void replay_svm_done(cl_command_queue q, cl_recording_qcom r, size_t num_args, const cl_array_arg_qcom *args,
                            size_t num_svm, const cl_array_arg_qcom *svm, size_t num_exec,
                            const cl_array_kernel_exec_info_qcom *exec) {
  cl_event done = NULL;
  cl_int err = replay_svm(q, r, num_args, args, num_svm, svm, num_exec, exec, 0, NULL, &done);
  if (err != CL_SUCCESS) fail_msg("clEnqueueRecordingSVMQCOM with updates: %d", err);
  assert_cl_success(clWaitForEvents(1, &done));
  assert_int_equal(CL_COMPLETE, qrq_event_status(done));
  assert_cl_success(clReleaseEvent(done));
}

/* Fails unless out[i] == in[i] * k for every i (in == NULL: out[i] == k, untouched). */
static void expect_scaled(const cl_int *out, const cl_int *in, cl_int k, const char *what) {
  for (int i = 0; i < N; i++) {
    cl_int want = in ? in[i] * k : k;
    if (out[i] != want) fail_msg("%s: element %d is %d, expected %d", what, i, out[i], want);
  }
}

static cl_int *fine_alloc(cl_context context, size_t count) {
  cl_int *p = clSVMAlloc(context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, count * sizeof(cl_int), 0);
  assert_non_null(p);
  return p;
}

static void set_all(cl_int *p, size_t count, cl_int value) {
  for (size_t i = 0; i < count; i++) p[i] = value;
}

/* ---- SVM argument updates ---- */

static void test_svm_argument_updates_per_dispatch(void **state) {
  struct kiln_test_env *env = *state;
  cl_int *a = fine_alloc(env->context, N), *b = fine_alloc(env->context, N), *c = fine_alloc(env->context, N);
  cl_int *x = fine_alloc(env->context, N), *y = fine_alloc(env->context, N), *z = fine_alloc(env->context, N);
  cl_int *w = malloc((N + 8) * sizeof *w); /* system memory; the update points into its middle */
  for (int i = 0; i < N; i++) a[i] = i, b[i] = 1000 - i, c[i] = i * i % 977;
  /* One kernel object, three dispatches with their own arguments. */
  cl_kernel k = qrq_kernel(program, "scale");
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  size_t global = N;
  cl_int *ins[3] = {a, b, c}, *outs[3] = {x, y, z};
  const cl_int ks[3] = {2, 3, 5};
  for (int d = 0; d < 3; d++) {
    assert_cl_success(clSetKernelArgSVMPointer(k, 0, ins[d]));
    assert_cl_success(clSetKernelArgSVMPointer(k, 1, outs[d]));
    qrq_arg_int(k, 2, ks[d]);
    assert_cl_success(clEnqueueNDRangeKernel(rq, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  }
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_replay(env->queue, r);
  expect_scaled(x, a, 2, "dispatch 0, first replay");
  expect_scaled(y, b, 3, "dispatch 1, first replay");
  expect_scaled(z, c, 5, "dispatch 2, first replay");

  /* Dispatch 0 writes into the middle of w; dispatch 2 reads b; dispatch 1 gets k = 7 through
   * arg_array in the same call. Gated: nothing runs before the wait list. */
  set_all(x, N, -1), set_all(y, N, -1), set_all(z, N, -1), set_all(w, N + 8, -1);
  cl_array_arg_qcom svm[2] = {qrq_arg(0, 1, 0, w + 8), qrq_arg(2, 0, 0, b)};
  cl_int seven = 7;
  cl_array_arg_qcom by_value = qrq_arg(1, 2, sizeof seven, &seven);
  cl_event gate = qrq_user_event(env->context), done = NULL;
  assert_cl_success(replay_svm(env->queue, r, 1, &by_value, 2, svm, 0, NULL, 1, &gate, &done));
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(20);
  expect_scaled(w + 8, NULL, -1, "w before the gate opened");
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &done));
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(clReleaseEvent(gate));
  expect_scaled(w + 8, a, 2, "dispatch 0 into w");
  for (int i = 0; i < 8; i++) assert_int_equal(-1, w[i]); /* before the middle: untouched */
  expect_scaled(x, NULL, -1, "x after dispatch 0 moved");
  expect_scaled(y, b, 7, "dispatch 1 with k = 7");
  expect_scaled(z, b, 5, "dispatch 2 reading b");

  /* The updates persist for plain replays; the host's new data is read when they run. */
  for (int i = 0; i < N; i++) a[i] = -3 * i, b[i] = i + 17;
  set_all(w, N + 8, -1), set_all(y, N, -1), set_all(z, N, -1);
  qrq_replay(env->queue, r);
  expect_scaled(w + 8, a, 2, "plain replay, dispatch 0");
  expect_scaled(x, NULL, -1, "plain replay, x");
  expect_scaled(y, b, 7, "plain replay, dispatch 1");
  expect_scaled(z, b, 5, "plain replay, dispatch 2");

  /* The kernel object kept its own arguments (c -> z, k = 5). */
  set_all(z, N, -1);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  expect_scaled(z, c, 5, "the kernel object run directly");

  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  cl_int *all[] = {a, b, c, x, y, z};
  for (int i = 0; i < 6; i++) clSVMFree(env->context, all[i]);
  free(w);
}

/* A coarse-grain input replaced by another coarse-grain allocation, updated each replay. */
static void test_svm_argument_update_each_replay(void **state) {
  struct kiln_test_env *env = *state;
  enum { ROUNDS = 4 };
  cl_int *inputs[ROUNDS];
  for (int round = 0; round < ROUNDS; round++) {
    inputs[round] = clSVMAlloc(env->context, CL_MEM_READ_ONLY, N * sizeof(cl_int), 0);
    assert_non_null(inputs[round]);
    assert_cl_success(
        clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, inputs[round], N * sizeof(cl_int), 0, NULL, NULL));
    for (int i = 0; i < N; i++) inputs[round][i] = round * 100 + i;
    assert_cl_success(clEnqueueSVMUnmap(env->queue, inputs[round], 0, NULL, NULL));
  }
  cl_int *out = fine_alloc(env->context, N);
  cl_kernel k = qrq_kernel(program, "scale");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, inputs[0]));
  assert_cl_success(clSetKernelArgSVMPointer(k, 1, out));
  qrq_arg_int(k, 2, -1);
  cl_command_queue rq = qrq_recordable_queue(env);
  size_t global = N;
  cl_recording_qcom r = qrq_record(rq, k, 1, &global, NULL);
  assert_cl_success(clFinish(env->queue));
  for (int round = 0; round < ROUNDS; round++) {
    cl_array_arg_qcom in = qrq_arg(0, 0, 0, inputs[(round + 1) % ROUNDS]);
    replay_svm_done(env->queue, r, 0, NULL, 1, &in, 0, NULL);
    cl_int want[N];
    for (int i = 0; i < N; i++) want[i] = -(((round + 1) % ROUNDS) * 100 + i);
    qrq_expect_ints(want, out, N, "updated input");
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  for (int round = 0; round < ROUNDS; round++) clSVMFree(env->context, inputs[round]);
  clSVMFree(env->context, out);
}

/* ---- exec-info updates ---- */

/* arrays[t][i] must be base(t) + i + bumps[t] for every i. */
static void expect_bumps(cl_int **arrays, int count, const int *bumps, const char *what) {
  for (int t = 0; t < count; t++)
    for (int i = 0; i < N; i++)
      if (arrays[t][i] != t * 10000 + i + bumps[t])
        fail_msg("%s: array %d element %d is %d, expected %d", what, t, i, arrays[t][i], t * 10000 + i + bumps[t]);
}

static void test_exec_info_updates_per_dispatch(void **state) {
  struct kiln_test_env *env = *state;
  enum { ARRAYS = 6 };
  cl_int *arrays[ARRAYS];
  for (int t = 0; t < ARRAYS; t++) {
    arrays[t] = fine_alloc(env->context, N);
    for (int i = 0; i < N; i++) arrays[t][i] = t * 10000 + i;
  }
  /* Tables: T0 = {a0, a1}, T1 = {a2, a3}, T2 = {a4, a5}; each in its own allocation. */
  cl_int **tables[3];
  for (int t = 0; t < 3; t++) {
    tables[t] = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 2 * sizeof(cl_int *), 0);
    assert_non_null(tables[t]);
    tables[t][0] = arrays[2 * t], tables[t][1] = arrays[2 * t + 1];
  }
  cl_kernel k = qrq_kernel(program, "through_table");
  qrq_arg_int(k, 1, 2);
  cl_command_queue rq = qrq_recordable_queue(env);
  cl_recording_qcom r = qrq_new(rq);
  size_t global = N;
  for (int d = 0; d < 2; d++) { /* dispatch d walks table d */
    void *reached[2] = {arrays[2 * d], arrays[2 * d + 1] + 5};
    assert_cl_success(clSetKernelArgSVMPointer(k, 0, tables[d]));
    assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
    assert_cl_success(clEnqueueNDRangeKernel(rq, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  }
  assert_cl_success(qrq.clEndRecordingQCOM(r));
  qrq_replay(env->queue, r);
  int bumps[ARRAYS] = {1, 1, 1, 1, 0, 0};
  expect_bumps(arrays, ARRAYS, bumps, "first replay");

  /* Dispatch 1 now walks T2 and is told of a4 and a5; dispatch 0 is unchanged. */
  cl_array_arg_qcom table = qrq_arg(1, 0, 0, tables[2]);
  void *reached[2] = {arrays[4] + N - 1, arrays[5]};
  cl_array_kernel_exec_info_qcom info = {1, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached};
  replay_svm_done(env->queue, r, 0, NULL, 1, &table, 1, &info);
  memset(reached, 0, sizeof reached); /* the list was taken at the call */
  bumps[0] = bumps[1] = 2, bumps[4] = bumps[5] = 1;
  expect_bumps(arrays, ARRAYS, bumps, "after updating dispatch 1");
  qrq_replay(env->queue, r);
  bumps[0] = bumps[1] = 3, bumps[4] = bumps[5] = 2;
  expect_bumps(arrays, ARRAYS, bumps, "plain replay after the update");

  /* Dispatch 0 walks a malloc'd table of malloc'd arrays: fine-grain system SVM, declared
   * with CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, and the empty SVM pointer set. */
  cl_int *m0 = malloc(N * sizeof *m0), *m1 = malloc(N * sizeof *m1);
  cl_int **mtable = malloc(2 * sizeof *mtable);
  for (int i = 0; i < N; i++) m0[i] = i, m1[i] = 2 * i;
  mtable[0] = m0, mtable[1] = m1;
  cl_bool yes = CL_TRUE;
  cl_array_kernel_exec_info_qcom system_infos[2] = {
      {0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes},
      {0, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL},
  };
  cl_array_arg_qcom system_table = qrq_arg(0, 0, 0, mtable);
  replay_svm_done(env->queue, r, 0, NULL, 1, &system_table, 2, system_infos);
  for (int i = 0; i < N; i++) {
    assert_int_equal(i + 1, m0[i]);
    assert_int_equal(2 * i + 1, m1[i]);
  }
  bumps[4] = bumps[5] = 3; /* dispatch 1 ran as updated before */
  expect_bumps(arrays, ARRAYS, bumps, "dispatch 0 on system memory");

  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  for (int t = 0; t < ARRAYS; t++) clSVMFree(env->context, arrays[t]);
  for (int t = 0; t < 3; t++) clSVMFree(env->context, tables[t]);
  free(m0);
  free(m1);
  free(mtable);
}

/* ---- errors ---- */

static void test_update_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int *in = fine_alloc(env->context, N), *out = fine_alloc(env->context, N), *other = fine_alloc(env->context, N);
  for (int i = 0; i < N; i++) in[i] = i + 1;
  cl_kernel k = qrq_kernel(program, "scale");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, in));
  assert_cl_success(clSetKernelArgSVMPointer(k, 1, out));
  qrq_arg_int(k, 2, 4);
  cl_command_queue rq = qrq_recordable_queue(env);
  size_t global = N;
  cl_recording_qcom r = qrq_record(rq, k, 1, &global, NULL); /* one dispatch: index 0 */
  cl_command_queue q = env->queue;
  /* A dispatch index out of bounds: CL_INVALID_KERNEL_ARGS, in either list. */
  cl_array_arg_qcom far = qrq_arg(1, 1, 0, other);
  assert_int_equal(CL_INVALID_KERNEL_ARGS, replay_svm(q, r, 0, NULL, 1, &far, 0, NULL, 0, NULL, NULL));
  far = qrq_arg(1000, 0, 0, other);
  assert_int_equal(CL_INVALID_KERNEL_ARGS, replay_svm(q, r, 0, NULL, 1, &far, 0, NULL, 0, NULL, NULL));
  void *ptrs[1] = {other};
  cl_array_kernel_exec_info_qcom far_info = {1, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, ptrs};
  assert_int_equal(CL_INVALID_KERNEL_ARGS, replay_svm(q, r, 0, NULL, 0, NULL, 1, &far_info, 0, NULL, NULL));
  /* A valid dispatch, an invalid argument index: CL_INVALID_ARG_INDEX. */
  cl_array_arg_qcom bad_index = qrq_arg(0, 3, 0, other);
  assert_int_equal(CL_INVALID_ARG_INDEX, replay_svm(q, r, 0, NULL, 1, &bad_index, 0, NULL, 0, NULL, NULL));
  bad_index = qrq_arg(0, (cl_uint)-1, 0, other);
  assert_int_equal(CL_INVALID_ARG_INDEX, replay_svm(q, r, 0, NULL, 1, &bad_index, 0, NULL, 0, NULL, NULL));
  /* Exec-info values as clSetKernelExecInfo would refuse them: CL_INVALID_VALUE. */
  cl_bool yes = CL_TRUE;
  const cl_array_kernel_exec_info_qcom bad_infos[] = {
      {0, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, NULL},
      {0, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *) + 1, ptrs},
      {0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, NULL},
      {0, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &yes},
      {0, 0x7777, sizeof yes, &yes},
  };
  for (size_t i = 0; i < sizeof bad_infos / sizeof bad_infos[0]; i++) {
    cl_int err = replay_svm(q, r, 0, NULL, 0, NULL, 1, &bad_infos[i], 0, NULL, NULL);
    if (err != CL_INVALID_VALUE) fail_msg("exec-info update %zu: %d, expected CL_INVALID_VALUE", i, err);
  }
  /* The recording is unchanged by the refused calls: in -> out, k = 4; `other` untouched. */
  set_all(out, N, -1), set_all(other, N, -1);
  qrq_replay(q, r);
  expect_scaled(out, in, 4, "replay after refused updates");
  expect_scaled(other, NULL, -1, "other after refused updates");
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  clSVMFree(env->context, in);
  clSVMFree(env->context, out);
  clSVMFree(env->context, other);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      QRQ_TEST(test_svm_argument_updates_per_dispatch),
      QRQ_TEST(test_svm_argument_update_each_replay),
      QRQ_TEST(test_exec_info_updates_per_dispatch),
      QRQ_TEST(test_update_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
