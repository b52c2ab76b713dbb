/* platform.c: the Kiln platform, clGetPlatformIDs / clIcdGetPlatformIDsKHR, clGetPlatformInfo,
 * the host timer and the (no-op) compiler unloading entry points. */
#include "runtime/platform.h"
#include "runtime/debug_err.h"

#include "runtime/clock.h"
#include "runtime/device.h"
#include "runtime/extension.h"
#include "runtime/info.h"

#include <CL/cl_ext.h>
#include <pthread.h>
#include <time.h>

#define KILN_PLATFORM_VERSION "OpenCL 3.0 Kiln " KILN_VERSION_STRING

static struct _cl_platform_id platform_singleton;
static pthread_once_t platform_once = PTHREAD_ONCE_INIT;

/* The platform lives for the whole process: it is registered and never released. */
static void platform_create(void) {
  kiln_object_init(&platform_singleton.obj, KILN_OBJECT_PLATFORM, NULL);
}

cl_platform_id kiln_platform_get(void) {
  pthread_once(&platform_once, platform_create);
  return &platform_singleton;
}

CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                                       cl_uint *num_platforms) {
  KILN_API_CALL;
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(num_entries == 0 && platforms) || (!platforms && !num_platforms)");
  if (platforms) platforms[0] = kiln_platform_get();
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                                 cl_uint *num_platforms) {
  KILN_API_CALL;
  return clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms);
}

/* NULL selects our platform (the spec leaves a NULL platform implementation-defined). */
static bool platform_is_valid_or_null(cl_platform_id platform) {
  return !platform || kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!platform_is_valid_or_null(platform))
    return KILN_FAIL(CL_INVALID_PLATFORM, "rejected since (%s)", "!platform_is_valid_or_null(platform)");
  switch (param_name) {
  case CL_PLATFORM_PROFILE:
    KILN_INFO_STRING("FULL_PROFILE");
  case CL_PLATFORM_VERSION:
    KILN_INFO_STRING(KILN_PLATFORM_VERSION);
  case CL_PLATFORM_NUMERIC_VERSION:
    KILN_INFO_VALUE(cl_version, CL_MAKE_VERSION(3, 0, 0));
  case CL_PLATFORM_NAME:
    KILN_INFO_STRING("Kiln");
  case CL_PLATFORM_VENDOR:
    KILN_INFO_STRING("Kiln project");
  case CL_PLATFORM_EXTENSIONS:
    KILN_INFO_STRING(kiln_extension_string(KILN_EXTENSION_PLATFORM));
  case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
    size_t count;
    const cl_name_version *versions = kiln_extension_versions(KILN_EXTENSION_PLATFORM, &count);
    KILN_INFO_ARRAY(versions, count * sizeof *versions);
  }
  case CL_PLATFORM_HOST_TIMER_RESOLUTION:
    KILN_INFO_VALUE(cl_ulong, 1); /* CLOCK_MONOTONIC counts nanoseconds */
  case CL_PLATFORM_ICD_SUFFIX_KHR:
    KILN_INFO_STRING("KILN");
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetPlatformInfo knows", (unsigned)param_name);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp) {
  KILN_API_CALL;
  if (!kiln_device_is_valid(device)) return KILN_FAIL_HANDLE(CL_INVALID_DEVICE, device, cl_device_id);
  if (!host_timestamp) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!host_timestamp");
  *host_timestamp = kiln_time_now_ns();
  return CL_SUCCESS;
}

/* The device runs on the host, so the device timer is the host timer (one clock read for both). */
CL_API_ENTRY cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                                                        cl_ulong *host_timestamp) {
  KILN_API_CALL;
  if (!kiln_device_is_valid(device)) return KILN_FAIL_HANDLE(CL_INVALID_DEVICE, device, cl_device_id);
  if (!device_timestamp || !host_timestamp)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!device_timestamp || !host_timestamp");
  *host_timestamp = *device_timestamp = kiln_time_now_ns();
  return CL_SUCCESS;
}

/* Nothing to unload: both are hints. */
CL_API_ENTRY cl_int CL_API_CALL clUnloadCompiler(void) {
  KILN_API_CALL;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform) {
  KILN_API_CALL;
  if (!kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM))
    return KILN_FAIL_HANDLE(CL_INVALID_PLATFORM, platform, cl_platform_id);
  return CL_SUCCESS;
}
