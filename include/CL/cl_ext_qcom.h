/* CL/cl_ext_qcom.h (Kiln): cl_qcom_recordable_queues, declared with the names and values
 * applications written for Qualcomm's OpenCL SDK use, so that their code compiles
 * unchanged against Kiln. Kiln's own text; only this extension is declared. The entry
 * points are reached through clGetExtensionFunctionAddressForPlatform (the ICD loader does
 * not export them); the *_fn types below are their pointer types. */
#ifndef KILN_CL_EXT_QCOM_H
#define KILN_CL_EXT_QCOM_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef cl_qcom_recordable_queues
#define cl_qcom_recordable_queues 1

/* clGetDeviceInfo: cl_uint, the most NDRange commands one recording may hold. Qualcomm's
 * header spells it without the suffix; both names are provided. */
#define CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM 0x41DE
#define CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM

/* A cl_command_queue_properties bit: the queue records clEnqueueNDRangeKernel calls. */
#define CL_QUEUE_RECORDABLE_QCOM (1u << 30)

typedef struct _cl_recording_qcom *cl_recording_qcom;

/* A new value for argument arg_index of dispatch dispatch_index (clSetKernelArg's meaning;
 * for SVM arguments arg_size is 0 and arg_value the pointer). */
typedef struct _cl_array_arg_qcom {
  cl_uint dispatch_index;
  cl_uint arg_index;
  size_t arg_size;
  const void *arg_value;
} cl_array_arg_qcom;

/* New execution information for dispatch dispatch_index (clSetKernelExecInfo's meaning). */
typedef struct _cl_array_kernel_exec_info_qcom {
  cl_uint dispatch_index;
  cl_kernel_exec_info param_name;
  size_t param_value_size;
  const void *param_value;
} cl_array_kernel_exec_info_qcom;

/* New global offsets for dispatch dispatch_index (elements past its work_dim are ignored). */
typedef struct _cl_offset_qcom {
  cl_uint dispatch_index;
  size_t offsets[3];
} cl_offset_qcom;

/* New global or local work size for dispatch dispatch_index: work_dim elements; NULL for a
 * local size means "let the implementation choose". */
typedef struct _cl_workgroup_qcom {
  cl_uint dispatch_index;
  const size_t *workgroup_size;
} cl_workgroup_qcom;

extern CL_API_ENTRY cl_recording_qcom CL_API_CALL clNewRecordingQCOM(cl_command_queue command_queue,
                                                                     cl_int *errcode_ret);
typedef cl_recording_qcom(CL_API_CALL *clNewRecordingQCOM_fn)(cl_command_queue command_queue, cl_int *errcode_ret);

extern CL_API_ENTRY cl_int CL_API_CALL clEndRecordingQCOM(cl_recording_qcom recording);
typedef cl_int(CL_API_CALL *clEndRecordingQCOM_fn)(cl_recording_qcom recording);

extern CL_API_ENTRY cl_int CL_API_CALL clReleaseRecordingQCOM(cl_recording_qcom recording);
typedef cl_int(CL_API_CALL *clReleaseRecordingQCOM_fn)(cl_recording_qcom recording);

extern CL_API_ENTRY cl_int CL_API_CALL clRetainRecordingQCOM(cl_recording_qcom recording);
typedef cl_int(CL_API_CALL *clRetainRecordingQCOM_fn)(cl_recording_qcom recording);

extern CL_API_ENTRY cl_int CL_API_CALL clEnqueueRecordingQCOM(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_global_offsets, const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event);
typedef cl_int(CL_API_CALL *clEnqueueRecordingQCOM_fn)(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_global_offsets, const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event);

extern CL_API_ENTRY cl_int CL_API_CALL clEnqueueRecordingSVMQCOM(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_svm_args, const cl_array_arg_qcom *arg_svm_array, size_t num_global_offsets,
    const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, size_t num_non_arg_objs,
    const cl_array_kernel_exec_info_qcom *non_arg_obj_array, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);
typedef cl_int(CL_API_CALL *clEnqueueRecordingSVMQCOM_fn)(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_svm_args, const cl_array_arg_qcom *arg_svm_array, size_t num_global_offsets,
    const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, size_t num_non_arg_objs,
    const cl_array_kernel_exec_info_qcom *non_arg_obj_array, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);

#endif /* cl_qcom_recordable_queues */

#ifdef __cplusplus
}
#endif

#endif
