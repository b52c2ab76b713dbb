/* Shared virtual memory allocations, from the OpenCL 3.0 API spec (section "Shared Virtual
 * Memory"): the device's SVM and atomic capability queries and their agreement with the
 * OpenCL C 3.0 feature macros a kernel sees; clSVMAlloc with every valid flag combination
 * and every power-of-two alignment up to 4096 (honoured, the default being the size of
 * long16), and NULL for each input the spec says it fails on; clSVMFree's no-action cases;
 * buffers created with CL_MEM_USE_HOST_PTR over SVM pointers (CL_MEM_USES_SVM_POINTER on
 * them and their sub-buffers, CL_INVALID_BUFFER_SIZE past the allocation with USE_HOST_PTR
 * or COPY_HOST_PTR, one storage for both names) and a 1D image over such a buffer. Every
 * call goes through the ICD loader; handles the loader would not accept reach Kiln through
 * its dispatch table. */
#include "kiln_test.h"
#include "kiln_test_objects.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONG16_SIZE 128 /* sizeof(cl_long16): the default alignment of a full-profile device */

/* Every combination the SVM Memory Flags table allows: no access flag or one of the three,
 * alone, with FINE_GRAIN_BUFFER, or with FINE_GRAIN_BUFFER | ATOMICS. */
static size_t valid_flag_combinations(cl_svm_mem_flags out[12]) {
  const cl_svm_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY};
  const cl_svm_mem_flags grain[] = {0, CL_MEM_SVM_FINE_GRAIN_BUFFER, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS};
  size_t n = 0;
  for (size_t a = 0; a < 4; a++)
    for (size_t g = 0; g < 3; g++) out[n++] = access[a] | grain[g];
  return n;
}

static cl_ulong device_ulong(cl_device_id device, cl_device_info name) {
  cl_ulong value = 0;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, name, sizeof value, &value, &size));
  assert_int_equal(sizeof value, size);
  return value;
}

/* ---- device queries ---- */

static void test_svm_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_svm_capabilities caps = device_ulong(env->device, CL_DEVICE_SVM_CAPABILITIES);
  assert_int_equal(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                       CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS,
                   caps);
  /* A too-small destination is CL_INVALID_VALUE; the size alone can be asked for. */
  cl_uint small = 0;
  assert_int_equal(CL_INVALID_VALUE,
                   clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof small, &small, NULL));
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, 0, NULL, &size));
  assert_int_equal(sizeof(cl_device_svm_capabilities), size);
  /* The preferred platform atomic alignment is 0 (natural) or a power of two. */
  cl_uint align = 3;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, sizeof align, &align, NULL));
  assert_int_equal(0, align & (align - 1));
  /* A device with SVM reports a memory base alignment of at least long16. */
  assert_true(kiln_test_base_align(env->device) >= LONG16_SIZE);
}

/* The OpenCL C feature macros of a -cl-std=CL3.0 kernel, in the order of `feature_names`. */
static const char *feature_names[] = {"__opencl_c_atomic_order_acq_rel",  "__opencl_c_atomic_order_seq_cst",
                                      "__opencl_c_atomic_scope_device",   "__opencl_c_atomic_scope_all_devices",
                                      "__opencl_c_generic_address_space", "__opencl_c_program_scope_global_variables"};
enum { FEATURES = 6 };

/* A kernel writing out[f] = 1 where feature_names[f] is defined as a macro, else 0. */
static const char *feature_source(void) {
  static char source[2048];
  size_t n = (size_t)snprintf(source, sizeof source, "kernel void features(global int *out) {\n");
  for (int f = 0; f < FEATURES; f++)
    n += (size_t)snprintf(source + n, sizeof source - n, "#ifdef %s\n  out[%d] = 1;\n#else\n  out[%d] = 0;\n#endif\n",
                          feature_names[f], f, f);
  snprintf(source + n, sizeof source - n, "}\n");
  return source;
}

static bool feature_listed(const cl_name_version *features, size_t count, const char *name) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(features[i].name, name) == 0) return true;
  return false;
}

static void test_atomic_capabilities_consistent(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_atomic_capabilities mem = device_ulong(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  cl_device_atomic_capabilities fence = device_ulong(env->device, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
  /* The mandated minimums. */
  assert_int_equal(CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP,
                   mem & (CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP));
  const cl_device_atomic_capabilities fence_min =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  assert_int_equal(fence_min, fence & fence_min);
  /* Orders and scopes are hierarchical (work-item scope aside). */
  const cl_device_atomic_capabilities chain[] = {CL_DEVICE_ATOMIC_ORDER_SEQ_CST, CL_DEVICE_ATOMIC_ORDER_ACQ_REL,
                                                 CL_DEVICE_ATOMIC_ORDER_RELAXED};
  const cl_device_atomic_capabilities scopes[] = {CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES, CL_DEVICE_ATOMIC_SCOPE_DEVICE,
                                                  CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP};
  cl_device_atomic_capabilities both[] = {mem, fence};
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < 2; i++) {
      if ((both[b] & chain[i]) && !(both[b] & chain[i + 1]))
        fail_msg("%s capabilities 0x%llx: order bit 0x%llx without the weaker 0x%llx", b ? "fence" : "memory",
                 (unsigned long long)both[b], (unsigned long long)chain[i], (unsigned long long)chain[i + 1]);
      if ((both[b] & scopes[i]) && !(both[b] & scopes[i + 1]))
        fail_msg("%s capabilities 0x%llx: scope bit 0x%llx without the narrower 0x%llx", b ? "fence" : "memory",
                 (unsigned long long)both[b], (unsigned long long)scopes[i], (unsigned long long)scopes[i + 1]);
    }
  /* SVM atomics are atomics at all-SVM-devices scope: Kiln reports every order and scope. */
  const cl_device_atomic_capabilities full = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                             CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                                             CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
  assert_int_equal(full, mem & full);
  assert_int_equal(full, fence & full);

  /* CL_DEVICE_OPENCL_C_FEATURES lists the matching features, and a CL3.0 kernel sees exactly
   * the listed ones as macros. */
  size_t bytes = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes));
  cl_name_version *features = malloc(bytes ? bytes : 1);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, bytes, features, NULL));
  size_t count = bytes / sizeof *features;
  const cl_device_atomic_capabilities needs[4] = {CL_DEVICE_ATOMIC_ORDER_ACQ_REL, CL_DEVICE_ATOMIC_ORDER_SEQ_CST,
                                                  CL_DEVICE_ATOMIC_SCOPE_DEVICE, CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES};
  for (int f = 0; f < 4; f++)
    if (!feature_listed(features, count, feature_names[f]))
      fail_msg("%s is not listed", feature_names[f]);
    else if (!(mem & needs[f]))
      fail_msg("%s listed without its memory capability bit", feature_names[f]);

  cl_program program = kiln_test_program(env->context, env->device, feature_source(), "-cl-std=CL3.0");
  cl_kernel kernel = kiln_test_kernel(program, "features");
  cl_int *seen = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, FEATURES * sizeof *seen, 0);
  assert_non_null(seen);
  for (int f = 0; f < FEATURES; f++) seen[f] = -1;
  assert_cl_success(clSetKernelArgSVMPointer(kernel, 0, seen));
  size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int f = 0; f < FEATURES; f++) {
    bool listed = feature_listed(features, count, feature_names[f]);
    if (seen[f] != (listed ? 1 : 0))
      fail_msg("%s: the kernel sees it %s, CL_DEVICE_OPENCL_C_FEATURES %s it", feature_names[f],
               seen[f] == 1   ? "defined"
               : seen[f] == 0 ? "undefined"
                              : "(not run)",
               listed ? "lists" : "omits");
  }
  clSVMFree(env->context, seen);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
  free(features);
}

/* ---- clSVMAlloc ---- */

static void test_alloc_every_flag_combination(void **state) {
  struct kiln_test_env *env = *state;
  cl_svm_mem_flags flags[12];
  size_t n = valid_flag_combinations(flags);
  assert_int_equal(12, n);
  enum { SIZE = 3000 };
  unsigned char *ptrs[12];
  for (size_t f = 0; f < n; f++) {
    ptrs[f] = clSVMAlloc(env->context, flags[f], SIZE, 0);
    if (!ptrs[f]) fail_msg("clSVMAlloc(flags 0x%llx) returned NULL", (unsigned long long)flags[f]);
    if ((uintptr_t)ptrs[f] % LONG16_SIZE)
      fail_msg("flags 0x%llx, alignment 0: %p is not aligned to long16", (unsigned long long)flags[f], (void *)ptrs[f]);
    memset(ptrs[f], (int)(f + 1), SIZE); /* all of it is the host's memory */
  }
  /* Live allocations are disjoint: each still holds its own bytes. */
  for (size_t f = 0; f < n; f++) {
    for (size_t i = 0; i < SIZE; i++)
      if (ptrs[f][i] != (unsigned char)(f + 1))
        fail_msg("allocation %zu, byte %zu: %u, expected %zu (allocations overlap)", f, i, ptrs[f][i], f + 1);
    clSVMFree(env->context, ptrs[f]);
  }
}

static void test_alloc_alignments_honoured(void **state) {
  struct kiln_test_env *env = *state;
  const size_t sizes[] = {1, 7, 128, 4095, 4096, 65537};
  cl_svm_mem_flags flags[12];
  valid_flag_combinations(flags);
  const cl_svm_mem_flags some_flags[] = {flags[0], flags[4], flags[5]}; /* none, RW|FINE, RW|FINE|ATOMICS */
  for (size_t f = 0; f < 3; f++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (cl_uint alignment = 1; alignment <= 4096; alignment *= 2) {
        unsigned char *p = clSVMAlloc(env->context, some_flags[f], sizes[s], alignment);
        if (!p) fail_msg("clSVMAlloc(size %zu, alignment %u) returned NULL", sizes[s], alignment);
        if ((uintptr_t)p % alignment) fail_msg("size %zu: %p is not %u-aligned", sizes[s], (void *)p, alignment);
        p[0] = 1;
        p[sizes[s] - 1] = 2;
        clSVMFree(env->context, p);
      }
}

/* clSVMAlloc must return NULL; frees whatever came back so a failure leaks nothing. */
static void expect_refused(cl_context context, cl_svm_mem_flags flags, size_t size, cl_uint alignment,
                           const char *what) {
  void *p = clSVMAlloc(context, flags, size, alignment);
  if (p) {
    clSVMFree(context, p);
    fail_msg("clSVMAlloc, %s (flags 0x%llx, size %zu, alignment %u): returned %p, expected NULL", what,
             (unsigned long long)flags, size, alignment, p);
  }
}

static void test_alloc_size_and_alignment_refusals(void **state) {
  struct kiln_test_env *env = *state;
  cl_ulong max_alloc = device_ulong(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  assert_true(max_alloc > 0);
  expect_refused(env->context, CL_MEM_READ_WRITE, 0, 0, "size 0");
  expect_refused(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 0, 64, "size 0, fine grain");
  if (max_alloc < SIZE_MAX) expect_refused(env->context, CL_MEM_READ_WRITE, (size_t)max_alloc + 1, 0, "size max + 1");
  expect_refused(env->context, CL_MEM_READ_WRITE, SIZE_MAX, 0, "size SIZE_MAX");
  const cl_uint odd[] = {3, 5, 6, 12, 96, 100, 4095, 4097, 0x80000001u, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
    expect_refused(env->context, CL_MEM_READ_WRITE, 256, odd[i], "alignment not a power of two");
  /* A size that is fine on its own still fails with a bad alignment, and vice versa. */
  expect_refused(env->context, CL_MEM_READ_WRITE, 0, 3, "size 0 and a bad alignment");
  void *ok = clSVMAlloc(env->context, CL_MEM_READ_WRITE, (size_t)(max_alloc < 4096 ? max_alloc : 4096), 0);
  assert_non_null(ok);
  clSVMFree(env->context, ok);
}

static void test_alloc_flag_refusals(void **state) {
  struct kiln_test_env *env = *state;
  cl_context c = env->context;
  expect_refused(c, CL_MEM_SVM_ATOMICS, 64, 0, "ATOMICS without FINE_GRAIN_BUFFER");
  expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS, 64, 0, "READ_WRITE | ATOMICS");
  expect_refused(c, CL_MEM_READ_ONLY | CL_MEM_SVM_ATOMICS, 64, 0, "READ_ONLY | ATOMICS");
  expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0, "READ_WRITE | READ_ONLY");
  expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, 64, 0, "READ_WRITE | WRITE_ONLY");
  expect_refused(c, CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64, 0, "WRITE_ONLY | READ_ONLY");
  expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64, 0, "all three access flags");
  expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0,
                 "two access flags, fine grain");
  /* Flags outside the SVM Memory Flags table. */
  const cl_svm_mem_flags foreign[] = {
      CL_MEM_USE_HOST_PTR,       CL_MEM_ALLOC_HOST_PTR,    CL_MEM_COPY_HOST_PTR,         CL_MEM_HOST_WRITE_ONLY,
      CL_MEM_HOST_READ_ONLY,     CL_MEM_HOST_NO_ACCESS,    CL_MEM_KERNEL_READ_AND_WRITE, (cl_svm_mem_flags)1 << 20,
      (cl_svm_mem_flags)1 << 40, (cl_svm_mem_flags)1 << 63};
  for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
    expect_refused(c, foreign[i], 64, 0, "a flag outside the SVM table");
    expect_refused(c, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | foreign[i], 64, 0,
                   "valid flags plus one outside the SVM table");
  }
}

static void test_alloc_invalid_context(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->context);
  assert_null(d->clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0));
  assert_null(d->clSVMAlloc((cl_context)env->queue, CL_MEM_READ_WRITE, 64, 0));
  assert_null(d->clSVMAlloc((cl_context)env->device, CL_MEM_READ_WRITE, 64, 0));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_null(d->clSVMAlloc((cl_context)&fake, CL_MEM_READ_WRITE, 64, 0));
  /* A released context (Kiln's dispatch table, as the loader would forward it). */
  cl_context gone = kiln_test_context(env->device);
  assert_cl_success(clReleaseContext(gone));
  assert_null(d->clSVMAlloc(gone, CL_MEM_READ_WRITE, 64, 0));
  /* A context created from a type allocates like any other. */
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0};
  cl_context typed = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
  assert_cl_success(err);
  int *p = clSVMAlloc(typed, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 64, 0);
  assert_non_null(p);
  p[15] = 15;
  clSVMFree(typed, p);
  assert_cl_success(clReleaseContext(typed));
}

/* ---- clSVMFree ---- */

static cl_bool uses_svm_pointer(cl_mem mem) {
  cl_bool value = 7;
  size_t size = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_USES_SVM_POINTER, sizeof value, &value, &size));
  assert_int_equal(sizeof(cl_bool), size);
  return value;
}

/* Whether `p` is still an SVM allocation of `context` of `size` bytes: a buffer over it of
 * exactly that size is one over an SVM pointer, and one byte more is refused. */
static bool still_allocated(cl_context context, void *p, size_t size) {
  cl_int err;
  cl_mem exact = clCreateBuffer(context, CL_MEM_USE_HOST_PTR, size, p, &err);
  if (!exact) return false;
  bool svm = uses_svm_pointer(exact) == CL_TRUE;
  assert_cl_success(clReleaseMemObject(exact));
  cl_mem past = clCreateBuffer(context, CL_MEM_USE_HOST_PTR, size + 1, p, &err);
  if (past) assert_cl_success(clReleaseMemObject(past));
  return svm && err == CL_INVALID_BUFFER_SIZE;
}

static void test_free_no_action_cases(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->context);
  clSVMFree(env->context, NULL); /* no action */
  d->clSVMFree(NULL, NULL);
  unsigned char *p = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 512, 0);
  assert_non_null(p);
  memset(p, 0x5A, 512);
  /* Invalid contexts: no crash, the allocation stays. */
  d->clSVMFree(NULL, p);
  d->clSVMFree((cl_context)env->queue, p);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  d->clSVMFree((cl_context)&fake, p);
  cl_context gone = kiln_test_context(env->device);
  assert_cl_success(clReleaseContext(gone));
  d->clSVMFree(gone, p);
  assert_true(still_allocated(env->context, p, 512));
  for (int i = 0; i < 512; i++) assert_int_equal(0x5A, p[i]);
  clSVMFree(env->context, p);
  /* Freed allocations' memory is given out again: many rounds do not run out. */
  for (int round = 0; round < 200; round++) {
    void *q = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 1 << 20, 4096);
    if (!q) fail_msg("round %d: clSVMAlloc of 1 MiB returned NULL", round);
    clSVMFree(env->context, q);
  }
}

/* ---- buffers over SVM pointers ---- */

static const char *negate_source =
    "kernel void negate(global int *p) { p[get_global_id(0)] = -p[get_global_id(0)]; }\n";

static void test_buffer_over_svm_pointer(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1024, BYTES = N * sizeof(cl_int) };
  const cl_svm_mem_flags kinds[] = {CL_MEM_READ_WRITE, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                    CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS};
  cl_program program = kiln_test_program(env->context, env->device, negate_source, NULL);
  cl_kernel negate = kiln_test_kernel(program, "negate");
  for (size_t k = 0; k < 3; k++) {
    cl_int *svm = clSVMAlloc(env->context, kinds[k], BYTES, 0);
    assert_non_null(svm);
    /* Host access to coarse-grain SVM goes through map and unmap. */
    assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, svm, BYTES, 0, NULL, NULL));
    for (int i = 0; i < N; i++) svm[i] = i + 1;
    assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, NULL));
    cl_int err = CL_INVALID_VALUE;
    cl_mem whole = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BYTES, svm, &err);
    assert_cl_success(err);
    assert_int_equal(CL_TRUE, uses_svm_pointer(whole));
    void *host_ptr = NULL;
    assert_cl_success(clGetMemObjectInfo(whole, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
    assert_ptr_equal(svm, host_ptr);
    /* Sub-buffers of it use the SVM pointer too. */
    cl_mem sub = kiln_test_sub_buffer(whole, CL_MEM_READ_WRITE, 128 * sizeof(cl_int), 256 * sizeof(cl_int));
    assert_int_equal(CL_TRUE, uses_svm_pointer(sub));
    assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
    assert_ptr_equal(svm + 128, host_ptr);
    /* clCreateBufferWithProperties, a smaller size: also over SVM. */
    cl_mem smaller = clCreateBufferWithProperties(env->context, NULL, CL_MEM_USE_HOST_PTR, BYTES / 2, svm, &err);
    assert_cl_success(err);
    assert_int_equal(CL_TRUE, uses_svm_pointer(smaller));

    /* One storage: a kernel through the sub-buffer, a write through the buffer, and a map
     * that returns the SVM address itself. */
    kiln_test_arg_mem(negate, 0, sub);
    size_t global = 256;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, negate, 1, NULL, &global, NULL, 0, NULL, NULL));
    cl_int value = 777;
    assert_cl_success(
        clEnqueueWriteBuffer(env->queue, whole, CL_TRUE, 5 * sizeof value, sizeof value, &value, 0, NULL, NULL));
    assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, svm, BYTES, 0, NULL, NULL));
    for (int i = 0; i < N; i++) {
      cl_int want = i == 5 ? 777 : (i >= 128 && i < 384) ? -(i + 1) : i + 1;
      if (svm[i] != want) fail_msg("kind %zu: element %d is %d, expected %d", k, i, svm[i], want);
    }
    assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, NULL));
    void *mapped = clEnqueueMapBuffer(env->queue, smaller, CL_TRUE, CL_MAP_READ, 64, 64, 0, NULL, NULL, &err);
    assert_cl_success(err);
    assert_ptr_equal((char *)svm + 64, mapped);
    assert_cl_success(clEnqueueUnmapMemObject(env->queue, smaller, mapped, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));

    /* Past the allocation: CL_INVALID_BUFFER_SIZE, from the start or from the middle. */
    err = CL_SUCCESS;
    assert_null(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, BYTES + 1, svm, &err));
    assert_int_equal(CL_INVALID_BUFFER_SIZE, err);
    err = CL_SUCCESS;
    assert_null(clCreateBufferWithProperties(env->context, NULL, CL_MEM_USE_HOST_PTR, 2 * BYTES, svm, &err));
    assert_int_equal(CL_INVALID_BUFFER_SIZE, err);
    err = CL_SUCCESS;
    assert_null(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, BYTES - 64 + 1, (char *)svm + 64, &err));
    assert_int_equal(CL_INVALID_BUFFER_SIZE, err);
    /* ... and up to its end from the middle is fine. */
    cl_mem tail = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, BYTES - 64, (char *)svm + 64, &err);
    assert_cl_success(err);
    assert_int_equal(CL_TRUE, uses_svm_pointer(tail));

    cl_mem all[] = {sub, whole, smaller, tail};
    for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[i]));
    clSVMFree(env->context, svm);
  }
  assert_cl_success(clReleaseKernel(negate));
  assert_cl_success(clReleaseProgram(program));
}

/* "CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR is set in flags, and
 * host_ptr is a pointer returned by clSVMAlloc, and size is greater than the size passed to
 * clSVMAlloc" (clCreateBuffer): the copy would read past the allocation. */
static void test_copy_host_ptr_past_svm_allocation(void **state) {
  struct kiln_test_env *env = *state;
  const cl_svm_mem_flags kinds[] = {CL_MEM_READ_WRITE, CL_MEM_SVM_FINE_GRAIN_BUFFER};
  for (size_t k = 0; k < 2; k++) {
    unsigned char *svm = clSVMAlloc(env->context, kinds[k], 4096, 0);
    assert_non_null(svm);
    const cl_mem_flags flags[] = {CL_MEM_COPY_HOST_PTR, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
                                  CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY};
    for (size_t f = 0; f < 3; f++) {
      cl_int err = CL_SUCCESS;
      cl_mem mem = clCreateBuffer(env->context, flags[f], 4096 + 4, svm, &err);
      if (mem) assert_cl_success(clReleaseMemObject(mem));
      if (mem || err != CL_INVALID_BUFFER_SIZE) {
        clSVMFree(env->context, svm);
        fail_msg(
            "COPY_HOST_PTR (flags 0x%llx) of 4100 bytes from a 4096-byte SVM allocation: %s, error %d; expected "
            "CL_INVALID_BUFFER_SIZE",
            (unsigned long long)flags[f], mem ? "a buffer" : "no buffer", err);
      }
    }
    /* Up to its size is fine. */
    cl_int err = CL_INVALID_VALUE;
    cl_mem mem = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, 4096, svm, &err);
    assert_cl_success(err);
    assert_cl_success(clReleaseMemObject(mem));
    clSVMFree(env->context, svm);
  }
}

/* "clCreateImage ... may create an image from a buffer (a 1D image from a buffer ...) if the
 * buffer specified in its image description parameter is a SVM buffer": one storage for the
 * SVM pointer, the buffer and the image. The image itself is no buffer object, so its
 * CL_MEM_USES_SVM_POINTER is CL_FALSE. */
static void test_image_over_svm_buffer(void **state) {
  struct kiln_test_env *env = *state;
  enum { WIDTH = 64 };
  unsigned char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, WIDTH * 4, 0);
  assert_non_null(svm);
  for (int i = 0; i < WIDTH * 4; i++) svm[i] = (unsigned char)(i * 3 + 1);
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, WIDTH * 4, svm, &err);
  assert_cl_success(err);
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = WIDTH, .buffer = buffer};
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_FALSE, uses_svm_pointer(image));
  unsigned char got[WIDTH * 4];
  const size_t origin[3] = {0, 0, 0}, region[3] = {WIDTH, 1, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL));
  for (int i = 0; i < WIDTH * 4; i++) assert_int_equal((unsigned char)(i * 3 + 1), got[i]);
  /* A write to the image lands in the SVM allocation. */
  const unsigned char pixel[4] = {9, 8, 7, 6};
  const size_t at[3] = {10, 0, 0}, one[3] = {1, 1, 1};
  assert_cl_success(clEnqueueWriteImage(env->queue, image, CL_TRUE, at, one, 0, 0, pixel, 0, NULL, NULL));
  assert_memory_equal(pixel, svm + 40, 4);
  assert_int_equal((unsigned char)(39 * 3 + 1), svm[39]);
  assert_int_equal((unsigned char)(44 * 3 + 1), svm[44]);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(buffer));
  clSVMFree(env->context, svm);
}

static void test_buffers_not_over_svm(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 256, 0);
  assert_non_null(svm);
  for (int i = 0; i < 64; i++) svm[i] = i * 5;
  cl_mem plain = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 256, NULL, &err);
  assert_cl_success(err);
  cl_mem allocated = clCreateBuffer(env->context, CL_MEM_ALLOC_HOST_PTR, 256, NULL, &err);
  assert_cl_success(err);
  /* COPY_HOST_PTR from an SVM pointer copies: the buffer was not created with USE_HOST_PTR. */
  cl_mem copied = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, 256, svm, &err);
  assert_cl_success(err);
  cl_mem sub = kiln_test_sub_buffer(plain, CL_MEM_READ_WRITE, 0, 128);
  cl_mem all[] = {plain, allocated, copied, sub};
  for (size_t i = 0; i < 4; i++) assert_int_equal(CL_FALSE, uses_svm_pointer(all[i]));
  svm[0] = -1; /* the copy is its own */
  cl_int got[64];
  assert_cl_success(clEnqueueReadBuffer(env->queue, copied, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) assert_int_equal(i * 5, got[i]);
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[3 - i]));
  clSVMFree(env->context, svm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_svm_capabilities),
      cmocka_unit_test(test_atomic_capabilities_consistent),
      cmocka_unit_test(test_alloc_every_flag_combination),
      cmocka_unit_test(test_alloc_alignments_honoured),
      cmocka_unit_test(test_alloc_size_and_alignment_refusals),
      cmocka_unit_test(test_alloc_flag_refusals),
      cmocka_unit_test(test_alloc_invalid_context),
      cmocka_unit_test(test_free_no_action_cases),
      cmocka_unit_test(test_buffer_over_svm_pointer),
      cmocka_unit_test(test_image_over_svm_buffer),
      cmocka_unit_test(test_buffers_not_over_svm),
      /* Last: where Kiln copies past the allocation, AddressSanitizer stops the suite here. */
      cmocka_unit_test(test_copy_host_ptr_past_svm_allocation),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
