/* Shared virtual memory, commands: clEnqueueSVMMemcpy (SVM, malloc'd and stack memory,
 * blocking or not, overlap refused), clEnqueueSVMMemFill (every pattern size, byte
 * exact), clEnqueueSVMMap / Unmap, clEnqueueSVMMigrateMem, clEnqueueSVMFree (its callback
 * gets a copy of the list after the wait list; without one Kiln frees): each with its
 * event's command type and every error the spec lists, wait-list errors included. */
#include "kiln_test.h"

#include <stdint.h>
#include <string.h>

static cl_command_type command_type(cl_event event) {
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  return type;
}

/* Waits for `event`, checks its type and status, releases it. */
static void expect_done(cl_event event, cl_command_type type) {
  assert_cl_success(clWaitForEvents(1, &event));
  assert_int_equal(type, command_type(event));
  cl_int status = 1;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_COMPLETE, status);
  assert_cl_success(clReleaseEvent(event));
}

static void fill_bytes(unsigned char *p, size_t n, unsigned salt) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + salt);
}

static void test_memcpy(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N, 0);
  unsigned char *fine = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N, 0);
  unsigned char *heap = malloc(N), stack[N];
  assert_non_null(svm);
  assert_non_null(fine);
  fill_bytes(heap, N, 1);
  /* malloc -> SVM (blocking), SVM -> fine-grain SVM (event), fine -> stack (blocking). */
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, heap, N, 0, NULL, NULL));
  assert_memory_equal(heap, svm, N);
  cl_event event;
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_FALSE, fine, svm, N, 0, NULL, &event));
  expect_done(event, CL_COMMAND_SVM_MEMCPY);
  assert_memory_equal(heap, fine, N);
  memset(stack, 0, N);
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, stack + 1, fine + 2, N - 2, 0, NULL, NULL));
  assert_memory_equal(heap + 2, stack + 1, N - 2);
  assert_int_equal(0, stack[0]);
  /* Adjacent ranges do not overlap; size 0 is a no-op. */
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm + 16, svm, 16, 0, NULL, NULL));
  assert_memory_equal(svm, svm + 16, 16);
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, svm, 0, 0, NULL, NULL));

  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemcpy(env->queue, CL_TRUE, NULL, svm, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_MEM_COPY_OVERLAP, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm + 8, svm, 16, 0, NULL, NULL));
  assert_int_equal(CL_MEM_COPY_OVERLAP, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, svm + 15, 16, 0, NULL, NULL));
  assert_int_equal(CL_MEM_COPY_OVERLAP, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, svm, 16, 0, NULL, NULL));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, d->clEnqueueSVMMemcpy(NULL, CL_TRUE, svm, heap, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, heap, 16, 1, NULL, NULL));
  cl_event user = clCreateUserEvent(env->context, NULL);
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, heap, 16, 0, &user, NULL));
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event foreign = clCreateUserEvent(other, NULL);
  assert_int_equal(CL_INVALID_CONTEXT, clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, heap, 16, 1, &foreign, NULL));
  assert_cl_success(clSetUserEventStatus(foreign, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseContext(other));
  /* A blocking copy after a failed event: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, and
   * nothing copied. */
  memset(svm, 0, 16);
  assert_cl_success(clSetUserEventStatus(user, -5));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                   clEnqueueSVMMemcpy(env->queue, CL_TRUE, svm, heap, 16, 1, &user, NULL));
  for (int i = 0; i < 16; i++) assert_int_equal(0, svm[i]);
  assert_cl_success(clReleaseEvent(user));
  /* A non-blocking copy waits for its wait list. */
  user = clCreateUserEvent(env->context, NULL);
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_FALSE, svm, heap, 64, 1, &user, &event));
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(20);
  for (int i = 0; i < 16; i++) assert_int_equal(0, svm[i]);
  assert_cl_success(clSetUserEventStatus(user, CL_COMPLETE));
  expect_done(event, CL_COMMAND_SVM_MEMCPY);
  assert_memory_equal(heap, svm, 64);
  assert_cl_success(clReleaseEvent(user));
  assert_cl_success(clFinish(env->queue));
  free(heap);
  clSVMFree(env->context, svm);
  clSVMFree(env->context, fine);
}

static void test_fill_every_pattern_size(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 2048, GUARD = 128 };
  unsigned char pattern[128];
  fill_bytes(pattern, sizeof pattern, 9);
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, BYTES + 2 * GUARD, 0);
  unsigned char *heap = aligned_alloc(128, BYTES + 2 * GUARD);
  assert_non_null(svm);
  unsigned char *targets[] = {svm, heap};
  for (int t = 0; t < 2; t++) {
    unsigned char *p = targets[t];
    for (size_t size = 1; size <= 128; size *= 2) {
      memset(p, 0xEE, BYTES + 2 * GUARD);
      cl_event event;
      assert_cl_success(clEnqueueSVMMemFill(env->queue, p + GUARD, pattern, size, BYTES, 0, NULL, &event));
      expect_done(event, CL_COMMAND_SVM_MEMFILL);
      for (size_t i = 0; i < BYTES; i++)
        if (p[GUARD + i] != pattern[i % size])
          fail_msg("pattern size %zu: byte %zu is %u, expected %u", size, i, p[GUARD + i], pattern[i % size]);
      for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(0xEE, p[i]);
        assert_int_equal(0xEE, p[GUARD + BYTES + i]);
      }
    }
  }
  /* The pattern is copied at the call. */
  cl_int word = 0x11223344;
  cl_event user = clCreateUserEvent(env->context, NULL), event;
  assert_cl_success(clEnqueueSVMMemFill(env->queue, svm, &word, sizeof word, 64, 1, &user, &event));
  word = 0;
  assert_cl_success(clSetUserEventStatus(user, CL_COMPLETE));
  expect_done(event, CL_COMMAND_SVM_MEMFILL);
  for (int i = 0; i < 16; i++) assert_int_equal(0x11223344, ((cl_int *)svm)[i]);
  assert_cl_success(clReleaseEvent(user));
  /* Errors. */
  const struct {
    void *ptr;
    const void *pattern;
    size_t pattern_size, size;
    const char *what;
  } bad[] = {
      {NULL, pattern, 4, 64, "NULL pointer"},
      {svm + 2, pattern, 4, 64, "pointer not aligned to the pattern"},
      {svm, NULL, 4, 64, "NULL pattern"},
      {svm, pattern, 0, 64, "pattern size 0"},
      {svm, pattern, 3, 63, "pattern size 3"},
      {svm, pattern, 256, 256, "pattern size 256"},
      {svm, pattern, 4, 66, "size not a multiple"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_int got = clEnqueueSVMMemFill(env->queue, bad[i].ptr, bad[i].pattern, bad[i].pattern_size, bad[i].size, 0,
                                     NULL, NULL);
    if (got != CL_INVALID_VALUE) fail_msg("fill, %s: %d, expected CL_INVALID_VALUE", bad[i].what, got);
  }
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueSVMMemFill(env->queue, svm, pattern, 4, 64, 1, NULL, NULL));
  free(heap);
  clSVMFree(env->context, svm);
}

static void test_map_unmap(void **state) {
  struct kiln_test_env *env = *state;
  int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 1024, 0);
  assert_non_null(svm);
  const cl_map_flags flags[] = {CL_MAP_READ, CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION};
  for (int i = 0; i < 4; i++) {
    cl_event event;
    assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, flags[i], svm, 1024, 0, NULL, &event));
    assert_int_equal(CL_COMMAND_SVM_MAP, command_type(event));
    assert_cl_success(clReleaseEvent(event));
    svm[i] = i + 100; /* the host writes while mapped */
    assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, &event));
    expect_done(event, CL_COMMAND_SVM_UNMAP);
  }
  for (int i = 0; i < 4; i++) assert_int_equal(i + 100, svm[i]);
  /* A non-blocking map completes after its wait list. */
  cl_event user = clCreateUserEvent(env->context, NULL), event;
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_FALSE, CL_MAP_READ, svm, 16, 1, &user, &event));
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(user, CL_COMPLETE));
  expect_done(event, CL_COMMAND_SVM_MAP);
  assert_cl_success(clReleaseEvent(user));
  assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, NULL));
  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, svm, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                                                     svm, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMap(env->queue, CL_TRUE, 1u << 7, svm, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMUnmap(env->queue, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, svm, 16, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueSVMUnmap(env->queue, svm, 1, NULL, NULL));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   d->clEnqueueSVMMap((cl_command_queue)env->context, CL_TRUE, CL_MAP_READ, svm, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, d->clEnqueueSVMUnmap(NULL, svm, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  clSVMFree(env->context, svm);
}

static void test_migrate(void **state) {
  struct kiln_test_env *env = *state;
  char *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 4096, 0);
  char *b = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 4096, 0);
  assert_non_null(a);
  assert_non_null(b);
  const void *pointers[] = {a, b + 100};
  const size_t sizes[] = {4096, 3996}, zero_sizes[] = {0, 0};
  const cl_mem_migration_flags flags[] = {0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                          CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED};
  for (int f = 0; f < 4; f++) {
    const size_t *size_lists[] = {NULL, sizes, zero_sizes};
    for (int s = 0; s < 3; s++) {
      cl_event event;
      assert_cl_success(clEnqueueSVMMigrateMem(env->queue, 2, pointers, size_lists[s], flags[f], 0, NULL, &event));
      expect_done(event, CL_COMMAND_SVM_MIGRATE_MEM);
    }
  }
  /* Errors. */
  int on_stack[4];
  const void *with_null[] = {a, NULL}, *system[] = {on_stack};
  const size_t too_long[] = {4097, 1}, past_end[] = {1, 3997}, four[] = {sizeof on_stack};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 0, pointers, NULL, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 2, NULL, NULL, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 2, with_null, NULL, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 2, pointers, too_long, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 2, pointers, past_end, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 1, system, four, 0, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMMigrateMem(env->queue, 2, pointers, NULL, 1u << 9, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   clEnqueueSVMMigrateMem(env->queue, 2, pointers, NULL, 0, 1, NULL, NULL));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, d->clEnqueueSVMMigrateMem(NULL, 2, pointers, NULL, 0, 0, NULL, NULL));
  clSVMFree(env->context, a);
  clSVMFree(env->context, b);
}

/* What the free callback saw. */
struct free_record {
  cl_command_queue queue;
  cl_uint count;
  void *pointers[4];
  void *user_data;
  int calls;
};

static void CL_CALLBACK record_free(cl_command_queue queue, cl_uint count, void *pointers[], void *user_data) {
  struct free_record *r = user_data;
  r->queue = queue;
  r->count = count;
  for (cl_uint i = 0; i < count && i < 4; i++) r->pointers[i] = pointers[i];
  r->user_data = user_data;
  r->calls++;
}

/* Whether `p` is still a registered SVM allocation of at least `size` bytes: a buffer over
 * it reaching past `size` is refused exactly then (nothing touches the memory). */
static bool still_allocated(cl_context context, void *p, size_t size) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_USE_HOST_PTR, size + 1, p, &err);
  if (m) clReleaseMemObject(m);
  return err == CL_INVALID_BUFFER_SIZE;
}

static void test_enqueue_free(void **state) {
  struct kiln_test_env *env = *state;
  void *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 256, 0), *b = clSVMAlloc(env->context, 0, 256, 0);
  int on_stack;
  /* With a callback: after the wait list, with a copy of the list, the queue and user data;
   * Kiln frees nothing itself (the system pointer is the callback's business). */
  struct free_record r = {0};
  void *list[3] = {a, b, &on_stack};
  cl_event user = clCreateUserEvent(env->context, NULL), event;
  assert_cl_success(clEnqueueSVMFree(env->queue, 3, list, record_free, &r, 1, &user, &event));
  list[0] = list[1] = list[2] = NULL; /* the application may reuse its array at once */
  assert_cl_success(clFlush(env->queue));
  kiln_test_sleep_ms(20);
  assert_int_equal(0, r.calls);
  assert_cl_success(clSetUserEventStatus(user, CL_COMPLETE));
  expect_done(event, CL_COMMAND_SVM_FREE);
  assert_int_equal(1, r.calls);
  assert_ptr_equal(env->queue, r.queue);
  assert_int_equal(3, r.count);
  assert_ptr_equal(a, r.pointers[0]);
  assert_ptr_equal(b, r.pointers[1]);
  assert_ptr_equal(&on_stack, r.pointers[2]);
  assert_ptr_equal(&r, r.user_data);
  assert_true(still_allocated(env->context, a, 256));
  assert_true(still_allocated(env->context, b, 256));
  /* Without a callback Kiln frees them. */
  void *both[2] = {a, b};
  assert_cl_success(clEnqueueSVMFree(env->queue, 2, both, NULL, NULL, 0, NULL, &event));
  expect_done(event, CL_COMMAND_SVM_FREE);
  assert_false(still_allocated(env->context, a, 256));
  assert_false(still_allocated(env->context, b, 256));
  /* An empty list is valid. */
  assert_cl_success(clEnqueueSVMFree(env->queue, 0, NULL, NULL, NULL, 0, NULL, &event));
  expect_done(event, CL_COMMAND_SVM_FREE);
  /* Errors. */
  void *one[1] = {&on_stack};
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(env->queue, 0, one, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueSVMFree(env->queue, 1, NULL, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, clEnqueueSVMFree(env->queue, 1, one, record_free, &r, 1, NULL, NULL));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, d->clEnqueueSVMFree(NULL, 1, one, record_free, &r, 0, NULL, NULL));
  assert_int_equal(1, r.calls);
  assert_cl_success(clReleaseEvent(user));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memcpy),
      cmocka_unit_test(test_fill_every_pattern_size),
      cmocka_unit_test(test_map_unmap),
      cmocka_unit_test(test_migrate),
      cmocka_unit_test(test_enqueue_free),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
