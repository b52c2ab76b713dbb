/* device_queue.c: device command-queues (CL_QUEUE_ON_DEVICE), which only kernels enqueue
 * to (device/cpu/device_enqueue.h), and the context's default one
 * (clSetDefaultDeviceCommandQueue, get_default_queue). A device queue is a
 * cl_command_queue of its own object type: every host enqueue and clFinish/clFlush refuse
 * it as "not a valid host command-queue"; retain, release and info take both kinds. */
#include "runtime/context.h"
#include "runtime/debug_err.h"
#include "runtime/device.h"
#include "runtime/queue.h"

#include <stdlib.h>
#include <string.h>

kiln_object_type kiln_queue_object_type(cl_command_queue queue) {
  if (kiln_object_is_valid(queue, KILN_OBJECT_QUEUE)) return KILN_OBJECT_QUEUE;
  if (kiln_object_is_valid(queue, KILN_OBJECT_DEVICE_QUEUE)) return KILN_OBJECT_DEVICE_QUEUE;
  return 0;
}

cl_command_queue kiln_context_default_device_queue(cl_context context) {
  pthread_mutex_lock(&context->default_device_queue.lock);
  cl_command_queue queue = context->default_device_queue_object;
  pthread_mutex_unlock(&context->default_device_queue.lock);
  return queue;
}

/* Makes `queue` the default (slot lock held). */
static void set_default_locked(cl_context context, cl_command_queue queue) {
  struct kiln_default_device_queue *slot = &context->default_device_queue;
  kiln_device_queue_retain(queue->device_queue);
  kiln_device_queue_release(slot->queue);
  slot->queue = queue->device_queue;
  context->default_device_queue_object = queue;
}

static void device_queue_destroy(struct kiln_object *object) {
  cl_command_queue queue = (cl_command_queue)object;
  cl_context context = queue->context;
  struct kiln_default_device_queue *slot = &context->default_device_queue;
  pthread_mutex_lock(&slot->lock);
  if (context->default_device_queue_object == queue) {
    context->default_device_queue_object = NULL;
    kiln_device_queue_release(slot->queue);
    slot->queue = NULL;
  }
  pthread_mutex_unlock(&slot->lock);
  /* Launches still running hold the device-side queue themselves. */
  kiln_device_queue_release(queue->device_queue);
  free(queue->properties_array);
  kiln_object_release(&context->obj);
  kiln_object_free(&queue->obj);
}

static cl_command_queue device_queue_alloc(cl_context context, cl_device_id device, const struct kiln_queue_config *cfg,
                                           const cl_queue_properties *properties, size_t properties_count) {
  cl_command_queue queue = kiln_object_alloc(KILN_OBJECT_DEVICE_QUEUE, sizeof *queue);
  cl_queue_properties *array = properties_count ? malloc(properties_count * sizeof *array) : NULL;
  struct kiln_device_queue *device_queue =
      kiln_device_queue_create(cfg->device_queue_size, (cfg->properties & CL_QUEUE_PROFILING_ENABLE) != 0);
  if (!queue || !device_queue || (properties_count && !array)) {
    if (queue) kiln_object_free(&queue->obj);
    kiln_device_queue_release(device_queue);
    free(array);
    return NULL;
  }
  if (array) memcpy(array, properties, properties_count * sizeof *array);
  queue->context = context;
  kiln_object_retain(&context->obj);
  queue->device = device;
  queue->config = *cfg;
  queue->properties_array = array;
  queue->properties_array_count = properties_count;
  queue->device_queue = device_queue;
  kiln_object_init(&queue->obj, KILN_OBJECT_DEVICE_QUEUE, device_queue_destroy);
  return queue;
}

cl_command_queue kiln_device_queue_object_create(cl_context context, cl_device_id device,
                                                 const struct kiln_queue_config *cfg,
                                                 const cl_queue_properties *properties, size_t properties_count,
                                                 cl_int *errcode_ret) {
  bool as_default = (cfg->properties & CL_QUEUE_ON_DEVICE_DEFAULT) != 0;
  struct kiln_default_device_queue *slot = &context->default_device_queue;
  cl_command_queue queue = NULL;
  pthread_mutex_lock(&slot->lock);
  /* A second CL_QUEUE_ON_DEVICE_DEFAULT request returns the default queue, retained (one
   * whose last API reference went is being destroyed: a new one replaces it). */
  cl_command_queue existing = context->default_device_queue_object;
  if (as_default && existing &&
      kiln_object_api_retain(existing, KILN_OBJECT_DEVICE_QUEUE, CL_INVALID_COMMAND_QUEUE) == CL_SUCCESS) {
    queue = existing;
  } else {
    queue = device_queue_alloc(context, device, cfg, properties, properties_count);
    if (queue && as_default) set_default_locked(context, queue);
  }
  pthread_mutex_unlock(&slot->lock);
  if (errcode_ret) *errcode_ret = queue ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  return queue;
}

CL_API_ENTRY cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context context, cl_device_id device,
                                                               cl_command_queue command_queue) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  bool in_context = false;
  for (cl_uint i = 0; kiln_device_is_valid(device) && i < context->num_devices; i++)
    in_context |= context->devices[i] == device;
  if (!in_context) return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!in_context");
  if (!kiln_object_is_valid(command_queue, KILN_OBJECT_DEVICE_QUEUE) || command_queue->context != context ||
      command_queue->device != device)
    return CL_INVALID_COMMAND_QUEUE;
  pthread_mutex_lock(&context->default_device_queue.lock);
  set_default_locked(context, command_queue);
  pthread_mutex_unlock(&context->default_device_queue.lock);
  return CL_SUCCESS;
}
