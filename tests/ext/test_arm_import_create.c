/* cl_arm_import_memory, creating imports: the extension strings and versions, the entry
 * point, every flag and property Kiln accepts or refuses, context handles, the order of
 * the errors, buffer sizes (zero, the device limit, wrapping the address space), ranges
 * with unmapped pages, the page-sharing rule of unaligned imports (per context, released
 * with the buffer, never left behind by a failed import), concurrent claims, what
 * clGetMemObjectInfo reports for imports and their sub-buffers, that releasing never
 * frees or changes the application's memory, destructor callbacks, and dma-buf imports
 * where the system has dma-bufs. */
#include "arm_import_test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <sys/ioctl.h>

/* ---- extension strings ---- */

static void test_extensions_reported(void **state) {
  struct kiln_test_env *env = *state;
  bool dma = aim_system_has_dma_buf();
  const struct {
    const char *name;
    bool expected;
  } names[] = {{"cl_arm_import_memory", true},
               {"cl_arm_import_memory_host", true},
               {"cl_arm_import_memory_dma_buf", dma},
               {"cl_arm_import_memory_protected", false},
               {"cl_arm_import_memory_android_hardware_buffer", false}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (kiln_test_extension_listed(env->device, names[i].name) != names[i].expected)
      fail_msg("CL_DEVICE_EXTENSIONS %s %s", names[i].expected ? "lacks" : "reports", names[i].name);
    cl_version version = CL_MAKE_VERSION(1, 0, 0);
    size_t found = kiln_test_extension_entries(env->device, names[i].name, &version);
    if (found != (names[i].expected ? 1u : 0u))
      fail_msg("CL_DEVICE_EXTENSIONS_WITH_VERSION lists %s %zu times, expected %d", names[i].name, found,
               names[i].expected);
    if (version != CL_MAKE_VERSION(1, 0, 0))
      fail_msg("%s reported with version 0x%x, expected 1.0.0", names[i].name, version);
  }
}

static void test_function_address(void **state) {
  struct kiln_test_env *env = *state;
  void *f = clGetExtensionFunctionAddressForPlatform(env->platform, "clImportMemoryARM");
  assert_non_null(f);
  assert_ptr_equal(f, (void *)aim_import);
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clImportMemoryARMX"));
}

/* ---- successful imports and their info ---- */

static void expect_import_info(cl_mem mem, cl_context context, cl_mem_flags flags, size_t size) {
  cl_mem_object_type type = 0;
  size_t got_size = 0, offset = 1;
  void *host_ptr = (void *)1;
  cl_context got_context = NULL;
  cl_uint refs = 0, map_count = 9;
  cl_mem parent = (cl_mem)1;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_MEM_OBJECT_BUFFER, type);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof got_size, &got_size, NULL));
  assert_int_equal(size, got_size);
  if (aim_flags(mem) != flags)
    fail_msg("CL_MEM_FLAGS is 0x%llx, expected 0x%llx", (unsigned long long)aim_flags(mem), (unsigned long long)flags);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
  assert_null(host_ptr);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof got_context, &got_context, NULL));
  assert_ptr_equal(context, got_context);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_MAP_COUNT, sizeof map_count, &map_count, NULL));
  assert_int_equal(0, map_count);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
  assert_null(parent);
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(0, offset);
}

static void test_host_import_properties_accepted(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  unsigned char *memory = malloc(N);
  memset(memory, 0x5A, N);
  const cl_import_properties_arm none[] = {0};
  const cl_import_properties_arm host[] = {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, 0};
  const cl_import_properties_arm *lists[] = {NULL, none, host};
  for (size_t i = 0; i < 3; i++) {
    cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, lists[i], memory, N);
    expect_import_info(mem, env->context, CL_MEM_READ_WRITE, N);
    assert_cl_success(clReleaseMemObject(mem));
    /* errcode_ret may be NULL. */
    mem = aim_import(env->context, CL_MEM_READ_WRITE, lists[i], memory, N, NULL);
    assert_non_null(mem);
    assert_cl_success(clReleaseMemObject(mem));
  }
  for (size_t i = 0; i < N; i++) assert_int_equal(0x5A, memory[i]);
  free(memory);
}

static void test_flags_accepted(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY};
  const cl_mem_flags host[] = {0, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS};
  unsigned char *memory = malloc(100);
  for (size_t a = 0; a < 4; a++)
    for (size_t h = 0; h < 4; h++)
      for (int use = 0; use < 2; use++) {
        cl_mem_flags flags = access[a] | host[h] | (use ? CL_MEM_USE_HOST_PTR : 0);
        cl_mem mem = aim_import_ok(env->context, flags, NULL, memory + 3, 77);
        /* CL_MEM_USE_HOST_PTR is ignored: not reported, no host pointer. */
        expect_import_info(mem, env->context, access[a] | host[h], 77);
        assert_cl_success(clReleaseMemObject(mem));
      }
  free(memory);
}

static void test_flags_refused(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_flags refused[] = {
      CL_MEM_COPY_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
      CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
      CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
      CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_SVM_FINE_GRAIN_BUFFER,
      CL_MEM_SVM_ATOMICS,
      CL_MEM_KERNEL_READ_AND_WRITE,
      CL_MEM_READ_WRITE | ((cl_mem_flags)1 << 20),
      (cl_mem_flags)1 << 40,
      ~(cl_mem_flags)0,
  };
  unsigned char *memory = malloc(64);
  memset(memory, 7, 64);
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "flags 0x%llx", (unsigned long long)refused[i]);
    aim_expect_error(CL_INVALID_VALUE, env->context, refused[i], NULL, memory, 64, what);
  }
  for (size_t i = 0; i < 64; i++) assert_int_equal(7, memory[i]);
  free(memory);
}

static void test_properties_refused(void **state) {
  struct kiln_test_env *env = *state;
  const cl_import_properties_arm lists[][7] = {
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_ANDROID_HARDWARE_BUFFER_ARM, 0},
      {CL_IMPORT_TYPE_ARM, 0, 0},
      {CL_IMPORT_TYPE_ARM, 0x1234, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_ARM, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_PROTECTED_ARM, 0},
      {CL_IMPORT_TYPE_PROTECTED_ARM, CL_FALSE, 0},
      {CL_IMPORT_TYPE_PROTECTED_ARM, CL_TRUE, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, CL_IMPORT_TYPE_PROTECTED_ARM, CL_FALSE, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_DMA_BUF_ARM, CL_IMPORT_TYPE_PROTECTED_ARM, CL_TRUE, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, 0},
      {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_HOST_ARM, 0x1234, 1, 0},
      {0x1234, 0, 0},
      {CL_IMPORT_DMA_BUF_DATA_CONSISTENCY_WITH_HOST_ARM, CL_TRUE, 0},
      {CL_IMPORT_ANDROID_HARDWARE_BUFFER_PLANE_INDEX_ARM, 0, 0},
      {CL_IMPORT_ANDROID_HARDWARE_BUFFER_LAYER_INDEX_ARM, 0, 0},
      {CL_MEM_SIZE, 64, 0},
  };
  unsigned char *memory = malloc(64);
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "property list %zu {0x%llx, 0x%llx, ...}", i, (unsigned long long)lists[i][0],
             (unsigned long long)lists[i][1]);
    aim_expect_error(CL_INVALID_PROPERTY, env->context, CL_MEM_READ_WRITE, lists[i], memory, 64, what);
  }
  free(memory);
}

static void test_invalid_context(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *memory = malloc(64);
  cl_context released = kiln_test_context(env->device);
  assert_cl_success(clReleaseContext(released));
  cl_mem buffer = kiln_test_buffer(env->context, 64);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  const cl_context bad[] = {NULL, (cl_context)&fake, released, (cl_context)env->queue, (cl_context)buffer,
                            (cl_context)env->device};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    aim_expect_error(CL_INVALID_CONTEXT, bad[i], CL_MEM_READ_WRITE, NULL, memory, 64, "invalid context");
  assert_cl_success(clReleaseMemObject(buffer));
  free(memory);
}

/* Kiln's order: context, flags, properties, memory NULL, size, then the pages. */
static void test_error_order(void **state) {
  struct kiln_test_env *env = *state;
  const cl_import_properties_arm bad_props[] = {0x1234, 0, 0};
  const cl_mem_flags bad_flags = CL_MEM_COPY_HOST_PTR;
  void *unmapped = (void *)(uintptr_t)aim_page(); /* below mmap_min_addr: never mapped */
  aim_expect_error(CL_INVALID_CONTEXT, NULL, bad_flags, bad_props, NULL, 0, "everything wrong");
  aim_expect_error(CL_INVALID_VALUE, env->context, bad_flags, bad_props, NULL, 0, "flags, properties, memory, size");
  aim_expect_error(CL_INVALID_PROPERTY, env->context, CL_MEM_READ_WRITE, bad_props, NULL, 0,
                   "properties, memory, size");
  aim_expect_error(CL_INVALID_VALUE, env->context, CL_MEM_READ_WRITE, NULL, NULL, 0, "memory NULL and size 0");
  aim_expect_error(CL_INVALID_VALUE, env->context, CL_MEM_READ_WRITE, NULL, NULL, 64, "memory NULL");
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, unmapped, 0,
                   "size 0 on unmapped memory");
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, unmapped, SIZE_MAX,
                   "size SIZE_MAX on unmapped memory");
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, unmapped, 64, "unmapped memory");
  aim_expect_error(CL_INVALID_VALUE, env->context, bad_flags, NULL, unmapped, 64, "bad flags on unmapped memory");
  aim_expect_error(CL_INVALID_PROPERTY, env->context, CL_MEM_READ_WRITE, bad_props, unmapped, 64,
                   "bad properties on unmapped memory");
}

/* ---- sizes ---- */

static void test_buffer_sizes(void **state) {
  struct kiln_test_env *env = *state;
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  assert_true(max_alloc > 0 && max_alloc < ((cl_ulong)1 << 46));
  size_t page = aim_page();
  /* A reservation a page larger than the limit: mapped (PROT_NONE) but never committed. */
  size_t length = (size_t)max_alloc + page;
  void *reserved = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) fail_msg("could not reserve %zu bytes of address space", length);
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, reserved, 0, "size 0");
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, reserved, (size_t)max_alloc + 1,
                   "size CL_DEVICE_MAX_MEM_ALLOC_SIZE + 1");
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, reserved,
                   CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM, "CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM (host import)");
  cl_mem whole = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, reserved, (size_t)max_alloc);
  expect_import_info(whole, env->context, CL_MEM_READ_WRITE, (size_t)max_alloc);
  assert_cl_success(clReleaseMemObject(whole));
  cl_mem one = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, (char *)reserved + length - 1, 1);
  assert_cl_success(clReleaseMemObject(one));
  assert_int_equal(0, munmap(reserved, length));

  /* Ranges wrapping past the top of the address space. */
  void *top = (void *)(UINTPTR_MAX - page + 1);
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, top, 2 * page, "wrapping range");
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, NULL, (void *)UINTPTR_MAX, 2,
                   "wrapping by one byte");
}

/* ---- mapped pages ---- */

static void test_unmapped_pages(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *p = aim_map_pages(5);
  aim_unmap_pages(p + 2 * page, 1); /* page 2 is a hole; 4 is the last mapped page */
  aim_unmap_pages(p + 4 * page, 1);
  const struct {
    size_t offset, size;
    bool ok;
  } cases[] = {
      {0, 2 * page, true},              /* untouched pages: mapped, not resident */
      {100, 2 * page - 100, true},      /* ends at the hole */
      {0, 2 * page + 1, false},         /* one byte into the hole */
      {0, 4 * page, false},             /* across the hole */
      {2 * page, page, false},          /* the hole itself */
      {2 * page + 100, 10, false},      /* inside the hole */
      {2 * page - 1, 2, false},         /* straddling into it */
      {3 * page, page, true},           /* after it */
      {3 * page + 5, page - 5, true},   /* to the end of the mapping */
      {3 * page + 5, page - 4, false},  /* one byte past the end */
      {page + 7, 3 * page, false},      /* from before the hole to past it */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].ok) {
      cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + cases[i].offset, cases[i].size);
      assert_cl_success(clReleaseMemObject(mem));
    } else {
      char what[80];
      snprintf(what, sizeof what, "range at page offset %zu of %zu bytes over an unmapped page", cases[i].offset,
               cases[i].size);
      aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + cases[i].offset,
                       cases[i].size, what);
    }
  }
  aim_unmap_pages(p, 2);
  aim_unmap_pages(p + 3 * page, 1);
}

/* ---- unaligned imports sharing pages ---- */

static void test_unaligned_imports_share_no_page(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *p = aim_map_pages(4);
  cl_context ctx = env->context;
  cl_mem a = aim_import_ok(ctx, CL_MEM_READ_WRITE, NULL, p + 64, 64); /* unaligned, in page 0 */
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p + 256, 256, "unaligned, same page");
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p + 64, 64, "the same range again");
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_ONLY, NULL, p + 64, 64, "the same range, other flags");
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p, page, "aligned page holding an unaligned");
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p, 2 * page, "aligned pages holding one");
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p + 3000, page, "unaligned spanning pages");
  cl_mem b = aim_import_ok(ctx, CL_MEM_READ_WRITE, NULL, p + page, page);          /* the next page, aligned */
  cl_mem c = aim_import_ok(ctx, CL_MEM_READ_WRITE, NULL, p + 2 * page + 8, 8);     /* unaligned, page 2 */
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p + page + 100, 10, "unaligned in b's page");
  /* Another context claims pages of its own. */
  cl_context ctx2 = kiln_test_context(env->device);
  cl_mem d = aim_import_ok(ctx2, CL_MEM_READ_WRITE, NULL, p + 256, 256);
  cl_mem e = aim_import_ok(ctx2, CL_MEM_READ_WRITE, NULL, p + 2 * page + 100, 100);
  /* Released: the page is free again. */
  assert_cl_success(clReleaseMemObject(a));
  cl_mem f = aim_import_ok(ctx, CL_MEM_READ_WRITE, NULL, p + 256, 256);
  aim_expect_error(CL_INVALID_OPERATION, ctx, CL_MEM_READ_WRITE, NULL, p + 64, 64, "a's range, now f's page");
  assert_cl_success(clReleaseMemObject(f));
  cl_mem g = aim_import_ok(ctx, CL_MEM_READ_WRITE, NULL, p, page);
  cl_mem mems[] = {b, c, d, e, g};
  for (size_t i = 0; i < 5; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  assert_cl_success(clReleaseContext(ctx2));
  aim_unmap_pages(p, 4);
}

static void test_aligned_imports_may_overlap(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *p = aim_map_pages(4);
  cl_mem a = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p, 2 * page);
  cl_mem b = aim_import_ok(env->context, CL_MEM_READ_ONLY, NULL, p + page, 2 * page);
  cl_mem c = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p, 2 * page);
  cl_mem d = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 2 * page, 2 * page); /* adjacent to a */
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 5, 10, "unaligned in a's page");
  /* Aligned start, unaligned end: its last page is claimed. */
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseMemObject(d));
  cl_mem e = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 2 * page, page + 100);
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 3 * page + 200, 100,
                   "unaligned, in the page e ends in");
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 3 * page, page,
                   "aligned, the page e ends in");
  cl_mem f = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + page, page); /* before e, no shared page */
  cl_mem mems[] = {a, c, e, f};
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  /* Everything released: an unaligned import anywhere succeeds. */
  cl_mem g = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 10, 4 * page - 20);
  assert_cl_success(clReleaseMemObject(g));
  aim_unmap_pages(p, 4);
}

/* A refused import claims nothing. */
static void test_failed_import_claims_nothing(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *p = aim_map_pages(2);
  aim_unmap_pages(p + page, 1);
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 100, page, "into the hole");
  aim_expect_error(CL_INVALID_VALUE, env->context, CL_MEM_COPY_HOST_PTR, NULL, p + 100, 100, "bad flags");
  const cl_import_properties_arm bad[] = {CL_IMPORT_TYPE_PROTECTED_ARM, CL_FALSE, 0};
  aim_expect_error(CL_INVALID_PROPERTY, env->context, CL_MEM_READ_WRITE, bad, p + 100, 100, "bad properties");
  cl_mem a = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 100, 100);
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 300, 100, "conflict");
  assert_cl_success(clReleaseMemObject(a));
  cl_mem b = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 300, 100);
  assert_cl_success(clReleaseMemObject(b));
  aim_unmap_pages(p, 1);
}

/* The claim lives as long as the buffer: a sub-buffer keeps its parent. */
static void test_sub_buffer_keeps_claim(void **state) {
  struct kiln_test_env *env = *state;
  size_t align = kiln_test_base_align(env->device), page = aim_page();
  unsigned char *p = aim_map_pages(1);
  cl_mem parent = aim_import_ok(env->context, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, NULL, p + 16, 2 * align + 64);
  atomic_int destroyed;
  aim_watch_destroyed(parent, &destroyed);
  cl_buffer_region region = {align, 64};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  void *host_ptr = (void *)1;
  size_t offset = 0, size = 0;
  cl_mem assoc = NULL;
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
  assert_null(host_ptr);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(align, offset);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL));
  assert_int_equal(64, size);
  assert_cl_success(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  assert_ptr_equal(parent, assoc);
  assert_int_equal(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, aim_flags(sub));
  /* Host-pointer flags cannot be asked of a sub-buffer. */
  assert_null(clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  assert_int_equal(CL_INVALID_VALUE, err);

  assert_cl_success(clReleaseMemObject(parent));
  assert_int_equal(0, atomic_load(&destroyed));
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + page - 64, 8,
                   "page of an import still held by its sub-buffer");
  assert_cl_success(clReleaseMemObject(sub));
  aim_wait_destroyed(&destroyed, "imported parent after its sub-buffer's release");
  cl_mem again = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + page - 64, 8);
  assert_cl_success(clReleaseMemObject(again));
  aim_unmap_pages(p, 1);
}

/* ---- concurrent claims ---- */

#define RACERS 8

struct racer {
  cl_context context;
  unsigned char *memory;
  size_t size;
  pthread_barrier_t *start;
  cl_mem mem;
  cl_int err;
};

static void *race_import(void *data) {
  struct racer *r = data;
  pthread_barrier_wait(r->start);
  r->mem = aim_import(r->context, CL_MEM_READ_WRITE, NULL, r->memory, r->size, &r->err);
  return NULL;
}

static void test_concurrent_claims(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *p = aim_map_pages(RACERS);
  for (int round = 0; round < 40; round++) {
    bool same_page = round % 2 == 0;
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, RACERS);
    struct racer racers[RACERS];
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
      racers[i] = (struct racer){env->context, same_page ? p + 64 * i + 1 : p + page * i + 1, 32, &start, NULL, 0};
      assert_int_equal(0, pthread_create(&threads[i], NULL, race_import, &racers[i]));
    }
    int successes = 0;
    for (int i = 0; i < RACERS; i++) assert_int_equal(0, pthread_join(threads[i], NULL));
    pthread_barrier_destroy(&start);
    for (int i = 0; i < RACERS; i++) {
      if (racers[i].mem) {
        assert_int_equal(CL_SUCCESS, racers[i].err);
        successes++;
        assert_cl_success(clReleaseMemObject(racers[i].mem));
      } else {
        assert_int_equal(CL_INVALID_OPERATION, racers[i].err);
      }
    }
    if (successes != (same_page ? 1 : RACERS))
      fail_msg("round %d: %d of %d concurrent unaligned imports %s succeeded, expected %d", round, successes, RACERS,
               same_page ? "of one page" : "of distinct pages", same_page ? 1 : RACERS);
  }
  aim_unmap_pages(p, RACERS);
}

/* ---- the application's memory ---- */

static void test_release_keeps_memory(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  enum { N = 5000 };
  unsigned char *heap = malloc(N);
  for (size_t i = 0; i < N; i++) heap[i] = (unsigned char)(i * 7);
  unsigned char *pages = aim_map_pages(3);
  for (size_t i = 0; i < 3 * page; i++) pages[i] = (unsigned char)(i * 13);
  cl_mem a = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, heap, N);
  assert_cl_success(clReleaseMemObject(a));
  cl_mem b = aim_import_ok(env->context, CL_MEM_WRITE_ONLY, NULL, heap + 1, N - 1);
  cl_mem c = aim_import_ok(env->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, NULL, pages, 3 * page);
  cl_mem d = aim_import_ok(env->context, CL_MEM_READ_ONLY, NULL, pages + page, page);
  cl_mem mems[] = {b, c, d};
  for (size_t i = 0; i < 3; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  for (size_t i = 0; i < N; i++) assert_int_equal((unsigned char)(i * 7), heap[i]);
  /* Still mapped (mincore fails with ENOMEM on unmapped pages), contents unchanged. */
  unsigned char residency[3];
  assert_int_equal(0, mincore(pages, 3 * page, residency));
  for (size_t i = 0; i < 3 * page; i++) assert_int_equal((unsigned char)(i * 13), pages[i]);
  heap[0] = 1; /* still the application's to write */
  pages[0] = 1;
  free(heap); /* glibc (or ASan) aborts on a double free */
  aim_unmap_pages(pages, 3);
}

struct destructor_log {
  int calls[4];
  int count;
  unsigned char *memory;
  size_t size;
  int intact;
};

static void CL_CALLBACK log_first(cl_mem mem, void *data) {
  (void)mem;
  struct destructor_log *log = data;
  log->calls[log->count++] = 1;
}

/* Registered last, runs first: checks the memory and frees it, as an owner may. */
static void CL_CALLBACK log_second_and_free(cl_mem mem, void *data) {
  (void)mem;
  struct destructor_log *log = data;
  log->calls[log->count++] = 2;
  log->intact = 1;
  for (size_t i = 0; i < log->size; i++)
    if (log->memory[i] != (unsigned char)i) log->intact = 0;
  free(log->memory);
}

static void test_destructor_callbacks(void **state) {
  struct kiln_test_env *env = *state;
  struct destructor_log log = {.memory = malloc(300), .size = 300};
  for (size_t i = 0; i < log.size; i++) log.memory[i] = (unsigned char)i;
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, log.memory, log.size);
  assert_cl_success(clSetMemObjectDestructorCallback(mem, log_first, &log));
  assert_cl_success(clSetMemObjectDestructorCallback(mem, log_second_and_free, &log));
  assert_int_equal(CL_INVALID_VALUE, clSetMemObjectDestructorCallback(mem, NULL, &log));
  assert_cl_success(clRetainMemObject(mem));
  assert_cl_success(clReleaseMemObject(mem));
  assert_int_equal(0, log.count);
  assert_cl_success(clReleaseMemObject(mem));
  assert_int_equal(2, log.count);
  assert_int_equal(2, log.calls[0]);
  assert_int_equal(1, log.calls[1]);
  assert_int_equal(1, log.intact);
}

/* ---- dma-buf ---- */

/* A dma-buf of `size` bytes opened with `access` (O_RDWR / O_RDONLY), or -1 when the
 * system cannot make one: udmabuf (read-write only) or the system dma-heap. */
static int make_dma_buf(size_t size, int access, int *memfd_out) {
  *memfd_out = -1;
  int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
  if (heap >= 0) {
    struct dma_heap_allocation_data data = {.len = size, .fd_flags = (unsigned)(access | O_CLOEXEC)};
    int rc = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
    close(heap);
    if (rc == 0) return (int)data.fd;
  }
  if (access != O_RDWR) return -1;
  int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
  if (dev < 0) return -1;
  int memfd = memfd_create("kiln-arm-import", MFD_ALLOW_SEALING);
  if (memfd < 0 || ftruncate(memfd, (off_t)size) != 0 || fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
    if (memfd >= 0) close(memfd);
    close(dev);
    return -1;
  }
  struct udmabuf_create create = {.memfd = (unsigned)memfd, .flags = UDMABUF_FLAGS_CLOEXEC, .offset = 0, .size = size};
  int fd = ioctl(dev, UDMABUF_CREATE, &create);
  close(dev);
  if (fd < 0) {
    close(memfd);
    return -1;
  }
  *memfd_out = memfd;
  return fd;
}

static void test_dma_buf(void **state) {
  struct kiln_test_env *env = *state;
  const cl_import_properties_arm dma[] = {CL_IMPORT_TYPE_ARM, CL_IMPORT_TYPE_DMA_BUF_ARM, 0};
  size_t page = aim_page(), size = 4 * page;
  int memfd = -1;
  if (!aim_system_has_dma_buf()) {
    print_message("dma-buf import tests could not run on this machine: neither /dev/udmabuf nor /dev/dma_heap "
                  "exists; checking that CL_IMPORT_TYPE_DMA_BUF_ARM is refused instead\n");
    int fd = memfd_create("kiln-arm-import", 0);
    assert_true(fd >= 0);
    assert_int_equal(0, ftruncate(fd, (off_t)size));
    aim_expect_error(CL_INVALID_PROPERTY, env->context, CL_MEM_READ_WRITE, dma, &fd, size,
                     "dma-buf type without dma-buf support");
    close(fd);
    return;
  }
  /* Descriptors that are not dma-bufs, including files whose names merely say so. */
  int not_dma[] = {memfd_create("kiln-not-dma-buf", 0), memfd_create("dmabuf", 0),
                   memfd_create("anon_inode:dmabuf", 0)};
  for (size_t i = 0; i < 3; i++) {
    assert_true(not_dma[i] >= 0);
    assert_int_equal(0, ftruncate(not_dma[i], (off_t)size));
    aim_expect_error(CL_INVALID_VALUE, env->context, CL_MEM_READ_WRITE, dma, &not_dma[i], page,
                     i ? "a memfd named like a dma-buf" : "a memfd, not a dma-buf");
    close(not_dma[i]);
  }
  int bad_fd = -1;
  aim_expect_error(CL_INVALID_VALUE, env->context, CL_MEM_READ_WRITE, dma, &bad_fd, page, "fd -1");

  int fd = make_dma_buf(size, O_RDWR, &memfd);
  if (fd < 0) {
    print_message("dma-buf import tests could not run: the system reports dma-buf exporters but no dma-buf "
                  "could be made here (errno %d)\n",
                  errno);
    return;
  }
  unsigned char *view = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  assert_true(view != MAP_FAILED);
  for (size_t i = 0; i < size; i++) view[i] = (unsigned char)(i * 3);
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, dma, &fd, size);
  assert_int_equal(CL_MEM_READ_WRITE, aim_flags(mem));
  size_t got = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof got, &got, NULL));
  assert_int_equal(size, got);
  assert_cl_success(clReleaseMemObject(mem));
  /* A kernel's writes land in the dma-buf (seen through the test's own mapping). */
  mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, dma, &fd, size);
  const char *source = "kernel void inc(global uchar *p) { p[get_global_id(0)] += 1; }";
  cl_program program = kiln_test_program(env->context, env->device, source, NULL);
  cl_kernel inc = kiln_test_kernel(program, "inc");
  kiln_test_arg_mem(inc, 0, mem);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, inc, 1, NULL, &size, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (size_t i = 0; i < size; i++) assert_int_equal((unsigned char)(i * 3 + 1), view[i]);
  for (size_t i = 0; i < size; i++) view[i] = (unsigned char)(i * 3);
  assert_cl_success(clReleaseKernel(inc));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseMemObject(mem));
  mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, dma, &fd, size - page); /* smaller: fine */
  assert_cl_success(clReleaseMemObject(mem));
  for (size_t i = 0; i < size; i++) assert_int_equal((unsigned char)(i * 3), view[i]);
  aim_expect_error(CL_INVALID_BUFFER_SIZE, env->context, CL_MEM_READ_WRITE, dma, &fd, size + 1,
                   "larger than the dma-buf");
  munmap(view, size);
  close(fd);
  if (memfd >= 0) close(memfd);

  int ro = make_dma_buf(size, O_RDONLY, &memfd);
  if (ro < 0) {
    print_message("read-only dma-buf import could not be tested: no read-only dma-buf could be made (udmabuf "
                  "only makes read-write ones)\n");
    return;
  }
  mem = aim_import_ok(env->context, CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, dma, &ro, size);
  assert_int_equal(CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, aim_flags(mem));
  assert_cl_success(clReleaseMemObject(mem));
  close(ro);
  if (memfd >= 0) close(memfd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extensions_reported),
      cmocka_unit_test(test_function_address),
      cmocka_unit_test(test_host_import_properties_accepted),
      cmocka_unit_test(test_flags_accepted),
      cmocka_unit_test(test_flags_refused),
      cmocka_unit_test(test_properties_refused),
      cmocka_unit_test(test_invalid_context),
      cmocka_unit_test(test_error_order),
      cmocka_unit_test(test_buffer_sizes),
      cmocka_unit_test(test_unmapped_pages),
      cmocka_unit_test(test_unaligned_imports_share_no_page),
      cmocka_unit_test(test_aligned_imports_may_overlap),
      cmocka_unit_test(test_failed_import_claims_nothing),
      cmocka_unit_test(test_sub_buffer_keeps_claim),
      cmocka_unit_test(test_concurrent_claims),
      cmocka_unit_test(test_release_keeps_memory),
      cmocka_unit_test(test_destructor_callbacks),
      cmocka_unit_test(test_dma_buf),
  };
  return cmocka_run_group_tests(tests, aim_setup, kiln_test_env_teardown);
}
