/* Shared virtual memory, allocations: CL_DEVICE_SVM_CAPABILITIES and the atomic
 * capabilities; clSVMAlloc with every valid flag combination and alignment (honoured), and
 * NULL for each invalid input; clSVMFree (NULL, foreign pointers, another context: no
 * action); buffers over SVM pointers (CL_MEM_USES_SVM_POINTER on them and their
 * sub-buffers, CL_INVALID_BUFFER_SIZE past the allocation, the same bytes either way). */
#include "kiln_test.h"
#include "kiln_test_objects.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static const cl_svm_mem_flags valid_flags[] = {
    0,
    CL_MEM_READ_WRITE,
    CL_MEM_WRITE_ONLY,
    CL_MEM_READ_ONLY,
    CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_WRITE_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
    CL_MEM_WRITE_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
    CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
    CL_MEM_SVM_FINE_GRAIN_BUFFER,
    CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
};

static void test_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_svm_capabilities caps = 0;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, &size));
  assert_int_equal(sizeof caps, size);
  assert_int_equal(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                       CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS,
                   caps);
  /* SVM atomics need atomics at all-devices scope, which the device reports. */
  cl_device_atomic_capabilities atomics = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof atomics, &atomics, NULL));
  assert_true(atomics & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
  assert_true(atomics & CL_DEVICE_ATOMIC_ORDER_SEQ_CST);
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof atomics, &atomics, NULL));
  assert_true(atomics & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
}

static void test_alloc_flags_and_alignments(void **state) {
  struct kiln_test_env *env = *state;
  for (size_t f = 0; f < sizeof valid_flags / sizeof valid_flags[0]; f++) {
    for (cl_uint alignment = 0; alignment <= 4096; alignment = alignment ? alignment * 2 : 1) {
      unsigned char *p = clSVMAlloc(env->context, valid_flags[f], 1000, alignment);
      if (!p) fail_msg("clSVMAlloc(flags 0x%llx, alignment %u) returned NULL", (unsigned long long)valid_flags[f],
                       alignment);
      cl_uint want = alignment ? alignment : 128; /* the default: long16 */
      if ((uintptr_t)p % want) fail_msg("%p is not %u-aligned", (void *)p, want);
      memset(p, (int)f, 1000); /* host memory, every byte of it */
      clSVMFree(env->context, p);
    }
  }
}

static void test_alloc_refusals(void **state) {
  struct kiln_test_env *env = *state;
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  const struct {
    cl_svm_mem_flags flags;
    size_t size;
    cl_uint alignment;
    const char *what;
  } refused[] = {
      {CL_MEM_READ_WRITE, 0, 0, "size 0"},
      {CL_MEM_READ_WRITE, (size_t)max_alloc + 1, 0, "size above CL_DEVICE_MAX_MEM_ALLOC_SIZE"},
      {CL_MEM_READ_WRITE, 64, 3, "alignment 3"},
      {CL_MEM_READ_WRITE, 64, 96, "alignment 96"},
      {CL_MEM_SVM_ATOMICS, 64, 0, "atomics without fine grain"},
      {CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS, 64, 0, "atomics without fine grain, read-write"},
      {CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0, "two access flags"},
      {CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64, 0, "write-only and read-only"},
      {CL_MEM_USE_HOST_PTR, 64, 0, "a buffer flag"},
      {CL_MEM_HOST_READ_ONLY, 64, 0, "a host-access flag"},
      {(cl_svm_mem_flags)1 << 40, 64, 0, "an unknown bit"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    void *p = clSVMAlloc(env->context, refused[i].flags, refused[i].size, refused[i].alignment);
    if (p) {
      clSVMFree(env->context, p);
      fail_msg("clSVMAlloc, %s: returned %p, expected NULL", refused[i].what, p);
    }
  }
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->context);
  assert_null(d->clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0));
  assert_null(d->clSVMAlloc((cl_context)env->queue, CL_MEM_READ_WRITE, 64, 0));
}

static void test_free_no_action_cases(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->context);
  clSVMFree(env->context, NULL);
  int on_stack = 1;
  clSVMFree(env->context, &on_stack); /* not from clSVMAlloc: nothing happens to it */
  assert_int_equal(1, on_stack);
  char *p = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 256, 0);
  assert_non_null(p);
  clSVMFree(env->context, p + 16);      /* not the start: no action */
  d->clSVMFree(NULL, p);                /* invalid context: no action */
  d->clSVMFree((cl_context)env->queue, p);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  clSVMFree(other, p); /* another context's: no action */
  assert_cl_success(clReleaseContext(other));
  memset(p, 7, 256); /* still allocated */
  /* A buffer over it still sees it: the allocation is alive. */
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 256, p, &err);
  assert_cl_success(err);
  cl_bool uses = CL_FALSE;
  assert_cl_success(clGetMemObjectInfo(buffer, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, NULL));
  assert_int_equal(CL_TRUE, uses);
  assert_cl_success(clReleaseMemObject(buffer));
  clSVMFree(env->context, p);
  /* Freed: a buffer over the same address is no longer over SVM (when the address is not
   * handed out again meanwhile, which nothing here does). */
}

static cl_bool uses_svm(cl_mem mem) {
  cl_bool value = 2;
  size_t size = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_USES_SVM_POINTER, sizeof value, &value, &size));
  assert_int_equal(sizeof value, size);
  return value;
}

static const char *double_source = "kernel void twice(global int *p) { p[get_global_id(0)] *= 2; }\n";

static void test_buffers_over_svm(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1024 };
  cl_int err;
  int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof *svm, 0);
  assert_non_null(svm);
  for (int i = 0; i < N; i++) svm[i] = i;
  cl_mem whole = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N * sizeof *svm, svm, &err);
  assert_cl_success(err);
  assert_int_equal(CL_TRUE, uses_svm(whole));
  void *host_ptr = NULL;
  assert_cl_success(clGetMemObjectInfo(whole, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
  assert_ptr_equal(svm, host_ptr);
  cl_buffer_region region = {256 * sizeof *svm, 256 * sizeof *svm};
  cl_mem sub = clCreateSubBuffer(whole, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_int_equal(CL_TRUE, uses_svm(sub));
  /* A buffer over the middle of the allocation, to its end. */
  cl_mem tail = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, (N - 10) * sizeof *svm, svm + 10, &err);
  assert_cl_success(err);
  assert_int_equal(CL_TRUE, uses_svm(tail));

  /* A kernel on the sub-buffer: the SVM pointer sees it. */
  cl_program program = kiln_test_program(env->context, env->device, double_source, NULL);
  cl_kernel twice = kiln_test_kernel(program, "twice");
  kiln_test_arg_mem(twice, 0, sub);
  size_t global = 256;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, twice, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) assert_int_equal(i >= 256 && i < 512 ? 2 * i : i, svm[i]);

  /* Past the allocation: CL_INVALID_BUFFER_SIZE, from its start or its middle. */
  assert_null(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 2 * N * sizeof *svm, svm, &err));
  assert_int_equal(CL_INVALID_BUFFER_SIZE, err);
  assert_null(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N * sizeof *svm, svm + 1, &err));
  assert_int_equal(CL_INVALID_BUFFER_SIZE, err);
  /* COPY_HOST_PTR from SVM copies; the copy is no SVM buffer. */
  cl_mem copy = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N * sizeof *svm, svm, &err);
  assert_cl_success(err);
  assert_int_equal(CL_FALSE, uses_svm(copy));
  /* Neither are plain, malloc'd or ALLOC_HOST_PTR buffers. */
  int *plain_memory = kiln_test_host_alloc(64);
  cl_mem plain = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_cl_success(err);
  cl_mem over_malloc = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 64, plain_memory, &err);
  assert_cl_success(err);
  assert_int_equal(CL_FALSE, uses_svm(plain));
  assert_int_equal(CL_FALSE, uses_svm(over_malloc));

  cl_mem all[] = {sub, whole, tail, copy, plain, over_malloc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) assert_cl_success(clReleaseMemObject(all[i]));
  assert_cl_success(clReleaseKernel(twice));
  assert_cl_success(clReleaseProgram(program));
  free(plain_memory);
  clSVMFree(env->context, svm);
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
      cmocka_unit_test(test_capabilities),
      cmocka_unit_test(test_alloc_flags_and_alignments),
      cmocka_unit_test(test_alloc_refusals),
      cmocka_unit_test(test_free_no_action_cases),
      cmocka_unit_test(test_buffers_over_svm),
      cmocka_unit_test(test_svm_of_another_context),
      cmocka_unit_test(test_free_after_context_release),
      cmocka_unit_test(test_concurrent_allocations),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
