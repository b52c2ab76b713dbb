/* pending_programs.c: program, kernel and launch entry points until the kernels issue
 * brings the compiler. The device reports CL_DEVICE_COMPILER_AVAILABLE = CL_FALSE, so no
 * program or kernel object can exist yet: creation validates the context and then
 * returns CL_INVALID_OPERATION, and every call on a program or kernel handle returns
 * CL_INVALID_PROGRAM / CL_INVALID_KERNEL (the handle cannot be valid). */
#include "runtime/command.h"
#include "runtime/context.h"

static void *refuse_creation(cl_context context, cl_int *errcode_ret) {
  if (errcode_ret) *errcode_ret = kiln_context_is_valid(context) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
  return NULL;
}

static void *refuse_program_use(cl_int *errcode_ret) {
  if (errcode_ret) *errcode_ret = CL_INVALID_PROGRAM;
  return NULL;
}

static void *refuse_kernel_use(cl_int *errcode_ret) {
  if (errcode_ret) *errcode_ret = CL_INVALID_KERNEL;
  return NULL;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                                              const size_t *lengths, cl_int *errcode_ret) {
  (void)count, (void)strings, (void)lengths;
  return refuse_creation(context, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                              const cl_device_id *device_list, const size_t *lengths,
                                                              const unsigned char **binaries, cl_int *binary_status,
                                                              cl_int *errcode_ret) {
  (void)num_devices, (void)device_list, (void)lengths, (void)binaries, (void)binary_status;
  return refuse_creation(context, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                                      const cl_device_id *device_list,
                                                                      const char *kernel_names, cl_int *errcode_ret) {
  (void)num_devices, (void)device_list, (void)kernel_names;
  return refuse_creation(context, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il, size_t length,
                                                          cl_int *errcode_ret) {
  (void)il, (void)length;
  return refuse_creation(context, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program program) {
  (void)program;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  (void)program;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                                               const char *options,
                                               void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data) {
  (void)program, (void)num_devices, (void)device_list, (void)options, (void)pfn_notify, (void)user_data;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(cl_program program, cl_uint num_devices,
                                                 const cl_device_id *device_list, const char *options,
                                                 cl_uint num_input_headers, const cl_program *input_headers,
                                                 const char **header_include_names,
                                                 void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data) {
  (void)program, (void)num_devices, (void)device_list, (void)options, (void)num_input_headers;
  (void)input_headers, (void)header_include_names, (void)pfn_notify, (void)user_data;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                                  const cl_device_id *device_list, const char *options,
                                                  cl_uint num_input_programs, const cl_program *input_programs,
                                                  void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data,
                                                  cl_int *errcode_ret) {
  (void)num_devices, (void)device_list, (void)options, (void)pfn_notify, (void)user_data;
  if (!kiln_context_is_valid(context)) return refuse_creation(context, errcode_ret);
  if (num_input_programs == 0 || !input_programs) {
    if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
    return NULL;
  }
  return refuse_program_use(errcode_ret);
}


CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  (void)program, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                      cl_program_build_info param_name, size_t param_value_size,
                                                      void *param_value, size_t *param_value_size_ret) {
  (void)program, (void)device, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program program,
                                                            void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                                            void *user_data) {
  (void)program, (void)pfn_notify, (void)user_data;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                                   size_t spec_size, const void *spec_value) {
  (void)program, (void)spec_id, (void)spec_size, (void)spec_value;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name, cl_int *errcode_ret) {
  (void)program, (void)kernel_name;
  return refuse_program_use(errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel *kernels,
                                                         cl_uint *num_kernels_ret) {
  (void)program, (void)num_kernels, (void)kernels, (void)num_kernels_ret;
  return CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret) {
  (void)source_kernel;
  return refuse_kernel_use(errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) {
  (void)kernel;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  (void)kernel;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                               const void *arg_value) {
  (void)kernel, (void)arg_index, (void)arg_size, (void)arg_value;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index, const void *arg_value) {
  (void)kernel, (void)arg_index, (void)arg_value;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param_name,
                                                    size_t param_value_size, const void *param_value) {
  (void)kernel, (void)param_name, (void)param_value_size, (void)param_value;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
                                                void *param_value, size_t *param_value_size_ret) {
  (void)kernel, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index, cl_kernel_arg_info param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret) {
  (void)kernel, (void)arg_index, (void)param_name, (void)param_value_size, (void)param_value,
      (void)param_value_size_ret;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info param_name,
                                                         size_t param_value_size, void *param_value,
                                                         size_t *param_value_size_ret) {
  (void)kernel, (void)device, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel kernel, cl_device_id device,
                                                        cl_kernel_sub_group_info param_name, size_t input_value_size,
                                                        const void *input_value, size_t param_value_size,
                                                        void *param_value, size_t *param_value_size_ret) {
  (void)kernel, (void)device, (void)param_name, (void)input_value_size, (void)input_value, (void)param_value_size,
      (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_KERNEL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(cl_kernel kernel, cl_device_id device,
                                                           cl_kernel_sub_group_info param_name,
                                                           size_t input_value_size, const void *input_value,
                                                           size_t param_value_size, void *param_value,
                                                           size_t *param_value_size_ret) {
  return clGetKernelSubGroupInfo(kernel, device, param_name, input_value_size, input_value, param_value_size,
                                 param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t *global_work_offset,
                                                       const size_t *global_work_size, const size_t *local_work_size,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event) {
  (void)kernel, (void)work_dim, (void)global_work_offset, (void)global_work_size, (void)local_work_size;
  (void)num_events_in_wait_list, (void)event_wait_list, (void)event;
  return kiln_queue_is_valid(command_queue) ? CL_INVALID_KERNEL : CL_INVALID_COMMAND_QUEUE;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event) {
  return clEnqueueNDRangeKernel(command_queue, kernel, 1, NULL, NULL, NULL, num_events_in_wait_list, event_wait_list,
                                event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue command_queue,
                                                      void(CL_CALLBACK *user_func)(void *), void *args,
                                                      size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list,
                                                      const void **args_mem_loc, cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list, cl_event *event) {
  (void)user_func, (void)args, (void)cb_args, (void)num_mem_objects, (void)mem_list, (void)args_mem_loc;
  (void)num_events_in_wait_list, (void)event_wait_list, (void)event;
  /* CL_DEVICE_EXECUTION_CAPABILITIES does not include CL_EXEC_NATIVE_KERNEL yet. */
  return kiln_queue_is_valid(command_queue) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
