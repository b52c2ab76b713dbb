/* arm_import_test.h: what the cl_arm_import_memory suites share. The ICD loader does not
 * export clImportMemoryARM, so the suites call it through `aim_import`, taken from
 * clGetExtensionFunctionAddressForPlatform by aim_setup; the call then goes straight to
 * Kiln, so NULL, foreign and released context handles can be passed to it. Plus helpers
 * for imports that must succeed or fail, page-granular memory, and destruction flags.
 *
 * A suite that also uses cl_khr_command_buffer includes khr_command_buffer_test.h first. */
#ifndef ARM_IMPORT_TEST_H
#define ARM_IMPORT_TEST_H

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <CL/cl_ext.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef __typeof__(&clImportMemoryARM) aim_import_fn;
static aim_import_fn aim_import;

static inline void aim_load(cl_platform_id platform) {
  aim_import = (aim_import_fn)kiln_test_extension_function(platform, "clImportMemoryARM");
}

/* Group fixture: kiln_test_env (context and in-order queue) plus clImportMemoryARM. */
static inline int aim_setup(void **state) {
  kiln_test_env_setup(state);
  aim_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

static inline size_t aim_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Whether the system offers dma-buf exporters (Kiln's condition for the dma-buf type). */
static inline bool aim_system_has_dma_buf(void) {
  struct stat st;
  return stat("/dev/udmabuf", &st) == 0 || stat("/dev/dma_heap", &st) == 0;
}

/* An import that must succeed: a buffer, errcode CL_SUCCESS. */
static inline cl_mem aim_import_ok(cl_context context, cl_mem_flags flags, const cl_import_properties_arm *properties,
                                   void *memory, size_t size) {
  cl_int err = 12345;
  cl_mem mem = aim_import(context, flags, properties, memory, size, &err);
  if (err != CL_SUCCESS || !mem)
    fail_msg("clImportMemoryARM(flags 0x%llx, memory %p, size %zu) returned %p with error %d, expected a buffer",
             (unsigned long long)flags, memory, size, (void *)mem, err);
  return mem;
}

/* An import that must fail with `want` and return NULL. */
static inline void aim_expect_error(cl_int want, cl_context context, cl_mem_flags flags,
                                    const cl_import_properties_arm *properties, void *memory, size_t size,
                                    const char *what) {
  cl_int err = 12345;
  cl_mem mem = aim_import(context, flags, properties, memory, size, &err);
  if (mem) clReleaseMemObject(mem);
  if (mem || err != want)
    fail_msg("%s: clImportMemoryARM(flags 0x%llx, memory %p, size %zu) returned %p with error %d, expected NULL "
             "and %d",
             what, (unsigned long long)flags, memory, size, (void *)mem, err, want);
  /* errcode_ret NULL: the same refusal, no crash. */
  mem = aim_import(context, flags, properties, memory, size, NULL);
  if (mem) {
    clReleaseMemObject(mem);
    fail_msg("%s: with errcode_ret NULL the import succeeded", what);
  }
}

/* `count` fresh anonymous read-write pages (never touched). */
static inline unsigned char *aim_map_pages(size_t count) {
  void *p = mmap(NULL, count * aim_page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail_msg("mmap of %zu pages failed", count);
  return p;
}

static inline void aim_unmap_pages(void *p, size_t count) { assert_int_equal(0, munmap(p, count * aim_page())); }

static inline cl_mem_flags aim_flags(cl_mem mem) {
  cl_mem_flags flags = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  return flags;
}

/* A destructor callback that counts its calls in an atomic_int. */
static inline void CL_CALLBACK aim_count_destroyed(cl_mem mem, void *data) {
  (void)mem;
  atomic_fetch_add((atomic_int *)data, 1);
}

static inline void aim_watch_destroyed(cl_mem mem, atomic_int *flag) {
  atomic_store(flag, 0);
  assert_cl_success(clSetMemObjectDestructorCallback(mem, aim_count_destroyed, flag));
}

/* Waits (at most 10 s) until the object watched with `flag` has been destroyed. */
static inline void aim_wait_destroyed(atomic_int *flag, const char *what) {
  for (int i = 0; i < 10000 && atomic_load(flag) == 0; i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
  if (atomic_load(flag) != 1)
    fail_msg("%s: destructor callback called %d times, expected once", what, atomic_load(flag));
}

/* The bytes at p..p+count all equal `value`. */
static inline void aim_expect_bytes(const unsigned char *p, size_t count, unsigned char value, const char *what) {
  for (size_t i = 0; i < count; i++)
    if (p[i] != value) fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i], value);
}

/* A call the extension forbids on imported memory: CL_INVALID_OPERATION and no event. */
static inline void aim_expect_refused(cl_int err, cl_event event, const char *call, const char *target) {
  if (err != CL_INVALID_OPERATION)
    fail_msg("%s on %s returned %d, expected CL_INVALID_OPERATION", call, target, err);
  if (event) fail_msg("%s on %s returned an event although it failed", call, target);
}

#endif
