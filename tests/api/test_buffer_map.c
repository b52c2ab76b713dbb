/* clEnqueueMapBuffer / clEnqueueUnmapMemObject: zero-copy pointers, data visible in
 * both directions, CL_MEM_MAP_COUNT, non-blocking maps with events, the map-flag and
 * host-access rules, and unmap of pointers that were never mapped. */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <stdlib.h>
#include <string.h>

static cl_mem make_buffer(struct kiln_test_env *env, cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, flags, size, host, &err);
  assert_cl_success(err);
  return mem;
}

static cl_uint map_count(cl_mem mem) {
  cl_uint n = 99;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_MAP_COUNT, sizeof n, &n, NULL));
  return n;
}

static void *map(struct kiln_test_env *env, cl_mem mem, cl_map_flags flags, size_t offset, size_t size) {
  cl_int err = -1;
  void *p = clEnqueueMapBuffer(env->queue, mem, CL_TRUE, flags, offset, size, 0, NULL, NULL, &err);
  assert_cl_success(err);
  assert_non_null(p);
  return p;
}

static void test_map_plain_buffer(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  int init[N];
  for (int i = 0; i < N; i++) init[i] = i * 5 - 7;
  cl_mem mem = make_buffer(env, CL_MEM_COPY_HOST_PTR, sizeof init, init);
  /* read through a map */
  int *p = map(env, mem, CL_MAP_READ, 0, sizeof init);
  assert_memory_equal(p, init, sizeof init);
  assert_int_equal(map_count(mem), 1);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, p, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(map_count(mem), 0);
  /* write through a map at an offset; the buffer sees it after unmap */
  int *q = map(env, mem, CL_MAP_WRITE, 100 * sizeof(int), 10 * sizeof(int));
  for (int i = 0; i < 10; i++) q[i] = -1000 - i;
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, q, 0, NULL, NULL));
  for (int i = 0; i < 10; i++) init[100 + i] = -1000 - i;
  int got[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  assert_memory_equal(got, init, sizeof got);
  /* write-invalidate maps are writable too */
  int *r = map(env, mem, CL_MAP_WRITE_INVALIDATE_REGION, 0, sizeof(int));
  *r = 4242;
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, r, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, sizeof(int), got, 0, NULL, NULL));
  assert_int_equal(got[0], 4242);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_map_use_host_ptr(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  unsigned char *host = malloc(N);
  for (int i = 0; i < N; i++) host[i] = (unsigned char)i;
  cl_mem mem = make_buffer(env, CL_MEM_USE_HOST_PTR, N, host);
  /* the mapped pointer is derived from host_ptr */
  unsigned char *p = map(env, mem, CL_MAP_READ | CL_MAP_WRITE, 64, 128);
  assert_ptr_equal(p, host + 64);
  p[0] = 0xAB;
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, p, 0, NULL, NULL));
  unsigned char b = 0;
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 64, 1, &b, 0, NULL, NULL));
  assert_int_equal(b, 0xAB);
  assert_cl_success(clReleaseMemObject(mem));
  assert_cl_success(clFinish(env->queue));
  free(host);
}

static void test_map_sub_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint bits;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
  size_t align = bits / 8;
  cl_mem parent = make_buffer(env, 0, 4 * align, NULL);
  cl_buffer_region region = {align, align};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  unsigned char *whole = map(env, parent, CL_MAP_READ, 0, 4 * align);
  unsigned char *part = map(env, sub, CL_MAP_WRITE, 0, align);
  assert_ptr_equal(part, whole + align); /* one storage */
  memset(part, 0x3C, align);
  /* a pointer mapped from the parent is not the sub-buffer's */
  assert_int_equal(clEnqueueUnmapMemObject(env->queue, sub, whole, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, sub, part, 0, NULL, NULL));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, parent, whole, 0, NULL, NULL));
  unsigned char got[8];
  assert_cl_success(clEnqueueReadBuffer(env->queue, parent, CL_TRUE, align, sizeof got, got, 0, NULL, NULL));
  for (size_t i = 0; i < sizeof got; i++) assert_int_equal(got[i], 0x3C);
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(parent));
}

static void test_map_non_blocking(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  int init[16];
  for (int i = 0; i < 16; i++) init[i] = i + 1;
  cl_mem mem = make_buffer(env, CL_MEM_COPY_HOST_PTR, sizeof init, init);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  /* a write waits for the gate, the map for the write: the pointer comes back at once */
  int newer[16];
  for (int i = 0; i < 16; i++) newer[i] = 100 + i;
  cl_event wrote, mapped, unmapped;
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_FALSE, 0, sizeof newer, newer, 1, &gate, &wrote));
  int *p = clEnqueueMapBuffer(env->queue, mem, CL_FALSE, CL_MAP_READ, 0, sizeof init, 1, &wrote, &mapped, &err);
  assert_cl_success(err);
  assert_non_null(p);
  assert_int_equal(map_count(mem), 1);
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(mapped, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &mapped));
  assert_memory_equal(p, newer, sizeof newer); /* valid once the map event completed */
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(mapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_MAP_BUFFER);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, p, 1, &mapped, &unmapped));
  assert_cl_success(clWaitForEvents(1, &unmapped));
  assert_cl_success(clGetEventInfo(unmapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_UNMAP_MEM_OBJECT);
  clReleaseEvent(gate);
  clReleaseEvent(wrote);
  clReleaseEvent(mapped);
  clReleaseEvent(unmapped);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_map_count_and_repeated_maps(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem mem = make_buffer(env, 0, 256, NULL);
  void *a = map(env, mem, CL_MAP_READ, 0, 256);
  void *b = map(env, mem, CL_MAP_READ, 0, 256); /* the same pointer twice */
  void *c = map(env, mem, CL_MAP_WRITE, 128, 64);
  assert_ptr_equal(a, b);
  assert_int_equal(map_count(mem), 3);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, a, 0, NULL, NULL));
  assert_int_equal(map_count(mem), 2);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, b, 0, NULL, NULL));
  assert_int_equal(map_count(mem), 1);
  /* a pointer unmapped as often as mapped is no longer valid */
  assert_int_equal(clEnqueueUnmapMemObject(env->queue, mem, a, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(map_count(mem), 1);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, c, 0, NULL, NULL));
  assert_int_equal(map_count(mem), 0);
  /* overlapping write mappings are refused; disjoint ones are fine */
  void *w1 = map(env, mem, CL_MAP_WRITE, 0, 128);
  cl_int err = CL_SUCCESS;
  assert_null(clEnqueueMapBuffer(env->queue, mem, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 64, 128, 0, NULL, NULL,
                                 &err));
  assert_int_equal(err, CL_INVALID_OPERATION);
  assert_int_equal(map_count(mem), 1);
  void *w2 = map(env, mem, CL_MAP_WRITE, 128, 128);
  void *r1 = map(env, mem, CL_MAP_READ, 0, 256);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, w1, 0, NULL, NULL));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, w2, 0, NULL, NULL));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, mem, r1, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(map_count(mem), 0);
  /* released while mapped: the mapping is simply dropped */
  map(env, mem, CL_MAP_READ, 0, 16);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_map_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  cl_mem mem = make_buffer(env, 0, 256, NULL);
  cl_int err;
#define MAP_ERR(expected, queue, buffer, flags, offset, size, n, list)                                   \
  do {                                                                                                  \
    err = CL_SUCCESS;                                                                                   \
    assert_null(clEnqueueMapBuffer(queue, buffer, CL_TRUE, flags, offset, size, n, list, NULL, &err)); \
    assert_int_equal(err, expected);                                                                    \
  } while (0)
  MAP_ERR(CL_INVALID_MEM_OBJECT, q, NULL, CL_MAP_READ, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_MEM_OBJECT, q, (cl_mem)env->context, CL_MAP_READ, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, CL_MAP_READ, 0, 0, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, CL_MAP_READ, 0, 257, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, CL_MAP_READ, 250, 7, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_VALUE, q, mem, (cl_map_flags)1 << 9, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_EVENT_WAIT_LIST, q, mem, CL_MAP_READ, 0, 16, 1, NULL);
  cl_mem hwo = make_buffer(env, CL_MEM_HOST_WRITE_ONLY, 64, NULL);
  cl_mem hro = make_buffer(env, CL_MEM_HOST_READ_ONLY, 64, NULL);
  cl_mem hna = make_buffer(env, CL_MEM_HOST_NO_ACCESS, 64, NULL);
  MAP_ERR(CL_INVALID_OPERATION, q, hwo, CL_MAP_READ, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_OPERATION, q, hna, CL_MAP_READ, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_OPERATION, q, hro, CL_MAP_WRITE, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_OPERATION, q, hro, CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_OPERATION, q, hna, CL_MAP_WRITE, 0, 16, 0, NULL);
  void *ok = map(env, hwo, CL_MAP_WRITE, 0, 16);
  assert_cl_success(clEnqueueUnmapMemObject(q, hwo, ok, 0, NULL, NULL));
  ok = map(env, hro, CL_MAP_READ, 0, 16);
  assert_cl_success(clEnqueueUnmapMemObject(q, hro, ok, 0, NULL, NULL));
  /* contexts */
  cl_context octx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(octx, 0, 64, NULL, &err);
  assert_cl_success(err);
  cl_event foreign_event = clCreateUserEvent(octx, &err);
  assert_cl_success(err);
  MAP_ERR(CL_INVALID_CONTEXT, q, foreign, CL_MAP_READ, 0, 16, 0, NULL);
  MAP_ERR(CL_INVALID_CONTEXT, q, mem, CL_MAP_READ, 0, 16, 1, &foreign_event);
  /* a blocking map after a failed dependency */
  cl_event failed = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  assert_cl_success(clSetUserEventStatus(failed, -5));
  cl_command_queue q2 = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  MAP_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, q2, mem, CL_MAP_READ, 0, 16, 1, &failed);
  assert_int_equal(map_count(mem), 0);
  clFinish(q2);
  assert_cl_success(clReleaseCommandQueue(q2));
  /* queue (through Kiln's table: the loader would dereference it) */
  err = CL_SUCCESS;
  assert_null(kiln_test_dispatch_of(q)->clEnqueueMapBuffer(NULL, mem, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_COMMAND_QUEUE);
  /* errcode_ret may be NULL */
  assert_null(clEnqueueMapBuffer(q, mem, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, NULL));
#undef MAP_ERR

  /* unmap */
  unsigned char *p = map(env, mem, CL_MAP_READ, 16, 16);
  assert_int_equal(clEnqueueUnmapMemObject(q, mem, p + 1, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueUnmapMemObject(q, mem, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
  unsigned char local;
  assert_int_equal(clEnqueueUnmapMemObject(q, mem, &local, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueUnmapMemObject(q, hro, p, 0, NULL, NULL), CL_INVALID_VALUE); /* another object's */
  assert_int_equal(clEnqueueUnmapMemObject(q, NULL, p, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueUnmapMemObject(q, foreign, p, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueUnmapMemObject(q, mem, p, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
  assert_int_equal(clEnqueueUnmapMemObject(q, mem, p, 1, &foreign_event, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(kiln_test_dispatch_of(q)->clEnqueueUnmapMemObject(NULL, mem, p, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(map_count(mem), 1); /* failed unmaps leave the mapping */
  assert_cl_success(clEnqueueUnmapMemObject(q, mem, p, 0, NULL, NULL));
  assert_int_equal(map_count(mem), 0);
  cl_mem dead = make_buffer(env, 0, 64, NULL);
  void *dp = map(env, dead, CL_MAP_READ, 0, 16);
  assert_cl_success(clReleaseMemObject(dead));
  assert_int_equal(clEnqueueUnmapMemObject(q, dead, dp, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);

  assert_cl_success(clFinish(q));
  clSetUserEventStatus(foreign_event, CL_COMPLETE);
  clReleaseEvent(foreign_event);
  clReleaseEvent(failed);
  cl_mem mems[] = {mem, hwo, hro, hna, foreign};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  assert_cl_success(clReleaseContext(octx));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_map_plain_buffer),   cmocka_unit_test(test_map_use_host_ptr),
      cmocka_unit_test(test_map_sub_buffer),     cmocka_unit_test(test_map_non_blocking),
      cmocka_unit_test(test_map_count_and_repeated_maps), cmocka_unit_test(test_map_errors),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
