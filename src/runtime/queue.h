/* queue.h: host command-queues. A queue links each command after its dependencies:
 * in order, the previous command; out of order, only its wait list and the last
 * barrier. It tracks its incomplete commands so that markers and barriers with an
 * empty wait list, and clFinish, can wait for all of them. */
#ifndef KILN_RUNTIME_QUEUE_H
#define KILN_RUNTIME_QUEUE_H

#include "device/cpu/worker_limit.h"
#include "runtime/command.h"

#include <pthread.h>

/* Property values the core parser did not know but an extension parser accepted. */
#define KILN_QUEUE_EXT_PROPERTIES_MAX 8

/* How the scheduler treats a queue's commands; all zero is the default. Extension parsers
 * (cl_arm_scheduling_controls) set them; the scheduler and clFlush act on them. */
struct kiln_queue_scheduling {
  unsigned compute_unit_limit; /* at most this many threads run the queue's kernels at once; 0: none */
  bool no_kernel_batching;     /* each command wakes workers once ready, instead of at the next flush */
  bool flush_in_caller;        /* clFlush runs queued work in the calling thread */
};

/* The execution resource that runs a queue's commands (cl_intel_command_queue_families'
 * family and index). All zero: the core picks a worker-pool lane at creation. */
enum kiln_queue_engine {
  KILN_ENGINE_WORKERS,     /* the worker pool, on submission lane `lane` */
  KILN_ENGINE_COPY_THREAD, /* copy engine `lane` (device/cpu/copy_engine.h): transfers beside kernels */
  KILN_ENGINE_CALLER,      /* the enqueueing thread, before the enqueue call returns */
};
struct kiln_queue_placement {
  enum kiln_queue_engine engine;
  unsigned lane;
  bool chosen;             /* an extension set it; else the core assigns lanes in turn */
};

struct kiln_queue_config {
  cl_command_queue_properties properties;        /* CL_QUEUE_PROPERTIES bits the core knows */
  uint32_t device_queue_size;                    /* CL_QUEUE_SIZE of a device queue (CL_QUEUE_ON_DEVICE) */
  struct kiln_queue_scheduling scheduling;
  struct kiln_queue_placement placement;
  cl_command_queue_properties ext_property_bits; /* CL_QUEUE_PROPERTIES bits an extension accepted */
  bool recordable;         /* an extension may attach a recorder (kiln_queue_attach_recorder) */
  unsigned ext_count;
  cl_queue_properties ext_names[KILN_QUEUE_EXT_PROPERTIES_MAX];
  cl_queue_properties ext_values[KILN_QUEUE_EXT_PROPERTIES_MAX];
};

/* The extension hooks below are fields of extension descriptors (runtime/extension.h).
 *
 * Extension hook: consulted for every property name the core does not know, and with
 * name == CL_QUEUE_PROPERTIES and value == the unknown bits for bits of that bitfield the
 * core does not know (cfg->properties then already holds the known bits). Return
 * KILN_QUEUE_PROPERTY_NOT_MINE to let other parsers look, CL_SUCCESS to accept (the core
 * then records the pair in cfg->ext_*, or the bits in cfg->ext_property_bits), or the CL
 * error to report (CL_INVALID_VALUE, CL_INVALID_QUEUE_PROPERTIES). */
typedef cl_int (*kiln_queue_property_parser)(cl_queue_properties name, cl_queue_properties value,
                                             struct kiln_queue_config *cfg);
#define KILN_QUEUE_PROPERTY_NOT_MINE 1

/* Extension hook run once the whole property list is parsed (and for clCreateCommandQueue's
 * bitfield): checks combinations of properties and may set cfg->placement. Returns
 * CL_SUCCESS or the error to report. */
typedef cl_int (*kiln_queue_config_validator)(struct kiln_queue_config *cfg);
cl_int kiln_queue_config_validate(struct kiln_queue_config *cfg);

/* Extension hook for clGetCommandQueueInfo names the core does not answer: CL_INVALID_VALUE
 * for names it does not know either. */
typedef cl_int (*kiln_queue_info_provider)(cl_command_queue queue, cl_command_queue_info param_name,
                                           size_t param_value_size, void *param_value, size_t *param_value_size_ret);
cl_int kiln_queue_info_from_providers(cl_command_queue queue, cl_command_queue_info param_name,
                                      size_t param_value_size, void *param_value, size_t *param_value_size_ret);

static inline bool kiln_queue_has_extension_properties(const struct kiln_queue_config *cfg) {
  return cfg->ext_property_bits != 0 || cfg->ext_count != 0;
}

/* Parses a clCreateCommandQueueWithProperties list (NULL allowed); *count receives the
 * number of entries including the terminating 0 (0 when NULL). */
cl_int kiln_queue_properties_parse(const cl_queue_properties *properties, struct kiln_queue_config *cfg,
                                   size_t *count);
/* Validates the bitfield of clCreateCommandQueue (1.x). */
cl_int kiln_queue_legacy_properties_parse(cl_command_queue_properties properties, struct kiln_queue_config *cfg);

/* True and *value when an extension property `name` was given at creation. */
bool kiln_queue_config_find(const struct kiln_queue_config *cfg, cl_queue_properties name,
                            cl_queue_properties *value);

struct _cl_command_queue {
  struct kiln_object obj;
  cl_context context;                 /* internal reference */
  cl_device_id device;
  struct kiln_queue_config config;
  struct kiln_worker_limit worker_limit; /* config.scheduling.compute_unit_limit places */
  cl_queue_properties *properties_array; /* as given incl. terminator; NULL when none */
  size_t properties_array_count;

  /* Recordable queues: while `recorder` is set, their sink records instead of submitting.
   * The lock is held from kiln_queue_sink_open to kiln_queue_sink_close, so a recorder is
   * detached only once no enqueue is using it. */
  pthread_mutex_t recorder_lock;
  const struct kiln_command_recorder *recorder;

  /* The context's list of its queues (context->lock): kiln_context_finish walks it. */
  struct _cl_command_queue *context_prev, *context_next;

  /* A device queue (CL_QUEUE_ON_DEVICE; object type KILN_OBJECT_DEVICE_QUEUE, so that no
   * host enqueue accepts it): what kernels enqueue to (device/cpu/device_enqueue.h). */
  struct kiln_device_queue *device_queue;

  pthread_mutex_t lock;               /* guards the list below and last_barrier */
  struct _cl_event *head, *tail;      /* incomplete commands in enqueue order */
  struct _cl_event *last_barrier;     /* incomplete barrier later commands wait for */
};

/* device_queue.c: a device queue for a parsed CL_QUEUE_ON_DEVICE configuration (the
 * context's default one when CL_QUEUE_ON_DEVICE_DEFAULT asks for it and it exists). */
cl_command_queue kiln_device_queue_object_create(cl_context context, cl_device_id device,
                                                 const struct kiln_queue_config *cfg,
                                                 const cl_queue_properties *properties, size_t properties_count,
                                                 cl_int *errcode_ret);
/* A host or device queue: which object type it is, 0 when neither. */
kiln_object_type kiln_queue_object_type(cl_command_queue queue);
/* The context's default device queue object, or NULL (CL_QUEUE_DEVICE_DEFAULT). */
cl_command_queue kiln_context_default_device_queue(cl_context context);

/* The limit the queue's kernels share, or NULL when it has none. */
static inline struct kiln_worker_limit *kiln_queue_worker_limit(cl_command_queue queue) {
  return queue->config.scheduling.compute_unit_limit ? &queue->worker_limit : NULL;
}

static inline bool kiln_queue_is_out_of_order(cl_command_queue queue) {
  return (queue->config.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

/* The sink of an enqueue on `queue`: submission, or the recorder attached to it. Every
 * open is followed by kiln_queue_sink_close once the command was taken (or refused).
 * Inline: every NDRange enqueue opens one, and only recordable queues take the lock. */
void kiln_queue_recorder_lock(cl_command_queue queue);
void kiln_queue_recorder_unlock(cl_command_queue queue);
static inline void kiln_queue_sink_open(cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
                                        cl_event *event, struct kiln_command_sink *sink) {
  *sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  if (queue->config.recordable) {
    kiln_queue_recorder_lock(queue);
    sink->recorder = queue->recorder;
  }
}
static inline void kiln_queue_sink_close(const struct kiln_command_sink *sink) {
  if (sink->queue->config.recordable) kiln_queue_recorder_unlock(sink->queue);
}
/* Attaches `recorder` to a recordable queue: false when another one is attached. */
bool kiln_queue_attach_recorder(cl_command_queue queue, const struct kiln_command_recorder *recorder);
/* Detaching: under kiln_queue_recorder_lock, `queue->recorder = NULL` (clEndRecordingQCOM). */

/* Links a new command into `queue`: records its implicit dependencies (in-order
 * predecessor, last barrier; all incomplete commands when `wait_for_all`), and when
 * `is_barrier` makes later commands wait for it. Called once per command at submission. */
void kiln_queue_link_command(cl_command_queue queue, cl_event event, bool wait_for_all, bool is_barrier);
/* Removes a completed command from the queue's list. */
void kiln_queue_unlink_command(cl_command_queue queue, cl_event event);

/* clFinish's work on a valid queue (queue_sync.c). */
cl_int kiln_queue_finish(cl_command_queue queue);
/* Finishes every queue of `context` (cl_intel_unified_shared_memory's blocking free: every
 * command enqueued before the call has completed when it returns). CL_OUT_OF_HOST_MEMORY
 * when the list of queues cannot be copied. */
cl_int kiln_context_finish(cl_context context);

/* Enqueues a marker or barrier (internal helper shared by the sync entry points). */
cl_int kiln_queue_enqueue_sync(cl_command_queue queue, cl_command_type type, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event, cl_bool blocking);

#endif
