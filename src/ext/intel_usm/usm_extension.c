/* usm_extension.c: the descriptor of cl_intel_unified_shared_memory: its entry points, the
 * capability queries and the exec infos of indirect access. */
#include "ext/intel_usm/intel_usm.h"
#include "runtime/debug_err.h"

#include "runtime/extension.h"
#include "runtime/info.h"

/* Every kind of allocation, system allocations included, is host memory the kernels reach
 * directly: access, atomics (the CPU's own instructions) and both of them concurrently
 * with the host. */
static const cl_device_unified_shared_memory_capabilities_intel all_access =
    CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |
    CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;

static cl_int device_info(cl_device_id device, cl_device_info param_name, size_t param_value_size, void *param_value,
                          size_t *param_value_size_ret) {
  (void)device;
  switch (param_name) {
  case CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL:
    KILN_INFO_VALUE(cl_device_unified_shared_memory_capabilities_intel, all_access);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
  }
}

/* The indirect-access exec infos are checked and recorded; a kernel reaches any host
 * address whatever they say. CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL keeps the count of
 * pointers named (NULL with size 0 is the empty set). */
static cl_int accept_exec_info(cl_kernel kernel, cl_kernel_exec_info name, size_t size, const void *value,
                               uint64_t *stored) {
  (void)kernel;
  switch (name) {
  case CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL:
    if (!value || size != sizeof(cl_bool))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!value || size != sizeof(cl_bool)");
    *stored = *(const cl_bool *)value;
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL:
    if (!value != !size || size % sizeof(void *))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!value != !size || size % sizeof(void *)");
    *stored = size / sizeof(void *);
    return CL_SUCCESS;
  default:
    return KILN_KERNEL_EXEC_INFO_NOT_MINE;
  }
}

#define ROW(name, function) {#name, (void *)function}
static const struct kiln_extension_function functions[] = {
    ROW(clHostMemAllocINTEL, kiln_usm_host_alloc),
    ROW(clDeviceMemAllocINTEL, kiln_usm_device_alloc),
    ROW(clSharedMemAllocINTEL, kiln_usm_shared_alloc),
    ROW(clMemFreeINTEL, kiln_usm_free),
    ROW(clMemBlockingFreeINTEL, kiln_usm_blocking_free),
    ROW(clGetMemAllocInfoINTEL, kiln_usm_alloc_info),
    ROW(clSetKernelArgMemPointerINTEL, kiln_usm_set_kernel_arg),
    ROW(clEnqueueMemFillINTEL, kiln_usm_enqueue_fill),
    ROW(clEnqueueMemsetINTEL, kiln_usm_enqueue_memset),
    ROW(clEnqueueMemcpyINTEL, kiln_usm_enqueue_memcpy),
    ROW(clEnqueueMigrateMemINTEL, kiln_usm_enqueue_migrate),
    ROW(clEnqueueMemAdviseINTEL, kiln_usm_enqueue_advise),
    {NULL, NULL},
};

const struct kiln_extension kiln_ext_intel_unified_shared_memory = {
    .name = "cl_intel_unified_shared_memory",
    .version = CL_MAKE_VERSION(1, 2, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = functions,
    .device_info = device_info,
    .kernel_exec_info = accept_exec_info,
};
