/* use_headers.c: includes every public header of include/CL (kiln_command_buffer.h
 * first, as it asks) and names what each one promises, so that check-public-headers.sh
 * fails when a header does not compile, or stops declaring something, against some
 * version of the Khronos headers. Compiled as C and as C++ (use_headers.cpp). */
#include <CL/kiln_command_buffer.h>
#include <CL/cl_ext_qcom.h>
#include <CL/kiln_arm_scheduling_controls.h>

/* The 0.9.7 recording entry points, with their `properties` argument. */
static const void *const command_buffer_entry_points[] = {
    (const void *)&clCreateCommandBufferKHR,  (const void *)&clFinalizeCommandBufferKHR,
    (const void *)&clEnqueueCommandBufferKHR, (const void *)&clCommandNDRangeKernelKHR,
    (const void *)&clCommandCopyBufferKHR,    (const void *)&clCommandBarrierWithWaitListKHR,
    (const void *)&clReleaseCommandBufferKHR, (const void *)&clGetCommandBufferInfoKHR,
    (const void *)&clNewRecordingQCOM,
};

int kiln_use_headers(void);
int kiln_use_headers(void) {
  cl_command_properties_khr properties[] = {0};
  cl_command_buffer_khr command_buffer = NULL;
  cl_sync_point_khr sync_point = 0;
  cl_mutable_command_khr handle = NULL;
  cl_int status = clCommandBarrierWithWaitListKHR(command_buffer, NULL, properties, 0, NULL, &sync_point, &handle);
  (void)command_buffer_entry_points;
  return status + (int)CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION + CL_COMMAND_BUFFER_CONTEXT_KHR +
         CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR + (int)CL_QUEUE_RECORDABLE_QCOM +
         CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM + CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM +
         CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM;
}
