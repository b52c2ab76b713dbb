/* CL/kiln_command_buffer.h: cl_khr_command_buffer 0.9.7 and
 * cl_khr_command_buffer_mutable_dispatch 0.9.3 as Kiln implements them, for applications
 * whose installed OpenCL headers are older (Debian bookworm's declare 0.9.0 of both: its
 * recording entry points lack the `properties` argument, and its updates are a linked
 * list of configs with other structure-type values).
 *
 * Against Khronos headers that declare it only as a beta extension (v2025.07.22 on) and
 * CL_ENABLE_BETA_EXTENSIONS undefined, it declares the whole extension itself.
 *
 * Include it before any other OpenCL header. It includes <CL/cl_ext.h> itself with the
 * recording prototypes renamed out of the way, then declares the 0.9.7 ones and whatever
 * types and tokens the installed header lacks (values from the Khronos registry, cl.xml). */
#ifndef KILN_CL_COMMAND_BUFFER_H
#define KILN_CL_COMMAND_BUFFER_H

#if defined(__CL_EXT_H) && !defined(CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION)
#error "include <CL/kiln_command_buffer.h> before <CL/cl_ext.h>: the installed one declares an older cl_khr_command_buffer"
#endif

/* Older headers' recording prototypes, whose signatures changed in 0.9.5, go under other names. */
#define clCommandBarrierWithWaitListKHR kiln_previous_clCommandBarrierWithWaitListKHR
#define clCommandCopyBufferKHR kiln_previous_clCommandCopyBufferKHR
#define clCommandCopyBufferRectKHR kiln_previous_clCommandCopyBufferRectKHR
#define clCommandCopyBufferToImageKHR kiln_previous_clCommandCopyBufferToImageKHR
#define clCommandCopyImageKHR kiln_previous_clCommandCopyImageKHR
#define clCommandCopyImageToBufferKHR kiln_previous_clCommandCopyImageToBufferKHR
#define clCommandFillBufferKHR kiln_previous_clCommandFillBufferKHR
#define clCommandFillImageKHR kiln_previous_clCommandFillImageKHR
#define clCommandNDRangeKernelKHR kiln_previous_clCommandNDRangeKernelKHR
/* Mutable dispatch before 0.9.2 took a linked list: its config struct and update entry point. */
#define _cl_mutable_dispatch_config_khr _kiln_previous_cl_mutable_dispatch_config_khr
#define cl_mutable_dispatch_config_khr kiln_previous_cl_mutable_dispatch_config_khr
#define clUpdateMutableCommandsKHR kiln_previous_clUpdateMutableCommandsKHR
#define clUpdateMutableCommandsKHR_fn kiln_previous_clUpdateMutableCommandsKHR_fn
#include <CL/cl_ext.h>
#undef _cl_mutable_dispatch_config_khr
#undef cl_mutable_dispatch_config_khr
#undef clUpdateMutableCommandsKHR
#undef clUpdateMutableCommandsKHR_fn
#undef clCommandBarrierWithWaitListKHR
#undef clCommandCopyBufferKHR
#undef clCommandCopyBufferRectKHR
#undef clCommandCopyBufferToImageKHR
#undef clCommandCopyImageKHR
#undef clCommandCopyImageToBufferKHR
#undef clCommandFillBufferKHR
#undef clCommandFillImageKHR
#undef clCommandNDRangeKernelKHR

#ifdef __cplusplus
extern "C" {
#endif

/* Khronos headers from v2025.07.22 on declare cl_khr_command_buffer only under
 * CL_ENABLE_BETA_EXTENSIONS. Without it (the extension's macro is then undefined) Kiln
 * declares the whole extension: its types, tokens and the entry points that are not
 * recording commands (those follow below in every case). */
#if !defined(cl_khr_command_buffer)
#define cl_khr_command_buffer 1
#define CL_KHR_COMMAND_BUFFER_EXTENSION_NAME "cl_khr_command_buffer"
#define CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION CL_MAKE_VERSION(0, 9, 7)

typedef cl_bitfield cl_device_command_buffer_capabilities_khr;
typedef struct _cl_command_buffer_khr *cl_command_buffer_khr;
typedef cl_uint cl_sync_point_khr;
typedef cl_uint cl_command_buffer_info_khr;
typedef cl_uint cl_command_buffer_state_khr;
typedef cl_properties cl_command_buffer_properties_khr;
typedef cl_bitfield cl_command_buffer_flags_khr;
typedef cl_properties cl_command_properties_khr;
typedef struct _cl_mutable_command_khr *cl_mutable_command_khr;

#define CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR 0x12A9
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#define CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR 0x12AA
#define CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR (1 << 0)
#define CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR (1 << 1)
#define CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR (1 << 2)
#define CL_COMMAND_BUFFER_FLAGS_KHR 0x1293
#define CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR (1 << 0)
#define CL_INVALID_COMMAND_BUFFER_KHR -1138
#define CL_INVALID_SYNC_POINT_WAIT_LIST_KHR -1139
#define CL_INCOMPATIBLE_COMMAND_QUEUE_KHR -1140
#define CL_COMMAND_BUFFER_QUEUES_KHR 0x1294
#define CL_COMMAND_BUFFER_NUM_QUEUES_KHR 0x1295
#define CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR 0x1296
#define CL_COMMAND_BUFFER_STATE_KHR 0x1297
#define CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR 0x1298
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#define CL_COMMAND_BUFFER_STATE_RECORDING_KHR 0
#define CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR 1
#define CL_COMMAND_BUFFER_STATE_PENDING_KHR 2
#define CL_COMMAND_COMMAND_BUFFER_KHR 0x12A8

extern CL_API_ENTRY cl_command_buffer_khr CL_API_CALL clCreateCommandBufferKHR(
    cl_uint num_queues, const cl_command_queue *queues, const cl_command_buffer_properties_khr *properties,
    cl_int *errcode_ret);
extern CL_API_ENTRY cl_int CL_API_CALL clFinalizeCommandBufferKHR(cl_command_buffer_khr command_buffer);
extern CL_API_ENTRY cl_int CL_API_CALL clRetainCommandBufferKHR(cl_command_buffer_khr command_buffer);
extern CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandBufferKHR(cl_command_buffer_khr command_buffer);
extern CL_API_ENTRY cl_int CL_API_CALL clEnqueueCommandBufferKHR(
    cl_uint num_queues, cl_command_queue *queues, cl_command_buffer_khr command_buffer,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);
extern CL_API_ENTRY cl_int CL_API_CALL clGetCommandBufferInfoKHR(
    cl_command_buffer_khr command_buffer, cl_command_buffer_info_khr param_name, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret);
#endif /* !cl_khr_command_buffer */

#if !defined(CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION)
#define CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION CL_MAKE_VERSION(0, 9, 7)

typedef cl_properties cl_command_properties_khr;

#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
#endif /* !CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION */

/* Declared whatever the installed header held: its own declarations went under other names. */

extern CL_API_ENTRY cl_int CL_API_CALL clCommandBarrierWithWaitListKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferRectKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin, const size_t *region,
    size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferToImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_image, size_t src_offset, const size_t *dst_origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandCopyImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_image, cl_mem dst_image, const size_t *src_origin, const size_t *dst_origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandCopyImageToBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin, const size_t *region, size_t dst_offset,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandFillBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem buffer, const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandFillImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem image, const void *fill_color, const size_t *origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandNDRangeKernelKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_kernel kernel, cl_uint work_dim, const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandSVMMemcpyKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    void *dst_ptr, const void *src_ptr, size_t size, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

extern CL_API_ENTRY cl_int CL_API_CALL clCommandSVMMemFillKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    void *svm_ptr, const void *pattern, size_t pattern_size, size_t size, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle);

/* cl_khr_command_buffer_mutable_dispatch 0.9.3 (values from cl.xml). The types and tokens
 * every version shares come from the installed header when it declares the extension. */
#if !defined(cl_khr_command_buffer_mutable_dispatch)
#define cl_khr_command_buffer_mutable_dispatch 1
#define CL_KHR_COMMAND_BUFFER_MUTABLE_DISPATCH_EXTENSION_NAME "cl_khr_command_buffer_mutable_dispatch"
typedef cl_bitfield cl_mutable_dispatch_fields_khr;
typedef cl_uint cl_mutable_command_info_khr;
typedef struct _cl_mutable_dispatch_arg_khr {
  cl_uint arg_index;
  size_t arg_size;
  const void *arg_value;
} cl_mutable_dispatch_arg_khr;
typedef struct _cl_mutable_dispatch_exec_info_khr {
  cl_uint param_name;
  size_t param_value_size;
  const void *param_value;
} cl_mutable_dispatch_exec_info_khr;
#define CL_COMMAND_BUFFER_MUTABLE_KHR (1 << 1)
#define CL_INVALID_MUTABLE_COMMAND_KHR -1141
#define CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR 0x12B0
#define CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR 0x12B1
#define CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR (1 << 0)
#define CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR (1 << 1)
#define CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR (1 << 2)
#define CL_MUTABLE_DISPATCH_ARGUMENTS_KHR (1 << 3)
#define CL_MUTABLE_DISPATCH_EXEC_INFO_KHR (1 << 4)
#define CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR 0x12A0
#define CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR 0x12A1
#define CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR 0x12AD
#define CL_MUTABLE_DISPATCH_KERNEL_KHR 0x12A3
#define CL_MUTABLE_DISPATCH_DIMENSIONS_KHR 0x12A4
#define CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR 0x12A5
#define CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR 0x12A6
#define CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR 0x12A7
typedef cl_int(CL_API_CALL *clGetMutableCommandInfoKHR_fn)(cl_mutable_command_khr command,
                                                          cl_mutable_command_info_khr param_name,
                                                          size_t param_value_size, void *param_value,
                                                          size_t *param_value_size_ret);
extern CL_API_ENTRY cl_int CL_API_CALL clGetMutableCommandInfoKHR(cl_mutable_command_khr command,
                                                                  cl_mutable_command_info_khr param_name,
                                                                  size_t param_value_size, void *param_value,
                                                                  size_t *param_value_size_ret);
#endif /* !cl_khr_command_buffer_mutable_dispatch */

#undef CL_KHR_COMMAND_BUFFER_MUTABLE_DISPATCH_EXTENSION_VERSION
#define CL_KHR_COMMAND_BUFFER_MUTABLE_DISPATCH_EXTENSION_VERSION CL_MAKE_VERSION(0, 9, 3)

/* Identical typedefs may be repeated (C11, C++): these are declared whatever the header held. */
typedef cl_uint cl_command_buffer_update_type_khr;
typedef cl_bitfield cl_mutable_dispatch_asserts_khr;

/* 0.9.0 numbered its structure types from a base config (0); 0.9.2 on has the dispatch config only, as 0. */
#undef CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR
#define CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR 0
#ifndef CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR
#define CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR 0x12A2 /* CL_MUTABLE_DISPATCH_PROPERTIES_ARRAY_KHR before 0.9.3 */
#endif
#ifndef CL_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B7
#define CL_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B8
#define CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR (1 << 0)
#endif

typedef struct _cl_mutable_dispatch_config_khr {
  cl_mutable_command_khr command;
  cl_uint num_args;
  cl_uint num_svm_args;
  cl_uint num_exec_infos;
  cl_uint work_dim;
  const cl_mutable_dispatch_arg_khr *arg_list;
  const cl_mutable_dispatch_arg_khr *arg_svm_list;
  const cl_mutable_dispatch_exec_info_khr *exec_info_list;
  const size_t *global_work_offset;
  const size_t *global_work_size;
  const size_t *local_work_size;
} cl_mutable_dispatch_config_khr;

typedef cl_int(CL_API_CALL *clUpdateMutableCommandsKHR_fn)(cl_command_buffer_khr command_buffer,
                                                          cl_uint num_configs,
                                                          const cl_command_buffer_update_type_khr *config_types,
                                                          const void **configs);
extern CL_API_ENTRY cl_int CL_API_CALL clUpdateMutableCommandsKHR(cl_command_buffer_khr command_buffer,
                                                                  cl_uint num_configs,
                                                                  const cl_command_buffer_update_type_khr *config_types,
                                                                  const void **configs);

#ifdef __cplusplus
}
#endif

#endif
