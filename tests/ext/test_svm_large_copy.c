/* Large SVM copies: from 8 MiB on, Kiln runs clEnqueueSVMMemcpy as a launch of 1 MiB
 * chunks that the workers share, with streaming stores. Every byte is checked, for
 * unaligned ends and sizes that are no multiple of a chunk, enqueued (blocking and with an
 * event), recorded in a command buffer and replayed, on a queue limited to one compute
 * unit (cl_arm_scheduling_controls), and beside a small copy that takes the other path. */
#include "khr_command_buffer_test.h"

#include <CL/kiln_arm_scheduling_controls.h>

#include <stdint.h>

enum { MIB = 1 << 20 };

/* Bytes no copy of another offset reproduces. */
static unsigned char byte_at(size_t i, unsigned salt) { return (unsigned char)((i * 2654435761u) >> 13) ^ salt; }

static void fill_source(unsigned char *p, size_t size, unsigned salt) {
  for (size_t i = 0; i < size; i++) p[i] = byte_at(i, salt);
}

/* dst[0..size) must equal the source pattern; `guard` bytes after it keep 0xEE. */
static void expect_copy(const unsigned char *dst, size_t size, unsigned salt, size_t guard, const char *what) {
  for (size_t i = 0; i < size; i++)
    if (dst[i] != byte_at(i, salt)) fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, dst[i], byte_at(i, salt));
  for (size_t i = 0; i < guard; i++)
    if (dst[size + i] != 0xEE) fail_msg("%s: byte %zu after the copy was written", what, i);
}

struct sizes {
  size_t size, src_offset, dst_offset;
};

static const struct sizes cases[] = {
    {8 * MIB, 0, 0},                 /* the threshold, whole chunks */
    {8 * MIB + 12345, 3, 7},         /* a partial last chunk, unaligned ends */
    {33 * MIB + 1, 1, 64},           /* many chunks, odd size */
    {4 * MIB + 5, 0, 9},             /* below the threshold: one memcpy */
};

static void test_enqueued(void **state) {
  struct kiln_test_env *env = *state;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const struct sizes *s = &cases[c];
    size_t guard = 4096;
    unsigned char *src = clSVMAlloc(env->context, CL_MEM_READ_WRITE, s->size + s->src_offset, 0);
    unsigned char *dst = clSVMAlloc(env->context, CL_MEM_READ_WRITE, s->size + s->dst_offset + guard, 0);
    assert_non_null(src);
    assert_non_null(dst);
    fill_source(src + s->src_offset, s->size, (unsigned)c);
    memset(dst, 0xEE, s->size + s->dst_offset + guard);
    assert_cl_success(
        clEnqueueSVMMemcpy(env->queue, CL_TRUE, dst + s->dst_offset, src + s->src_offset, s->size, 0, NULL, NULL));
    expect_copy(dst + s->dst_offset, s->size, (unsigned)c, guard, "blocking copy");
    for (size_t i = 0; i < s->dst_offset; i++) assert_int_equal(0xEE, dst[i]);

    /* Non-blocking, with an event of the SVM memcpy type. */
    memset(dst, 0xEE, s->size + s->dst_offset + guard);
    cl_event event = NULL;
    assert_cl_success(
        clEnqueueSVMMemcpy(env->queue, CL_FALSE, dst + s->dst_offset, src + s->src_offset, s->size, 0, NULL, &event));
    assert_cl_success(clWaitForEvents(1, &event));
    cl_command_type type = 0;
    assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    assert_int_equal(CL_COMMAND_SVM_MEMCPY, type);
    cl_int status = 1;
    assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    assert_int_equal(CL_COMPLETE, status);
    assert_cl_success(clReleaseEvent(event));
    expect_copy(dst + s->dst_offset, s->size, (unsigned)c, guard, "copy with an event");
    clSVMFree(env->context, src);
    clSVMFree(env->context, dst);
  }
}

/* Recorded once, replayed three times with new source contents each time. */
static void test_command_buffer(void **state) {
  struct kiln_test_env *env = *state;
  size_t size = 20 * MIB + 77, guard = 64;
  unsigned char *src = clSVMAlloc(env->context, CL_MEM_READ_WRITE, size, 0);
  unsigned char *mid = clSVMAlloc(env->context, CL_MEM_READ_WRITE, size, 0);
  unsigned char *dst = malloc(size + guard); /* system SVM */
  assert_non_null(src);
  assert_non_null(mid);
  assert_non_null(dst);
  cl_int err;
  cl_command_buffer_khr cb = kcb.clCreateCommandBufferKHR(1, &env->queue, NULL, &err);
  assert_cl_success(err);
  cl_sync_point_khr first = 0;
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, mid, src, size, 0, NULL, &first, NULL));
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, dst, mid, size, 1, &first, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  for (unsigned round = 0; round < 3; round++) {
    fill_source(src, size, 40 + round);
    memset(dst, 0xEE, size + guard);
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    expect_copy(dst, size, 40 + round, guard, "replayed copies");
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  clSVMFree(env->context, src);
  clSVMFree(env->context, mid);
  free(dst);
}

/* A queue limited to one compute unit still completes the copy. */
static void test_compute_unit_limit(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties properties[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  assert_cl_success(err);
  size_t size = 9 * MIB + 3;
  unsigned char *src = malloc(size), *dst = malloc(size + 16);
  assert_non_null(src);
  assert_non_null(dst);
  fill_source(src, size, 9);
  memset(dst, 0xEE, size + 16);
  assert_cl_success(clEnqueueSVMMemcpy(q, CL_TRUE, dst, src, size, 0, NULL, NULL));
  expect_copy(dst, size, 9, 16, "copy under a compute-unit limit");
  assert_cl_success(clReleaseCommandQueue(q));
  free(src);
  free(dst);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_enqueued),
      KILN_GATED_TEST(test_command_buffer),
      KILN_GATED_TEST(test_compute_unit_limit),
  };
  return cmocka_run_group_tests(tests, kcb_setup, kiln_test_env_teardown);
}
