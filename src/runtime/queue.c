#include "runtime/queue.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/event.h"
#include "runtime/info.h"

#include "device/cpu/worker_pool.h"

#include <stdlib.h>

static void queue_destroy(struct kiln_object *object) {
  cl_command_queue queue = (cl_command_queue)object;
  pthread_mutex_destroy(&queue->lock);
  pthread_mutex_destroy(&queue->recorder_lock);
  free(queue->properties_array);
  cl_context context = queue->context;
  pthread_mutex_lock(&context->lock);
  if (queue->context_prev) queue->context_prev->context_next = queue->context_next;
  else context->queues = queue->context_next;
  if (queue->context_next) queue->context_next->context_prev = queue->context_prev;
  pthread_mutex_unlock(&context->lock);
  kiln_object_release(&context->obj);
  kiln_object_free(&queue->obj);
}

static bool context_has_device(cl_context context, cl_device_id device) {
  for (cl_uint i = 0; i < context->num_devices; i++)
    if (context->devices[i] == device) return true;
  return false;
}

/* Validation in the order the spec lists the errors. */
static cl_int check_context_device(cl_context context, cl_device_id device) {
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  if (!kiln_device_is_valid(device) || !context_has_device(context, device))
    return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)",
                     "!kiln_device_is_valid(device) || !context_has_device(context, device)");
  return CL_SUCCESS;
}

static cl_command_queue queue_create(cl_context context, cl_device_id device, const struct kiln_queue_config *cfg,
                                     const cl_queue_properties *properties, size_t properties_count,
                                     cl_int *errcode_ret) {
  cl_command_queue queue = kiln_object_alloc(KILN_OBJECT_QUEUE, sizeof *queue);
  cl_queue_properties *array = NULL;
  if (queue && properties_count) {
    array = malloc(properties_count * sizeof *array);
    if (array) memcpy(array, properties, properties_count * sizeof *array);
  }
  if (!queue || (properties_count && !array)) {
    if (queue) kiln_object_free(&queue->obj);
    if (errcode_ret) *errcode_ret = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  queue->context = context;
  kiln_object_retain(&context->obj);
  queue->device = device;
  queue->config = *cfg;
  /* Queues without a chosen placement take the worker pool's submission lanes in turn, so
   * that independent queues do not share one by default. */
  static atomic_uint next_lane;
  if (!cfg->placement.chosen)
    queue->config.placement.lane = atomic_fetch_add(&next_lane, 1) % kiln_worker_pool_lane_count();
  atomic_init(&queue->worker_limit.active, 0);
  queue->worker_limit.max = cfg->scheduling.compute_unit_limit;
  queue->properties_array = array;
  queue->properties_array_count = properties_count;
  pthread_mutex_init(&queue->lock, NULL);
  pthread_mutex_init(&queue->recorder_lock, NULL);
  kiln_object_init(&queue->obj, KILN_OBJECT_QUEUE, queue_destroy);
  /* Linked once its counts are set: kiln_context_finish may take it from here on. */
  pthread_mutex_lock(&context->lock);
  queue->context_next = context->queues;
  if (context->queues) context->queues->context_prev = queue;
  context->queues = queue;
  pthread_mutex_unlock(&context->lock);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return queue;
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context context,
                                                                             cl_device_id device,
                                                                             const cl_queue_properties *properties,
                                                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = check_context_device(context, device);
  struct kiln_queue_config cfg = {0};
  size_t count = 0;
  if (err == CL_SUCCESS) err = kiln_queue_properties_parse(properties, &cfg, &count);
  bool on_device = err == CL_SUCCESS && (cfg.properties & CL_QUEUE_ON_DEVICE);
  if (err == CL_SUCCESS && !on_device) err = kiln_queue_config_validate(&cfg);
  if (err != CL_SUCCESS) {
    if (errcode_ret) *errcode_ret = err;
    return NULL;
  }
  if (on_device) return kiln_device_queue_object_create(context, device, &cfg, properties, count, errcode_ret);
  return queue_create(context, device, &cfg, properties, count, errcode_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context, cl_device_id device,
                                                               cl_command_queue_properties properties,
                                                               cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = check_context_device(context, device);
  struct kiln_queue_config cfg = {0};
  if (err == CL_SUCCESS) err = kiln_queue_legacy_properties_parse(properties, &cfg);
  if (err == CL_SUCCESS) err = kiln_queue_config_validate(&cfg);
  if (err != CL_SUCCESS) {
    if (errcode_ret) *errcode_ret = err;
    return NULL;
  }
  return queue_create(context, device, &cfg, NULL, 0, errcode_ret);
}

void kiln_queue_recorder_lock(cl_command_queue queue) { pthread_mutex_lock(&queue->recorder_lock); }

void kiln_queue_recorder_unlock(cl_command_queue queue) { pthread_mutex_unlock(&queue->recorder_lock); }

bool kiln_queue_attach_recorder(cl_command_queue queue, const struct kiln_command_recorder *recorder) {
  pthread_mutex_lock(&queue->recorder_lock);
  bool free_slot = queue->config.recordable && !queue->recorder;
  if (free_slot) queue->recorder = recorder;
  pthread_mutex_unlock(&queue->recorder_lock);
  return free_slot;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue command_queue) {
  KILN_API_CALL;
  return kiln_object_api_retain(command_queue, kiln_queue_object_type(command_queue), CL_INVALID_COMMAND_QUEUE);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue command_queue) {
  KILN_API_CALL;
  /* The queue's memory stays until its commands, which hold internal references, have
   * completed. */
  kiln_worker_pool_flush(); /* the implicit flush (harmless when the handle is not valid) */
  return kiln_object_api_release(command_queue, kiln_queue_object_type(command_queue), CL_INVALID_COMMAND_QUEUE);
}

CL_API_ENTRY cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue command_queue,
                                                      cl_command_queue_info param_name, size_t param_value_size,
                                                      void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_queue_object_type(command_queue))
    return KILN_FAIL(CL_INVALID_COMMAND_QUEUE, "rejected since (%s)", "!kiln_queue_object_type(command_queue)");
  bool on_device = command_queue->device_queue != NULL;
  switch (param_name) {
  case CL_QUEUE_CONTEXT:
    KILN_INFO_VALUE(cl_context, command_queue->context);
  case CL_QUEUE_DEVICE:
    KILN_INFO_VALUE(cl_device_id, command_queue->device);
  case CL_QUEUE_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&command_queue->obj.api_refs));
  case CL_QUEUE_PROPERTIES:
    KILN_INFO_VALUE(cl_command_queue_properties,
                    command_queue->config.properties | command_queue->config.ext_property_bits);
  case CL_QUEUE_PROPERTIES_ARRAY:
    KILN_INFO_ARRAY(command_queue->properties_array,
                    command_queue->properties_array_count * sizeof(cl_queue_properties));
  case CL_QUEUE_SIZE:
    if (!on_device)
      return KILN_FAIL(CL_INVALID_COMMAND_QUEUE, "rejected since (%s)",
                       "!on_device"); /* only device queues have a size */
    KILN_INFO_VALUE(cl_uint, command_queue->config.device_queue_size);
  case CL_QUEUE_DEVICE_DEFAULT:
    KILN_INFO_VALUE(cl_command_queue, kiln_context_default_device_queue(command_queue->context));
  default:
    if (on_device) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "on_device");
    return kiln_queue_info_from_providers(command_queue, param_name, param_value_size, param_value,
                                          param_value_size_ret);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue command_queue,
                                                          cl_command_queue_properties properties, cl_bool enable,
                                                          cl_command_queue_properties *old_properties) {
  KILN_API_CALL;
  (void)properties;
  (void)enable;
  (void)old_properties;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  return CL_INVALID_OPERATION; /* only OpenCL 1.0 devices must support changing properties */
}

cl_context kiln_queue_context(cl_command_queue queue) { return queue->context; }

void kiln_queue_link_command(cl_command_queue queue, cl_event event, bool wait_for_all, bool is_barrier) {
  pthread_mutex_lock(&queue->lock);
  if (!kiln_queue_is_out_of_order(queue)) {
    if (queue->tail) kiln_event_add_dependent(queue->tail, event, false);
  } else if (wait_for_all) {
    for (cl_event c = queue->head; c; c = c->queue_next) kiln_event_add_dependent(c, event, false);
  } else if (queue->last_barrier) {
    kiln_event_add_dependent(queue->last_barrier, event, false);
  }
  event->queue_prev = queue->tail;
  event->queue_next = NULL;
  if (queue->tail) queue->tail->queue_next = event;
  else queue->head = event;
  queue->tail = event;
  event->in_queue_list = true;
  if (is_barrier) queue->last_barrier = event;
  pthread_mutex_unlock(&queue->lock);
}

void kiln_queue_unlink_command(cl_command_queue queue, cl_event event) {
  pthread_mutex_lock(&queue->lock);
  if (event->in_queue_list) {
    if (event->queue_prev) event->queue_prev->queue_next = event->queue_next;
    else queue->head = event->queue_next;
    if (event->queue_next) event->queue_next->queue_prev = event->queue_prev;
    else queue->tail = event->queue_prev;
    event->in_queue_list = false;
  }
  if (queue->last_barrier == event) queue->last_barrier = NULL;
  pthread_mutex_unlock(&queue->lock);
}
