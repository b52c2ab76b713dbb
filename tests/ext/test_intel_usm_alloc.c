/* cl_intel_unified_shared_memory 1.2.0, the allocation side: the extension is listed with
 * its version and every entry point resolves; the five capability queries (and their
 * agreement with CL_DEVICE_SVM_CAPABILITIES); host, device and shared allocations at every
 * alignment, with every valid property, refused with each error the spec lists (and in
 * the list's order when several apply), errcode_ret NULL included; clGetMemAllocInfoINTEL
 * for base, middle and last bytes, one past the end, other contexts' allocations, SVM and
 * system pointers, freed allocations, and its own errors; clMemFreeINTEL and
 * clMemBlockingFreeINTEL: their errors, that the blocking free waits for commands of the
 * context still running or gated (in-order, out-of-order and released queues) and not for
 * other contexts', and that the plain free does not wait; allocations from four threads
 * at once. */
#include "intel_usm_test.h"

#include <stdatomic.h>

static const char *source =
    /* Waits (bounded) for the host to store nonzero to *flag, then reports what it saw. */
    "kernel void spin(global volatile int *flag, global int *out) {\n"
    "  for (long n = 0; n < 4000000000L && !*flag; n++) {}\n"
    "  *out = *flag ? 1 : -1;\n"
    "}\n";

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, usm_env_setup, &program, source, NULL); }
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* ---- the extension ---- */

static void test_extension_and_entry_points(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_intel_unified_shared_memory", CL_MAKE_VERSION(1, 2, 0));
  /* usm_load found every entry point through clGetExtensionFunctionAddressForPlatform;
   * they are distinct, and Kiln's deprecated lookup (through its dispatch table: the
   * loader answers that one itself) agrees. */
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(env->platform);
  void *all[] = {
#define USM_ADDRESS(name) (void *)usm.name,
      USM_FUNCTIONS(USM_ADDRESS)
#undef USM_ADDRESS
  };
  const char *names[] = {
#define USM_NAME(name) #name,
      USM_FUNCTIONS(USM_NAME)
#undef USM_NAME
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    for (size_t j = 0; j < i; j++) assert_ptr_not_equal(all[i], all[j]);
    if (dispatch->clGetExtensionFunctionAddress(names[i]) != all[i])
      fail_msg("clGetExtensionFunctionAddress(\"%s\") differs from the platform's", names[i]);
  }
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clMemAllocINTEL"));
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clEnqueueMemAdviceINTEL"));
}

static void test_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  const cl_device_info names[] = {CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL, CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
                                  CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL};
  cl_device_unified_shared_memory_capabilities_intel caps[5];
  for (size_t i = 0; i < 5; i++) {
    size_t size = 0;
    assert_cl_success(clGetDeviceInfo(env->device, names[i], 0, NULL, &size));
    assert_int_equal(sizeof caps[i], size);
    caps[i] = 0;
    assert_cl_success(clGetDeviceInfo(env->device, names[i], sizeof caps[i], &caps[i], &size));
    assert_int_equal(sizeof caps[i], size);
    /* Each bit is exercised in these suites: kernels on every kind, atomics, the host
     * storing a flag a running kernel waits for, host and kernel atomics on one counter. */
    if (caps[i] != USM_ALL_CAPABILITIES)
      fail_msg("capability query 0x%x: 0x%llx, expected 0x%llx", (unsigned)names[i], (unsigned long long)caps[i],
               (unsigned long long)USM_ALL_CAPABILITIES);
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, names[i], sizeof caps[i] - 1, &caps[i], NULL));
  }
  /* Shared system memory is SVM's fine-grain system memory: the two queries agree. */
  cl_device_svm_capabilities svm = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL));
  assert_int_equal(!!(caps[4] & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL), !!(svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM));
  assert_int_equal(!!(caps[4] & CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL),
                   !!(svm & CL_DEVICE_SVM_ATOMICS));
}

/* ---- allocations ---- */

static void test_allocations_at_every_alignment(void **state) {
  struct kiln_test_env *env = *state;
  const size_t sizes[] = {1, 3, 1000, 4097, 1u << 20};
  for (int k = USM_HOST; k < USM_KIND_COUNT; k++) {
    for (cl_uint alignment = 0; alignment <= USM_MAX_ALIGNMENT; alignment = alignment ? alignment * 2 : 1) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        cl_int err = 1;
        unsigned char *p =
            usm_alloc_call(env->context, (enum usm_kind)k, env->device, NULL, sizes[s], alignment, &err);
        assert_cl_success(err);
        assert_non_null(p);
        cl_uint want = alignment ? alignment : USM_MAX_ALIGNMENT; /* the default: long16 */
        if ((uintptr_t)p % want)
          fail_msg("%s allocation of %zu at alignment %u: %p", usm_kind_names[k], sizes[s], alignment, (void *)p);
        memset(p, 0x5A, sizes[s]); /* every byte is there (the host reaches every kind on a CPU) */
        assert_int_equal(sizes[s], USM_INFO(env->context, p, CL_MEM_ALLOC_SIZE_INTEL, size_t));
        assert_cl_success(usm.clMemFreeINTEL(env->context, p));
      }
    }
    /* errcode_ret NULL on success. */
    void *p = usm_alloc_call(env->context, (enum usm_kind)k, env->device, NULL, 64, 0, NULL);
    assert_non_null(p);
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
  /* Shared allocations without a device: any alignment up to the context's largest type. */
  for (cl_uint alignment = 0; alignment <= USM_MAX_ALIGNMENT; alignment = alignment ? alignment * 2 : 1) {
    cl_int err = 1;
    void *p = usm.clSharedMemAllocINTEL(env->context, NULL, NULL, 100, alignment, &err);
    assert_cl_success(err);
    assert_true((uintptr_t)p % (alignment ? alignment : USM_MAX_ALIGNMENT) == 0);
    assert_null(USM_INFO(env->context, p, CL_MEM_ALLOC_DEVICE_INTEL, cl_device_id));
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
}

/* Live allocations of every kind are distinct and do not overlap. */
static void test_allocations_are_distinct(void **state) {
  struct kiln_test_env *env = *state;
  enum { COUNT = 60, BYTES = 300 };
  unsigned char *p[COUNT];
  for (int i = 0; i < COUNT; i++) {
    p[i] = usm_alloc(env, (enum usm_kind)(i % USM_KIND_COUNT), BYTES);
    memset(p[i], i, BYTES);
  }
  for (int i = 0; i < COUNT; i++) {
    for (int b = 0; b < BYTES; b++)
      if (p[i][b] != i) fail_msg("allocation %d byte %d is %d: another allocation overlaps it", i, b, p[i][b]);
    assert_ptr_equal(p[i], USM_INFO(env->context, p[i] + BYTES / 2, CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
  }
  for (int i = 0; i < COUNT; i++) usm_free_any(env, (enum usm_kind)(i % USM_KIND_COUNT), p[i]);
}

static void test_allocation_properties(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_alloc_flags_intel wc = CL_MEM_ALLOC_WRITE_COMBINED_INTEL;
  const cl_mem_alloc_flags_intel on_device = CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL;
  const cl_mem_alloc_flags_intel on_host = CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
  /* Every valid value of CL_MEM_ALLOC_FLAGS_INTEL per kind (the placement hints are for
   * shared allocations only). */
  const cl_mem_alloc_flags_intel valid[USM_KIND_COUNT][6] = {
      {0, wc},
      {0, wc},
      {0, wc, on_device, on_host, wc | on_device, wc | on_host},
  };
  const int valid_count[USM_KIND_COUNT] = {2, 2, 6};
  for (int k = USM_HOST; k < USM_KIND_COUNT; k++) {
    for (int i = 0; i < valid_count[k]; i++) {
      cl_mem_properties_intel properties[] = {CL_MEM_ALLOC_FLAGS_INTEL, valid[k][i], 0};
      cl_int err = 1;
      void *p = usm_alloc_call(env->context, (enum usm_kind)k, env->device, properties, 256, 0, &err);
      if (err != CL_SUCCESS || !p)
        fail_msg("%s allocation with flags 0x%llx: error %d", usm_kind_names[k], (unsigned long long)valid[k][i],
                 err);
      assert_int_equal(valid[k][i], USM_INFO(env->context, p, CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
      assert_int_equal(usm_types[k], USM_INFO(env->context, p, CL_MEM_ALLOC_TYPE_INTEL,
                                              cl_unified_shared_memory_type_intel));
      assert_cl_success(usm.clMemFreeINTEL(env->context, p));
    }
    /* An empty list is no property; no property is flags 0. */
    cl_mem_properties_intel empty[] = {0};
    cl_int err = 1;
    void *p = usm_alloc_call(env->context, (enum usm_kind)k, env->device, empty, 16, 0, &err);
    assert_cl_success(err);
    assert_int_equal(0, USM_INFO(env->context, p, CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  }
  /* A shared allocation without a device takes the placement hints too. */
  cl_mem_properties_intel hinted[] = {CL_MEM_ALLOC_FLAGS_INTEL, on_host, 0};
  cl_int err = 1;
  void *p = usm.clSharedMemAllocINTEL(env->context, NULL, hinted, 16, 0, &err);
  assert_cl_success(err);
  assert_int_equal(on_host, USM_INFO(env->context, p, CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
  assert_cl_success(usm.clMemFreeINTEL(env->context, p));
}

static void test_allocation_errors(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_alloc_flags_intel both = CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |
                                        CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
  cl_mem_properties_intel unknown[] = {0x4242, 0, 0};
  /* cl_intel_mem_alloc_buffer_location's property: Kiln does not offer that extension. */
  cl_mem_properties_intel buffer_location[] = {0x419E /* CL_MEM_ALLOC_BUFFER_LOCATION_INTEL */, 0, 0};
  cl_mem_properties_intel mem_flags[] = {CL_MEM_FLAGS, CL_MEM_READ_WRITE, 0};
  cl_mem_properties_intel twice[] = {CL_MEM_ALLOC_FLAGS_INTEL, 0, CL_MEM_ALLOC_FLAGS_INTEL, 0, 0};
  cl_mem_properties_intel bit_3[] = {CL_MEM_ALLOC_FLAGS_INTEL, 1u << 3, 0};
  cl_mem_properties_intel bit_63[] = {CL_MEM_ALLOC_FLAGS_INTEL, (cl_mem_properties_intel)1 << 63, 0};
  cl_mem_properties_intel device_place[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL, 0};
  cl_mem_properties_intel host_place[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0};
  cl_mem_properties_intel both_place[] = {CL_MEM_ALLOC_FLAGS_INTEL, both, 0};
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  const cl_uint bad_alignments[] = {3, 6, 96, 129, 256, 4096, 0x80000000u, 0xFFFFFFFFu};
  for (int k = USM_HOST; k < USM_KIND_COUNT; k++) {
    enum usm_kind kind = (enum usm_kind)k;
    for (size_t a = 0; a < sizeof bad_alignments / sizeof bad_alignments[0]; a++) {
      char what[64];
      snprintf(what, sizeof what, "alignment %u", bad_alignments[a]);
      usm_expect_refused(env->context, kind, env->device, NULL, 64, bad_alignments[a], CL_INVALID_VALUE, what);
    }
    usm_expect_refused(env->context, kind, env->device, unknown, 64, 0, CL_INVALID_PROPERTY, "unknown property");
    usm_expect_refused(env->context, kind, env->device, buffer_location, 64, 0, CL_INVALID_PROPERTY,
                       "CL_MEM_ALLOC_BUFFER_LOCATION_INTEL");
    usm_expect_refused(env->context, kind, env->device, mem_flags, 64, 0, CL_INVALID_PROPERTY, "CL_MEM_FLAGS");
    usm_expect_refused(env->context, kind, env->device, twice, 64, 0, CL_INVALID_PROPERTY, "property twice");
    usm_expect_refused(env->context, kind, env->device, bit_3, 64, 0, CL_INVALID_PROPERTY, "flag bit 3");
    usm_expect_refused(env->context, kind, env->device, bit_63, 64, 0, CL_INVALID_PROPERTY, "flag bit 63");
    usm_expect_refused(env->context, kind, env->device, both_place, 64, 0, CL_INVALID_PROPERTY, "both placements");
    if (kind != USM_SHARED) {
      usm_expect_refused(env->context, kind, env->device, device_place, 64, 0, CL_INVALID_PROPERTY,
                         "device placement");
      usm_expect_refused(env->context, kind, env->device, host_place, 64, 0, CL_INVALID_PROPERTY, "host placement");
    }
    usm_expect_refused(env->context, kind, env->device, NULL, 0, 0, CL_INVALID_BUFFER_SIZE, "size 0");
    usm_expect_refused(env->context, kind, env->device, NULL, (size_t)max_alloc + 1, 0, CL_INVALID_BUFFER_SIZE,
                       "size above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    usm_expect_refused(env->context, kind, env->device, NULL, SIZE_MAX, 0, CL_INVALID_BUFFER_SIZE, "size SIZE_MAX");
    /* Several faults: the first of the spec's list is reported. */
    usm_expect_refused(env->context, kind, env->device, unknown, 0, 3, CL_INVALID_VALUE,
                       "bad alignment, property and size");
    usm_expect_refused(env->context, kind, env->device, unknown, 0, 0, CL_INVALID_PROPERTY, "bad property and size");
    usm_expect_refused(NULL, kind, NULL, unknown, 0, 3, CL_INVALID_CONTEXT, "no context, device or anything");
  }
  /* Shared allocations without a device: the same rules. */
  usm_expect_refused(env->context, USM_SHARED, NULL, NULL, 64, 256, CL_INVALID_VALUE, "no device, alignment 256");
  usm_expect_refused(env->context, USM_SHARED, NULL, both_place, 64, 0, CL_INVALID_PROPERTY,
                     "no device, both placements");
  usm_expect_refused(env->context, USM_SHARED, NULL, NULL, 0, 0, CL_INVALID_BUFFER_SIZE, "no device, size 0");
  /* Contexts: NULL, another object, a released one. */
  cl_int err;
  cl_context released = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(released));
  const cl_context bad_contexts[] = {NULL, (cl_context)env->queue, released};
  for (int c = 0; c < 3; c++)
    for (int k = USM_HOST; k < USM_KIND_COUNT; k++)
      usm_expect_refused(bad_contexts[c], (enum usm_kind)k, env->device, NULL, 64, 0, CL_INVALID_CONTEXT,
                         "invalid context");
  /* Devices: device allocations need one; neither kind takes another object. */
  usm_expect_refused(env->context, USM_DEVICE, NULL, NULL, 64, 0, CL_INVALID_DEVICE, "NULL device");
  usm_expect_refused(env->context, USM_DEVICE, (cl_device_id)env->context, NULL, 64, 0, CL_INVALID_DEVICE,
                     "a context as device");
  usm_expect_refused(env->context, USM_SHARED, (cl_device_id)env->queue, NULL, 64, 0, CL_INVALID_DEVICE,
                     "a queue as device");
  usm_expect_refused(env->context, USM_DEVICE, (cl_device_id)env->queue, unknown, 0, 3, CL_INVALID_DEVICE,
                     "bad device before bad alignment");
}

/* ---- clGetMemAllocInfoINTEL ---- */

static void test_alloc_info_of_each_kind(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 1000 }; /* not a multiple of the alignment: the end is the size asked */
  for (int k = USM_HOST; k < USM_KIND_COUNT; k++) {
    char *p = usm_alloc(env, (enum usm_kind)k, BYTES);
    const char *probes[] = {p, p + 1, p + BYTES / 2, p + BYTES - 1};
    for (int i = 0; i < 4; i++) {
      assert_int_equal(usm_types[k],
                       USM_INFO(env->context, probes[i], CL_MEM_ALLOC_TYPE_INTEL, cl_unified_shared_memory_type_intel));
      assert_ptr_equal(p, USM_INFO(env->context, probes[i], CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
      assert_int_equal(BYTES, USM_INFO(env->context, probes[i], CL_MEM_ALLOC_SIZE_INTEL, size_t));
      assert_ptr_equal(k == USM_HOST ? NULL : env->device,
                       USM_INFO(env->context, probes[i], CL_MEM_ALLOC_DEVICE_INTEL, cl_device_id));
      assert_int_equal(0, USM_INFO(env->context, probes[i], CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
    }
    /* One past the end is not in it, nor is the byte before it. */
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL,
                     USM_INFO(env->context, p + BYTES, CL_MEM_ALLOC_TYPE_INTEL, cl_unified_shared_memory_type_intel));
    assert_null(USM_INFO(env->context, p + BYTES, CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL,
                     USM_INFO(env->context, p - 1, CL_MEM_ALLOC_TYPE_INTEL, cl_unified_shared_memory_type_intel));
    /* Sizes: NULL param_value gives the size only; a value too small is refused. */
    const cl_mem_info_intel names[] = {CL_MEM_ALLOC_TYPE_INTEL, CL_MEM_ALLOC_BASE_PTR_INTEL, CL_MEM_ALLOC_SIZE_INTEL,
                                       CL_MEM_ALLOC_DEVICE_INTEL, CL_MEM_ALLOC_FLAGS_INTEL};
    const size_t sizes[] = {sizeof(cl_unified_shared_memory_type_intel), sizeof(void *), sizeof(size_t),
                            sizeof(cl_device_id), sizeof(cl_mem_alloc_flags_intel)};
    for (int i = 0; i < 5; i++) {
      size_t need = 0;
      assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, names[i], 0, NULL, &need));
      assert_int_equal(sizes[i], need);
      unsigned char big[16];
      assert_int_equal(CL_INVALID_VALUE, usm.clGetMemAllocInfoINTEL(env->context, p, names[i], sizes[i] - 1, big, NULL));
      assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, names[i], sizeof big, big, NULL));
      assert_cl_success(usm.clGetMemAllocInfoINTEL(env->context, p, names[i], 0, NULL, NULL));
    }
    /* An unknown name, known or unknown pointer; an invalid context. */
    cl_uint value;
    assert_int_equal(CL_INVALID_VALUE, usm.clGetMemAllocInfoINTEL(env->context, p, 0x4242, sizeof value, &value, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clGetMemAllocInfoINTEL(env->context, &value, CL_MEM_ALLOC_SIZE_INTEL + 9,
                                                                  sizeof value, &value, NULL));
    assert_int_equal(CL_INVALID_VALUE,
                     usm.clGetMemAllocInfoINTEL(env->context, p, 0x419E /* buffer location: not offered */,
                                                sizeof value, &value, NULL));
    assert_int_equal(CL_INVALID_CONTEXT,
                     usm.clGetMemAllocInfoINTEL(NULL, p, CL_MEM_ALLOC_TYPE_INTEL, sizeof value, &value, NULL));
    assert_int_equal(CL_INVALID_CONTEXT, usm.clGetMemAllocInfoINTEL((cl_context)env->queue, p, CL_MEM_ALLOC_TYPE_INTEL,
                                                                    sizeof value, &value, NULL));
    assert_cl_success(usm.clMemFreeINTEL(env->context, p));
    /* Freed: unknown now. */
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL,
                     USM_INFO(env->context, p, CL_MEM_ALLOC_TYPE_INTEL, cl_unified_shared_memory_type_intel));
    assert_int_equal(0, USM_INFO(env->context, p, CL_MEM_ALLOC_SIZE_INTEL, size_t));
  }
}

/* The spec's answers for CL_MEM_TYPE_UNKNOWN_INTEL pointers (NULL base and device, size 0,
 * flags 0): system memory, an SVM allocation, NULL, and another context's allocation. */
static void test_alloc_info_of_unknown_pointers(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem_properties_intel flags[] = {CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_WRITE_COMBINED_INTEL, 0};
  char *others = usm.clSharedMemAllocINTEL(other, env->device, flags, 64, 0, &err);
  assert_cl_success(err);
  int on_stack = 0;
  void *heap = malloc(64);
  char *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
  assert_non_null(svm);
  const void *pointers[] = {&on_stack, heap, svm, svm + 10, NULL, others, others + 5};
  for (int i = 0; i < 7; i++) {
    assert_int_equal(CL_MEM_TYPE_UNKNOWN_INTEL, USM_INFO(env->context, pointers[i], CL_MEM_ALLOC_TYPE_INTEL,
                                                         cl_unified_shared_memory_type_intel));
    assert_null(USM_INFO(env->context, pointers[i], CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
    assert_int_equal(0, USM_INFO(env->context, pointers[i], CL_MEM_ALLOC_SIZE_INTEL, size_t));
    assert_null(USM_INFO(env->context, pointers[i], CL_MEM_ALLOC_DEVICE_INTEL, cl_device_id));
    assert_int_equal(0, USM_INFO(env->context, pointers[i], CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
  }
  /* In its own context the other allocation is known, with its flags. */
  assert_int_equal(CL_MEM_TYPE_SHARED_INTEL,
                   USM_INFO(other, others + 5, CL_MEM_ALLOC_TYPE_INTEL, cl_unified_shared_memory_type_intel));
  assert_ptr_equal(others, USM_INFO(other, others + 5, CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
  assert_int_equal(CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
                   USM_INFO(other, others, CL_MEM_ALLOC_FLAGS_INTEL, cl_mem_alloc_flags_intel));
  clSVMFree(env->context, svm);
  free(heap);
  assert_cl_success(usm.clMemFreeINTEL(other, others));
  assert_cl_success(clReleaseContext(other));
}

/* ---- freeing ---- */

static void test_free_errors(void **state) {
  struct kiln_test_env *env = *state;
  assert_cl_success(usm.clMemFreeINTEL(env->context, NULL));
  assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, NULL));
  char *p = usm_alloc(env, USM_HOST, 64);
  int on_stack;
  void *heap = malloc(16);
  void *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 64, 0);
  assert_non_null(svm);
  void *not_usm[] = {&on_stack, heap, p + 1, p + 63, svm};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(env->context, not_usm[i]));
    assert_int_equal(CL_INVALID_VALUE, usm.clMemBlockingFreeINTEL(env->context, not_usm[i]));
  }
  /* The SVM allocation and the USM one survived the refusals. */
  assert_ptr_equal(p, USM_INFO(env->context, p + 1, CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
  clSVMFree(env->context, svm);
  free(heap);
  /* clSVMFree takes no USM allocation (no action). */
  clSVMFree(env->context, p);
  assert_ptr_equal(p, USM_INFO(env->context, p, CL_MEM_ALLOC_BASE_PTR_INTEL, void *));
  /* Invalid contexts; another context's allocation is not this context's. */
  cl_int err;
  cl_context released = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(released));
  const cl_context bad[] = {NULL, (cl_context)env->queue, released};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(CL_INVALID_CONTEXT, usm.clMemFreeINTEL(bad[i], p));
    assert_int_equal(CL_INVALID_CONTEXT, usm.clMemBlockingFreeINTEL(bad[i], p));
    assert_int_equal(CL_INVALID_CONTEXT, usm.clMemFreeINTEL(bad[i], NULL));
  }
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(other, p));
  assert_int_equal(CL_INVALID_VALUE, usm.clMemBlockingFreeINTEL(other, p));
  assert_cl_success(clReleaseContext(other));
  /* Each kind frees once, by either call. */
  assert_cl_success(usm.clMemFreeINTEL(env->context, p));
  assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(env->context, p));
  assert_int_equal(CL_INVALID_VALUE, usm.clMemBlockingFreeINTEL(env->context, p));
  for (int k = USM_HOST; k < USM_KIND_COUNT; k++) {
    void *q = usm_alloc(env, (enum usm_kind)k, 32);
    assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, q));
    assert_int_equal(CL_INVALID_VALUE, usm.clMemFreeINTEL(env->context, q));
  }
}

enum { OPEN_AFTER_MS = 150 };

/* clMemBlockingFreeINTEL returns only after a kernel that is still running on another
 * queue of the context has finished: the kernel waits for a flag the host stores
 * OPEN_AFTER_MS later, from another thread. */
static void test_blocking_free_waits_for_a_running_kernel(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_command_queue other = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  int *flag = usm_alloc(env, USM_SHARED, sizeof(int));
  int *out = usm_alloc(env, USM_DEVICE, sizeof(int));
  *flag = 0, *out = 0;
  cl_kernel spin = kiln_test_kernel(program, "spin");
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(spin, 0, flag));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(spin, 1, out));
  cl_event running;
  assert_cl_success(clEnqueueTask(other, spin, 0, NULL, &running));
  assert_cl_success(clFlush(other));
  struct usm_opener opener;
  usm_set_flag_later(&opener, flag, OPEN_AFTER_MS, 1);
  assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, out)); /* waits for the kernel */
  double returned = kiln_test_now_ms();
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(running));
  usm_opener_join(&opener);
  if (returned < opener.opened_at_ms)
    fail_msg("clMemBlockingFreeINTEL returned %.1f ms before the kernel could end", opener.opened_at_ms - returned);
  assert_cl_success(clReleaseEvent(running));
  assert_cl_success(clReleaseKernel(spin));
  assert_cl_success(usm.clMemFreeINTEL(env->context, flag));
  assert_cl_success(clReleaseCommandQueue(other));
}

struct gated_copy {
  cl_command_queue queue;
  unsigned char *src, *dst;
  cl_event gate, copy;
};
enum { GATED_BYTES = 4096 };

/* A copy between two new allocations on `queue`, held back by a new user event. */
static struct gated_copy gated_copy(struct kiln_test_env *env, cl_context context, cl_command_queue queue) {
  struct gated_copy g = {.queue = queue};
  cl_int err;
  g.src = usm.clDeviceMemAllocINTEL(context, env->device, NULL, GATED_BYTES, 0, &err);
  assert_cl_success(err);
  g.dst = usm.clHostMemAllocINTEL(context, NULL, GATED_BYTES, 0, &err);
  assert_cl_success(err);
  for (int i = 0; i < GATED_BYTES; i++) g.src[i] = (unsigned char)(i * 7 + 1), g.dst[i] = 0;
  g.gate = kiln_test_gate_new(context);
  assert_cl_success(usm.clEnqueueMemcpyINTEL(queue, CL_FALSE, g.dst, g.src, GATED_BYTES, 1, &g.gate, &g.copy));
  assert_cl_success(clFlush(queue));
  return g;
}

static void expect_copied(const struct gated_copy *g) {
  for (int i = 0; i < GATED_BYTES; i++)
    if (g->dst[i] != (unsigned char)(i * 7 + 1)) fail_msg("byte %d of the gated copy was not copied", i);
}

/* The blocking free waits for a command gated by a user event on an out-of-order queue,
 * and on a queue the application has already released; the copy reads the allocation
 * being freed, so it must have run first. */
static void test_blocking_free_waits_for_gated_commands(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  for (int released = 0; released < 2; released++) {
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_command_queue queue =
        clCreateCommandQueueWithProperties(env->context, env->device, released ? NULL : props, &err);
    assert_cl_success(err);
    struct gated_copy g = gated_copy(env, env->context, queue);
    if (released) assert_cl_success(clReleaseCommandQueue(queue)); /* its command holds it */
    struct usm_opener opener;
    usm_open_event_later(&opener, g.gate, OPEN_AFTER_MS, CL_COMPLETE);
    assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, g.src));
    double returned = kiln_test_now_ms();
    usm_opener_join(&opener);
    if (returned < opener.opened_at_ms)
      fail_msg("%s queue: the blocking free returned before the gate opened", released ? "released" : "out-of-order");
    assert_int_equal(CL_COMPLETE, kiln_test_event_status(g.copy));
    expect_copied(&g);
    assert_cl_success(clReleaseEvent(g.copy));
    assert_cl_success(clReleaseEvent(g.gate));
    assert_cl_success(usm.clMemFreeINTEL(env->context, g.dst));
    if (!released) assert_cl_success(clReleaseCommandQueue(queue));
  }
}

/* A blocking free waits for its own context only: a command of another context, held
 * back by a user event, does not hold it; and clMemFreeINTEL waits for nothing. A thread
 * would open the gate after SAFETY_MS, so that frees that wrongly wait fail instead of
 * hanging; the test opens it itself once the frees have returned. */
static void test_frees_that_do_not_wait(void **state) {
  struct kiln_test_env *env = *state;
  enum { SAFETY_MS = 20000 };
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue other_queue = clCreateCommandQueueWithProperties(other, env->device, NULL, &err);
  assert_cl_success(err);
  struct gated_copy g = gated_copy(env, other, other_queue);
  struct usm_opener opener;
  usm_open_event_later(&opener, g.gate, SAFETY_MS, CL_COMPLETE);
  void *mine = usm_alloc(env, USM_SHARED, 64);
  assert_cl_success(usm.clMemBlockingFreeINTEL(env->context, mine));
  /* The plain free, in the gated command's own context, of an allocation it does not use. */
  void *unused = usm.clSharedMemAllocINTEL(other, NULL, NULL, 64, 0, &err);
  assert_cl_success(err);
  assert_cl_success(usm.clMemFreeINTEL(other, unused));
  bool opened = usm_opener_cancel(&opener);
  if (opened) fail_msg("the frees returned only after the safety thread opened the other context's gate");
  assert_true(kiln_test_event_status(g.copy) > CL_COMPLETE); /* still held back */
  assert_cl_success(clSetUserEventStatus(g.gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(1, &g.copy));
  expect_copied(&g);
  assert_cl_success(clReleaseEvent(g.copy));
  assert_cl_success(clReleaseEvent(g.gate));
  assert_cl_success(usm.clMemFreeINTEL(other, g.src));
  assert_cl_success(usm.clMemFreeINTEL(other, g.dst));
  assert_cl_success(clReleaseCommandQueue(other_queue));
  assert_cl_success(clReleaseContext(other));
}

/* ---- threads ---- */

struct racer {
  struct kiln_test_env *env;
  int index;
  int failures;
};

static void *race_allocations(void *arg) {
  struct racer *r = arg;
  for (int i = 0; i < 300; i++) {
    enum usm_kind kind = (enum usm_kind)((r->index + i) % USM_KIND_COUNT);
    size_t size = 16 + (size_t)((r->index * 131 + i * 17) % 2000);
    unsigned char *p = usm_alloc_call(r->env->context, kind, r->env->device, NULL, size, 0, NULL);
    if (!p) {
      r->failures++;
      continue;
    }
    memset(p, r->index, size);
    void *base = NULL;
    size_t got = 0;
    cl_unified_shared_memory_type_intel type = 0;
    usm.clGetMemAllocInfoINTEL(r->env->context, p + size - 1, CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof base, &base, NULL);
    usm.clGetMemAllocInfoINTEL(r->env->context, p + size / 2, CL_MEM_ALLOC_SIZE_INTEL, sizeof got, &got, NULL);
    usm.clGetMemAllocInfoINTEL(r->env->context, p, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL);
    if (base != p || got != size || type != usm_types[kind] || p[size - 1] != r->index) r->failures++;
    cl_int err = (i % 2) ? usm.clMemFreeINTEL(r->env->context, p) : usm.clMemBlockingFreeINTEL(r->env->context, p);
    if (err != CL_SUCCESS) r->failures++;
  }
  return NULL;
}

static void test_allocations_from_threads(void **state) {
  struct kiln_test_env *env = *state;
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  struct racer racers[THREADS];
  for (int t = 0; t < THREADS; t++) {
    racers[t] = (struct racer){env, t + 1, 0};
    assert_int_equal(0, pthread_create(&threads[t], NULL, race_allocations, &racers[t]));
  }
  for (int t = 0; t < THREADS; t++) assert_int_equal(0, pthread_join(threads[t], NULL));
  for (int t = 0; t < THREADS; t++)
    if (racers[t].failures) fail_msg("thread %d: %d wrong answers", t, racers[t].failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_extension_and_entry_points),
      KILN_GATED_TEST(test_capabilities),
      KILN_GATED_TEST(test_allocations_at_every_alignment),
      KILN_GATED_TEST(test_allocations_are_distinct),
      KILN_GATED_TEST(test_allocation_properties),
      KILN_GATED_TEST(test_allocation_errors),
      KILN_GATED_TEST(test_alloc_info_of_each_kind),
      KILN_GATED_TEST(test_alloc_info_of_unknown_pointers),
      KILN_GATED_TEST(test_free_errors),
      KILN_GATED_TEST(test_blocking_free_waits_for_a_running_kernel),
      KILN_GATED_TEST(test_blocking_free_waits_for_gated_commands),
      KILN_GATED_TEST(test_frees_that_do_not_wait),
      KILN_GATED_TEST(test_allocations_from_threads),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
