/* qcom_recordable_test.h: what the cl_qcom_recordable_queues suites share. The ICD loader
 * does not export the extension's entry points, so every suite calls them through `qrq`,
 * filled from clGetExtensionFunctionAddressForPlatform by qrq_setup; plus helpers for
 * queues, recordings, buffers, programs and user events that fail the test on any error.
 *
 * Calls on the recording functions go straight to Kiln (the loader only hands out their
 * addresses), so NULL, foreign and released recording handles can be passed to them. */
#ifndef QCOM_RECORDABLE_TEST_H
#define QCOM_RECORDABLE_TEST_H

#include <CL/cl_ext_qcom.h>

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QRQ_FUNCTIONS(X)                                                                                               \
  X(clNewRecordingQCOM)                                                                                                \
  X(clEndRecordingQCOM)                                                                                                \
  X(clRetainRecordingQCOM)                                                                                             \
  X(clReleaseRecordingQCOM)                                                                                            \
  X(clEnqueueRecordingQCOM)                                                                                            \
  X(clEnqueueRecordingSVMQCOM)

/* The entry points, typed with the header's *_fn pointer types. */
struct qrq_api {
#define QRQ_MEMBER(name) name##_fn name;
  QRQ_FUNCTIONS(QRQ_MEMBER)
#undef QRQ_MEMBER
};
static struct qrq_api qrq;

/* The header's pointer types are those of its prototypes. */
#define QRQ_SAME_TYPE(name)                                                                                            \
  _Static_assert(__builtin_types_compatible_p(name##_fn, __typeof__(&name)), #name "_fn matches " #name);
QRQ_FUNCTIONS(QRQ_SAME_TYPE)
#undef QRQ_SAME_TYPE

static inline void qrq_load(cl_platform_id platform) {
#define QRQ_LOAD(name) qrq.name = (name##_fn)kiln_test_extension_function(platform, #name);
  QRQ_FUNCTIONS(QRQ_LOAD)
#undef QRQ_LOAD
}

/* Group fixture: kiln_test_env (context and in-order live queue) plus the entry points. */
static inline int qrq_setup(void **state) {
  kiln_test_env_setup(state);
  qrq_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

/* Shared object helpers (kiln_test_objects.h) under this suite's prefix. */
#define qrq_queue kiln_test_queue
#define qrq_buffer kiln_test_buffer
#define qrq_program kiln_test_program
#define qrq_kernel kiln_test_kernel
#define qrq_arg_mem kiln_test_arg_mem
#define qrq_arg_int kiln_test_arg_int
#define qrq_event_status kiln_test_event_status
#define qrq_read kiln_test_read
#define qrq_write kiln_test_write
#define qrq_expect_ints kiln_test_expect_ints
#define qrq_buffer_with kiln_test_buffer_with
#define qrq_fill kiln_test_fill_ints
#define qrq_read_int kiln_test_read_int

/* ---- queues and recordings ---- */

static inline cl_command_queue qrq_recordable_queue(struct kiln_test_env *env) {
  return qrq_queue(env->context, env->device, CL_QUEUE_RECORDABLE_QCOM);
}

static inline cl_recording_qcom qrq_new(cl_command_queue recordable) {
  cl_int err = CL_INVALID_VALUE;
  cl_recording_qcom recording = qrq.clNewRecordingQCOM(recordable, &err);
  assert_cl_success(err);
  assert_non_null(recording);
  return recording;
}

/* A new recording on `recordable` of one NDRange of `kernel` (no offset), ended. */
static inline cl_recording_qcom qrq_record(cl_command_queue recordable, cl_kernel kernel, cl_uint dim,
                                           const size_t *global, const size_t *local) {
  cl_recording_qcom recording = qrq_new(recordable);
  assert_cl_success(clEnqueueNDRangeKernel(recordable, kernel, dim, NULL, global, local, 0, NULL, NULL));
  assert_cl_success(qrq.clEndRecordingQCOM(recording));
  return recording;
}

static inline cl_uint qrq_queue_refcount(cl_command_queue queue) {
  cl_uint refs = 0;
  assert_cl_success(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  return refs;
}

/* A replay without updates, waited for. */
static inline void qrq_replay(cl_command_queue queue, cl_recording_qcom recording) {
  cl_event done = NULL;
  assert_cl_success(qrq.clEnqueueRecordingQCOM(queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, &done));
  assert_non_null(done);
  assert_cl_success(clWaitForEvents(1, &done));
  assert_cl_success(clReleaseEvent(done));
}

/* A replay with argument updates only (clEnqueueRecordingQCOM's result). */
static inline cl_int qrq_replay_args(cl_command_queue queue, cl_recording_qcom recording, size_t count,
                                     const cl_array_arg_qcom *args) {
  return qrq.clEnqueueRecordingQCOM(queue, recording, count, args, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
}

static inline cl_array_arg_qcom qrq_arg(cl_uint dispatch, cl_uint index, size_t size, const void *value) {
  cl_array_arg_qcom a = {dispatch, index, size, value};
  return a;
}

/* ---- programs, kernels, buffers ---- */

/* A buffer of `count` ints, all `value`. */
static inline cl_mem qrq_buffer_filled(cl_command_queue queue, cl_context context, size_t count, cl_int value) {
  cl_mem buffer = qrq_buffer(context, count * sizeof(cl_int));
  qrq_fill(queue, buffer, count, value);
  return buffer;
}

/* Reads `count` ints of `buffer` and fails unless every one is `value`. */
static inline void qrq_expect_all(cl_command_queue queue, cl_mem buffer, size_t count, cl_int value, const char *what) {
  cl_int *got = malloc(count * sizeof *got);
  qrq_read(queue, buffer, count * sizeof *got, got);
  for (size_t i = 0; i < count; i++)
    if (got[i] != value) {
      cl_int bad = got[i];
      free(got);
      fail_msg("%s: element %zu is %d, expected %d", what, i, bad, value);
    }
  free(got);
}

/* kiln_test_random_ints from a fresh `seed`. */
static inline void qrq_random_ints(cl_uint seed, cl_int *out, size_t count, cl_int range) {
  kiln_test_random_ints(&seed, out, count, range);
}

/* The `count` kernel of `program` (KILN_TEST_COUNT_SOURCE) on a fresh zeroed counter
 * (returned through *counter). */
static inline cl_kernel qrq_counting_kernel(struct kiln_test_env *env, cl_program program, cl_mem *counter) {
  *counter = qrq_buffer_filled(env->queue, env->context, 1, 0);
  cl_kernel k = qrq_kernel(program, "count");
  qrq_arg_mem(k, 0, *counter);
  return k;
}

/* ---- events ---- */

/* User events a failed test cannot leave closed (kiln_test_gates.h). */
static inline cl_event qrq_user_event(cl_context context) { return kiln_test_gate_new(context); }
#define QRQ_TEST(f) KILN_GATED_TEST(f)

#endif
