/* device.h: the single CPU device as the runtime sees it. */
#ifndef KILN_RUNTIME_DEVICE_H
#define KILN_RUNTIME_DEVICE_H

#include "runtime/object.h"

struct kiln_cpu_topology;

struct _cl_device_id {
  struct kiln_object obj;
  cl_platform_id platform;
  const struct kiln_cpu_topology *topology;
  cl_uint compute_units;      /* = topology->core_count unless KILN_NUM_WORKERS lowers it */
  cl_ulong global_mem_size;
  cl_ulong max_mem_alloc_size;
};

/* Buffers are allocated and sub-buffer origins checked at this alignment (bytes);
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN reports it in bits. */
#define KILN_MEM_BASE_ADDR_ALIGN_BYTES 128u

/* The one device; created and registered on first use (thread-safe). */
cl_device_id kiln_device_get(void);

/* clGetDeviceInfo asks each extension's provider, in turn, about a param_name the core does
 * not know; a provider returns CL_INVALID_VALUE for names that are not its own. The providers
 * are the extension descriptors' (runtime/extension.h). */
typedef cl_int (*kiln_device_info_provider_fn)(cl_device_id device, cl_device_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret);

/* True for our (root) device handle. */
static inline bool kiln_device_is_valid(cl_device_id device) {
  return kiln_object_is_valid(device, KILN_OBJECT_DEVICE);
}

/* The device limits NDRange checks use. */
struct kiln_device_limits {
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  cl_ulong local_mem_size;
  bool non_uniform_work_groups;     /* CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT */
  size_t preferred_multiple;        /* the float vector width */
};
const struct kiln_device_limits *kiln_device_limits(void); /* of Kiln's one device, read once */

#endif
