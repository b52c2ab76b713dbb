/* cl_intel_unified_shared_memory 1.2.0: the extension is listed with its version and its
 * entry points resolve; the five capability queries; host, device and shared allocations
 * (every valid property and alignment honoured, every listed error in order), their
 * clGetMemAllocInfoINTEL answers (middle pointers, unknown pointers), clMemFreeINTEL and
 * clMemBlockingFreeINTEL (which waits for a kernel still running on another queue);
 * kernels using each kind directly (clSetKernelArgMemPointerINTEL) and indirectly
 * (pointers stored in USM, the indirect-access exec infos); fills with every pattern
 * size, memset, memcpy (overlap refused), migrate and advise, with their event types. */
#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <CL/cl_ext.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define USM_FUNCTIONS(X)                                                                                             \
  X(clHostMemAllocINTEL)                                                                                             \
  X(clDeviceMemAllocINTEL)                                                                                           \
  X(clSharedMemAllocINTEL)                                                                                           \
  X(clMemFreeINTEL)                                                                                                  \
  X(clMemBlockingFreeINTEL)                                                                                          \
  X(clGetMemAllocInfoINTEL)                                                                                          \
  X(clSetKernelArgMemPointerINTEL)                                                                                   \
  X(clEnqueueMemFillINTEL)                                                                                           \
  X(clEnqueueMemsetINTEL)                                                                                            \
  X(clEnqueueMemcpyINTEL)                                                                                            \
  X(clEnqueueMigrateMemINTEL)                                                                                        \
  X(clEnqueueMemAdviseINTEL)

static struct {
#define USM_MEMBER(name) __typeof__(&name) name;
  USM_FUNCTIONS(USM_MEMBER)
#undef USM_MEMBER
} usm;

static const char *source =
    "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
    /* reaches three allocations only through pointers stored in a fourth */
    "typedef struct { global int *a, *b, *c; } ptrs;\n"
    "kernel void indirect(global const ptrs *t) {\n"
    "  size_t i = get_global_id(0);\n"
    "  t->c[i] = t->a[i] * 10 + t->b[i];\n"
    "}\n"
    "kernel void spin(global volatile int *flag, global int *out) {\n"
    "  for (int n = 0; n < 200000000 && !*flag; n++) {}\n"
    "  *out = *flag ? 1 : -1;\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  kiln_test_program_setup(state, kiln_test_env_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
#define USM_LOAD(name) usm.name = (__typeof__(&name))kiln_test_extension_function(env->platform, #name);
  USM_FUNCTIONS(USM_LOAD)
#undef USM_LOAD
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

enum kind { HOST, DEVICE, SHARED };
static const char *const kind_names[] = {"host", "device", "shared"};

static void *alloc_kind(struct kiln_test_env *env, enum kind kind, cl_device_id device,
                        const cl_mem_properties_intel *properties, size_t size, cl_uint alignment, cl_int *err) {
  switch (kind) {
  case HOST:
    return usm.clHostMemAllocINTEL(env->context, properties, size, alignment, err);
  case DEVICE:
    return usm.clDeviceMemAllocINTEL(env->context, device, properties, size, alignment, err);
  default:
    return usm.clSharedMemAllocINTEL(env->context, device, properties, size, alignment, err);
  }
}

static void *alloc_ok(struct kiln_test_env *env, enum kind kind, size_t size) {
  cl_int err = 1;
  void *p = alloc_kind(env, kind, env->device, NULL, size, 0, &err);
  assert_cl_success(err);
  assert_non_null(p);
  return p;
}

static void expect_refused(struct kiln_test_env *env, enum kind kind, cl_device_id device,
                           const cl_mem_properties_intel *properties, size_t size, cl_uint alignment, cl_int want,
                           const char *what) {
  cl_int err = CL_SUCCESS;
  void *p = alloc_kind(env, kind, device, properties, size, alignment, &err);
  if (p || err != want)
    fail_msg("%s allocation, %s: returned %p with %d, expected NULL with %d", kind_names[kind], what, p, err, want);
  assert_null(alloc_kind(env, kind, device, properties, size, alignment, NULL)); /* errcode_ret NULL */
}

/* ---- the extension and its capabilities ---- */

static void test_extension_and_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_intel_unified_shared_memory", CL_MAKE_VERSION(1, 2, 0));
  const cl_device_info names[] = {CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL, CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL};
  const cl_device_unified_shared_memory_capabilities_intel all =
      CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |
      CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    cl_device_unified_shared_memory_capabilities_intel caps = 0;
    size_t size = 0;
    assert_cl_success(clGetDeviceInfo(env->device, names[i], sizeof caps, &caps, &size));
    assert_int_equal(sizeof caps, size);
    assert_int_equal(all, caps); /* each is exercised below: kernels, atomics, host access while running */
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, names[i], sizeof caps - 1, &caps, NULL));
  }
}

/* ---- allocations ---- */

static void test_allocations_of_each_kind(void **state) {
  struct kiln_test_env *env = *state;
  const cl_uint alignments[] = {0, 1, 2, 4, 8, 16, 32, 64, 128};
  for (int k = HOST; k <= SHARED; k++) {
    for (size_t a = 0; a < sizeof alignments / sizeof alignments[0]; a++) {
      cl_int err = 1;
      unsigned char *p = alloc_kind(env, (enum kind)k, env->device, NULL, 1000, alignments[a], &err);
      assert_cl_success(err);
      assert_non_null(p);
      cl_uint want = alignments[a] ? alignments[a] : 128; /* the default: long16 */
      if ((uintptr_t)p % want) fail_msg("%s allocation at %p is not %u-aligned", kind_names[k], (void *)p, want);
      memset(p, 0x5A, 1000); /* the host may touch every kind on a CPU */
      assert_cl_success(usm.clMemFreeINTEL(env->context, p));
    }
  }
  /* Shared allocations without a device. */
  cl_int err = 1;
  void *p = usm.clSharedMemAllocINTEL(env->context, NULL, NULL, 64, 0, &err);
  assert_cl_success(err);
  cl_device_id device = env->device;
  assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, CL_MEM_ALLOC_DEVICE_INTEL, sizeof device, &device,
                                               NULL));
  assert_null(device);
  assert_cl_success(usm.clMemFreeINTEL(env->context, p));
}

static void test_allocation_properties(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_alloc_flags_intel valid[3][3] = {
      {0, CL_MEM_ALLOC_WRITE_COMBINED_INTEL, 0},
      {0, CL_MEM_ALLOC_WRITE_COMBINED_INTEL, 0},
      {CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL,
       CL_MEM_ALLOC_WRITE_COMBINED_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL},
  };
  for (int k = HOST; k <= SHARED; k++) {
    for (int i = 0; i < 3; i++) {
      cl_mem_properties_intel properties[] = {CL_MEM_ALLOC_FLAGS_INTEL, valid[k][i], 0};
      cl_int err = 1;
      void *p = alloc_kind(env, (enum kind)k, env->device, properties, 256, 0, &err);
      assert_cl_success(err);
      cl_mem_alloc_flags_intel flags = ~(cl_mem_alloc_flags_intel)0;
      size_t size = 0;
      assert_cl_success(
          usm.clGetMemAllocInfoINTEL(env->context, p, CL_MEM_ALLOC_FLAGS_INTEL, sizeof flags, &flags, &size));
      assert_int_equal(sizeof flags, size);
      assert_int_equal(valid[k][i], flags);
      assert_cl_success(usm.clMemFreeINTEL(env->context, p));
    }
    /* An empty list is no property. */
    cl_mem_properties_intel empty[] = {0};
    cl_int err = 1;
    void *p = alloc_kind(env, (enum kind)k, env->device, empty, 16, 0, &err);
    assert_cl_success(err);
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
}

static void test_allocation_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem_properties_intel unknown[] = {0x4242, 0, 0};
  cl_mem_properties_intel twice[] = {CL_MEM_ALLOC_FLAGS_INTEL, 0, CL_MEM_ALLOC_FLAGS_INTEL, 0, 0};
  cl_mem_properties_intel bad_bits[] = {CL_MEM_ALLOC_FLAGS_INTEL, 1u << 7, 0};
  cl_mem_properties_intel device_place[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL, 0};
  cl_mem_properties_intel host_place[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0};
  cl_mem_properties_intel both_place[] = {
      CL_MEM_ALLOC_FLAGS_INTEL,
      CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0};
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  for (int k = HOST; k <= SHARED; k++) {
    enum kind kind = (enum kind)k;
    expect_refused(env, kind, env->device, NULL, 64, 3, CL_INVALID_VALUE, "alignment 3");
    expect_refused(env, kind, env->device, NULL, 64, 256, CL_INVALID_VALUE, "alignment 256 (> long16)");
    expect_refused(env, kind, env->device, unknown, 64, 0, CL_INVALID_PROPERTY, "unknown property");
    expect_refused(env, kind, env->device, twice, 64, 0, CL_INVALID_PROPERTY, "property twice");
    expect_refused(env, kind, env->device, bad_bits, 64, 0, CL_INVALID_PROPERTY, "unknown flag bit");
    expect_refused(env, kind, env->device, both_place, 64, 0, CL_INVALID_PROPERTY, "both placements");
    if (kind != SHARED) {
      expect_refused(env, kind, env->device, device_place, 64, 0, CL_INVALID_PROPERTY, "device placement");
      expect_refused(env, kind, env->device, host_place, 64, 0, CL_INVALID_PROPERTY, "host placement");
    }
    expect_refused(env, kind, env->device, NULL, 0, 0, CL_INVALID_BUFFER_SIZE, "size 0");
    expect_refused(env, kind, env->device, NULL, (size_t)max_alloc + 1, 0, CL_INVALID_BUFFER_SIZE,
                   "size above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    /* The order of the list: alignment before properties before size. */
    expect_refused(env, kind, env->device, unknown, 0, 3, CL_INVALID_VALUE, "bad alignment, property and size");
    expect_refused(env, kind, env->device, unknown, 0, 0, CL_INVALID_PROPERTY, "bad property and size");
  }
  /* Context and device. */
  cl_int err = CL_SUCCESS;
  assert_null(usm.clHostMemAllocINTEL(NULL, NULL, 64, 0, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(usm.clDeviceMemAllocINTEL((cl_context)env->queue, env->device, NULL, 64, 0, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(usm.clSharedMemAllocINTEL(NULL, env->device, NULL, 64, 0, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  expect_refused(env, DEVICE, NULL, NULL, 64, 0, CL_INVALID_DEVICE, "NULL device");
  expect_refused(env, DEVICE, (cl_device_id)env->context, NULL, 64, 0, CL_INVALID_DEVICE, "a context as device");
  expect_refused(env, SHARED, (cl_device_id)env->queue, NULL, 64, 0, CL_INVALID_DEVICE, "a queue as device");
}

/* ---- queries and frees ---- */

static void test_alloc_info(void **state) {
  struct kiln_test_env *env = *state;
  const cl_unified_shared_memory_type_intel types[] = {CL_MEM_TYPE_HOST_INTEL, CL_MEM_TYPE_DEVICE_INTEL,
                                                       CL_MEM_TYPE_SHARED_INTEL};
  for (int k = HOST; k <= SHARED; k++) {
    char *p = alloc_ok(env, (enum kind)k, 4096);
    const char *probes[] = {p, p + 1, p + 4095};
    for (int i = 0; i < 3; i++) {
      cl_unified_shared_memory_type_intel type = 0;
      void *base = NULL;
      size_t size = 0;
      cl_device_id device = NULL;
      assert_cl_success(
          usm.clGetMemAllocInfoINTEL(env->context, probes[i], CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL));
      assert_int_equal(types[k], type);
      assert_cl_success(
          usm.clGetMemAllocInfoINTEL(env->context, probes[i], CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof base, &base, NULL));
      assert_ptr_equal(p, base);
      assert_cl_success(
          usm.clGetMemAllocInfoINTEL(env->context, probes[i], CL_MEM_ALLOC_SIZE_INTEL, sizeof size, &size, NULL));
      assert_int_equal(4096, size);
      assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, probes[i], CL_MEM_ALLOC_DEVICE_INTEL, sizeof device,
                                                   &device, NULL));
      assert_ptr_equal(k == HOST ? NULL : env->device, device);
    }
    /* One past the end is not in it. */
    cl_unified_shared_memory_type_intel type = 0;
    assert_cl_success(
        usm.clGetMemAllocInfoINTEL(env->context, p + 4096 + 4096, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL));
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL, type);
    /* Errors: unknown name, a value too small (size_ret still answers), bad context. */
    size_t need = 0;
    assert_int_equal(CL_INVALID_VALUE, usm.clGetMemAllocInfoINTEL(env->context, p, 0x4242, sizeof type, &type, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clGetMemAllocInfoINTEL(env->context, p, CL_MEM_ALLOC_SIZE_INTEL,
                                                                  sizeof(size_t) - 1, &need, NULL));
    assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, CL_MEM_ALLOC_SIZE_INTEL, 0, NULL, &need));
    assert_int_equal(sizeof(size_t), need);
    assert_int_equal(CL_INVALID_CONTEXT,
                     usm.clGetMemAllocInfoINTEL(NULL, p, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL));
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
    /* Freed: unknown now. */
    assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL));
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL, type);
  }
  /* System memory, an SVM allocation, NULL: unknown, NULL base, size 0, no device, no flags. */
  int on_stack = 0;
  void *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
  assert_non_null(svm);
  const void *others[] = {&on_stack, svm, NULL};
  for (int i = 0; i < 3; i++) {
    cl_unified_shared_memory_type_intel type = 0;
    void *base = &on_stack;
    size_t size = 7;
    cl_device_id device = env->device;
    cl_mem_alloc_flags_intel flags = 7;
    assert_cl_success(
        usm.clGetMemAllocInfoINTEL(env->context, others[i], CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL));
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL, type);
    assert_cl_success(
        usm.clGetMemAllocInfoINTEL(env->context, others[i], CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof base, &base, NULL));
    assert_null(base);
    assert_cl_success(
        usm.clGetMemAllocInfoINTEL(env->context, others[i], CL_MEM_ALLOC_SIZE_INTEL, sizeof size, &size, NULL));
    assert_int_equal(0, size);
    assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, others[i], CL_MEM_ALLOC_DEVICE_INTEL, sizeof device,
                                                 &device, NULL));
    assert_null(device);
    assert_cl_success(
        usm.clGetMemAllocInfoINTEL(env->context, others[i], CL_MEM_ALLOC_FLAGS_INTEL, sizeof flags, &flags, NULL));
    assert_int_equal(0, flags);
  }
  clSVMFree(env->context, svm);
}

static void test_free_errors(void **state) {
  struct kiln_test_env *env = *state;
  assert_cl_success(usm.clMemFreeINTEL(env->context, NULL));
  assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, NULL));
  char *p = alloc_ok(env, HOST, 64);
  int on_stack;
  void *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
  void *not_usm[] = {&on_stack, p + 1, svm};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(env->context, not_usm[i]));
    assert_int_equal(CL_INVALID_VALUE, usm.clMemBlockingFreeINTEL(env->context, not_usm[i]));
  }
  clSVMFree(env->context, svm);
  assert_int_equal(CL_INVALID_CONTEXT, usm.clMemFreeINTEL(NULL, p));
  assert_int_equal(CL_INVALID_CONTEXT, usm.clMemBlockingFreeINTEL((cl_context)env->queue, p));
  /* Another context's allocation is not this context's. */
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(other, p));
  assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(env->context, p)); /* freed twice */
  assert_cl_success(clReleaseContext(other));
}

/* clMemBlockingFreeINTEL returns only once a kernel that was still running on another
 * queue of the context has finished. */
static void test_blocking_free_waits(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue other = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  int *flag = alloc_ok(env, SHARED, sizeof(int));
  int *out = alloc_ok(env, SHARED, sizeof(int));
  *flag = 0, *out = 0;
  cl_kernel spin = kiln_test_kernel(program, "spin");
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(spin, 0, flag));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(spin, 1, out));
  cl_event running;
  assert_cl_success(clEnqueueTask(other, spin, 0, NULL, &running));
  assert_cl_success(clFlush(other));
  kiln_test_sleep_ms(50);
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(running, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status != CL_COMPLETE); /* it waits for the flag */
  *(volatile int *)flag = 1;
  assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, out)); /* waits for the kernel */
  assert_cl_success(clGetEventInfo(running, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_COMPLETE, status);
  assert_cl_success(clReleaseEvent(running));
  assert_cl_success(clReleaseKernel(spin));
  assert_cl_success(usm.clMemFreeINTEL(env->context, flag));
  assert_cl_success(clReleaseCommandQueue(other));
}

/* ---- kernels ---- */

static void test_kernel_arguments_of_each_kind(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  cl_kernel add = kiln_test_kernel(program, "add");
  for (int k = HOST; k <= SHARED; k++) {
    int *p = alloc_ok(env, (enum kind)k, (N + 8) * sizeof *p);
    for (int i = 0; i < N + 8; i++) p[i] = i;
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, p + 8)); /* into the middle */
    kiln_test_arg_int(add, 1, 1000 * (k + 1));
    size_t global = N;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    for (int i = 0; i < N + 8; i++) assert_int_equal(i + (i >= 8 ? 1000 * (k + 1) : 0), p[i]);
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
  /* Errors: not a kernel, no such argument, a by-value argument. Any pointer is a valid
   * value (1.1.0), NULL included. */
  int x;
  assert_int_equal(CL_INVALID_KERNEL, usm.clSetKernelArgMemPointerINTEL((cl_kernel)env->queue, 0, &x));
  assert_int_equal(CL_INVALID_ARG_INDEX, usm.clSetKernelArgMemPointerINTEL(add, 2, &x));
  assert_int_equal(CL_INVALID_ARG_VALUE, usm.clSetKernelArgMemPointerINTEL(add, 1, &x));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, NULL));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, &x));
  assert_cl_success(clReleaseKernel(add));
}

static void test_indirect_access(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  int *a = alloc_ok(env, HOST, N * sizeof *a), *b = alloc_ok(env, DEVICE, N * sizeof *b);
  int *c = alloc_ok(env, SHARED, N * sizeof *c);
  struct {
    int *a, *b, *c;
  } *table = alloc_ok(env, SHARED, sizeof *table);
  table->a = a, table->b = b, table->c = c;
  for (int i = 0; i < N; i++) a[i] = i, b[i] = -i, c[i] = 0;
  cl_kernel k = kiln_test_kernel(program, "indirect");
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 0, table));
  cl_bool yes = CL_TRUE;
  const cl_kernel_exec_info flags[] = {CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                       CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                       CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL};
  for (int i = 0; i < 3; i++) {
    assert_cl_success(clSetKernelExecInfo(k, flags[i], sizeof yes, &yes));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, flags[i], sizeof yes - 1, &yes));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, flags[i], sizeof yes, NULL));
  }
  void *named[3] = {a, b, c};
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof named, named));
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 0, NULL)); /* the empty set */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 5, named));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof named, NULL));
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof named, named));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) assert_int_equal(i * 10 - i, c[i]);
  assert_cl_success(clReleaseKernel(k));
  void *all[] = {a, b, c, table};
  for (int i = 0; i < 4; i++) assert_cl_success(usm.clMemFreeINTEL(env->context, all[i]));
}

/* ---- commands ---- */

static cl_command_type command_type(cl_event event) {
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  return type;
}

static void expect_event_type(cl_event event, cl_command_type want) {
  assert_cl_success(clWaitForEvents(1, &event));
  assert_int_equal(want, command_type(event));
  assert_cl_success(clReleaseEvent(event));
}

static void test_fill_every_pattern_size(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 1024 };
  unsigned char pattern[128];
  for (int i = 0; i < 128; i++) pattern[i] = (unsigned char)(i * 37 + 11);
  for (int k = HOST; k <= SHARED; k++) {
    unsigned char *p = alloc_ok(env, (enum kind)k, BYTES + 256);
    for (size_t size = 1; size <= 128; size *= 2) {
      memset(p, 0xEE, BYTES + 256);
      cl_event event;
      assert_cl_success(usm.clEnqueueMemFillINTEL(env->queue, p + 128, pattern, size, BYTES, 0, NULL, &event));
      expect_event_type(event, CL_COMMAND_MEMFILL_INTEL);
      for (size_t i = 0; i < BYTES; i++) assert_int_equal(pattern[i % size], p[128 + i]);
      for (size_t i = 0; i < 128; i++) assert_int_equal(0xEE, p[i]);
      for (size_t i = 0; i < 128; i++) assert_int_equal(0xEE, p[128 + BYTES + i]);
    }
    /* Errors. */
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, NULL, pattern, 4, 64, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p + 2, pattern, 4, 64, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p, NULL, 4, 64, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p, pattern, 3, 63, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p, pattern, 0, 64, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p, pattern, 256, 256, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemFillINTEL(env->queue, p, pattern, 4, 62, 0, NULL, NULL));
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
}

static void test_memset_and_memcpy(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 4096 };
  unsigned char *src = alloc_ok(env, DEVICE, BYTES), *dst = alloc_ok(env, SHARED, BYTES);
  unsigned char *host = malloc(BYTES); /* system memory works as an end of a copy too */
  cl_event event;
  assert_cl_success(usm.clEnqueueMemsetINTEL(env->queue, src, 0x1234 /* the low byte counts */, BYTES, 0, NULL,
                                             &event));
  expect_event_type(event, CL_COMMAND_MEMFILL_INTEL);
  for (size_t i = 0; i < BYTES; i++) assert_int_equal(0x34, src[i]);
  for (size_t i = 0; i < BYTES; i++) src[i] = (unsigned char)(i * 13);
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_FALSE, dst, src, BYTES, 0, NULL, &event));
  expect_event_type(event, CL_COMMAND_MEMCPY_INTEL);
  assert_memory_equal(src, dst, BYTES);
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, host, dst + 1, BYTES - 1, 0, NULL, NULL));
  assert_memory_equal(src + 1, host, BYTES - 1);
  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, NULL, src, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, dst, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_MEM_COPY_OVERLAP,
                   usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, src + 8, src, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   usm.clEnqueueMemcpyINTEL((cl_command_queue)env->context, CL_TRUE, dst, src, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, dst, src, 16, 1, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemsetINTEL(env->queue, NULL, 0, 16, 0, NULL, NULL));
  /* A failed wait-list event: a blocking copy reports it. */
  cl_event user = clCreateUserEvent(env->context, NULL);
  assert_non_null(user);
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_FALSE, dst, src, 16, 1, &user, &event));
  assert_cl_success(clSetUserEventStatus(user, -1));
  cl_int status = 0;
  clWaitForEvents(1, &event);
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status < 0);
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseEvent(user));
  free(host);
  assert_cl_success(usm.clMemFreeINTEL(env->context, src));
  assert_cl_success(usm.clMemFreeINTEL(env->context, dst));
}

static void test_migrate_and_advise(void **state) {
  struct kiln_test_env *env = *state;
  void *p = alloc_ok(env, SHARED, 4096);
  const cl_mem_migration_flags valid[] = {0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                          CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED};
  for (int i = 0; i < 4; i++) {
    cl_event event;
    assert_cl_success(usm.clEnqueueMigrateMemINTEL(env->queue, p, 4096, valid[i], 0, NULL, &event));
    expect_event_type(event, CL_COMMAND_MIGRATEMEM_INTEL);
  }
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMigrateMemINTEL(env->queue, p, 4096, 1u << 5, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   usm.clEnqueueMigrateMemINTEL((cl_command_queue)env->context, p, 4096, 0, 0, NULL, NULL));
  cl_event event;
  assert_cl_success(usm.clEnqueueMemAdviseINTEL(env->queue, p, 4096, 0, 0, NULL, &event));
  expect_event_type(event, CL_COMMAND_MEMADVISE_INTEL);
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemAdviseINTEL(env->queue, p, 4096, 0x4208, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   usm.clEnqueueMemAdviseINTEL((cl_command_queue)env->context, p, 4096, 0, 0, NULL, NULL));
  assert_cl_success(usm.clMemFreeINTEL(env->context, p));
}

/* Host and kernel atomics on one shared allocation at the same time. */
static const char *atomics_source =
    "kernel void count(global atomic_int *counter, int n) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "}\n";

static void test_concurrent_atomics(void **state) {
  struct kiln_test_env *env = *state;
  cl_program p = kiln_test_program(env->context, env->device, atomics_source, "-cl-std=CL3.0");
  cl_kernel k = kiln_test_kernel(p, "count");
  atomic_int *counter = alloc_ok(env, SHARED, sizeof *counter);
  atomic_init(counter, 0);
  enum { ITEMS = 64, PER_ITEM = 20000, HOST_ADDS = 500000 };
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 0, counter));
  kiln_test_arg_int(k, 1, PER_ITEM);
  size_t global = ITEMS;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFlush(env->queue));
  for (int i = 0; i < HOST_ADDS; i++) atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(ITEMS * PER_ITEM + HOST_ADDS, atomic_load(counter));
  assert_cl_success(usm.clMemFreeINTEL(env->context, counter));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseProgram(p));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_extension_and_capabilities),
      KILN_GATED_TEST(test_allocations_of_each_kind),
      KILN_GATED_TEST(test_allocation_properties),
      KILN_GATED_TEST(test_allocation_errors),
      KILN_GATED_TEST(test_alloc_info),
      KILN_GATED_TEST(test_free_errors),
      KILN_GATED_TEST(test_blocking_free_waits),
      KILN_GATED_TEST(test_kernel_arguments_of_each_kind),
      KILN_GATED_TEST(test_indirect_access),
      KILN_GATED_TEST(test_fill_every_pattern_size),
      KILN_GATED_TEST(test_memset_and_memcpy),
      KILN_GATED_TEST(test_migrate_and_advise),
      KILN_GATED_TEST(test_concurrent_atomics),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
