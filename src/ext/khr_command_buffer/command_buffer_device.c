/* command_buffer_device.c: the descriptors (runtime/extension.h) of cl_khr_command_buffer
 * and cl_khr_command_buffer_mutable_dispatch: their device queries and entry points. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/device.h"
#include "runtime/extension.h"
#include "runtime/info.h"
#include "runtime/platform.h"

static cl_int device_info(cl_device_id device, cl_device_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
  (void)device;
  switch (param_name) {
  case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
    KILN_INFO_VALUE(cl_device_command_buffer_capabilities_khr, KILN_COMMAND_BUFFER_CAPABILITIES);
  case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
    KILN_INFO_VALUE(cl_command_queue_properties, KILN_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES);
  case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
    KILN_INFO_VALUE(cl_command_queue_properties, KILN_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
  }
}

#define ROW(name) {#name, (void *)name}
static const struct kiln_extension_function functions[] = {
    ROW(clCreateCommandBufferKHR),        ROW(clRetainCommandBufferKHR),       ROW(clReleaseCommandBufferKHR),
    ROW(clFinalizeCommandBufferKHR),      ROW(clEnqueueCommandBufferKHR),      ROW(clGetCommandBufferInfoKHR),
    ROW(clCommandBarrierWithWaitListKHR), ROW(clCommandCopyBufferKHR),         ROW(clCommandCopyBufferRectKHR),
    ROW(clCommandCopyBufferToImageKHR),   ROW(clCommandCopyImageKHR),          ROW(clCommandCopyImageToBufferKHR),
    ROW(clCommandFillBufferKHR),          ROW(clCommandFillImageKHR),          ROW(clCommandNDRangeKernelKHR),
    ROW(clCommandSVMMemcpyKHR),           ROW(clCommandSVMMemFillKHR),          {NULL, NULL},
};

const struct kiln_extension kiln_ext_khr_command_buffer = {
    .name = "cl_khr_command_buffer",
    .version = CL_MAKE_VERSION(0, 9, 7),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = functions,
    .device_info = device_info,
};

static cl_int mutable_dispatch_device_info(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                                           void *param_value, size_t *param_value_size_ret) {
  (void)device;
  if (param_name != CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR)
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
  KILN_INFO_VALUE(cl_mutable_dispatch_fields_khr, KILN_MUTABLE_DISPATCH_CAPABILITIES);
}

static const struct kiln_extension_function mutable_dispatch_functions[] = {
    ROW(clUpdateMutableCommandsKHR),
    ROW(clGetMutableCommandInfoKHR),
    {NULL, NULL},
};

/* 0.9.3: the version OpenCL-Headers 8a97ebc declare and the CTS at eded89cd tests. */
const struct kiln_extension kiln_ext_khr_command_buffer_mutable_dispatch = {
    .name = "cl_khr_command_buffer_mutable_dispatch",
    .version = CL_MAKE_VERSION(0, 9, 3),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = mutable_dispatch_functions,
    .device_info = mutable_dispatch_device_info,
};
