/* Sub-buffers: clCreateSubBuffer region rules, flag inheritance and conflicts,
 * queries, data shared with the parent, lifetime, and copies between sub-buffers of
 * one parent (CL_MEM_COPY_OVERLAP). */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <stdlib.h>
#include <string.h>

static cl_uint device_align_bytes(cl_device_id device) {
  cl_uint bits = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
  assert_true(bits >= 8 && bits % 8 == 0);
  return bits / 8;
}

static cl_mem make_buffer(struct kiln_test_env *env, cl_mem_flags flags, size_t size) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, flags, size, NULL, &err);
  assert_cl_success(err);
  return mem;
}

static cl_int sub_error(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size) {
  cl_buffer_region region = {origin, size};
  cl_int err = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  if (sub) clReleaseMemObject(sub);
  assert_true((sub == NULL) == (err != CL_SUCCESS));
  return err;
}

static cl_mem_flags flags_of(cl_mem mem) {
  cl_mem_flags flags;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  return flags;
}

static void test_region_rules(void **state) {
  struct kiln_test_env *env = *state;
  size_t align = device_align_bytes(env->device);
  size_t size = 8 * align;
  cl_mem parent = make_buffer(env, CL_MEM_READ_WRITE, size);
  assert_int_equal(sub_error(parent, 0, 0, size), CL_SUCCESS);
  assert_int_equal(sub_error(parent, 0, align, size - align), CL_SUCCESS);
  assert_int_equal(sub_error(parent, 0, 7 * align, 1), CL_SUCCESS);
  assert_int_equal(sub_error(parent, 0, 0, 0), CL_INVALID_BUFFER_SIZE);
  assert_int_equal(sub_error(parent, 0, align, size), CL_INVALID_VALUE);       /* past the end */
  assert_int_equal(sub_error(parent, 0, size, align), CL_INVALID_VALUE);       /* starts at the end */
  assert_int_equal(sub_error(parent, 0, 2 * size, 1), CL_INVALID_VALUE);
  assert_int_equal(sub_error(parent, 0, align, (size_t)-1), CL_INVALID_VALUE); /* wraps around */
  assert_int_equal(sub_error(parent, 0, 1, 16), CL_MISALIGNED_SUB_BUFFER_OFFSET);
  assert_int_equal(sub_error(parent, 0, align / 2, 16), CL_MISALIGNED_SUB_BUFFER_OFFSET);
  /* create type and info */
  cl_buffer_region region = {0, 16};
  cl_int err = CL_SUCCESS;
  assert_null(clCreateSubBuffer(parent, 0, 0x1235, &region, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  err = CL_SUCCESS;
  assert_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  /* errcode_ret may be NULL */
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, NULL);
  assert_non_null(sub);
  /* a sub-buffer of a sub-buffer */
  err = CL_SUCCESS;
  assert_null(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(sub));
  /* an invalid or released parent (dispatched through Kiln's table) */
  cl_mem dead = make_buffer(env, 0, 64);
  assert_cl_success(clReleaseMemObject(dead));
  err = CL_SUCCESS;
  assert_null(kiln_test_dispatch_of(env->queue)->clCreateSubBuffer(dead, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  err = CL_SUCCESS;
  assert_null(kiln_test_dispatch_of(env->queue)->clCreateSubBuffer(NULL, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(parent));
}

static void test_flag_rules(void **state) {
  struct kiln_test_env *env = *state;
  size_t n = device_align_bytes(env->device);
  char host[512];
  cl_int err;
  cl_mem wo = make_buffer(env, CL_MEM_WRITE_ONLY, n);
  assert_int_equal(sub_error(wo, CL_MEM_READ_WRITE, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(wo, CL_MEM_READ_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(wo, CL_MEM_WRITE_ONLY, 0, n), CL_SUCCESS);
  cl_mem ro = make_buffer(env, CL_MEM_READ_ONLY, n);
  assert_int_equal(sub_error(ro, CL_MEM_READ_WRITE, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(ro, CL_MEM_WRITE_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(ro, CL_MEM_READ_ONLY, 0, n), CL_SUCCESS);
  cl_mem rw = make_buffer(env, CL_MEM_READ_WRITE, n);
  assert_int_equal(sub_error(rw, CL_MEM_READ_ONLY, 0, n), CL_SUCCESS); /* narrowing is allowed */
  assert_int_equal(sub_error(rw, CL_MEM_WRITE_ONLY, 0, n), CL_SUCCESS);
  assert_int_equal(sub_error(rw, CL_MEM_USE_HOST_PTR, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(rw, CL_MEM_ALLOC_HOST_PTR, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(rw, CL_MEM_COPY_HOST_PTR, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(rw, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(rw, (cl_mem_flags)1 << 40, 0, n), CL_INVALID_VALUE);
  cl_mem hwo = make_buffer(env, CL_MEM_HOST_WRITE_ONLY, n);
  assert_int_equal(sub_error(hwo, CL_MEM_HOST_READ_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(hwo, CL_MEM_HOST_WRITE_ONLY, 0, n), CL_SUCCESS);
  assert_int_equal(sub_error(hwo, CL_MEM_HOST_NO_ACCESS, 0, n), CL_SUCCESS);
  cl_mem hro = make_buffer(env, CL_MEM_HOST_READ_ONLY, n);
  assert_int_equal(sub_error(hro, CL_MEM_HOST_WRITE_ONLY, 0, n), CL_INVALID_VALUE);
  cl_mem hna = make_buffer(env, CL_MEM_HOST_NO_ACCESS, n);
  assert_int_equal(sub_error(hna, CL_MEM_HOST_READ_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(hna, CL_MEM_HOST_WRITE_ONLY, 0, n), CL_INVALID_VALUE);
  assert_int_equal(sub_error(hna, CL_MEM_HOST_NO_ACCESS, 0, n), CL_SUCCESS);

  /* inheritance: unspecified qualifiers and the host-pointer flags come from the parent */
  cl_mem use = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY,
                              sizeof host, host, &err);
  assert_cl_success(err);
  cl_buffer_region region = {0, n};
  cl_mem sub = clCreateSubBuffer(use, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_int_equal(flags_of(sub), CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
  assert_cl_success(clReleaseMemObject(sub));
  sub = clCreateSubBuffer(rw, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_int_equal(flags_of(sub), CL_MEM_WRITE_ONLY);
  assert_cl_success(clReleaseMemObject(sub));
  sub = clCreateSubBuffer(hwo, CL_MEM_HOST_NO_ACCESS, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_int_equal(flags_of(sub), CL_MEM_HOST_NO_ACCESS);
  assert_cl_success(clReleaseMemObject(sub));
  cl_mem mems[] = {wo, ro, rw, hwo, hro, hna, use};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) assert_cl_success(clReleaseMemObject(mems[i]));
}

static void test_info(void **state) {
  struct kiln_test_env *env = *state;
  size_t align = device_align_bytes(env->device);
  size_t size = 4 * align;
  char *host = malloc(size);
  cl_int err;
  cl_mem parent = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, size, host, &err);
  assert_cl_success(err);
  cl_buffer_region region = {2 * align, align};
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  cl_mem assoc = NULL;
  size_t offset = 0, got_size = 0, ret = 99;
  void *ptr = NULL;
  cl_context ctx = NULL;
  cl_mem_object_type type = 0;
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  assert_ptr_equal(assoc, parent);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(offset, 2 * align);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof got_size, &got_size, NULL));
  assert_int_equal(got_size, align);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof ptr, &ptr, NULL));
  assert_ptr_equal(ptr, host + 2 * align);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
  assert_ptr_equal(ctx, env->context);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_MEM_OBJECT_BUFFER);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_PROPERTIES, 0, NULL, &ret));
  assert_int_equal(ret, 0);
  cl_uint refs = 0;
  assert_cl_success(clGetMemObjectInfo(parent, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 1); /* the sub-buffer's hold on its parent is internal */
  assert_cl_success(clReleaseMemObject(sub));
  /* no host pointer for a sub-buffer of a plain buffer */
  cl_mem plain = make_buffer(env, 0, size);
  sub = clCreateSubBuffer(plain, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  ptr = (void *)1;
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof ptr, &ptr, NULL));
  assert_null(ptr);
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(plain));
  assert_cl_success(clReleaseMemObject(parent));
  assert_cl_success(clFinish(env->queue));
  free(host);
}

static void test_data_shared_with_parent(void **state) {
  struct kiln_test_env *env = *state;
  size_t align = device_align_bytes(env->device);
  size_t size = 4 * align;
  unsigned char *init = malloc(size), *got = malloc(size);
  for (size_t i = 0; i < size; i++) init[i] = (unsigned char)(i * 13 + 5);
  cl_int err;
  cl_mem parent = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, size, init, &err);
  assert_cl_success(err);
  cl_buffer_region region = {align, 2 * align};
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  /* the sub-buffer shows the parent's bytes at its origin */
  assert_cl_success(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, 2 * align, got, 0, NULL, NULL));
  assert_memory_equal(got, init + align, 2 * align);
  /* a write through the sub-buffer is visible in the parent at origin + offset */
  unsigned char patch[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  assert_cl_success(clEnqueueWriteBuffer(env->queue, sub, CL_TRUE, 10, sizeof patch, patch, 0, NULL, NULL));
  memcpy(init + align + 10, patch, sizeof patch);
  assert_cl_success(clEnqueueReadBuffer(env->queue, parent, CL_TRUE, 0, size, got, 0, NULL, NULL));
  assert_memory_equal(got, init, size);
  /* the sub-buffer keeps the parent's storage alive after the parent's release */
  assert_cl_success(clReleaseMemObject(parent));
  assert_cl_success(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, 2 * align, got, 0, NULL, NULL));
  assert_memory_equal(got, init + align, 2 * align);
  /* bounds are the sub-buffer's */
  assert_int_equal(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 1, 2 * align, got, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_cl_success(clReleaseMemObject(sub));
  free(init);
  free(got);
}

static void test_host_access_inherited(void **state) {
  struct kiln_test_env *env = *state;
  size_t n = device_align_bytes(env->device);
  char buf[512];
  cl_mem parent = make_buffer(env, CL_MEM_HOST_READ_ONLY, n);
  cl_buffer_region region = {0, n};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_int_equal(clEnqueueWriteBuffer(env->queue, sub, CL_TRUE, 0, n, buf, 0, NULL, NULL), CL_INVALID_OPERATION);
  assert_cl_success(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, n, buf, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(parent));
}

static void test_copy_between_sub_buffers(void **state) {
  struct kiln_test_env *env = *state;
  size_t align = device_align_bytes(env->device);
  size_t size = 4 * align;
  unsigned char *init = malloc(size), *got = malloc(size);
  for (size_t i = 0; i < size; i++) init[i] = (unsigned char)(i ^ 0x5a);
  cl_int err;
  cl_mem parent = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, size, init, &err);
  assert_cl_success(err);
  cl_buffer_region ra = {0, 2 * align}, rb = {align, 2 * align}, rc = {2 * align, 2 * align};
  cl_mem a = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
  assert_cl_success(err);
  cl_mem b = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &rb, &err);
  assert_cl_success(err);
  cl_mem c = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &rc, &err);
  assert_cl_success(err);
  /* a[align..] and b[0..] are the same bytes */
  assert_int_equal(clEnqueueCopyBuffer(env->queue, a, b, align, 0, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyBuffer(env->queue, a, b, align + 8, 0, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  /* a and the parent overlap too */
  assert_int_equal(clEnqueueCopyBuffer(env->queue, parent, a, 0, 0, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  /* a and c share no byte: copy a[0..2*align) to c */
  assert_cl_success(clEnqueueCopyBuffer(env->queue, a, c, 0, 0, 2 * align, 0, NULL, NULL));
  /* disjoint ranges of overlapping sub-buffers are fine */
  assert_cl_success(clEnqueueCopyBuffer(env->queue, a, b, 0, align, 16, 0, NULL, NULL));
  memcpy(init + 2 * align, init, 2 * align);
  memcpy(init + 2 * align, init, 16); /* b[align..] is parent[2*align..] */
  assert_cl_success(clEnqueueReadBuffer(env->queue, parent, CL_TRUE, 0, size, got, 0, NULL, NULL));
  assert_memory_equal(got, init, size);
  /* rect copies between overlapping sub-buffers */
  size_t origin0[3] = {0, 0, 0}, origin1[3] = {align, 0, 0}, region[3] = {16, 1, 1};
  assert_int_equal(clEnqueueCopyBufferRect(env->queue, a, b, origin1, origin0, region, 0, 0, 0, 0, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  assert_cl_success(clEnqueueCopyBufferRect(env->queue, a, b, origin0, origin1, region, 0, 0, 0, 0, 0, NULL, NULL));
  cl_mem mems[] = {a, b, c, parent};
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  free(init);
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_region_rules),          cmocka_unit_test(test_flag_rules),
      cmocka_unit_test(test_info),                  cmocka_unit_test(test_data_shared_with_parent),
      cmocka_unit_test(test_host_access_inherited), cmocka_unit_test(test_copy_between_sub_buffers),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
