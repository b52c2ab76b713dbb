/* unsupported_pipes.c: pipe entry points. The CPU device reports CL_DEVICE_PIPE_SUPPORT
 * as CL_FALSE, so no pipe can ever exist: creation fails with CL_INVALID_OPERATION after
 * the context is validated, and a query finds no valid pipe. */
#include "runtime/command.h"
#include "runtime/context.h"

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags, cl_uint packet_size,
                                             cl_uint max_packets, const cl_pipe_properties *properties,
                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)packet_size, (void)max_packets, (void)properties;
  cl_int err = kiln_context_is_valid(context) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name, size_t param_value_size,
                                              void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)pipe, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_MEM_OBJECT;
}
