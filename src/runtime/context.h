/* context.h: contexts. A context holds one internal reference on itself for each
 * queue, memory object, sampler, program and event created in it, so it is destroyed
 * only after all of them. */
#ifndef KILN_RUNTIME_CONTEXT_H
#define KILN_RUNTIME_CONTEXT_H

#include "runtime/object.h"

#include "device/cpu/device_enqueue.h"

#include <pthread.h>

typedef void (CL_CALLBACK *kiln_context_notify_fn)(const char *errinfo, const void *private_info, size_t cb,
                                                   void *user_data);

struct kiln_context_destructor {
  void (CL_CALLBACK *notify)(cl_context context, void *user_data);
  void *user_data;
  struct kiln_context_destructor *next; /* newest first: the spec calls them in reverse order */
};

struct _cl_context {
  struct kiln_object obj;
  cl_device_id device;                 /* Kiln has one device; a context holds it once or more */
  cl_uint num_devices;                 /* as given by the application (duplicates allowed) */
  cl_device_id *devices;
  cl_context_properties *properties;   /* copy incl. terminating 0, NULL when none were given */
  size_t properties_count;             /* entries incl. the terminator; 0 when none */
  kiln_context_notify_fn notify;
  void *notify_user_data;
  pthread_mutex_t lock;                /* guards destructors and queues */
  struct kiln_context_destructor *destructors;
  struct _cl_command_queue *queues;    /* its queues not yet destroyed, linked by queue.c */
  /* The default device queue (device_queue.c): what get_default_queue returns, guarded by
   * its lock like `default_device_queue_object` (a weak pointer: the queue clears it). */
  struct kiln_default_device_queue default_device_queue;
  struct _cl_command_queue *default_device_queue_object;
};

static inline bool kiln_context_is_valid(cl_context context) {
  return kiln_object_is_valid(context, KILN_OBJECT_CONTEXT);
}

/* Reports an asynchronous error through the context's pfn_notify, if any. */
void kiln_context_report_error(cl_context context, const char *errinfo);

#endif
