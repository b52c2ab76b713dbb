/* unsupported_images.c: sampler and pipe entry points. Samplers are not offered yet and
 * the CPU device reports CL_DEVICE_PIPE_SUPPORT as CL_FALSE, so no sampler or pipe can
 * exist: creation fails with CL_INVALID_OPERATION after the context is validated, and
 * every query on such an object finds no valid object. */
#include "runtime/command.h"
#include "runtime/context.h"

static void *fail(cl_int *errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
  return NULL;
}

/* Creation in a valid context of an object the device does not offer. */
static void *create_unsupported(cl_context context, cl_int *errcode_ret) {
  return fail(errcode_ret, kiln_context_is_valid(context) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                    cl_addressing_mode addressing_mode, cl_filter_mode filter_mode,
                                                    cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)normalized_coords, (void)addressing_mode, (void)filter_mode;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                                  const cl_sampler_properties *properties,
                                                                  cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)properties;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  KILN_API_CALL;
  (void)sampler;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  KILN_API_CALL;
  (void)sampler;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)sampler, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags, cl_uint packet_size,
                                             cl_uint max_packets, const cl_pipe_properties *properties,
                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)packet_size, (void)max_packets, (void)properties;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name, size_t param_value_size,
                                              void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)pipe, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_MEM_OBJECT;
}
