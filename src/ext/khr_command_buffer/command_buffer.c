/* command_buffer.c: command-buffer objects: creation with its properties, retain and
 * release, finalize, and clGetCommandBufferInfoKHR. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/info.h"
#include "runtime/queue.h"

#include <stdlib.h>
#include <string.h>

static void command_buffer_destroy(struct kiln_object *object) {
  cl_command_buffer_khr command_buffer = (cl_command_buffer_khr)object;
  for (size_t i = 0; i < command_buffer->mutable_count; i++) kiln_mutable_command_free(command_buffer->mutables[i]);
  free(command_buffer->mutables);
  if (command_buffer->version) {
    kiln_replay_version_release(command_buffer->version); /* it owns the commands */
  } else {
    for (size_t i = 0; i < command_buffer->count; i++)
      if (command_buffer->commands[i]) kiln_command_discard(command_buffer->commands[i]);
    free(command_buffer->commands);
  }
  pthread_mutex_destroy(&command_buffer->lock);
  kiln_object_release(&command_buffer->queue->obj);
  kiln_object_release(&command_buffer->context->obj);
  kiln_object_free(object);
}

/* The property list: CL_COMMAND_BUFFER_FLAGS_KHR and CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR,
 * each at most once, with known bits. */
static cl_int parse_properties(const cl_command_buffer_properties_khr *properties, cl_command_buffer_flags_khr *flags,
                               cl_mutable_dispatch_asserts_khr *asserts, size_t *length) {
  *flags = 0;
  *asserts = 0;
  *length = 0;
  if (!properties) return CL_SUCCESS;
  bool seen_flags = false, seen_asserts = false;
  size_t i = 0;
  for (; properties[i] != 0; i += 2) {
    if (properties[i] == CL_COMMAND_BUFFER_FLAGS_KHR && !seen_flags) {
      seen_flags = true;
      *flags = (cl_command_buffer_flags_khr)properties[i + 1];
      if (*flags & ~(cl_command_buffer_flags_khr)(CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR))
        return KILN_FAIL(CL_INVALID_VALUE, "CL_COMMAND_BUFFER_FLAGS_KHR 0x%llx has unknown bits",
                         (unsigned long long)*flags);
    } else if (properties[i] == CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR && !seen_asserts) {
      seen_asserts = true;
      *asserts = (cl_mutable_dispatch_asserts_khr)properties[i + 1];
      if (*asserts & ~KILN_MUTABLE_DISPATCH_ASSERTS)
        return KILN_FAIL(CL_INVALID_VALUE, "CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x%llx has unknown bits",
                         (unsigned long long)*asserts);
    } else {
      return KILN_FAIL(CL_INVALID_VALUE, "property 0x%llx is unknown or given twice",
                       (unsigned long long)properties[i]);
    }
  }
  *length = i + 1;
  if ((*flags & CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR) &&
      !(KILN_COMMAND_BUFFER_CAPABILITIES & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR))
    return CL_INVALID_PROPERTY;
  return CL_SUCCESS;
}

static cl_command_buffer_khr create_failed(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

CL_API_ENTRY cl_command_buffer_khr CL_API_CALL clCreateCommandBufferKHR(
    cl_uint num_queues, const cl_command_queue *queues, const cl_command_buffer_properties_khr *properties,
    cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!queues) return create_failed(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!queues"));
  if (num_queues != 1)
    return create_failed(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                                                "num_queues != 1")); /* no multi-device extension */
  cl_command_queue queue = queues[0];
  if (!kiln_queue_is_valid(queue))
    return create_failed(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue));
  cl_command_buffer_flags_khr flags;
  cl_mutable_dispatch_asserts_khr asserts;
  size_t length;
  cl_int err = parse_properties(properties, &flags, &asserts, &length);
  if (err != CL_SUCCESS) return create_failed(errcode_ret, err);

  cl_command_buffer_khr command_buffer = kiln_object_alloc(KILN_OBJECT_COMMAND_BUFFER, sizeof *command_buffer);
  if (!command_buffer)
    return create_failed(errcode_ret, KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!command_buffer"));
  command_buffer->context = queue->context;
  kiln_object_retain(&queue->context->obj);
  command_buffer->queue = queue;
  kiln_object_retain(&queue->obj);
  command_buffer->flags = flags;
  command_buffer->asserts = asserts;
  if (length) memcpy(command_buffer->properties, properties, length * sizeof *properties); /* 0 for NULL */
  command_buffer->properties_size = length * sizeof *properties;
  pthread_mutex_init(&command_buffer->lock, NULL);
  atomic_init(&command_buffer->pending, 0);
  atomic_init(&command_buffer->finalized, false);
  kiln_object_init(&command_buffer->obj, KILN_OBJECT_COMMAND_BUFFER, command_buffer_destroy);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return command_buffer;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  KILN_API_CALL;
  return kiln_object_api_retain(command_buffer, KILN_OBJECT_COMMAND_BUFFER, CL_INVALID_COMMAND_BUFFER_KHR);
}

/* A pending execution holds its own reference: the object outlives the release until the
 * execution completes. */
CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  KILN_API_CALL;
  return kiln_object_api_release(command_buffer, KILN_OBJECT_COMMAND_BUFFER, CL_INVALID_COMMAND_BUFFER_KHR);
}

CL_API_ENTRY cl_int CL_API_CALL clFinalizeCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  KILN_API_CALL;
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  pthread_mutex_lock(&command_buffer->lock);
  cl_int err;
  if (command_buffer->finalized) {
    err = KILN_FAIL(CL_INVALID_OPERATION, "the command buffer is already finalized");
  } else {
    err = kiln_command_buffer_build_version(command_buffer);
    if (err == CL_SUCCESS) atomic_store_explicit(&command_buffer->finalized, true, memory_order_release);
  }
  pthread_mutex_unlock(&command_buffer->lock);
  return err;
}

static cl_command_buffer_state_khr state_of(cl_command_buffer_khr command_buffer) {
  if (!atomic_load(&command_buffer->finalized)) return CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
  return atomic_load(&command_buffer->pending) ? CL_COMMAND_BUFFER_STATE_PENDING_KHR
                                               : CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR;
}

CL_API_ENTRY cl_int CL_API_CALL clGetCommandBufferInfoKHR(cl_command_buffer_khr command_buffer,
                                                          cl_command_buffer_info_khr param_name,
                                                          size_t param_value_size, void *param_value,
                                                          size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  switch (param_name) {
  case CL_COMMAND_BUFFER_NUM_QUEUES_KHR:
    KILN_INFO_VALUE(cl_uint, 1);
  case CL_COMMAND_BUFFER_QUEUES_KHR:
    KILN_INFO_VALUE(cl_command_queue, command_buffer->queue);
  case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR:
    KILN_INFO_VALUE(cl_uint, atomic_load(&command_buffer->obj.api_refs));
  case CL_COMMAND_BUFFER_STATE_KHR:
    KILN_INFO_VALUE(cl_command_buffer_state_khr, state_of(command_buffer));
  case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR:
    KILN_INFO_ARRAY(command_buffer->properties, command_buffer->properties_size);
  case CL_COMMAND_BUFFER_CONTEXT_KHR:
    KILN_INFO_VALUE(cl_context, command_buffer->context);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetCommandBufferInfoKHR knows",
                     (unsigned)param_name);
  }
}
