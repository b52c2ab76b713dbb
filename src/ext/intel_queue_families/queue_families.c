/* queue_families.c: the extension's descriptor (runtime/extension.h): the families Kiln's
 * CPU device offers, the device query, the queue properties and queries, and the enqueue
 * check that applies family_rules.c. */
#include "ext/intel_queue_families/intel_queue_families.h"
#include "runtime/debug_err.h"

#include "device/cpu/copy_engine.h"
#include "runtime/event.h"
#include "runtime/extension.h"
#include "runtime/info.h"
#include "runtime/queue.h"

#include <string.h>

#define HOST_QUEUE_PROPERTIES (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
/* Buffer and image transfers are host-memory copies and fills: every engine runs them. */
#define TRANSFER_CAPABILITIES                                                                         \
  (CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL |        \
   CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL | CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL |                      \
   CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL | CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL |                    \
   CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL |            \
   CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL | CL_QUEUE_CAPABILITY_MARKER_INTEL |                \
   CL_QUEUE_CAPABILITY_BARRIER_INTEL)
#define EVENT_CAPABILITIES                                                                            \
  (CL_QUEUE_CAPABILITY_CREATE_SINGLE_QUEUE_EVENTS_INTEL | CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL | \
   CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL | CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL)

static const struct family {
  const char *name;
  cl_command_queue_properties properties;
  cl_command_queue_capabilities_intel capabilities;
  enum kiln_queue_engine engine;
} families[] = {
    /* Default capabilities and CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, as the spec requires of one family. */
    {"compute (worker pool lanes)", HOST_QUEUE_PROPERTIES, CL_QUEUE_DEFAULT_CAPABILITIES_INTEL, KILN_ENGINE_WORKERS},
    {"copy (copy engine threads)", HOST_QUEUE_PROPERTIES, TRANSFER_CAPABILITIES | EVENT_CAPABILITIES,
     KILN_ENGINE_COPY_THREAD},
    /* Its commands complete inside the enqueue call: no events to create or wait for, and
     * nothing to reorder or profile. */
    {"immediate copy (calling thread)", 0, TRANSFER_CAPABILITIES, KILN_ENGINE_CALLER},
};
#define FAMILY_COUNT (sizeof families / sizeof families[0])

static cl_uint family_queue_count(const struct family *family) {
  switch (family->engine) {
  case KILN_ENGINE_WORKERS:
    return kiln_worker_pool_lane_count();
  case KILN_ENGINE_COPY_THREAD:
    return KILN_COPY_ENGINES;
  default:
    return 1;
  }
}

static cl_int device_info(cl_device_id device, cl_device_info param_name, size_t param_value_size, void *param_value,
                          size_t *param_value_size_ret) {
  (void)device;
  if (param_name != CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "param_name != CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL");
  cl_queue_family_properties_intel table[FAMILY_COUNT];
  memset(table, 0, sizeof table);
  for (size_t i = 0; i < FAMILY_COUNT; i++) {
    table[i].properties = families[i].properties;
    table[i].capabilities = families[i].capabilities;
    table[i].count = family_queue_count(&families[i]);
    strncpy(table[i].name, families[i].name, CL_QUEUE_FAMILY_MAX_NAME_SIZE_INTEL - 1);
  }
  KILN_INFO_ARRAY(table, sizeof table);
}

/* The family and index given at creation; false for a queue created without them. */
static bool queue_family(const struct kiln_queue_config *cfg, cl_queue_properties *family,
                         cl_queue_properties *index) {
  return kiln_queue_config_find(cfg, CL_QUEUE_FAMILY_INTEL, family) &&
         kiln_queue_config_find(cfg, CL_QUEUE_INDEX_INTEL, index);
}

static cl_command_queue_capabilities_intel queue_capabilities(cl_command_queue queue) {
  cl_queue_properties family, index;
  if (!kiln_queue_has_extension_properties(&queue->config) || !queue_family(&queue->config, &family, &index))
    return CL_QUEUE_DEFAULT_CAPABILITIES_INTEL;
  return families[family].capabilities;
}

/* Each value alone: the family must exist; the index is checked against its family once
 * both are known (validate_family). */
static cl_int parse_family_property(cl_queue_properties name, cl_queue_properties value,
                                    struct kiln_queue_config *cfg) {
  (void)cfg;
  if (name == CL_QUEUE_FAMILY_INTEL) return value < FAMILY_COUNT ? CL_SUCCESS : CL_INVALID_VALUE;
  if (name == CL_QUEUE_INDEX_INTEL) return value <= CL_UINT_MAX ? CL_SUCCESS : CL_INVALID_VALUE;
  return KILN_QUEUE_PROPERTY_NOT_MINE;
}

static cl_int validate_family(struct kiln_queue_config *cfg) {
  cl_queue_properties family, index;
  bool has_family = kiln_queue_config_find(cfg, CL_QUEUE_FAMILY_INTEL, &family);
  bool has_index = kiln_queue_config_find(cfg, CL_QUEUE_INDEX_INTEL, &index);
  if (has_family != has_index)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "has_family != has_index"); /* both or neither */
  if (!has_family) return CL_SUCCESS;
  const struct family *f = &families[family];
  if (index >= family_queue_count(f))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "index >= family_queue_count(f)");
  /* Valid properties the family does not support; an extension's bits (a recordable
   * queue, which only records kernels) only on the default-capabilities family. */
  if (cfg->properties & ~f->properties)
    return KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES, "rejected since (%s)", "cfg->properties & ~f->properties");
  if (cfg->ext_property_bits && f->capabilities != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL)
    return KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES, "rejected since (%s)",
                     "cfg->ext_property_bits && f->capabilities != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL");
  cfg->placement.engine = f->engine;
  cfg->placement.lane = (unsigned)index;
  cfg->placement.chosen = true;
  return CL_SUCCESS;
}

/* A queue created without a family is in the compute family, on the lane the core gave it. */
static cl_int family_queue_info(cl_command_queue queue, cl_command_queue_info param_name, size_t param_value_size,
                                void *param_value, size_t *param_value_size_ret) {
  cl_queue_properties family = 0, index = queue->config.placement.lane;
  if (param_name != CL_QUEUE_FAMILY_INTEL && param_name != CL_QUEUE_INDEX_INTEL)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "param_name != CL_QUEUE_FAMILY_INTEL && param_name != CL_QUEUE_INDEX_INTEL");
  queue_family(&queue->config, &family, &index);
  KILN_INFO_VALUE(cl_uint, (cl_uint)(param_name == CL_QUEUE_FAMILY_INTEL ? family : index));
}

static cl_int check_enqueue(const struct kiln_enqueue_check *check) {
  cl_command_queue queue = check->queue;
  cl_command_queue_capabilities_intel caps = queue_capabilities(queue);
  cl_int err = kiln_family_check_command(caps, check->type);
  if (err == CL_SUCCESS && check->num_events) err = kiln_family_check_wait_list(caps);
  for (cl_uint i = 0; err == CL_SUCCESS && i < check->num_events; i++) {
    cl_command_queue event_queue = check->wait_list[i]->queue;
    err = kiln_family_check_wait_event(caps, event_queue == queue, event_queue != NULL,
                                       event_queue ? queue_capabilities(event_queue) : 0);
  }
  if (err == CL_SUCCESS && check->returns_event) err = kiln_family_check_event_request(caps);
  return err;
}

const struct kiln_extension kiln_ext_intel_command_queue_families = {
    .name = "cl_intel_command_queue_families",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .device_info = device_info,
    .parse_queue_property = parse_family_property,
    .validate_queue_config = validate_family,
    .queue_info = family_queue_info,
    .check_enqueue = check_enqueue,
};
