/* Shared virtual memory, allocation lifetime: an allocation keeps its context (freed after
 * the context's release, neither leaks), another context's allocation is no SVM pointer
 * here, and threads allocating, looking up and freeing at once keep every allocation its
 * own. (Flags, alignments, refusals and buffers over SVM: test_svm_alloc.c.) */
#include "kiln_test.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static cl_bool uses_svm(cl_mem mem) {
  cl_bool value = 2;
  size_t size = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_USES_SVM_POINTER, sizeof value, &value, &size));
  assert_int_equal(sizeof value, size);
  return value;
}

/* Another context's SVM allocation is no SVM pointer of this context's buffers. */
static void test_svm_of_another_context(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  void *p = clSVMAlloc(other, CL_MEM_READ_WRITE, 64, 0);
  assert_non_null(p);
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 64, p, &err);
  assert_cl_success(err);
  assert_int_equal(CL_FALSE, uses_svm(buffer));
  assert_cl_success(clReleaseMemObject(buffer));
  clSVMFree(other, p);
  assert_cl_success(clReleaseContext(other));
}

/* An allocation keeps its context: freed after the application released the context, the
 * allocation goes and the context with it (the suites run with KILN_LEAK_CHECK=1, which
 * would report either left over at exit). */
static void test_free_after_context_release(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  int *p = clSVMAlloc(context, CL_MEM_READ_WRITE, 4096, 0);
  assert_non_null(p);
  assert_cl_success(clReleaseContext(context));
  p[1023] = 5; /* still allocated */
  clSVMFree(context, p);
}

/* Threads allocate, look up (buffers over their pointers) and free at once: every
 * allocation stays its own. */
struct churn {
  cl_context context;
  unsigned seed;
  int failures;
};

static void *churn_thread(void *arg) {
  struct churn *c = arg;
  for (int i = 0; i < 400; i++) {
    size_t size = 64 + kiln_test_random(&c->seed) % 8192;
    unsigned char *p = clSVMAlloc(c->context, CL_MEM_READ_WRITE, size, 0);
    if (!p) {
      c->failures++;
      continue;
    }
    memset(p, (int)(c->seed & 0xFF), size);
    cl_int err;
    cl_mem over = clCreateBuffer(c->context, CL_MEM_USE_HOST_PTR, size, p, &err);
    cl_bool uses = CL_FALSE;
    if (!over || clGetMemObjectInfo(over, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, NULL) != CL_SUCCESS || !uses)
      c->failures++;
    if (over) clReleaseMemObject(over);
    cl_mem past = clCreateBuffer(c->context, CL_MEM_USE_HOST_PTR, size + 1, p, &err);
    if (past || err != CL_INVALID_BUFFER_SIZE) c->failures++;
    if (past) clReleaseMemObject(past);
    clSVMFree(c->context, p);
  }
  return NULL;
}

static void test_concurrent_allocations(void **state) {
  struct kiln_test_env *env = *state;
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  struct churn churns[THREADS];
  for (int t = 0; t < THREADS; t++) {
    churns[t] = (struct churn){env->context, 1234u + (unsigned)t, 0};
    assert_int_equal(0, pthread_create(&threads[t], NULL, churn_thread, &churns[t]));
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    assert_int_equal(0, churns[t].failures);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_svm_of_another_context),
      cmocka_unit_test(test_free_after_context_release),
      cmocka_unit_test(test_concurrent_allocations),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
