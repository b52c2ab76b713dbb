/* tests/ — CMocka suites: unit/ (internal modules), api/ (core API through the ICD
 * loader), ext/ (one suite per extension), bench/ (the benchmark program).
 *
 * kiln_test.h: helpers shared by the loader-based suites. */
#ifndef KILN_TEST_H
#define KILN_TEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <CL/cl.h>
#include <CL/cl_icd.h>

/* The Kiln platform found through the loader by name (fails the test if absent). */
cl_platform_id kiln_test_platform(void);
cl_device_id kiln_test_device(void);

/* A context and an in-order queue on the Kiln device, as a CMocka group/test fixture
 * (state is a struct kiln_test_env *). */
struct kiln_test_env {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
};
int kiln_test_env_setup(void **state);
int kiln_test_env_teardown(void **state);

/* A handle-shaped object: Kiln's dispatch pointer (taken from `real`, any live Kiln
 * handle) followed by garbage, so the loader forwards calls on it to Kiln, which must
 * reject it. */
struct kiln_test_fake_handle {
  const struct _cl_icd_dispatch *dispatch;
  unsigned char garbage[64];
};
struct kiln_test_fake_handle kiln_test_fake_handle_like(const void *real);

/* The dispatch table a handle points to: calling through it reaches Kiln without the
 * loader, for handles the loader itself would not accept (NULL, released). */
const struct _cl_icd_dispatch *kiln_test_dispatch_of(const void *handle);

#define assert_cl_success(expr) assert_int_equal(CL_SUCCESS, (expr))

/* Whether `name` is a whole word of the device's CL_DEVICE_EXTENSIONS. */
bool kiln_test_extension_listed(cl_device_id device, const char *name);
/* How many entries of CL_DEVICE_EXTENSIONS_WITH_VERSION are named `name`; *version gets
 * the version of the last one (untouched when none). */
size_t kiln_test_extension_entries(cl_device_id device, const char *name, cl_version *version);

#endif
