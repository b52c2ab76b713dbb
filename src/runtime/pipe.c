/* pipe.c: clCreatePipe and clGetPipeInfo. A pipe is a memory object whose storage is a
 * struct kiln_pipe with its ring (device/cpu/pipe.h), which pipe arguments hand to kernels;
 * the host has no access to it (the only flags a pipe takes say so), so no transfer or map
 * entry point accepts one (they take buffers or images). */
#include "device/cpu/pipe.h"
#include "runtime/debug_err.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/info.h"
#include "runtime/mem_object.h"

#define PIPE_FLAGS (CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS)

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags, cl_uint packet_size,
                                             cl_uint max_packets, const cl_pipe_properties *properties,
                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  cl_mem mem = NULL;
  if (!kiln_context_is_valid(context)) {
    err = KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  } else if ((flags & ~PIPE_FLAGS) || properties) {
    err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(flags & ~PIPE_FLAGS) || properties");
  } else if (packet_size == 0 || packet_size > KILN_PIPE_MAX_PACKET_SIZE || max_packets == 0) {
    err = KILN_FAIL(CL_INVALID_PIPE_SIZE, "rejected since (%s)",
                    "packet_size == 0 || packet_size > KILN_PIPE_MAX_PACKET_SIZE || max_packets == 0");
  } else if (kiln_pipe_storage_size(packet_size, max_packets) > kiln_device_get()->max_mem_alloc_size) {
    err = KILN_FAIL(CL_MEM_OBJECT_ALLOCATION_FAILURE, "rejected since (%s)",
                    "kiln_pipe_storage_size(packet_size, max_packets) > kiln_device_get()->max_mem_alloc_size");
  } else {
    struct kiln_mem_desc desc = {
        .flags = flags ? flags : PIPE_FLAGS,
        .size = kiln_pipe_storage_size(packet_size, max_packets),
        .type = CL_MEM_OBJECT_PIPE,
    };
    mem = kiln_mem_create(context, &desc, &err);
    if (mem) kiln_pipe_init(mem->storage, packet_size, max_packets);
  }
  if (errcode_ret) *errcode_ret = err;
  return mem;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name, size_t param_value_size,
                                              void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_mem_is_pipe(pipe))
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)", "!kiln_mem_is_pipe(pipe)");
  const struct kiln_pipe *state = (const struct kiln_pipe *)pipe->storage;
  switch (param_name) {
  case CL_PIPE_PACKET_SIZE:
    KILN_INFO_VALUE(cl_uint, state->packet_size);
  case CL_PIPE_MAX_PACKETS:
    KILN_INFO_VALUE(cl_uint, state->max_packets);
  case CL_PIPE_PROPERTIES: /* clCreatePipe takes none */
    KILN_INFO_ARRAY(NULL, 0);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetPipeInfo knows", (unsigned)param_name);
  }
}
