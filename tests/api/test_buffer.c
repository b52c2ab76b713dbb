/* Buffer objects: clCreateBuffer / clCreateBufferWithProperties flag, size and host
 * pointer rules, USE/COPY_HOST_PTR semantics, clGetMemObjectInfo, retain/release and
 * stale handles, and the SVM enqueues' queue check (pipes: test_pipes.c). Calls on a released handle go through Kiln's dispatch table
 * read from a live handle, as the loader would forward them (the loader itself would
 * dereference the stale pointer). */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cl_int create_error(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, flags, size, host_ptr, &err);
  if (mem) clReleaseMemObject(mem);
  assert_true((mem == NULL) == (err != CL_SUCCESS));
  return err;
}

static void read_all(struct kiln_test_env *env, cl_mem mem, void *dst, size_t size) {
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, size, dst, 0, NULL, NULL));
}

static void test_create_valid_flags(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_flags ok[] = {0,
                             CL_MEM_READ_WRITE,
                             CL_MEM_READ_ONLY,
                             CL_MEM_WRITE_ONLY,
                             CL_MEM_ALLOC_HOST_PTR,
                             CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY,
                             CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY,
                             CL_MEM_HOST_NO_ACCESS,
                             CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR | CL_MEM_HOST_READ_ONLY};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    cl_int err = -1;
    cl_mem mem = clCreateBuffer(env->context, ok[i], 256, NULL, &err);
    assert_cl_success(err);
    assert_non_null(mem);
    cl_mem_flags got = 0;
    assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof got, &got, NULL));
    assert_int_equal(got, ok[i]);
    assert_cl_success(clReleaseMemObject(mem));
  }
  /* errcode_ret may be NULL */
  cl_mem mem = clCreateBuffer(env->context, 0, 16, NULL, NULL);
  assert_non_null(mem);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_create_flag_errors(void **state) {
  struct kiln_test_env *env = *state;
  char host[64];
  cl_context c = env->context;
  assert_int_equal(create_error(c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_KERNEL_READ_AND_WRITE, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, (cl_mem_flags)1 << 40, 64, NULL), CL_INVALID_VALUE);
  assert_int_equal(create_error(c, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, NULL), CL_INVALID_VALUE);
  /* host pointer rules */
  assert_int_equal(create_error(c, CL_MEM_USE_HOST_PTR, 64, NULL), CL_INVALID_HOST_PTR);
  assert_int_equal(create_error(c, CL_MEM_COPY_HOST_PTR, 64, NULL), CL_INVALID_HOST_PTR);
  assert_int_equal(create_error(c, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, NULL), CL_INVALID_HOST_PTR);
  assert_int_equal(create_error(c, 0, 64, host), CL_INVALID_HOST_PTR);
  assert_int_equal(create_error(c, CL_MEM_ALLOC_HOST_PTR, 64, host), CL_INVALID_HOST_PTR);
  /* COPY + ALLOC is legal */
  assert_int_equal(create_error(c, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host), CL_SUCCESS);
}

static void test_create_size_and_context_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  assert_true(max_alloc > 0);
  assert_int_equal(create_error(env->context, 0, 0, NULL), CL_INVALID_BUFFER_SIZE);
  if (max_alloc < SIZE_MAX)
    assert_int_equal(create_error(env->context, 0, (size_t)max_alloc + 1, NULL), CL_INVALID_BUFFER_SIZE);
  assert_int_equal(create_error(env->context, 0, SIZE_MAX, NULL), CL_INVALID_BUFFER_SIZE);
  /* flags are checked before the size */
  assert_int_equal(create_error(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, NULL), CL_INVALID_VALUE);
  /* an invalid context: a released one reached through Kiln's dispatch table */
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(other));
  err = CL_SUCCESS;
  assert_null(kiln_test_dispatch_of(env->context)->clCreateBuffer(other, 0, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  err = CL_SUCCESS;
  assert_null(kiln_test_dispatch_of(env->context)->clCreateBuffer((cl_context)env->queue, 0, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
}

static void test_use_host_ptr_is_zero_copy(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  int *host = malloc(N * sizeof *host);
  for (int i = 0; i < N; i++) host[i] = i * 3;
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N * sizeof *host, host, &err);
  assert_cl_success(err);
  void *reported = NULL;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof reported, &reported, NULL));
  assert_ptr_equal(reported, host);
  /* initial contents come from host */
  int got[N];
  read_all(env, mem, got, sizeof got);
  assert_memory_equal(got, host, sizeof got);
  /* a write to the buffer lands in host memory */
  int value[4] = {-1, -2, -3, -4};
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, 40 * sizeof(int), sizeof value, value, 0, NULL,
                                         NULL));
  assert_memory_equal(&host[40], value, sizeof value);
  assert_int_equal(host[39], 39 * 3);
  assert_int_equal(host[44], 44 * 3);
  /* and a change of host memory is what the buffer holds */
  host[7] = 12345;
  read_all(env, mem, got, sizeof got);
  assert_int_equal(got[7], 12345);
  assert_cl_success(clReleaseMemObject(mem));
  assert_cl_success(clFinish(env->queue));
  free(host);
}

static void test_copy_host_ptr_copies(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char host[300];
  for (size_t i = 0; i < sizeof host; i++) host[i] = (unsigned char)(i * 7 + 1);
  unsigned char expected[300];
  memcpy(expected, host, sizeof host);
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof host, host, &err);
  assert_cl_success(err);
  memset(host, 0, sizeof host); /* the buffer has its own copy */
  unsigned char got[300];
  read_all(env, mem, got, sizeof got);
  assert_memory_equal(got, expected, sizeof got);
  void *reported = (void *)1;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof reported, &reported, NULL));
  assert_null(reported);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_mem_object_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, 4096, NULL, &err);
  assert_cl_success(err);
  cl_mem_object_type type = 0;
  size_t size = 0, ret = 0, offset = 99;
  cl_uint count = 99;
  cl_context ctx = NULL;
  cl_mem assoc = (cl_mem)1;
  cl_bool svm = CL_TRUE;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, &ret));
  assert_int_equal(type, CL_MEM_OBJECT_BUFFER);
  assert_int_equal(ret, sizeof type);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL));
  assert_int_equal(size, 4096);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_MAP_COUNT, sizeof count, &count, NULL));
  assert_int_equal(count, 0);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL));
  assert_int_equal(count, 1);
  assert_cl_success(clRetainMemObject(mem));
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL));
  assert_int_equal(count, 2);
  assert_cl_success(clReleaseMemObject(mem));
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
  assert_ptr_equal(ctx, env->context);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  assert_null(assoc);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(offset, 0);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_USES_SVM_POINTER, sizeof svm, &svm, NULL));
  assert_int_equal(svm, CL_FALSE);
  ret = 99;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_PROPERTIES, 0, NULL, &ret));
  assert_int_equal(ret, 0);
  /* size-only query, too-small buffer, unknown name */
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_SIZE, 0, NULL, &ret));
  assert_int_equal(ret, sizeof(size_t));
  assert_int_equal(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(cl_uint), &count, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetMemObjectInfo(mem, CL_MEM_OBJECT_BUFFER, sizeof size, &size, NULL), CL_INVALID_VALUE);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_properties(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  /* an empty list is returned as given */
  const cl_mem_properties empty[] = {0};
  cl_mem mem = clCreateBufferWithProperties(env->context, empty, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_cl_success(err);
  cl_mem_properties got[4] = {7, 7, 7, 7};
  size_t ret = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_PROPERTIES, sizeof got, got, &ret));
  assert_int_equal(ret, sizeof(cl_mem_properties));
  assert_int_equal(got[0], 0);
  assert_int_equal(got[1], 7);
  assert_cl_success(clReleaseMemObject(mem));
  /* NULL: no properties */
  mem = clCreateBufferWithProperties(env->context, NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_PROPERTIES, 0, NULL, &ret));
  assert_int_equal(ret, 0);
  assert_cl_success(clReleaseMemObject(mem));
  /* unknown names */
  const cl_mem_properties unknown[] = {0x7fff, 1, 0};
  assert_null(clCreateBufferWithProperties(env->context, unknown, 0, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  const cl_mem_properties image_only[] = {CL_MEM_OBJECT_IMAGE2D, 1, 0};
  assert_null(clCreateBufferWithProperties(env->context, image_only, 0, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  /* properties are checked before flags and size, the context first */
  assert_null(clCreateBufferWithProperties(env->context, unknown, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, NULL,
                                           &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  /* the With-Properties path applies the same flag / size / host_ptr rules */
  assert_null(clCreateBufferWithProperties(env->context, NULL, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  assert_null(clCreateBufferWithProperties(env->context, empty, 0, 0, NULL, &err));
  assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
  assert_null(clCreateBufferWithProperties(env->context, empty, CL_MEM_USE_HOST_PTR, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_HOST_PTR);
  char host[64] = {1, 2, 3};
  mem = clCreateBufferWithProperties(env->context, empty, CL_MEM_COPY_HOST_PTR, 64, host, &err);
  assert_cl_success(err);
  char back[64];
  read_all(env, mem, back, sizeof back);
  assert_memory_equal(back, host, sizeof back);
  assert_cl_success(clReleaseMemObject(mem));
}

static void test_released_and_foreign_handles(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, 0, 64, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(mem));
  size_t size;
  assert_int_equal(d->clRetainMemObject(mem), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clReleaseMemObject(mem), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
  /* a handle of another type */
  assert_int_equal(d->clRetainMemObject((cl_mem)env->context), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clGetMemObjectInfo((cl_mem)env->queue, CL_MEM_SIZE, sizeof size, &size, NULL),
                   CL_INVALID_MEM_OBJECT);
  /* enqueues dispatch on the queue, so the loader passes a stale buffer to Kiln */
  char buf[64];
  assert_int_equal(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, 64, buf, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
}

static void test_buffer_keeps_context_alive(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem mem = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, 8, "abcdefg", &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(ctx)); /* the API's last reference */
  cl_context got = NULL;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof got, &got, NULL));
  assert_ptr_equal(got, ctx);
  assert_cl_success(clReleaseMemObject(mem));
}

/* ---- pipes: unsupported by the device; SVM handle checks (images: test_image_*.c,
 * samplers: test_sampler.c, SVM: test_svm_*.c) ---- */

/* The SVM entry points take a queue's handle checks like any enqueue (their behaviour:
 * test_svm_*.c). */
static void test_svm_enqueue_handle_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  char a[16], b[16];
  assert_int_equal(d->clEnqueueSVMMemcpy((cl_command_queue)env->context, CL_TRUE, a, b, 16, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueSVMMemFill((cl_command_queue)env->context, a, b, 4, 16, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  clSVMFree(env->context, NULL); /* no action */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_valid_flags),
      cmocka_unit_test(test_create_flag_errors),
      cmocka_unit_test(test_create_size_and_context_errors),
      cmocka_unit_test(test_use_host_ptr_is_zero_copy),
      cmocka_unit_test(test_copy_host_ptr_copies),
      cmocka_unit_test(test_mem_object_info),
      cmocka_unit_test(test_properties),
      cmocka_unit_test(test_released_and_foreign_handles),
      cmocka_unit_test(test_buffer_keeps_context_alive),
      cmocka_unit_test(test_svm_enqueue_handle_errors),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
