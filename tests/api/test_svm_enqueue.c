/* The SVM commands, from the OpenCL 3.0 API spec: clEnqueueSVMMemcpy (blocking and not,
 * between coarse-grain, fine-grain and system memory, ordered by wait lists on an
 * out-of-order queue, CL_MEM_COPY_OVERLAP, each listed error), clEnqueueSVMMemFill (every
 * pattern size 1 ... 128 byte-exact with guards, the pattern copied at the call, each
 * CL_INVALID_VALUE case), clEnqueueSVMMap / Unmap (every map flag, the errors),
 * clEnqueueSVMMigrateMem (sizes NULL, zero and partial, every flag, its CL_INVALID_VALUE
 * cases), clEnqueueSVMFree (a callback given the queue, the pointer list and the user data
 * after the wait list; without one Kiln frees; the list/count mismatch); and each command's
 * event: type, queue, context and profiling times; for all six, the queue and wait-list errors. */
#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fill_bytes(unsigned char *p, size_t n, unsigned salt) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 131 + salt * 7) ^ (i >> 8));
}

/* Waits for `event`, checks its command type and that it completed, releases it. */
static void expect_complete(cl_event event, cl_command_type type) {
  assert_cl_success(clWaitForEvents(1, &event));
  cl_command_type got = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof got, &got, NULL));
  assert_int_equal(type, got);
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(event));
  assert_cl_success(clReleaseEvent(event));
}

/* ---- clEnqueueSVMMemcpy ---- */

static void test_memcpy_blocking(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 10000 };
  unsigned char *coarse = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N, 0);
  unsigned char *fine = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N, 0);
  unsigned char *heap = malloc(N), *want = malloc(N), stack[N];
  assert_non_null(coarse);
  assert_non_null(fine);
  fill_bytes(want, N, 1);
  memcpy(heap, want, N);
  /* host -> coarse -> fine -> stack, each blocking: the data is there on return. */
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, coarse, heap, N, 0, NULL, NULL));
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, fine, coarse, N, 0, NULL, NULL));
  assert_memory_equal(want, fine, N);
  memset(stack, 0, N);
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, stack, fine, N, 0, NULL, NULL));
  assert_memory_equal(want, stack, N);
  /* Odd offsets and sizes, within one allocation, touching nothing around them. */
  memset(stack, 0xCC, N);
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, stack + 3, coarse + 1001, 777, 0, NULL, NULL));
  for (size_t i = 0; i < N; i++) {
    unsigned char expected = (i >= 3 && i < 780) ? want[i - 3 + 1001] : 0xCC;
    if (stack[i] != expected) fail_msg("offset copy: byte %zu is %u, expected %u", i, stack[i], expected);
  }
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, fine + 5000, fine + 1, 4999, 0, NULL, NULL));
  assert_memory_equal(want + 1, fine + 5000, 4999);
  assert_memory_equal(want, fine, 5000);
  /* Size 0 is no error. */
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, heap, fine, 0, 0, NULL, NULL));
  free(heap);
  free(want);
  clSVMFree(env->context, coarse);
  clSVMFree(env->context, fine);
}

static void test_memcpy_non_blocking_and_wait_lists(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  cl_command_queue ooo = kiln_test_queue(env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  unsigned char *a = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, N, 0);
  unsigned char *b = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, N, 0);
  unsigned char *c = malloc(N);
  assert_non_null(a);
  assert_non_null(b);
  fill_bytes(a, N, 2);
  memset(b, 0, N);
  memset(c, 0, N);
  /* a -> b waits for a gate; b -> c waits for the first copy: on an out-of-order queue only
   * the wait list orders them. */
  cl_event gate = kiln_test_gate_new(env->context), first = NULL, second = NULL;
  assert_cl_success(clEnqueueSVMMemcpy(ooo, CL_FALSE, b, a, N, 1, &gate, &first));
  assert_cl_success(clEnqueueSVMMemcpy(ooo, CL_FALSE, c, b, N, 1, &first, &second));
  assert_cl_success(clFlush(ooo));
  kiln_test_sleep_ms(30);
  for (size_t i = 0; i < N; i++)
    if (b[i] || c[i]) fail_msg("byte %zu copied before the gate opened", i);
  assert_true(kiln_test_event_status(first) > CL_COMPLETE);
  assert_true(kiln_test_event_status(second) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  expect_complete(second, CL_COMMAND_SVM_MEMCPY);
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(first));
  expect_complete(first, CL_COMMAND_SVM_MEMCPY);
  assert_memory_equal(a, b, N);
  assert_memory_equal(a, c, N);
  assert_cl_success(clReleaseEvent(gate));
  /* A non-blocking copy without a wait list completes by clFinish. */
  memset(c, 0, N);
  assert_cl_success(clEnqueueSVMMemcpy(ooo, CL_FALSE, c, a, N, 0, NULL, NULL));
  assert_cl_success(clFinish(ooo));
  assert_memory_equal(a, c, N);
  assert_cl_success(clReleaseCommandQueue(ooo));
  free(c);
  clSVMFree(env->context, a);
  clSVMFree(env->context, b);
}

static void test_memcpy_overlap(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 256, 0);
  unsigned char host[256];
  assert_non_null(svm);
  fill_bytes(svm, 256, 3);
  unsigned char before[256];
  memcpy(before, svm, 256);
  unsigned char *bases[] = {svm, host};
  for (int b = 0; b < 2; b++) {
    unsigned char *p = bases[b];
    const struct {
      size_t dst, src, size;
    } overlapping[] = {{0, 0, 1}, {0, 0, 64}, {8, 0, 16}, {0, 8, 16}, {0, 63, 64}, {63, 0, 64}, {10, 20, 200}};
    for (size_t i = 0; i < sizeof overlapping / sizeof overlapping[0]; i++) {
      cl_int err = clEnqueueSVMMemcpy(env->queue, CL_TRUE, p + overlapping[i].dst, p + overlapping[i].src,
                                      overlapping[i].size, 0, NULL, NULL);
      if (err != CL_MEM_COPY_OVERLAP)
        fail_msg("%s: copy of %zu bytes from +%zu to +%zu: %d, expected CL_MEM_COPY_OVERLAP", b ? "host" : "SVM",
                 overlapping[i].size, overlapping[i].src, overlapping[i].dst, err);
    }
  }
  assert_memory_equal(before, svm, 256); /* nothing was copied */
  /* One byte apart is no overlap. */
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm + 64, svm, 64, 0, NULL, NULL));
  assert_memory_equal(before, svm + 64, 64);
  clSVMFree(env->context, svm);
}

static void test_memcpy_errors(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0);
  unsigned char host[64];
  assert_non_null(svm);
  memset(svm, 0, 64);
  fill_bytes(host, 64, 4);
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemcpy(env->queue, CL_TRUE, NULL, host, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemcpy(env->queue, CL_FALSE, NULL, NULL, 16, 0, NULL, NULL));
  /* Blocking after a failed event. */
  cl_event user = kiln_test_gate_new(env->context);
  assert_cl_success(clSetUserEventStatus(user, -42));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                   clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, host, 16, 1, &user, NULL));
  assert_cl_success(clReleaseEvent(user));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < 64; i++) assert_int_equal(0, svm[i]); /* no failed call copied */
  clSVMFree(env->context, svm);
}

/* ---- clEnqueueSVMMemFill ---- */

static void test_fill_every_pattern_size(void **state) {
  struct kiln_test_env *env = *state;
  enum { GUARD = 256, REGION = 128 * 37 };
  unsigned char pattern[128];
  fill_bytes(pattern, sizeof pattern, 5);
  unsigned char *coarse = clSVMAlloc(env->context, CL_MEM_READ_WRITE, REGION + 2 * GUARD, 0);
  unsigned char *fine = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, REGION + 2 * GUARD, 0);
  unsigned char *heap = aligned_alloc(128, REGION + 2 * GUARD);
  assert_non_null(coarse);
  assert_non_null(fine);
  unsigned char *targets[] = {coarse, fine, heap};
  const char *names[] = {"coarse-grain", "fine-grain", "malloc"};
  for (int t = 0; t < 3; t++)
    for (size_t size = 1; size <= 128; size *= 2)
      for (size_t count = 1; count * size <= REGION; count = count * 3 + 1) {
        unsigned char *p = targets[t];
        size_t offset = GUARD - size; /* aligned to the pattern, not to anything larger */
        size_t bytes = count * size;
        assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, p, REGION + 2 * GUARD, 0, NULL, NULL));
        memset(p, 0xEE, REGION + 2 * GUARD);
        assert_cl_success(clEnqueueSVMUnmap(env->queue, p, 0, NULL, NULL));
        cl_event event = NULL;
        assert_cl_success(clEnqueueSVMMemFill(env->queue, p + offset, pattern, size, bytes, 0, NULL, &event));
        expect_complete(event, CL_COMMAND_SVM_MEMFILL);
        assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, p, REGION + 2 * GUARD, 0, NULL, NULL));
        for (size_t i = 0; i < REGION + 2 * GUARD; i++) {
          unsigned char want = (i >= offset && i < offset + bytes) ? pattern[(i - offset) % size] : 0xEE;
          if (p[i] != want)
            fail_msg("%s, pattern size %zu, %zu bytes: byte %zd is %u, expected %u", names[t], size, bytes,
                     (ptrdiff_t)i - (ptrdiff_t)offset, p[i], want);
        }
        assert_cl_success(clEnqueueSVMUnmap(env->queue, p, 0, NULL, NULL));
      }
  assert_cl_success(clFinish(env->queue));
  free(heap);
  clSVMFree(env->context, coarse);
  clSVMFree(env->context, fine);
}

static void test_fill_pattern_copied_at_call(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint *svm = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64 * sizeof(cl_uint), 0);
  assert_non_null(svm);
  memset(svm, 0, 64 * sizeof(cl_uint));
  cl_uint *pattern = malloc(16 * sizeof *pattern); /* a uint16, in memory of its own */
  for (int i = 0; i < 16; i++) pattern[i] = 0xA0000000u + (cl_uint)i;
  cl_event gate = kiln_test_gate_new(env->context), event = NULL;
  assert_cl_success(
      clEnqueueSVMMemFill(env->queue, svm, pattern, 16 * sizeof *pattern, 64 * sizeof(cl_uint), 1, &gate, &event));
  memset(pattern, 0, 16 * sizeof *pattern); /* the application may reuse the pattern at once */
  free(pattern);
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(20);
  for (int i = 0; i < 64; i++) assert_int_equal(0, svm[i]); /* not before the gate */
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  expect_complete(event, CL_COMMAND_SVM_MEMFILL);
  for (int i = 0; i < 64; i++) assert_int_equal(0xA0000000u + (cl_uint)(i % 16), svm[i]);
  assert_cl_success(clReleaseEvent(gate));
  clSVMFree(env->context, svm);
}

static void test_fill_errors(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 1024, 0);
  assert_non_null(svm);
  memset(svm, 0x11, 1024);
  unsigned char pattern[256];
  fill_bytes(pattern, sizeof pattern, 6);
  cl_command_queue q = env->queue;
  for (size_t size = 2; size <= 128; size *= 2) {
    /* A pointer not aligned to the pattern; a size not a multiple of it. */
    if (clEnqueueSVMMemFill(q, svm + size / 2, pattern, size, size * 2, 0, NULL, NULL) != CL_INVALID_VALUE)
      fail_msg("pattern size %zu at a pointer aligned to %zu: expected CL_INVALID_VALUE", size, size / 2);
    if (clEnqueueSVMMemFill(q, svm, pattern, size, size * 2 + size / 2, 0, NULL, NULL) != CL_INVALID_VALUE)
      fail_msg("pattern size %zu, size %zu: expected CL_INVALID_VALUE", size, size * 2 + size / 2);
  }
  const size_t bad_sizes[] = {0, 3, 5, 6, 7, 12, 24, 48, 96, 127, 129, 192, 256, 512};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    size_t s = bad_sizes[i];
    cl_int err = clEnqueueSVMMemFill(q, svm, pattern, s, s ? s * 4 : 64, 0, NULL, NULL);
    if (err != CL_INVALID_VALUE) fail_msg("pattern size %zu: %d, expected CL_INVALID_VALUE", s, err);
  }
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemFill(q, NULL, pattern, 4, 64, 0, NULL, NULL));
  assert_cl_success(clEnqueueSVMMemFill(q, svm, pattern, 4, 0, 0, NULL, NULL)); /* 0 is a multiple of 4 */
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemFill(q, svm, NULL, 4, 64, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  for (int i = 0; i < 1024; i++) assert_int_equal(0x11, svm[i]); /* no failed call filled */
  clSVMFree(env->context, svm);
}

/* ---- clEnqueueSVMMap / clEnqueueSVMUnmap ---- */

static void test_map_unmap(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(cl_int), 0);
  cl_int *out = malloc(N * sizeof(cl_int));
  assert_non_null(svm);
  const cl_map_flags flags[] = {CL_MAP_READ, CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION};
  for (int f = 0; f < 4; f++) {
    cl_event map = NULL, unmap = NULL;
    cl_int blocking = f % 2 ? CL_TRUE : CL_FALSE;
    assert_cl_success(
        clEnqueueSVMMap(env->queue, blocking, flags[f], svm + 16, (N - 16) * sizeof(cl_int), 0, NULL, &map));
    assert_cl_success(clWaitForEvents(1, &map));
    kiln_test_expect_event_info(map, CL_COMMAND_SVM_MAP, env->queue, env->context);
    for (int i = 16; i < N; i++) svm[i] = i * 10 + f;
    assert_cl_success(clEnqueueSVMUnmap(env->queue, svm + 16, 0, NULL, &unmap));
    assert_cl_success(clWaitForEvents(1, &unmap));
    kiln_test_expect_event_info(unmap, CL_COMMAND_SVM_UNMAP, env->queue, env->context);
    /* What the host wrote while mapped is what the device copies out. */
    assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, out, svm + 16, (N - 16) * sizeof(cl_int), 0, NULL, NULL));
    for (int i = 16; i < N; i++) assert_int_equal(i * 10 + f, out[i - 16]);
    assert_cl_success(clReleaseEvent(map));
    assert_cl_success(clReleaseEvent(unmap));
  }
  /* System memory maps too (fine-grain system SVM). */
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, out, 64, 0, NULL, NULL));
  assert_cl_success(clEnqueueSVMUnmap(env->queue, out, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  free(out);
  clSVMFree(env->context, svm);
}

static void test_map_unmap_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  void *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 256, 0);
  assert_non_null(svm);
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, svm, 0, 0, NULL, NULL));
  const cl_map_flags bad[] = {CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                              CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, (cl_map_flags)1 << 3,
                              (cl_map_flags)1 << 40};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_int err = clEnqueueSVMMap(q, CL_TRUE, bad[i], svm, 16, 0, NULL, NULL);
    if (err != CL_INVALID_VALUE)
      fail_msg("map flags 0x%llx: %d, expected CL_INVALID_VALUE", (unsigned long long)bad[i], err);
  }
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMUnmap(q, NULL, 0, NULL, NULL));
  cl_event failed = kiln_test_gate_new(env->context);
  assert_cl_success(clSetUserEventStatus(failed, -1));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                   clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, svm, 16, 1, &failed, NULL));
  assert_cl_success(clReleaseEvent(failed));
  assert_cl_success(clFinish(q));
  clSVMFree(env->context, svm);
}

/* ---- clEnqueueSVMMigrateMem ---- */

static void test_migrate(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 4096, 0);
  unsigned char *b = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 1000, 0);
  assert_non_null(a);
  assert_non_null(b);
  fill_bytes(b, 1000, 7);
  unsigned char before[1000];
  memcpy(before, b, 1000);
  const void *pointers[] = {a, b + 10, a + 4095};
  const size_t whole[] = {4096, 990, 1}, zeros[] = {0, 0, 0}, mixed[] = {0, 5, 0};
  const size_t *size_lists[] = {NULL, whole, zeros, mixed};
  const cl_mem_migration_flags flags[] = {0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                          CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED};
  for (int f = 0; f < 4; f++)
    for (int s = 0; s < 4; s++) {
      cl_event event = NULL;
      assert_cl_success(clEnqueueSVMMigrateMem(env->queue, 3, pointers, size_lists[s], flags[f], 0, NULL, &event));
      expect_complete(event, CL_COMMAND_SVM_MIGRATE_MEM);
    }
  /* Without CONTENT_UNDEFINED the contents survive a migration to the host and back. */
  const void *just_b[] = {b};
  assert_cl_success(clEnqueueSVMMigrateMem(env->queue, 1, just_b, NULL, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL));
  assert_cl_success(clEnqueueSVMMigrateMem(env->queue, 1, just_b, NULL, 0, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_memory_equal(before, b, 1000);
  clSVMFree(env->context, a);
  clSVMFree(env->context, b);
}

static void test_migrate_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  unsigned char *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 4096, 0);
  assert_non_null(a);
  unsigned char *heap = malloc(64);
  const void *pointers[] = {a, a + 100};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 0, pointers, NULL, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 2, NULL, NULL, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 0, NULL, NULL, 0, 0, NULL, NULL));
  /* A range with a size that is not inside one clSVMAlloc allocation. */
  const size_t past_end[] = {4097, 1}, second_past[] = {1, 3997}, ok[] = {4096, 3996};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 2, pointers, past_end, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 2, pointers, second_past, 0, 0, NULL, NULL));
  assert_cl_success(clEnqueueSVMMigrateMem(q, 2, pointers, ok, 0, 0, NULL, NULL));
  const void *system[] = {heap};
  const size_t sixteen[] = {16};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(q, 1, system, sixteen, 0, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  free(heap);
  clSVMFree(env->context, a);
}

/* ---- clEnqueueSVMFree ---- */

struct free_call {
  int calls;
  cl_command_queue queue;
  cl_uint count;
  void *pointers[8];
  void *user_data;
  cl_context context; /* to free the SVM pointers with */
  int system_index;   /* the malloc'd pointer's position, freed with free() */
};

static void CL_CALLBACK free_callback(cl_command_queue queue, cl_uint count, void *pointers[], void *user_data) {
  struct free_call *call = user_data;
  call->calls++;
  call->queue = queue;
  call->count = count;
  call->user_data = user_data;
  for (cl_uint i = 0; i < count && i < 8; i++) {
    call->pointers[i] = pointers[i];
    if ((int)i == call->system_index)
      free(pointers[i]);
    else
      clSVMFree(call->context, pointers[i]);
  }
}

/* Whether [p, p + size) lies in a live clSVMAlloc allocation: a migration with a size is
 * refused exactly when it does not (Kiln is asked on a separate queue; nothing is touched). */
static bool is_svm_allocation(cl_command_queue probe, void *p, size_t size) {
  const void *list[] = {p};
  cl_int err = clEnqueueSVMMigrateMem(probe, 1, list, &size, 0, 0, NULL, NULL);
  assert_cl_success(clFinish(probe));
  if (err != CL_SUCCESS && err != CL_INVALID_VALUE) fail_msg("migrate probe: %d", err);
  return err == CL_SUCCESS;
}

static int null_data_calls;
static void *null_data_seen;
static void CL_CALLBACK null_data_callback(cl_command_queue queue, cl_uint count, void *pointers[], void *user_data) {
  (void)queue, (void)count, (void)pointers;
  null_data_calls++;
  null_data_seen = user_data;
}

static void test_enqueue_free_with_callback(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue probe = kiln_test_queue(env->context, env->device, 0);
  void *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 512, 0);
  void *b = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 100, 0);
  void *system = malloc(77);
  assert_non_null(a);
  assert_non_null(b);
  struct free_call call = {.context = env->context, .system_index = 1};
  void **list = malloc(3 * sizeof *list);
  list[0] = a, list[1] = system, list[2] = b;
  cl_event gate = kiln_test_gate_new(env->context), event = NULL;
  assert_cl_success(clEnqueueSVMFree(env->queue, 3, list, free_callback, &call, 1, &gate, &event));
  free(list); /* the list may be freed at once */
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(30);
  assert_int_equal(0, call.calls); /* not before the wait list */
  assert_true(is_svm_allocation(probe, a, 512));
  assert_true(is_svm_allocation(probe, b, 100));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &event));
  kiln_test_expect_event_info(event, CL_COMMAND_SVM_FREE, env->queue, env->context);
  assert_cl_success(clReleaseEvent(event));
  assert_int_equal(1, call.calls);
  assert_ptr_equal(env->queue, call.queue);
  assert_int_equal(3, call.count);
  assert_ptr_equal(a, call.pointers[0]);
  assert_ptr_equal(system, call.pointers[1]);
  assert_ptr_equal(b, call.pointers[2]);
  assert_ptr_equal(&call, call.user_data);
  assert_false(is_svm_allocation(probe, a, 512)); /* the callback freed them */
  assert_false(is_svm_allocation(probe, b, 100));
  /* NULL user data reaches the callback as NULL; with a callback Kiln frees nothing itself. */
  void *c = clSVMAlloc(env->context, 0, 64, 0);
  assert_non_null(c);
  null_data_calls = 0;
  null_data_seen = &call;
  assert_cl_success(clEnqueueSVMFree(env->queue, 1, &c, null_data_callback, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(1, null_data_calls);
  assert_null(null_data_seen);
  assert_true(is_svm_allocation(probe, c, 64));
  clSVMFree(env->context, c);
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(probe));
}

static void test_enqueue_free_without_callback(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue probe = kiln_test_queue(env->context, env->device, 0);
  void *list[4];
  const cl_svm_mem_flags kinds[] = {0, CL_MEM_READ_ONLY, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                    CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS};
  for (int i = 0; i < 4; i++) {
    list[i] = clSVMAlloc(env->context, kinds[i], 1000 + (size_t)i, 0);
    assert_non_null(list[i]);
  }
  cl_event gate = kiln_test_gate_new(env->context), event = NULL;
  assert_cl_success(clEnqueueSVMFree(env->queue, 4, list, NULL, NULL, 1, &gate, &event));
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(20);
  for (int i = 0; i < 4; i++) assert_true(is_svm_allocation(probe, list[i], 1000 + (size_t)i));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  expect_complete(event, CL_COMMAND_SVM_FREE);
  for (int i = 0; i < 4; i++)
    if (is_svm_allocation(probe, list[i], 1000 + (size_t)i)) fail_msg("pointer %d was not freed", i);
  /* The empty list is a valid command. */
  assert_cl_success(clEnqueueSVMFree(env->queue, 0, NULL, NULL, NULL, 0, NULL, &event));
  expect_complete(event, CL_COMMAND_SVM_FREE);
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseCommandQueue(probe));
}

static void test_enqueue_free_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  void *p = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
  assert_non_null(p);
  void *list[1] = {p};
  struct free_call call = {.context = env->context, .system_index = -1};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(q, 0, list, free_callback, &call, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(q, 1, NULL, free_callback, &call, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(q, 0, list, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(q, 3, NULL, NULL, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
  assert_int_equal(0, call.calls);          /* no failed call ran the callback */
  assert_true(is_svm_allocation(q, p, 64)); /* nor freed anything */
  memset(p, 1, 64);
  clSVMFree(env->context, p);
}

/* ---- queue and wait-list errors, the same for every SVM command ---- */

enum { MEMCPY, FILL, MAP, UNMAP, MIGRATE, FREE, COMMANDS };
static const char *command_names[COMMANDS] = {"memcpy", "fill", "map", "unmap", "migrate", "free"};
static const cl_command_type command_types[COMMANDS] = {CL_COMMAND_SVM_MEMCPY,      CL_COMMAND_SVM_MEMFILL,
                                                        CL_COMMAND_SVM_MAP,         CL_COMMAND_SVM_UNMAP,
                                                        CL_COMMAND_SVM_MIGRATE_MEM, CL_COMMAND_SVM_FREE};
static void *command_svm; /* a fine-grain allocation of 64 bytes the commands work on */
static unsigned char command_host[64];
static int free_calls;

static void CL_CALLBACK count_free(cl_command_queue queue, cl_uint count, void *pointers[], void *user_data) {
  (void)queue, (void)count, (void)pointers, (void)user_data;
  free_calls++;
}

/* Command `c` with valid arguments of its own, the queue and wait list given; through Kiln's
 * dispatch table `d` (for handles the loader would not forward), else through the loader. */
static cl_int enqueue_command(int c, const struct _cl_icd_dispatch *d, cl_command_queue q, cl_uint n,
                              const cl_event *list, cl_event *event) {
#define API(name) (d ? d->name : name)
  static const cl_int pattern = 7;
  const void *migrate[] = {command_svm};
  void *to_free[] = {command_host};
  switch (c) {
  case MEMCPY:
    return API(clEnqueueSVMMemcpy)(q, CL_FALSE, command_svm, command_host, 16, n, list, event);
  case FILL:
    return API(clEnqueueSVMMemFill)(q, command_svm, &pattern, sizeof pattern, 16, n, list, event);
  case MAP:
    return API(clEnqueueSVMMap)(q, CL_FALSE, CL_MAP_READ, command_svm, 16, n, list, event);
  case UNMAP:
    return API(clEnqueueSVMUnmap)(q, command_svm, n, list, event);
  case MIGRATE:
    return API(clEnqueueSVMMigrateMem)(q, 1, migrate, NULL, 0, n, list, event);
  default:
    return API(clEnqueueSVMFree)(q, 1, to_free, count_free, NULL, n, list, event);
  }
#undef API
}

static void expect_code(int c, const char *what, cl_int want, cl_int got) {
  if (got != want) fail_msg("%s, %s: %d, expected %d", command_names[c], what, got, want);
}

static void test_queue_and_wait_list_errors(void **state) {
  struct kiln_test_env *env = *state;
  command_svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0);
  assert_non_null(command_svm);
  free_calls = 0;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_command_queue gone = kiln_test_queue(env->context, env->device, 0);
  assert_cl_success(clReleaseCommandQueue(gone));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_context other = kiln_test_context(env->device);
  cl_event foreign = clCreateUserEvent(other, NULL);
  cl_event done = kiln_test_done_marker(env->queue);
  cl_event not_event = (cl_event)env->context, with_null[2] = {done, NULL};
  cl_event gate = kiln_test_gate_new(env->context), events[COMMANDS] = {NULL};
  cl_command_queue q = env->queue;
  for (int c = 0; c < COMMANDS; c++) {
    expect_code(c, "NULL queue", CL_INVALID_COMMAND_QUEUE, enqueue_command(c, d, NULL, 0, NULL, NULL));
    expect_code(c, "a context as queue", CL_INVALID_COMMAND_QUEUE,
                enqueue_command(c, NULL, (cl_command_queue)env->context, 0, NULL, NULL));
    expect_code(c, "a released queue", CL_INVALID_COMMAND_QUEUE, enqueue_command(c, d, gone, 0, NULL, NULL));
    expect_code(c, "a forged queue", CL_INVALID_COMMAND_QUEUE,
                enqueue_command(c, d, (cl_command_queue)&fake, 0, NULL, NULL));
    expect_code(c, "NULL wait list, count 1", CL_INVALID_EVENT_WAIT_LIST, enqueue_command(c, NULL, q, 1, NULL, NULL));
    expect_code(c, "a wait list, count 0", CL_INVALID_EVENT_WAIT_LIST, enqueue_command(c, NULL, q, 0, &done, NULL));
    expect_code(c, "a context in the wait list", CL_INVALID_EVENT_WAIT_LIST,
                enqueue_command(c, NULL, q, 1, &not_event, NULL));
    expect_code(c, "NULL in the wait list", CL_INVALID_EVENT_WAIT_LIST,
                enqueue_command(c, NULL, q, 2, with_null, NULL));
    /* clEnqueueSVMFree lists no CL_INVALID_CONTEXT; the others do for another context's event. */
    if (c != FREE)
      expect_code(c, "another context's event", CL_INVALID_CONTEXT, enqueue_command(c, NULL, q, 1, &foreign, NULL));
    /* Valid: waits for a gate (after failed calls that enqueued nothing). */
    expect_code(c, "valid", CL_SUCCESS, enqueue_command(c, NULL, q, 1, &gate, &events[c]));
  }
  assert_cl_success(clFlush(q));
  kiln_test_sleep_ms(20);
  for (int c = 0; c < COMMANDS; c++)
    if (kiln_test_event_status(events[c]) <= CL_COMPLETE) fail_msg("%s ran before its wait list", command_names[c]);
  assert_int_equal(0, free_calls);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  for (int c = 0; c < COMMANDS; c++) expect_complete(events[c], command_types[c]);
  assert_int_equal(1, free_calls); /* only the valid clEnqueueSVMFree ran its callback */
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clSetUserEventStatus(foreign, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(clReleaseContext(other));
  clSVMFree(env->context, command_svm);
}

/* ---- events of every SVM command ---- */

static void test_event_info_and_profiling(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = kiln_test_queue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE);
  command_svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0);
  assert_non_null(command_svm);
  cl_event events[COMMANDS] = {NULL};
  for (int c = 0; c < COMMANDS; c++)
    expect_code(c, "enqueue", CL_SUCCESS, enqueue_command(c, NULL, q, 0, NULL, &events[c]));
  assert_cl_success(clWaitForEvents(COMMANDS, events));
  cl_ulong previous_end = 0;
  for (int c = 0; c < COMMANDS; c++) {
    kiln_test_expect_event_info(events[c], command_types[c], q, env->context);
    assert_int_equal(CL_COMPLETE, kiln_test_event_status(events[c]));
    cl_ulong t[5];
    kiln_test_profiling_times(events[c], t, command_names[c]);
    /* In order: a command starts after the one before it ended. */
    if (t[2] < previous_end) fail_msg("%s started before %s ended", command_names[c], command_names[c - 1]);
    previous_end = t[3];
    assert_cl_success(clReleaseEvent(events[c]));
  }
  assert_cl_success(clReleaseCommandQueue(q));
  clSVMFree(env->context, command_svm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_memcpy_blocking),
      KILN_GATED_TEST(test_memcpy_non_blocking_and_wait_lists),
      KILN_GATED_TEST(test_memcpy_overlap),
      KILN_GATED_TEST(test_memcpy_errors),
      KILN_GATED_TEST(test_fill_every_pattern_size),
      KILN_GATED_TEST(test_fill_pattern_copied_at_call),
      KILN_GATED_TEST(test_fill_errors),
      KILN_GATED_TEST(test_map_unmap),
      KILN_GATED_TEST(test_map_unmap_errors),
      KILN_GATED_TEST(test_migrate),
      KILN_GATED_TEST(test_migrate_errors),
      KILN_GATED_TEST(test_enqueue_free_with_callback),
      KILN_GATED_TEST(test_enqueue_free_without_callback),
      KILN_GATED_TEST(test_enqueue_free_errors),
      KILN_GATED_TEST(test_queue_and_wait_list_errors),
      KILN_GATED_TEST(test_event_info_and_profiling),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
