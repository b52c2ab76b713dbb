/* device.c: the single CPU device, clGetDeviceIDs, clCreateSubDevices and device retain/release.
 * clGetDeviceInfo lives in device_info.c. */
#include "runtime/device.h"
#include "runtime/debug_err.h"

#include "device/cpu/topology.h"
#include "runtime/platform.h"

#include <pthread.h>
#include <stdlib.h>

static struct _cl_device_id device_singleton;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;

/* KILN_NUM_WORKERS=n (1 .. core count) lowers the compute units; larger values are clamped
 * to the core count, anything unparsable is ignored. Read once, at device creation. */
static cl_uint device_compute_units(unsigned core_count) {
  const char *env = getenv("KILN_NUM_WORKERS");
  if (!env || !*env) return core_count;
  char *end;
  unsigned long n = strtoul(env, &end, 10);
  if (*end != '\0' || n == 0) return core_count;
  return n < core_count ? (cl_uint)n : core_count;
}

/* The spec's floor for a full-profile device is min(1 GiB, RAM/4); we offer the larger of
 * the two, never more than the RAM itself. */
static cl_ulong device_max_mem_alloc_size(cl_ulong ram) {
  const cl_ulong one_gib = 1ull << 30;
  cl_ulong size = ram / 4 > one_gib ? ram / 4 : one_gib;
  return size < ram ? size : ram;
}

/* The device lives for the whole process: registered once, never destroyed. */
static void device_create(void) {
  const struct kiln_cpu_topology *topology = kiln_cpu_topology_get();
  device_singleton.platform = kiln_platform_get();
  device_singleton.topology = topology;
  device_singleton.compute_units = device_compute_units(topology->core_count);
  device_singleton.global_mem_size = topology->global_mem_bytes;
  device_singleton.max_mem_alloc_size = device_max_mem_alloc_size(topology->global_mem_bytes);
  kiln_object_init(&device_singleton.obj, KILN_OBJECT_DEVICE, NULL);
}

cl_device_id kiln_device_get(void) {
  pthread_once(&device_once, device_create);
  return &device_singleton;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                               cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices) {
  KILN_API_CALL;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  /* NULL selects our platform, as in clGetPlatformInfo. */
  if (platform && !kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM))
    return KILN_FAIL(CL_INVALID_PLATFORM, "rejected since (%s)",
                     "platform && !kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM)");
  if (device_type == 0 || (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~known)))
    return KILN_FAIL(CL_INVALID_DEVICE_TYPE, "rejected since (%s)",
                     "device_type == 0 || (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~known))");
  if ((num_entries == 0 && devices) || (!devices && !num_devices))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(num_entries == 0 && devices) || (!devices && !num_devices)");
  if (!(device_type & (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU))) {
    if (num_devices) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  if (devices) devices[0] = kiln_device_get();
  if (num_devices) *num_devices = 1;
  return CL_SUCCESS;
}

/* Kiln offers no partitioning scheme (CL_DEVICE_PARTITION_PROPERTIES is {0}), so every
 * properties list names a scheme the device does not support: CL_INVALID_VALUE. */
CL_API_ENTRY cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                                   const cl_device_partition_property *properties,
                                                   cl_uint num_devices, cl_device_id *out_devices,
                                                   cl_uint *num_devices_ret) {
  KILN_API_CALL;
  (void)properties, (void)num_devices, (void)out_devices, (void)num_devices_ret;
  if (!kiln_device_is_valid(in_device)) return KILN_FAIL_HANDLE(CL_INVALID_DEVICE, in_device, cl_device_id);
  return CL_INVALID_VALUE;
}

/* Root devices are not reference counted. */
CL_API_ENTRY cl_int CL_API_CALL clRetainDevice(cl_device_id device) {
  KILN_API_CALL;
  return kiln_device_is_valid(device) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseDevice(cl_device_id device) {
  KILN_API_CALL;
  return kiln_device_is_valid(device) ? CL_SUCCESS : CL_INVALID_DEVICE;
}
