/* Queue property parsing. The core knows CL_QUEUE_PROPERTIES (out-of-order, profiling;
 * on-device bits are valid but unsupported) and CL_QUEUE_SIZE; every other name, and
 * unknown CL_QUEUE_PROPERTIES bits, go to the parsers extensions register. */
#include "runtime/queue.h"

#include <pthread.h>

/* The extension hook registries: fixed tables that constructors fill, read without a lock
 * (an entry is stored before the count that publishes it). */
static pthread_mutex_t registries_lock = PTHREAD_MUTEX_INITIALIZER;
#define HOOK_REGISTRY(name, type, max)                                                                    \
  static type name##_table[max];                                                                         \
  static atomic_uint name##_count;                                                                       \
  static bool name##_add(type entry) {                                                                    \
    pthread_mutex_lock(&registries_lock);                                                                \
    unsigned n = atomic_load(&name##_count);                                                             \
    bool ok = n < (max);                                                                                 \
    if (ok) {                                                                                            \
      name##_table[n] = entry;                                                                           \
      atomic_store(&name##_count, n + 1);                                                                \
    }                                                                                                    \
    pthread_mutex_unlock(&registries_lock);                                                              \
    return ok;                                                                                           \
  }

HOOK_REGISTRY(parsers, kiln_queue_property_parser, 16)
HOOK_REGISTRY(enqueue_hooks, const struct kiln_queue_enqueue_hooks *, 4)
HOOK_REGISTRY(validators, kiln_queue_config_validator, 4)
HOOK_REGISTRY(info_providers, kiln_queue_info_provider, 4)

bool kiln_queue_property_parser_register(kiln_queue_property_parser parser) { return parsers_add(parser); }

static cl_int ask_extensions(cl_queue_properties name, cl_queue_properties value, struct kiln_queue_config *cfg) {
  unsigned n = atomic_load(&parsers_count);
  for (unsigned i = 0; i < n; i++) {
    cl_int result = parsers_table[i](name, value, cfg);
    if (result != KILN_QUEUE_PROPERTY_NOT_MINE) return result;
  }
  return CL_INVALID_VALUE;
}

static const cl_command_queue_properties core_bits =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
static const cl_command_queue_properties device_queue_bits = CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;

static cl_int parse_bitfield(cl_command_queue_properties bits, bool allow_device_bits,
                             struct kiln_queue_config *cfg) {
  cl_command_queue_properties known = core_bits | (allow_device_bits ? device_queue_bits : 0);
  cl_command_queue_properties unknown = bits & ~known;
  /* Device-queue bits first, so that their errors do not depend on extension bits. */
  if (bits & known & device_queue_bits) {
    /* ON_DEVICE_DEFAULT needs ON_DEVICE, ON_DEVICE needs out-of-order: otherwise not valid.
     * Valid device-queue requests are unsupported: Kiln has no on-device queues. */
    if ((bits & CL_QUEUE_ON_DEVICE_DEFAULT) && !(bits & CL_QUEUE_ON_DEVICE)) return CL_INVALID_VALUE;
    if (!(bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return CL_INVALID_VALUE;
    return CL_INVALID_QUEUE_PROPERTIES;
  }
  cfg->properties = bits & core_bits; /* extension parsers may refuse combinations with these */
  if (unknown) {
    cl_int err = ask_extensions(CL_QUEUE_PROPERTIES, unknown, cfg);
    if (err != CL_SUCCESS) return err;
    cfg->ext_property_bits |= unknown;
  }
  return CL_SUCCESS;
}

cl_int kiln_queue_legacy_properties_parse(cl_command_queue_properties properties, struct kiln_queue_config *cfg) {
  return parse_bitfield(properties, false, cfg);
}

cl_int kiln_queue_properties_parse(const cl_queue_properties *properties, struct kiln_queue_config *cfg,
                                   size_t *count) {
  *count = 0;
  if (!properties) return CL_SUCCESS;
  bool seen_properties = false, seen_size = false;
  cl_command_queue_properties bits = 0;
  size_t n = 0;
  for (; properties[n] != 0; n += 2) {
    cl_queue_properties name = properties[n], value = properties[n + 1];
    for (size_t k = 0; k < n; k += 2)
      if (properties[k] == name) return CL_INVALID_VALUE; /* each name at most once */
    if (name == CL_QUEUE_PROPERTIES) {
      seen_properties = true;
      bits = (cl_command_queue_properties)value;
    } else if (name == CL_QUEUE_SIZE) {
      seen_size = true;
    } else {
      cl_int err = ask_extensions(name, value, cfg);
      if (err != CL_SUCCESS) return err;
      if (cfg->ext_count == KILN_QUEUE_EXT_PROPERTIES_MAX) return CL_INVALID_VALUE;
      cfg->ext_names[cfg->ext_count] = name;
      cfg->ext_values[cfg->ext_count++] = value;
    }
  }
  *count = n + 1;
  if (seen_properties) {
    cl_int err = parse_bitfield(bits, true, cfg);
    if (err != CL_SUCCESS) return err;
  }
  /* CL_QUEUE_SIZE is only valid with CL_QUEUE_ON_DEVICE, which was refused above. */
  if (seen_size) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

bool kiln_queue_config_find(const struct kiln_queue_config *cfg, cl_queue_properties name,
                            cl_queue_properties *value) {
  for (unsigned i = 0; i < cfg->ext_count; i++) {
    if (cfg->ext_names[i] == name) {
      if (value) *value = cfg->ext_values[i];
      return true;
    }
  }
  return false;
}

bool kiln_queue_enqueue_hooks_register(const struct kiln_queue_enqueue_hooks *hooks) {
  return enqueue_hooks_add(hooks);
}

const struct kiln_queue_enqueue_hooks *const *kiln_queue_enqueue_hooks(unsigned *count) {
  *count = atomic_load(&enqueue_hooks_count);
  return enqueue_hooks_table;
}

bool kiln_queue_config_validator_register(kiln_queue_config_validator validator) { return validators_add(validator); }

cl_int kiln_queue_config_validate(struct kiln_queue_config *cfg) {
  unsigned n = atomic_load(&validators_count);
  for (unsigned i = 0; i < n; i++) {
    cl_int err = validators_table[i](cfg);
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

bool kiln_queue_info_provider_register(kiln_queue_info_provider provider) { return info_providers_add(provider); }

cl_int kiln_queue_info_from_providers(cl_command_queue queue, cl_command_queue_info param_name,
                                      size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  unsigned n = atomic_load(&info_providers_count);
  for (unsigned i = 0; i < n; i++) {
    cl_int err = info_providers_table[i](queue, param_name, param_value_size, param_value, param_value_size_ret);
    if (err != CL_INVALID_VALUE) return err;
  }
  return CL_INVALID_VALUE;
}
