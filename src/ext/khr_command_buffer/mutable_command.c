/* mutable_command.c: mutable-command handles (cl_khr_command_buffer_mutable_dispatch) —
 * made when an NDRange is recorded with a mutable_handle, freed with their command
 * buffer — and clGetMutableCommandInfoKHR. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/info.h"
#include "runtime/kernel.h"

#include <string.h>

static void mutable_command_destroy(struct kiln_object *object) {
  cl_mutable_command_khr command = (cl_mutable_command_khr)object;
  kiln_recorded_dispatch_release(&command->dispatch);
  kiln_object_release(&command->kernel->obj);
  pthread_mutex_destroy(&command->lock);
  kiln_object_free(object);
}

cl_int kiln_mutable_command_new(cl_command_buffer_khr command_buffer, size_t index,
                                const struct kiln_ndrange_call *call, const cl_command_properties_khr *properties,
                                size_t properties_length, cl_mutable_dispatch_fields_khr updatable,
                                cl_mutable_command_khr *command) {
  cl_mutable_command_khr handle = kiln_object_alloc(KILN_OBJECT_MUTABLE_COMMAND, sizeof *handle);
  if (!handle) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for a mutable-command handle");
  /* Only a mutable command buffer's dispatches are rebuilt: only they need the kernel clone. */
  cl_int err = CL_SUCCESS;
  if (command_buffer->flags & CL_COMMAND_BUFFER_MUTABLE_KHR) err = kiln_recorded_dispatch_capture(call, &handle->dispatch);
  else kiln_recorded_dispatch_geometry(call, &handle->dispatch);
  if (err != CL_SUCCESS) {
    kiln_object_free(&handle->obj);
    return err;
  }
  handle->command_buffer = command_buffer;
  handle->queue = command_buffer->queue;
  handle->index = index;
  handle->kernel = call->kernel;
  kiln_object_retain(&call->kernel->obj);
  handle->updatable = updatable;
  if (properties_length) memcpy(handle->properties, properties, properties_length * sizeof *properties);
  handle->properties_size = properties_length * sizeof *properties;
  pthread_mutex_init(&handle->lock, NULL);
  kiln_object_init(&handle->obj, KILN_OBJECT_MUTABLE_COMMAND, mutable_command_destroy);
  *command = handle;
  return CL_SUCCESS;
}

void kiln_mutable_command_free(cl_mutable_command_khr command) {
  /* The handle leaves the registry now; its memory goes once no call holds it. */
  kiln_object_api_release(command, KILN_OBJECT_MUTABLE_COMMAND, CL_INVALID_MUTABLE_COMMAND_KHR);
}

CL_API_ENTRY cl_int CL_API_CALL clGetMutableCommandInfoKHR(cl_mutable_command_khr command,
                                                           cl_mutable_command_info_khr param_name,
                                                           size_t param_value_size, void *param_value,
                                                           size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_mutable_command_is_valid(command))
    return KILN_FAIL_HANDLE(CL_INVALID_MUTABLE_COMMAND_KHR, command, cl_mutable_command_khr);
  pthread_mutex_lock(&command->lock);
  struct kiln_recorded_dispatch geometry = command->dispatch; /* as of the latest update */
  pthread_mutex_unlock(&command->lock);
  size_t dims = geometry.work_dim * sizeof(size_t);
  switch (param_name) {
  case CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR:
    /* Recorded with a NULL queue (the only kind without multi-device): the command buffer's. */
    KILN_INFO_VALUE(cl_command_queue, command->queue);
  case CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR:
    KILN_INFO_VALUE(cl_command_buffer_khr, command->command_buffer);
  case CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR:
    KILN_INFO_VALUE(cl_command_type, CL_COMMAND_NDRANGE_KERNEL);
  case CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR:
    KILN_INFO_ARRAY(command->properties, command->properties_size);
  case CL_MUTABLE_DISPATCH_KERNEL_KHR:
    KILN_INFO_VALUE(cl_kernel, command->kernel);
  case CL_MUTABLE_DISPATCH_DIMENSIONS_KHR:
    KILN_INFO_VALUE(cl_uint, geometry.work_dim);
  case CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR:
    KILN_INFO_ARRAY(geometry.offset, dims);
  case CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR:
    KILN_INFO_ARRAY(geometry.global, dims);
  case CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR:
    KILN_INFO_ARRAY(geometry.local, dims);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetMutableCommandInfoKHR knows",
                     (unsigned)param_name);
  }
}
