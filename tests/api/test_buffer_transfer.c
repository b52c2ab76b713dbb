/* Buffer transfers: clEnqueueRead/Write/CopyBuffer, their Rect forms, clEnqueueFillBuffer
 * and clEnqueueMigrateMemObjects — data checked against a host reference, ordering with
 * events, and every error code of their validation. */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static cl_mem make_buffer(struct kiln_test_env *env, cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, flags, size, host, &err);
  assert_cl_success(err);
  return mem;
}

static void fill_bytes(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 2654435761u + seed) >> 7);
}

static void test_read_write_round_trip(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  unsigned char *src = malloc(N), *dst = malloc(N), *ref = malloc(N);
  fill_bytes(src, N, 1);
  cl_mem mem = make_buffer(env, 0, N, NULL);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, 0, N, src, 0, NULL, NULL));
  memcpy(ref, src, N);
  /* partial writes and reads at odd offsets */
  unsigned char patch[77];
  fill_bytes(patch, sizeof patch, 9);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, 1001, sizeof patch, patch, 0, NULL, NULL));
  memcpy(ref + 1001, patch, sizeof patch);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, N - 1, 1, "z", 0, NULL, NULL));
  ref[N - 1] = 'z';
  memset(dst, 0, N);
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, N, dst, 0, NULL, NULL));
  assert_memory_equal(dst, ref, N);
  unsigned char part[100];
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 999, sizeof part, part, 0, NULL, NULL));
  assert_memory_equal(part, ref + 999, sizeof part);
  assert_cl_success(clReleaseMemObject(mem));
  free(src);
  free(dst);
  free(ref);
}

static void test_non_blocking_and_events(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1 << 16 };
  unsigned char *src = malloc(N), *dst = malloc(N);
  fill_bytes(src, N, 3);
  memset(dst, 0, N);
  cl_mem a = make_buffer(env, 0, N, NULL), b = make_buffer(env, 0, N, NULL);
  cl_event w, c, r;
  assert_cl_success(clEnqueueWriteBuffer(env->queue, a, CL_FALSE, 0, N, src, 0, NULL, &w));
  assert_cl_success(clEnqueueCopyBuffer(env->queue, a, b, 0, 0, N, 1, &w, &c));
  assert_cl_success(clEnqueueReadBuffer(env->queue, b, CL_FALSE, 0, N, dst, 1, &c, &r));
  assert_cl_success(clFinish(env->queue));
  assert_memory_equal(dst, src, N);
  cl_int status = 1;
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(status, CL_COMPLETE);
  assert_cl_success(clGetEventInfo(w, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_WRITE_BUFFER);
  assert_cl_success(clGetEventInfo(c, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_COPY_BUFFER);
  assert_cl_success(clGetEventInfo(r, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_READ_BUFFER);
  clReleaseEvent(w);
  clReleaseEvent(c);
  clReleaseEvent(r);
  /* the buffers may be released while their commands are pending */
  memset(dst, 0, N);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, a, CL_FALSE, 0, N, src, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clEnqueueReadBuffer(env->queue, a, CL_FALSE, 0, N, dst, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clFinish(env->queue));
  assert_memory_equal(dst, src, N);
  free(src);
  free(dst);
}

/* A non-blocking write reads host memory when it runs, not when it is enqueued. */
static void test_write_copies_at_execution(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  int host[64], got[64];
  for (int i = 0; i < 64; i++) host[i] = i;
  cl_mem mem = make_buffer(env, 0, sizeof host, NULL);
  cl_event done;
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_FALSE, 0, sizeof host, host, 1, &gate, &done));
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE); /* waiting for the gate */
  for (int i = 0; i < 64; i++) host[i] = 1000 - i;
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, sizeof got, got, 1, &done, NULL));
  assert_memory_equal(got, host, sizeof got);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_blocking_after_failed_dependency(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_mem mem = make_buffer(env, 0, 64, NULL);
  char buf[64];
  assert_cl_success(clSetUserEventStatus(gate, -42));
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 64, buf, 1, &gate, NULL),
                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_TRUE, 0, 64, buf, 1, &gate, NULL),
                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, (size_t[3]){0, 0, 0}, (size_t[3]){0, 0, 0},
                                           (size_t[3]){8, 8, 1}, 0, 0, 0, 0, buf, 1, &gate, NULL),
                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  clFinish(q);
  clReleaseEvent(gate);
  assert_cl_success(clReleaseMemObject(mem));
  assert_cl_success(clReleaseCommandQueue(q));
}

static void test_read_write_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_int err;
  char buf[128];
  cl_mem mem = make_buffer(env, 0, 64, NULL);
  cl_command_queue q = env->queue;
  /* queue */
  assert_int_equal(d->clEnqueueReadBuffer(NULL, mem, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueWriteBuffer((cl_command_queue)mem, mem, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  /* memory object */
  assert_int_equal(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueWriteBuffer(q, (cl_mem)env->context, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  cl_mem dead = make_buffer(env, 0, 64, NULL);
  assert_cl_success(clReleaseMemObject(dead));
  assert_int_equal(clEnqueueWriteBuffer(q, dead, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  /* another context's buffer or event */
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(other, 0, 64, NULL, &err);
  assert_cl_success(err);
  cl_event foreign_event = clCreateUserEvent(other, &err);
  assert_cl_success(err);
  assert_int_equal(clEnqueueReadBuffer(q, foreign, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueWriteBuffer(q, foreign, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 8, buf, 1, &foreign_event, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_FALSE, 0, 8, buf, 1, &foreign_event, NULL), CL_INVALID_CONTEXT);
  /* ranges and pointer */
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 65, buf, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 60, 8, buf, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 65, 0, buf, 0, NULL, NULL), CL_INVALID_VALUE);
  /* OpenCL 3.0 dropped "size is 0" from these error lists: zero-sized transfers are no-ops. */
  assert_cl_success(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 0, buf, 0, NULL, NULL));
  assert_cl_success(clEnqueueWriteBuffer(q, mem, CL_TRUE, 64, 0, buf, 0, NULL, NULL));
  assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_TRUE, 8, (size_t)-1, buf, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 8, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_TRUE, 0, 8, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
  /* wait list */
  cl_event none = NULL;
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 8, buf, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
  assert_int_equal(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, 8, buf, 0, &none, NULL), CL_INVALID_EVENT_WAIT_LIST);
  assert_int_equal(clEnqueueWriteBuffer(q, mem, CL_TRUE, 0, 8, buf, 1, &none, NULL), CL_INVALID_EVENT_WAIT_LIST);
  /* host access flags */
  cl_mem hwo = make_buffer(env, CL_MEM_HOST_WRITE_ONLY, 64, NULL);
  cl_mem hro = make_buffer(env, CL_MEM_HOST_READ_ONLY, 64, NULL);
  cl_mem hna = make_buffer(env, CL_MEM_HOST_NO_ACCESS, 64, NULL);
  assert_int_equal(clEnqueueReadBuffer(q, hwo, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueReadBuffer(q, hna, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueWriteBuffer(q, hro, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueWriteBuffer(q, hna, CL_TRUE, 0, 8, buf, 0, NULL, NULL), CL_INVALID_OPERATION);
  assert_cl_success(clEnqueueWriteBuffer(q, hwo, CL_TRUE, 0, 8, buf, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(q, hro, CL_TRUE, 0, 8, buf, 0, NULL, NULL));
  /* kernels-only access flags do not restrict the host */
  cl_mem ro = make_buffer(env, CL_MEM_READ_ONLY, 64, NULL);
  assert_cl_success(clEnqueueWriteBuffer(q, ro, CL_TRUE, 0, 8, buf, 0, NULL, NULL));
  /* copies between buffers ignore host-access flags */
  assert_cl_success(clEnqueueCopyBuffer(q, hna, hwo, 0, 0, 64, 0, NULL, NULL));
  cl_mem mems[] = {mem, foreign, hwo, hro, hna, ro};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  clSetUserEventStatus(foreign_event, CL_COMPLETE);
  clReleaseEvent(foreign_event);
  assert_cl_success(clReleaseContext(other));
}

static void test_copy(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1024 };
  unsigned char init[N], got[N];
  fill_bytes(init, N, 5);
  cl_mem a = make_buffer(env, CL_MEM_COPY_HOST_PTR, N, init);
  cl_mem b = make_buffer(env, 0, 2 * N, NULL);
  assert_cl_success(clEnqueueCopyBuffer(env->queue, a, b, 0, N, N, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, b, CL_TRUE, N, N, got, 0, NULL, NULL));
  assert_memory_equal(got, init, N);
  /* within one buffer, disjoint ranges: [0,100) -> [100,200) (adjacent is not overlap) */
  assert_cl_success(clEnqueueCopyBuffer(env->queue, a, a, 0, 100, 100, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 100, 100, got, 0, NULL, NULL));
  assert_memory_equal(got, init, 100);
  /* errors */
  cl_command_queue q = env->queue;
  assert_int_equal(clEnqueueCopyBuffer(q, a, a, 0, 50, 100, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyBuffer(q, a, a, 50, 0, 100, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyBuffer(q, a, a, 10, 10, 1, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyBuffer(q, a, b, 1, 0, N, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBuffer(q, a, b, 0, N + 1, N, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_cl_success(clEnqueueCopyBuffer(q, a, b, 0, 0, 0, 0, NULL, NULL));
  assert_int_equal(clEnqueueCopyBuffer(q, a, NULL, 0, 0, 8, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyBuffer(q, NULL, b, 0, 0, 8, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(kiln_test_dispatch_of(q)->clEnqueueCopyBuffer(NULL, a, b, 0, 0, 8, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clEnqueueCopyBuffer(q, a, b, 0, 0, 8, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(other, 0, N, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(clEnqueueCopyBuffer(q, a, foreign, 0, 0, 8, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueCopyBuffer(q, foreign, a, 0, 0, 8, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_cl_success(clReleaseMemObject(foreign));
  assert_cl_success(clReleaseContext(other));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

/* ---- rectangles ---- */

static void ref_rect_copy(unsigned char *dst, const size_t dst_origin[3], size_t dst_row, size_t dst_slice,
                          const unsigned char *src, const size_t src_origin[3], size_t src_row, size_t src_slice,
                          const size_t region[3]) {
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      for (size_t x = 0; x < region[0]; x++)
        dst[(dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row + dst_origin[0] + x] =
            src[(src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row + src_origin[0] + x];
}

static void test_rect_read_write(void **state) {
  struct kiln_test_env *env = *state;
  /* the buffer as a 40 x 30 x 5 box of bytes; the host as 50 x 20 x 6 */
  enum { BR = 40, BS = 40 * 30, BN = 40 * 30 * 5, HR = 50, HS = 50 * 20, HN = 50 * 20 * 6 };
  unsigned char *buf_ref = malloc(BN), *host = malloc(HN), *host_ref = malloc(HN), *got = malloc(BN);
  fill_bytes(buf_ref, BN, 11);
  cl_mem mem = make_buffer(env, CL_MEM_COPY_HOST_PTR, BN, buf_ref);
  const size_t borigin[3] = {3, 4, 1}, horigin[3] = {7, 2, 2}, region[3] = {17, 9, 3};
  /* read a box into host memory with explicit pitches */
  memset(host, 0xEE, HN);
  memcpy(host_ref, host, HN);
  assert_cl_success(
      clEnqueueReadBufferRect(env->queue, mem, CL_TRUE, borigin, horigin, region, BR, BS, HR, HS, host, 0, NULL, NULL));
  ref_rect_copy(host_ref, horigin, HR, HS, buf_ref, borigin, BR, BS, region);
  assert_memory_equal(host, host_ref, HN);
  /* write another box from host memory */
  fill_bytes(host, HN, 23);
  const size_t borigin2[3] = {10, 0, 2}, horigin2[3] = {0, 5, 1}, region2[3] = {30, 12, 2};
  assert_cl_success(clEnqueueWriteBufferRect(env->queue, mem, CL_TRUE, borigin2, horigin2, region2, BR, BS, HR, HS,
                                             host, 0, NULL, NULL));
  ref_rect_copy(buf_ref, borigin2, BR, BS, host, horigin2, HR, HS, region2);
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, BN, got, 0, NULL, NULL));
  assert_memory_equal(got, buf_ref, BN);
  /* zero pitches: computed from the region (tightly packed host data) */
  const size_t zero[3] = {0, 0, 0}, region3[3] = {8, 4, 2};
  unsigned char packed[64], packed_ref[64];
  memset(packed_ref, 0, sizeof packed_ref);
  assert_cl_success(clEnqueueReadBufferRect(env->queue, mem, CL_TRUE, borigin, zero, region3, BR, BS, 0, 0, packed, 0,
                                            NULL, NULL));
  ref_rect_copy(packed_ref, zero, 8, 32, buf_ref, borigin, BR, BS, region3);
  assert_memory_equal(packed, packed_ref, sizeof packed);
  /* a buffer row pitch of 0 is region[0]: the buffer side is packed too */
  assert_cl_success(clEnqueueReadBufferRect(env->queue, mem, CL_TRUE, zero, zero, region3, 0, 0, 0, 0, packed, 0,
                                            NULL, NULL));
  assert_memory_equal(packed, buf_ref, sizeof packed);
  /* non-blocking rect read, then clFinish */
  memset(packed, 0, sizeof packed);
  assert_cl_success(clEnqueueReadBufferRect(env->queue, mem, CL_FALSE, borigin, zero, region3, BR, BS, 0, 0, packed, 0,
                                            NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_memory_equal(packed, packed_ref, sizeof packed);
  assert_cl_success(clReleaseMemObject(mem));
  free(buf_ref);
  free(host);
  free(host_ref);
  free(got);
}

static void test_rect_copy(void **state) {
  struct kiln_test_env *env = *state;
  enum { SR = 32, SS = 32 * 16, SN = 32 * 16 * 4, DR = 48, DS = 48 * 20, DN = 48 * 20 * 3 };
  unsigned char *src_ref = malloc(SN), *dst_ref = malloc(DN), *got = malloc(DN);
  fill_bytes(src_ref, SN, 31);
  fill_bytes(dst_ref, DN, 47);
  cl_mem src = make_buffer(env, CL_MEM_COPY_HOST_PTR, SN, src_ref);
  cl_mem dst = make_buffer(env, CL_MEM_COPY_HOST_PTR, DN, dst_ref);
  const size_t so[3] = {5, 3, 1}, dO[3] = {20, 7, 0}, region[3] = {21, 10, 3};
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, src, dst, so, dO, region, SR, SS, DR, DS, 0, NULL, NULL));
  ref_rect_copy(dst_ref, dO, DR, DS, src_ref, so, SR, SS, region);
  assert_cl_success(clEnqueueReadBuffer(env->queue, dst, CL_TRUE, 0, DN, got, 0, NULL, NULL));
  assert_memory_equal(got, dst_ref, DN);
  /* within one buffer: two column bands of the same rows do not overlap */
  const size_t left[3] = {0, 0, 0}, right[3] = {16, 0, 0}, band[3] = {16, 16, 4};
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, src, src, left, right, band, SR, SS, SR, SS, 0, NULL, NULL));
  ref_rect_copy(src_ref, right, SR, SS, src_ref, left, SR, SS, band);
  assert_cl_success(clEnqueueReadBuffer(env->queue, src, CL_TRUE, 0, SN, got, 0, NULL, NULL));
  assert_memory_equal(got, src_ref, SN);
  /* a slice to another slice of the same buffer */
  const size_t s0[3] = {0, 0, 0}, s2[3] = {0, 0, 2}, slices[3] = {32, 16, 2};
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, src, src, s0, s2, slices, SR, SS, SR, SS, 0, NULL, NULL));
  ref_rect_copy(src_ref, s2, SR, SS, src_ref, s0, SR, SS, slices);
  assert_cl_success(clEnqueueReadBuffer(env->queue, src, CL_TRUE, 0, SN, got, 0, NULL, NULL));
  assert_memory_equal(got, src_ref, SN);
  /* overlap within one buffer */
  const size_t o1[3] = {8, 0, 0}, o2[3] = {0, 4, 1}, o3[3] = {0, 3, 0}, small[3] = {16, 4, 2};
  assert_int_equal(clEnqueueCopyBufferRect(env->queue, src, src, left, o1, small, SR, SS, SR, SS, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyBufferRect(env->queue, src, src, o2, o3, small, SR, SS, SR, SS, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  /* same rows, shifted past the region: no overlap */
  const size_t o4[3] = {0, 4, 0};
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, src, src, left, o4, small, SR, SS, SR, SS, 0, NULL, NULL));
  /* different layouts in one buffer: rows interleave without touching, then touch */
  const size_t rows1[3] = {4, 2, 1};
  const size_t at0[3] = {0, 0, 0}, at8[3] = {8, 0, 0}, at2[3] = {2, 0, 0};
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, src, src, at0, at8, rows1, 16, 48, 24, 48, 0, NULL, NULL));
  assert_int_equal(clEnqueueCopyBufferRect(env->queue, src, src, at0, at2, rows1, 16, 48, 24, 48, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseMemObject(src));
  assert_cl_success(clReleaseMemObject(dst));
  free(src_ref);
  free(dst_ref);
  free(got);
}

/* Random rectangles within one buffer: CL_MEM_COPY_OVERLAP exactly when the two boxes
 * share a byte (checked by marking bytes), otherwise the copy matches the reference. */
static void test_rect_copy_overlap_random(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  unsigned char *ref = malloc(N), *got = malloc(N), *mark = malloc(N);
  fill_bytes(ref, N, 5);
  cl_mem mem = make_buffer(env, CL_MEM_COPY_HOST_PTR, N, ref);
  unsigned seed = 12345;
  int overlaps = 0, copies = 0;
  for (int iter = 0; iter < 400; iter++) {
    size_t region[3], so[3], dO[3], srow, sslice, drow, dslice;
#define RND(n) ((seed = seed * 1103515245u + 12345u), (size_t)((seed >> 8) % (n)))
    region[0] = 1 + RND(12);
    region[1] = 1 + RND(5);
    region[2] = 1 + RND(3);
    srow = region[0] + RND(10);
    drow = RND(2) ? srow : region[0] + RND(10);
    sslice = srow * (region[1] + RND(3));
    dslice = drow == srow ? sslice : drow * (region[1] + RND(3));
    if (drow != srow && RND(2)) { /* allowed only with one pitch pair equal */
      size_t common = srow * drow * (region[1] + 1);
      sslice = dslice = common;
    }
    for (int k = 0; k < 3; k++) {
      so[k] = RND(k == 0 ? 20 : 4);
      dO[k] = RND(k == 0 ? 20 : 4);
    }
#undef RND
    size_t s_end = so[2] * sslice + so[1] * srow + so[0] + (region[2] - 1) * sslice + (region[1] - 1) * srow + region[0];
    size_t d_end = dO[2] * dslice + dO[1] * drow + dO[0] + (region[2] - 1) * dslice + (region[1] - 1) * drow + region[0];
    if (s_end > N || d_end > N) continue;
    if (srow != drow && sslice != dslice) continue;
    memset(mark, 0, N);
    bool overlap = false;
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
        for (size_t x = 0; x < region[0]; x++) mark[(so[2] + z) * sslice + (so[1] + y) * srow + so[0] + x] = 1;
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
        for (size_t x = 0; x < region[0]; x++) overlap |= mark[(dO[2] + z) * dslice + (dO[1] + y) * drow + dO[0] + x];
    cl_int err = clEnqueueCopyBufferRect(env->queue, mem, mem, so, dO, region, srow, sslice, drow, dslice, 0, NULL,
                                         NULL);
    if (overlap) {
      assert_int_equal(err, CL_MEM_COPY_OVERLAP);
      overlaps++;
    } else {
      assert_cl_success(err);
      ref_rect_copy(ref, dO, drow, dslice, ref, so, srow, sslice, region);
      copies++;
    }
  }
  assert_true(overlaps > 20 && copies > 20);
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, N, got, 0, NULL, NULL));
  assert_memory_equal(got, ref, N);
  assert_cl_success(clReleaseMemObject(mem));
  free(ref);
  free(got);
  free(mark);
}

static void test_rect_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  enum { N = 1024 };
  unsigned char host[N];
  cl_mem mem = make_buffer(env, 0, N, NULL), other = make_buffer(env, 0, N, NULL);
  const size_t o[3] = {0, 0, 0}, r[3] = {8, 8, 1};
  size_t zero_region[3] = {8, 0, 1};
  /* NULL arrays, zero region */
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, NULL, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, NULL, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, NULL, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, zero_region, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 0, 0, NULL, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  /* pitches */
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 7, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE); /* buffer row pitch < region[0] */
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 4, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE); /* host row pitch < region[0] */
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 16, 100, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE); /* buffer slice pitch < region[1] * row pitch */
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 16, 136, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE); /* not a multiple of the row pitch */
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 10, 70, host, 0, NULL, NULL),
                   CL_INVALID_VALUE); /* host slice pitch < region[1] * host row pitch */
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 10, 85, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_cl_success(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, r, 16, 128, 10, 80, host, 0, NULL, NULL));
  /* bounds: 8 rows of pitch 128 end at 7*128+8 = 904 <= 1024; origin y = 1 pushes it to 1032 */
  const size_t y1[3] = {0, 1, 0}, x120[3] = {120, 0, 0}, z1[3] = {0, 0, 1};
  assert_cl_success(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 128, 0, 0, 0, host, 0, NULL, NULL));
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, y1, o, r, 128, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_cl_success(clEnqueueReadBufferRect(q, mem, CL_TRUE, x120, o, r, 128, 0, 0, 0, host, 0, NULL, NULL));
  const size_t x121[3] = {121, 7, 0};
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, x121, o, r, 128, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, z1, o, r, 128, 1024, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  const size_t huge[3] = {(size_t)-1, 0, 0};
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, huge, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  /* handles, contexts, wait list, host access */
  assert_int_equal(clEnqueueReadBufferRect(q, NULL, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(kiln_test_dispatch_of(q)->clEnqueueReadBufferRect(NULL, mem, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL,
                                                           NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clEnqueueReadBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, NULL, NULL),
                   CL_INVALID_EVENT_WAIT_LIST);
  cl_mem hwo = make_buffer(env, CL_MEM_HOST_WRITE_ONLY, N, NULL), hro = make_buffer(env, CL_MEM_HOST_READ_ONLY, N, NULL);
  assert_int_equal(clEnqueueReadBufferRect(q, hwo, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueWriteBufferRect(q, hro, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  cl_int err;
  cl_context octx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(octx, 0, N, NULL, &err);
  assert_cl_success(err);
  cl_event foreign_event = clCreateUserEvent(octx, &err);
  assert_cl_success(err);
  assert_int_equal(clEnqueueWriteBufferRect(q, foreign, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueWriteBufferRect(q, mem, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, &foreign_event, NULL),
                   CL_INVALID_CONTEXT);
  /* copy rect */
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, NULL, o, r, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, o, o, zero_region, 0, 0, 0, 0, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, o, o, r, 4, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, o, o, r, 0, 0, 0, 63, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, o, y1, r, 0, 0, 128, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, foreign, o, o, r, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, NULL, o, o, r, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, other, o, o, r, 0, 0, 0, 0, 1, &foreign_event, NULL),
                   CL_INVALID_CONTEXT);
  /* same buffer with both pitches different */
  const size_t far[3] = {0, 0, 0}, far2[3] = {0, 0, 1}, r2[3] = {8, 2, 2};
  assert_int_equal(clEnqueueCopyBufferRect(q, mem, mem, far, far2, r2, 16, 64, 32, 128, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_cl_success(clFinish(q));
  clSetUserEventStatus(foreign_event, CL_COMPLETE);
  clReleaseEvent(foreign_event);
  cl_mem mems[] = {mem, other, hwo, hro, foreign};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  assert_cl_success(clReleaseContext(octx));
}

/* ---- fill ---- */

static void test_fill_every_pattern_size(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  unsigned char init[N], ref[N], got[N];
  fill_bytes(init, N, 77);
  cl_mem mem = make_buffer(env, CL_MEM_COPY_HOST_PTR, N, init);
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    unsigned char pattern[128];
    fill_bytes(pattern, ps, (unsigned)ps * 101);
    memcpy(ref, init, N);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_FALSE, 0, N, init, 0, NULL, NULL));
    size_t offset = 2 * ps, size = 13 * ps; /* 13 copies: exercises the tail of the doubling */
    assert_cl_success(clEnqueueFillBuffer(env->queue, mem, pattern, ps, offset, size, 0, NULL, NULL));
    for (size_t i = 0; i < size; i++) ref[offset + i] = pattern[i % ps];
    assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, N, got, 0, NULL, NULL));
    assert_memory_equal(got, ref, N);
  }
  /* the whole buffer, with an event; the pattern memory may be reused at once */
  cl_uint value = 0xA1B2C3D4u;
  cl_event ev;
  assert_cl_success(clEnqueueFillBuffer(env->queue, mem, &value, sizeof value, 0, N, 0, NULL, &ev));
  value = 0;
  assert_cl_success(clWaitForEvents(1, &ev));
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_FILL_BUFFER);
  clReleaseEvent(ev);
  cl_uint words[N / 4];
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, N, words, 0, NULL, NULL));
  for (size_t i = 0; i < N / 4; i++) assert_int_equal(words[i], 0xA1B2C3D4u);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_fill_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  cl_mem mem = make_buffer(env, 0, 256, NULL);
  unsigned char pattern[256] = {0};
  assert_int_equal(clEnqueueFillBuffer(q, mem, NULL, 4, 0, 64, 0, NULL, NULL), CL_INVALID_VALUE);
  const size_t bad_sizes[] = {0, 3, 5, 6, 12, 24, 256};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
    assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, bad_sizes[i], 0, bad_sizes[i] ? bad_sizes[i] : 8, 0, NULL, NULL),
                     CL_INVALID_VALUE);
  assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, 4, 2, 64, 0, NULL, NULL), CL_INVALID_VALUE); /* offset */
  assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, 4, 0, 62, 0, NULL, NULL), CL_INVALID_VALUE); /* size */
  assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, 4, 0, 260, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, 4, 256, 4, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_cl_success(clEnqueueFillBuffer(q, mem, pattern, 4, 0, 0, 0, NULL, NULL)); /* zero size: a no-op */
  assert_int_equal(clEnqueueFillBuffer(q, NULL, pattern, 4, 0, 4, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(kiln_test_dispatch_of(q)->clEnqueueFillBuffer(NULL, mem, pattern, 4, 0, 4, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clEnqueueFillBuffer(q, mem, pattern, 4, 0, 4, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
  cl_int err;
  cl_context octx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(octx, 0, 256, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(clEnqueueFillBuffer(q, foreign, pattern, 4, 0, 4, 0, NULL, NULL), CL_INVALID_CONTEXT);
  /* fill is a device-side write: allowed on a host-no-access buffer */
  cl_mem hna = make_buffer(env, CL_MEM_HOST_NO_ACCESS, 256, NULL);
  assert_cl_success(clEnqueueFillBuffer(q, hna, pattern, 128, 128, 128, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  assert_cl_success(clReleaseMemObject(hna));
  assert_cl_success(clReleaseMemObject(foreign));
  assert_cl_success(clReleaseContext(octx));
  assert_cl_success(clReleaseMemObject(mem));
}

/* ---- migrate ---- */

static void test_migrate(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  cl_mem a = make_buffer(env, 0, 64, NULL), b = make_buffer(env, 0, 64, NULL);
  cl_mem both[2] = {a, b};
  cl_event ev;
  assert_cl_success(clEnqueueMigrateMemObjects(q, 2, both, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &ev));
  assert_cl_success(clWaitForEvents(1, &ev));
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_MIGRATE_MEM_OBJECTS);
  /* a real command: it waits for its wait list */
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event ev2;
  assert_cl_success(clEnqueueMigrateMemObjects(q, 1, &a, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 1, &gate, &ev2));
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(ev2, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &ev2));
  assert_cl_success(clEnqueueMigrateMemObjects(q, 1, &a, 0, 0, NULL, NULL));
  assert_cl_success(clEnqueueMigrateMemObjects(
      q, 1, &a, CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL));
  /* errors */
  assert_int_equal(clEnqueueMigrateMemObjects(q, 0, both, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueMigrateMemObjects(q, 1, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueMigrateMemObjects(q, 1, &a, 4, 0, NULL, NULL), CL_INVALID_VALUE);
  cl_mem with_null[2] = {a, NULL};
  assert_int_equal(clEnqueueMigrateMemObjects(q, 2, with_null, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(kiln_test_dispatch_of(q)->clEnqueueMigrateMemObjects(NULL, 1, &a, 0, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clEnqueueMigrateMemObjects(q, 1, &a, 0, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
  cl_context octx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = clCreateBuffer(octx, 0, 64, NULL, &err);
  assert_cl_success(err);
  cl_mem mixed[2] = {a, foreign};
  assert_int_equal(clEnqueueMigrateMemObjects(q, 2, mixed, 0, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_cl_success(clFinish(q));
  clReleaseEvent(ev);
  clReleaseEvent(ev2);
  clReleaseEvent(gate);
  assert_cl_success(clReleaseMemObject(foreign));
  assert_cl_success(clReleaseContext(octx));
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_write_round_trip),
      cmocka_unit_test(test_non_blocking_and_events),
      cmocka_unit_test(test_write_copies_at_execution),
      cmocka_unit_test(test_blocking_after_failed_dependency),
      cmocka_unit_test(test_read_write_errors),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_rect_read_write),
      cmocka_unit_test(test_rect_copy),
      cmocka_unit_test(test_rect_copy_overlap_random),
      cmocka_unit_test(test_rect_errors),
      cmocka_unit_test(test_fill_every_pattern_size),
      cmocka_unit_test(test_fill_errors),
      cmocka_unit_test(test_migrate),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
