/* debug_err_codes.c: the name of every OpenCL error code, core and extension, and a
 * sentence for each that KILN_DEBUG=err prints when the site gave no reason of its own
 * (debug_err.h). Extension codes are guarded: older headers may lack them. The D3D, DX9
 * and VA-API codes are written as numbers (registry values): their headers need the
 * platforms' own types. */
#include <CL/kiln_command_buffer.h> /* first: it renames the older recording prototypes */

#include "runtime/debug_err.h"

#include <CL/cl_egl.h>
#include <CL/cl_ext_qcom.h>
#include <CL/cl_gl.h>
#include <stddef.h>

#define CODE(name, sentence) \
  { name, #name, sentence }

static const struct {
  cl_int code;
  const char *name;
  const char *sentence;
} codes[] = {
    CODE(CL_DEVICE_NOT_FOUND, "no device matches the requested type"),
    CODE(CL_DEVICE_NOT_AVAILABLE, "the device is not available"),
    CODE(CL_COMPILER_NOT_AVAILABLE, "no compiler is available"),
    CODE(CL_MEM_OBJECT_ALLOCATION_FAILURE, "memory for the object could not be allocated"),
    CODE(CL_OUT_OF_RESOURCES, "the device ran out of resources"),
    CODE(CL_OUT_OF_HOST_MEMORY, "host memory could not be allocated"),
    CODE(CL_PROFILING_INFO_NOT_AVAILABLE,
         "the event has no profiling information (queue without CL_QUEUE_PROFILING_ENABLE, or not complete)"),
    CODE(CL_MEM_COPY_OVERLAP, "the source and destination regions overlap"),
    CODE(CL_IMAGE_FORMAT_MISMATCH, "the images' formats differ"),
    CODE(CL_IMAGE_FORMAT_NOT_SUPPORTED, "the image format is not supported"),
    CODE(CL_BUILD_PROGRAM_FAILURE, "the build failed: see clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)"),
    CODE(CL_MAP_FAILURE, "the region could not be mapped"),
    CODE(CL_MISALIGNED_SUB_BUFFER_OFFSET, "the sub-buffer origin is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN"),
    CODE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event in the wait list failed"),
    CODE(CL_COMPILE_PROGRAM_FAILURE, "the compilation failed: see clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)"),
    CODE(CL_LINKER_NOT_AVAILABLE, "no linker is available"),
    CODE(CL_LINK_PROGRAM_FAILURE, "the link failed: see clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG)"),
    CODE(CL_DEVICE_PARTITION_FAILED, "the device could not be partitioned"),
    CODE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
         "no argument information (build without -cl-kernel-arg-info, or from a binary)"),
    CODE(CL_INVALID_VALUE, "an argument has an invalid value"),
    CODE(CL_INVALID_DEVICE_TYPE, "the device type is not valid"),
    CODE(CL_INVALID_PLATFORM, "the platform is not a valid cl_platform_id"),
    CODE(CL_INVALID_DEVICE, "a device is not a valid cl_device_id, or not one of the context's"),
    CODE(CL_INVALID_CONTEXT, "the context is not a valid cl_context, or objects belong to different contexts"),
    CODE(CL_INVALID_QUEUE_PROPERTIES, "the queue properties are not supported"),
    CODE(CL_INVALID_COMMAND_QUEUE, "the command queue is not a valid cl_command_queue"),
    CODE(CL_INVALID_HOST_PTR, "host_ptr does not match the CL_MEM_USE_HOST_PTR/CL_MEM_COPY_HOST_PTR flags"),
    CODE(CL_INVALID_MEM_OBJECT, "a memory object is not a valid cl_mem of the expected type"),
    CODE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "the image format is not valid"),
    CODE(CL_INVALID_IMAGE_SIZE, "the image size is not supported"),
    CODE(CL_INVALID_SAMPLER, "the sampler is not a valid cl_sampler"),
    CODE(CL_INVALID_BINARY, "a program binary is not valid"),
    CODE(CL_INVALID_BUILD_OPTIONS, "the build options are not valid"),
    CODE(CL_INVALID_PROGRAM, "the program is not a valid cl_program"),
    CODE(CL_INVALID_PROGRAM_EXECUTABLE, "the program has no successfully built executable"),
    CODE(CL_INVALID_KERNEL_NAME, "the program has no kernel of that name"),
    CODE(CL_INVALID_KERNEL_DEFINITION, "the kernel's definition differs between devices"),
    CODE(CL_INVALID_KERNEL, "the kernel is not a valid cl_kernel"),
    CODE(CL_INVALID_ARG_INDEX, "the argument index is out of range"),
    CODE(CL_INVALID_ARG_VALUE, "the argument value is not valid for the argument's type"),
    CODE(CL_INVALID_ARG_SIZE, "the argument size does not match the argument's type"),
    CODE(CL_INVALID_KERNEL_ARGS, "a kernel argument is not set"),
    CODE(CL_INVALID_WORK_DIMENSION, "work_dim is not 1, 2 or 3"),
    CODE(CL_INVALID_WORK_GROUP_SIZE, "the work-group size is not valid for the kernel or the device"),
    CODE(CL_INVALID_WORK_ITEM_SIZE, "a local work size exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES"),
    CODE(CL_INVALID_GLOBAL_OFFSET, "the global offset is not valid"),
    CODE(CL_INVALID_EVENT_WAIT_LIST, "the event wait list is not valid"),
    CODE(CL_INVALID_EVENT, "an event is not a valid cl_event"),
    CODE(CL_INVALID_OPERATION, "the operation is not valid for these objects in their current state"),
    CODE(CL_INVALID_GL_OBJECT, "not a valid GL object (Kiln has no GL sharing)"),
    CODE(CL_INVALID_BUFFER_SIZE, "the buffer size is 0 or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
    CODE(CL_INVALID_MIP_LEVEL, "the mip level is not valid"),
    CODE(CL_INVALID_GLOBAL_WORK_SIZE, "the global work size is not valid"),
    CODE(CL_INVALID_PROPERTY, "a property name or value is not valid, or given twice"),
    CODE(CL_INVALID_IMAGE_DESCRIPTOR, "the image descriptor is not valid"),
    CODE(CL_INVALID_COMPILER_OPTIONS, "the compiler options are not valid"),
    CODE(CL_INVALID_LINKER_OPTIONS, "the linker options are not valid"),
    CODE(CL_INVALID_DEVICE_PARTITION_COUNT, "the partition count is not valid"),
    CODE(CL_INVALID_PIPE_SIZE, "the pipe size is not valid"),
    CODE(CL_INVALID_DEVICE_QUEUE, "the device queue is not valid"),
    CODE(CL_INVALID_SPEC_ID, "the specialization constant id is not valid"),
    CODE(CL_MAX_SIZE_RESTRICTION_EXCEEDED, "a size exceeds what the device supports"),
#ifdef CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR
    CODE(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, "not a valid GL share group"),
#endif
#ifdef CL_PLATFORM_NOT_FOUND_KHR
    CODE(CL_PLATFORM_NOT_FOUND_KHR, "no platform was found"),
#endif
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR", "not a valid D3D10 device"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR", "not a valid D3D10 resource"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR", "the D3D10 resource is already acquired"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR", "the D3D10 resource is not acquired"},
    {-1006, "CL_INVALID_D3D11_DEVICE_KHR", "not a valid D3D11 device"},
    {-1007, "CL_INVALID_D3D11_RESOURCE_KHR", "not a valid D3D11 resource"},
    {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR", "the D3D11 resource is already acquired"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR", "the D3D11 resource is not acquired"},
    /* -1010..-1013: cl_khr_dx9_media_sharing and cl_intel_dx9_media_sharing share them. */
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR", "not a valid DX9 media adapter"},
    {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR", "not a valid DX9 media surface"},
    {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR", "the DX9 media surface is already acquired"},
    {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR", "the DX9 media surface is not acquired"},
#ifdef CL_DEVICE_PARTITION_FAILED_EXT
    CODE(CL_DEVICE_PARTITION_FAILED_EXT, "the device could not be partitioned"),
    CODE(CL_INVALID_PARTITION_COUNT_EXT, "the partition count is not valid"),
    CODE(CL_INVALID_PARTITION_NAME_EXT, "the partition name is not valid"),
#endif
#ifdef CL_EGL_RESOURCE_NOT_ACQUIRED_KHR
    CODE(CL_EGL_RESOURCE_NOT_ACQUIRED_KHR, "the EGL resource is not acquired"),
    CODE(CL_INVALID_EGL_OBJECT_KHR, "not a valid EGL object (Kiln has no EGL sharing)"),
#endif
#ifdef CL_INVALID_ACCELERATOR_INTEL
    CODE(CL_INVALID_ACCELERATOR_INTEL, "not a valid accelerator"),
    CODE(CL_INVALID_ACCELERATOR_TYPE_INTEL, "not a valid accelerator type"),
    CODE(CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL, "not a valid accelerator descriptor"),
    CODE(CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL, "the accelerator type is not supported"),
#endif
    {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL", "not a valid VA-API media adapter"},
    {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL", "not a valid VA-API media surface"},
    {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL", "the VA-API media surface is already acquired"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL", "the VA-API media surface is not acquired"},
#ifdef CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM
    CODE(CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM, "the command terminated itself with a failure"),
#endif
#ifdef CL_CONTEXT_TERMINATED_KHR
    CODE(CL_CONTEXT_TERMINATED_KHR, "the context was terminated"),
#endif
#ifdef CL_INVALID_COMMAND_BUFFER_KHR
    CODE(CL_INVALID_COMMAND_BUFFER_KHR, "the command buffer is not valid, or not in a state that allows the call"),
#endif
#ifdef CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
    CODE(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, "the sync-point wait list is not valid"),
#endif
#ifdef CL_INCOMPATIBLE_COMMAND_QUEUE_KHR
    CODE(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR, "the queue is not compatible with the command buffer"),
#endif
#ifdef CL_INVALID_MUTABLE_COMMAND_KHR
    CODE(CL_INVALID_MUTABLE_COMMAND_KHR, "the mutable command is not valid"),
#endif
#ifdef CL_INVALID_SEMAPHORE_KHR
    CODE(CL_INVALID_SEMAPHORE_KHR, "the semaphore is not valid"),
#endif
};

const char *kiln_err_code_name(cl_int code) {
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (codes[i].code == code) return codes[i].name;
  return NULL;
}

const char *kiln_err_code_sentence(cl_int code) {
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (codes[i].code == code) return codes[i].sentence;
  return "an error Kiln has no name for";
}
