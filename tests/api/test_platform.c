/* Platform entry points through the ICD loader: clGetPlatformIDs, clGetPlatformInfo,
 * clIcdGetPlatformIDsKHR, extension-function lookup, timers, compiler unloading.
 * Where the loader answers an error itself (NULL handles), Kiln's own entry point is also
 * called through its dispatch table, read from a live handle, as the loader would. */
#include "kiln_test.h"

#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <string.h>
#include <time.h>

static cl_ulong monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}

static void test_platform_ids(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  cl_uint n = 0;
  cl_platform_id got = NULL;
  /* Kiln's own clGetPlatformIDs (what an application linking libkiln.so calls). */
  assert_cl_success(d->clGetPlatformIDs(0, NULL, &n));
  assert_int_equal(n, 1);
  n = 7;
  assert_cl_success(d->clGetPlatformIDs(4, &got, &n));
  assert_ptr_equal(got, platform);
  assert_int_equal(n, 1);
  assert_int_equal(d->clGetPlatformIDs(0, &got, NULL), CL_INVALID_VALUE);
  assert_int_equal(d->clGetPlatformIDs(1, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(d->clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
  /* Through the loader. */
  assert_int_equal(clGetPlatformIDs(0, &got, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
}

static void test_icd_get_platform_ids(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  clIcdGetPlatformIDsKHR_fn icd_get =
      (clIcdGetPlatformIDsKHR_fn)kiln_test_dispatch_of(platform)->clGetExtensionFunctionAddressForPlatform(
          platform, "clIcdGetPlatformIDsKHR");
  assert_non_null(icd_get);
  cl_uint n = 0;
  assert_cl_success(icd_get(0, NULL, &n));
  assert_int_equal(n, 1);
  cl_platform_id got[2] = {NULL, NULL};
  assert_cl_success(icd_get(2, got, NULL));
  assert_ptr_equal(got[0], platform);
  assert_null(got[1]);
  assert_int_equal(icd_get(0, got, NULL), CL_INVALID_VALUE);
  assert_int_equal(icd_get(0, NULL, NULL), CL_INVALID_VALUE);
}

static void check_string(cl_platform_id platform, cl_platform_info param, char *out, size_t out_size) {
  size_t size = 0;
  assert_cl_success(clGetPlatformInfo(platform, param, 0, NULL, &size));
  assert_true(size >= 1 && size <= out_size);
  memset(out, 'x', out_size);
  size_t size2 = 0;
  assert_cl_success(clGetPlatformInfo(platform, param, size, out, &size2));
  assert_int_equal(size, size2);
  assert_int_equal(out[size - 1], '\0');
  assert_int_equal(strlen(out) + 1, size);
  if (size > 1) assert_int_equal(clGetPlatformInfo(platform, param, size - 1, out, NULL), CL_INVALID_VALUE);
}

static void test_platform_strings(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  char s[1024];
  check_string(platform, CL_PLATFORM_NAME, s, sizeof s);
  assert_string_equal(s, "Kiln");
  check_string(platform, CL_PLATFORM_VENDOR, s, sizeof s);
  assert_string_equal(s, "Kiln project");
  check_string(platform, CL_PLATFORM_PROFILE, s, sizeof s);
  assert_string_equal(s, "FULL_PROFILE");
  check_string(platform, CL_PLATFORM_VERSION, s, sizeof s);
  assert_int_equal(strncmp(s, "OpenCL 3.0 Kiln ", 16), 0);
  assert_true(strlen(s) > 16);
  check_string(platform, CL_PLATFORM_ICD_SUFFIX_KHR, s, sizeof s);
  assert_string_equal(s, "KILN");
  check_string(platform, CL_PLATFORM_EXTENSIONS, s, sizeof s);
  assert_string_equal(s, "cl_khr_icd cl_khr_extended_versioning");
}

static void test_platform_versions(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_version version = 0;
  size_t size = 0;
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_NUMERIC_VERSION, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_version));
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_NUMERIC_VERSION, sizeof version, &version, NULL));
  assert_int_equal(CL_VERSION_MAJOR(version), 3);
  assert_int_equal(CL_VERSION_MINOR(version), 0);
  assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_NUMERIC_VERSION, sizeof version - 1, &version, NULL),
                   CL_INVALID_VALUE);

  cl_ulong resolution = 0;
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_ulong));
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, size, &resolution, NULL));
  assert_true(resolution >= 1);
}

/* The versioned extension array names exactly the extensions of the string, each once. */
static void test_platform_extensions_with_version(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  char extensions[1024];
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof extensions, extensions, NULL));
  size_t size = 0;
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, NULL, &size));
  assert_int_equal(size % sizeof(cl_name_version), 0);
  cl_name_version list[16];
  assert_true(size <= sizeof list);
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, size, list, NULL));
  size_t count = size / sizeof list[0];
  size_t words = 0;
  for (char *w = strtok(extensions, " "); w; w = strtok(NULL, " ")) {
    words++;
    size_t found = 0;
    for (size_t i = 0; i < count; i++)
      if (strcmp(list[i].name, w) == 0) {
        found++;
        assert_int_equal(list[i].version, CL_MAKE_VERSION(1, 0, 0)); /* cl.xml: both are 1.0.0 */
      }
    assert_int_equal(found, 1);
  }
  assert_int_equal(words, count);
  if (size) assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS_WITH_VERSION, size - 1, list, NULL),
                             CL_INVALID_VALUE);
}

static void test_platform_info_errors(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  char s[64];
  size_t size;
  /* Queries of extensions Kiln does not advertise, and nonsense. */
  assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, sizeof s, s, &size),
                   CL_INVALID_VALUE);
  assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_SEMAPHORE_TYPES_KHR, sizeof s, s, &size), CL_INVALID_VALUE);
  assert_int_equal(clGetPlatformInfo(platform, 0x7fff, sizeof s, s, &size), CL_INVALID_VALUE);
  assert_int_equal(clGetPlatformInfo(platform, CL_DEVICE_NAME, sizeof s, s, &size), CL_INVALID_VALUE);
  /* A NULL platform is Kiln's (implementation-defined; both the loader and Kiln agree). */
  assert_cl_success(d->clGetPlatformInfo(NULL, CL_PLATFORM_NAME, sizeof s, s, NULL));
  assert_string_equal(s, "Kiln");
  /* Handles that are not platforms. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(platform);
  assert_int_equal(d->clGetPlatformInfo((cl_platform_id)&fake, CL_PLATFORM_NAME, sizeof s, s, NULL),
                   CL_INVALID_PLATFORM);
  cl_device_id device = kiln_test_device();
  assert_int_equal(d->clGetPlatformInfo((cl_platform_id)device, CL_PLATFORM_NAME, sizeof s, s, NULL),
                   CL_INVALID_PLATFORM);
}

static void test_extension_function_address(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  /* Kiln's own table. */
  void *icd = d->clGetExtensionFunctionAddressForPlatform(platform, "clIcdGetPlatformIDsKHR");
  assert_non_null(icd);
  assert_ptr_equal(d->clGetExtensionFunctionAddress("clIcdGetPlatformIDsKHR"), icd);
  assert_null(d->clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionKILN"));
  assert_null(d->clGetExtensionFunctionAddressForPlatform(platform, "clIcdGetPlatformIDsKHRx"));
  assert_null(d->clGetExtensionFunctionAddressForPlatform(platform, ""));
  assert_null(d->clGetExtensionFunctionAddressForPlatform(platform, NULL));
  assert_null(d->clGetExtensionFunctionAddress("clNoSuchFunctionKILN"));
  /* Core functions are not extension functions. */
  assert_null(d->clGetExtensionFunctionAddressForPlatform(platform, "clGetPlatformIDs"));
  /* An invalid platform yields NULL. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(platform);
  assert_null(d->clGetExtensionFunctionAddressForPlatform((cl_platform_id)&fake, "clIcdGetPlatformIDsKHR"));
  assert_null(d->clGetExtensionFunctionAddressForPlatform(NULL, "clIcdGetPlatformIDsKHR"));
  /* Through the loader. */
  assert_non_null(clGetExtensionFunctionAddressForPlatform(platform, "clIcdGetPlatformIDsKHR"));
  assert_null(clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionKILN"));
}

static void test_host_timer(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_ulong before = monotonic_ns(), host = 0, previous = 0;
  assert_cl_success(clGetHostTimer(device, &host));
  cl_ulong after = monotonic_ns();
  /* The host timer is CLOCK_MONOTONIC in nanoseconds. */
  assert_true(before <= host && host <= after);
  for (int i = 0; i < 1000; i++) {
    previous = host;
    assert_cl_success(clGetHostTimer(device, &host));
    assert_true(host >= previous);
  }
  assert_int_equal(clGetHostTimer(device, NULL), CL_INVALID_VALUE);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clGetHostTimer((cl_device_id)&fake, &host), CL_INVALID_DEVICE);
  assert_int_equal(kiln_test_dispatch_of(device)->clGetHostTimer(NULL, &host), CL_INVALID_DEVICE);
}

static void test_device_and_host_timer(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_ulong dev = 0, host = 0, prev_dev = 0;
  for (int i = 0; i < 1000; i++) {
    cl_ulong before = monotonic_ns();
    assert_cl_success(clGetDeviceAndHostTimer(device, &dev, &host));
    cl_ulong after = monotonic_ns();
    assert_true(before <= host && host <= after);
    assert_int_equal(dev, host); /* the device clock is the host clock */
    assert_true(dev >= prev_dev);
    prev_dev = dev;
  }
  assert_int_equal(clGetDeviceAndHostTimer(device, NULL, &host), CL_INVALID_VALUE);
  assert_int_equal(clGetDeviceAndHostTimer(device, &dev, NULL), CL_INVALID_VALUE);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clGetDeviceAndHostTimer((cl_device_id)&fake, &dev, &host), CL_INVALID_DEVICE);
  assert_int_equal(kiln_test_dispatch_of(device)->clGetDeviceAndHostTimer(NULL, &dev, &host), CL_INVALID_DEVICE);
}

static void test_unload_compiler(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  assert_cl_success(clUnloadPlatformCompiler(platform));
  assert_cl_success(d->clUnloadCompiler());
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(platform);
  assert_int_equal(d->clUnloadPlatformCompiler((cl_platform_id)&fake), CL_INVALID_PLATFORM);
  assert_int_equal(d->clUnloadPlatformCompiler(NULL), CL_INVALID_PLATFORM);
  /* The platform still works afterwards. */
  char s[16];
  assert_cl_success(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof s, s, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_platform_ids),
      cmocka_unit_test(test_icd_get_platform_ids),
      cmocka_unit_test(test_platform_strings),
      cmocka_unit_test(test_platform_versions),
      cmocka_unit_test(test_platform_extensions_with_version),
      cmocka_unit_test(test_platform_info_errors),
      cmocka_unit_test(test_extension_function_address),
      cmocka_unit_test(test_host_timer),
      cmocka_unit_test(test_device_and_host_timer),
      cmocka_unit_test(test_unload_compiler),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
