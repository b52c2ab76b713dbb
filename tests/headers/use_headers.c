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
    (const void *)&clNewRecordingQCOM,        (const void *)&clUpdateMutableCommandsKHR,
    (const void *)&clGetMutableCommandInfoKHR,
};

int kiln_use_headers(void);
int kiln_use_headers(void) {
  cl_command_properties_khr properties[] = {0};
  cl_command_buffer_khr command_buffer = NULL;
  cl_sync_point_khr sync_point = 0;
  cl_mutable_command_khr handle = NULL;
  cl_int status = clCommandBarrierWithWaitListKHR(command_buffer, NULL, properties, 0, NULL, &sync_point, &handle);
  /* cl_khr_command_buffer_mutable_dispatch 0.9.3: an array of configs, not 0.9.0's linked list. */
  cl_mutable_dispatch_arg_khr arg = {0, 0, NULL};
  cl_mutable_dispatch_config_khr config = {handle, 1, 0, 0, 0, &arg, NULL, NULL, NULL, NULL, NULL};
  const cl_command_buffer_update_type_khr type = CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
  const void *configs[1] = {&config};
  clUpdateMutableCommandsKHR_fn update = &clUpdateMutableCommandsKHR;
  status += update(command_buffer, 1, &type, configs);
  cl_mutable_dispatch_asserts_khr asserts = CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR;
  cl_mutable_dispatch_fields_khr fields = CL_MUTABLE_DISPATCH_ARGUMENTS_KHR;
  status += (int)asserts + (int)fields + CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR + CL_MUTABLE_DISPATCH_ASSERTS_KHR +
            CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR + (int)CL_KHR_COMMAND_BUFFER_MUTABLE_DISPATCH_EXTENSION_VERSION +
            CL_INVALID_MUTABLE_COMMAND_KHR;
  (void)command_buffer_entry_points;
  return status + (int)CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION + CL_COMMAND_BUFFER_CONTEXT_KHR +
         CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR + (int)CL_QUEUE_RECORDABLE_QCOM +
         CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM + CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM +
         CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM;
}
