#include "runtime/context.h"
#include "runtime/debug_err.h"

#include "runtime/device.h"
#include "runtime/info.h"
#include "runtime/platform.h"

#include <stdlib.h>

static void context_destroy(struct kiln_object *object) {
  cl_context context = (cl_context)object;
  /* Destructor callbacks run newest first, after every object of the context is gone. */
  struct kiln_context_destructor *d = context->destructors;
  while (d) {
    struct kiln_context_destructor *next = d->next;
    d->notify(context, d->user_data);
    free(d);
    d = next;
  }
  pthread_mutex_destroy(&context->lock);
  pthread_mutex_destroy(&context->default_device_queue.lock);
  free(context->devices);
  free(context->properties);
  kiln_object_free(&context->obj);
}

void kiln_context_report_error(cl_context context, const char *errinfo) {
  if (context->notify) context->notify(errinfo, NULL, 0, context->notify_user_data);
}

/* Validates and copies the property list. Kiln knows CL_CONTEXT_PLATFORM and
 * CL_CONTEXT_INTEROP_USER_SYNC; each may appear once. */
static cl_int context_parse_properties(const cl_context_properties *properties, cl_context context) {
  if (!properties) return CL_SUCCESS;
  size_t n = 0;
  bool seen_platform = false, seen_sync = false;
  while (properties[n] != 0) {
    cl_context_properties name = properties[n], value = properties[n + 1];
    switch (name) {
    case CL_CONTEXT_PLATFORM:
      if (seen_platform) return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "seen_platform");
      if ((cl_platform_id)value != kiln_platform_get())
        return KILN_FAIL(CL_INVALID_PLATFORM, "rejected since (%s)", "(cl_platform_id)value != kiln_platform_get()");
      seen_platform = true;
      break;
    case CL_CONTEXT_INTEROP_USER_SYNC:
      if (seen_sync) return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "seen_sync");
      if (value != CL_TRUE && value != CL_FALSE)
        return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "value != CL_TRUE && value != CL_FALSE");
      seen_sync = true;
      break;
    default:
      return CL_INVALID_PROPERTY;
    }
    n += 2;
  }
  context->properties_count = n + 1;
  context->properties = malloc(context->properties_count * sizeof *properties);
  if (!context->properties) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!context->properties");
  memcpy(context->properties, properties, context->properties_count * sizeof *properties);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                                                    const cl_device_id *devices,
                                                    kiln_context_notify_fn pfn_notify, void *user_data,
                                                    cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = CL_SUCCESS;
  cl_context context = NULL;
  if (!devices || num_devices == 0 || (!pfn_notify && user_data)) {
    err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                    "!devices || num_devices == 0 || (!pfn_notify && user_data)");
    goto out;
  }
  for (cl_uint i = 0; i < num_devices; i++) {
    if (!kiln_device_is_valid(devices[i])) {
      err = KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!kiln_device_is_valid(devices[i])");
      goto out;
    }
  }
  context = kiln_object_alloc(KILN_OBJECT_CONTEXT, sizeof *context);
  if (!context) {
    err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!context");
    goto out;
  }
  err = context_parse_properties(properties, context);
  if (err == CL_SUCCESS) {
    context->devices = malloc(num_devices * sizeof *devices);
    if (!context->devices) err = CL_OUT_OF_HOST_MEMORY;
  }
  if (err != CL_SUCCESS) {
    free(context->properties);
    kiln_object_free(&context->obj);
    context = NULL;
    goto out;
  }
  memcpy(context->devices, devices, num_devices * sizeof *devices);
  context->num_devices = num_devices;
  context->device = devices[0];
  context->notify = pfn_notify;
  context->notify_user_data = user_data;
  pthread_mutex_init(&context->lock, NULL);
  pthread_mutex_init(&context->default_device_queue.lock, NULL);
  kiln_object_init(&context->obj, KILN_OBJECT_CONTEXT, context_destroy);
out:
  if (errcode_ret) *errcode_ret = err;
  return context;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContextFromType(const cl_context_properties *properties,
                                                            cl_device_type device_type,
                                                            kiln_context_notify_fn pfn_notify, void *user_data,
                                                            cl_int *errcode_ret) {
  KILN_API_CALL;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  cl_int err = CL_SUCCESS;
  if (!pfn_notify && user_data)
    err = KILN_FAIL(CL_INVALID_VALUE, "user_data is not NULL but pfn_notify is");
  else if (device_type == 0 || (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~known)))
    err = KILN_FAIL(CL_INVALID_DEVICE_TYPE, "device_type 0x%llx is not a valid device type",
                    (unsigned long long)device_type);
  else if (!(device_type & (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU)))
    err = KILN_FAIL(CL_DEVICE_NOT_FOUND, "device_type 0x%llx: Kiln's one device is a CPU (CL_DEVICE_TYPE_CPU)",
                    (unsigned long long)device_type);
  if (err != CL_SUCCESS) {
    if (errcode_ret) *errcode_ret = err;
    return NULL;
  }
  cl_device_id device = kiln_device_get();
  return clCreateContext(properties, 1, &device, pfn_notify, user_data, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context context) {
  KILN_API_CALL;
  return kiln_object_api_retain(context, KILN_OBJECT_CONTEXT, CL_INVALID_CONTEXT);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context context) {
  KILN_API_CALL;
  return kiln_object_api_release(context, KILN_OBJECT_CONTEXT, CL_INVALID_CONTEXT);
}

CL_API_ENTRY cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  switch (param_name) {
  case CL_CONTEXT_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&context->obj.api_refs));
  case CL_CONTEXT_NUM_DEVICES:
    KILN_INFO_VALUE(cl_uint, context->num_devices);
  case CL_CONTEXT_DEVICES:
    KILN_INFO_ARRAY(context->devices, context->num_devices * sizeof(cl_device_id));
  case CL_CONTEXT_PROPERTIES:
    KILN_INFO_ARRAY(context->properties, context->properties_count * sizeof(cl_context_properties));
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetContextInfo knows", (unsigned)param_name);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clSetContextDestructorCallback(cl_context context,
                                                               void(CL_CALLBACK *pfn_notify)(cl_context, void *),
                                                               void *user_data) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  if (!pfn_notify) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!pfn_notify");
  struct kiln_context_destructor *d = malloc(sizeof *d);
  if (!d) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!d");
  d->notify = pfn_notify;
  d->user_data = user_data;
  pthread_mutex_lock(&context->lock);
  d->next = context->destructors;
  context->destructors = d;
  pthread_mutex_unlock(&context->lock);
  return CL_SUCCESS;
}
