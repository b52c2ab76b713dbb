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
/* Fails unless CL_DEVICE_EXTENSIONS lists `name` and CL_DEVICE_EXTENSIONS_WITH_VERSION
 * lists it exactly once, with `version`. */
void kiln_test_expect_extension(cl_device_id device, const char *name, cl_version version);

/* The platform's entry point `name` (clGetExtensionFunctionAddressForPlatform); fails the
 * test when there is none. */
void *kiln_test_extension_function(cl_platform_id platform, const char *name);

/* ---- host-side helpers (no OpenCL call) ---- */

/* A reproducible pseudo-random sequence (xorshift32), so a failure can be replayed. */
cl_uint kiln_test_random(cl_uint *state);
/* `count` values in [-range / 2, range - range / 2) drawn from the sequence at *seed. */
void kiln_test_random_ints(cl_uint *seed, cl_int *out, size_t count, cl_int range);

double kiln_test_now_ms(void); /* a monotonic clock */
void kiln_test_sleep_ms(unsigned ms);

/* Whether every element (`all`), or at least one, of p[0 .. count - 1] is `value`. */
bool kiln_test_ints_are(const volatile cl_int *p, size_t count, cl_int value, bool all);
/* Polls every millisecond, for at most `ms`, until kiln_test_ints_are holds; returns
 * whether it did. Host memory only: no OpenCL call is made. */
bool kiln_test_poll_ints(const volatile cl_int *p, size_t count, cl_int value, bool all, unsigned ms);

/* Zeroed page-aligned host memory of at least `bytes`, for CL_MEM_USE_HOST_PTR buffers. */
void *kiln_test_host_alloc(size_t bytes);

/* A host model of a rectangle copy between byte arrays: region[0] bytes by region[1] rows
 * by region[2] slices, from src at src_origin to dst at dst_origin, with each side's row
 * and slice pitches. */
void kiln_test_rect_copy(unsigned char *dst, const size_t dst_origin[3], size_t dst_row, size_t dst_slice,
                         const unsigned char *src, const size_t src_origin[3], size_t src_row, size_t src_slice,
                         const size_t region[3]);

#endif
