/* Queue property parsing. The core knows CL_QUEUE_PROPERTIES (out-of-order, profiling,
 * on-device) and CL_QUEUE_SIZE; every other name, and unknown CL_QUEUE_PROPERTIES bits, go
 * to the extensions' parsers (runtime/extension.h), which device queues do not take. */
#include "runtime/queue.h"
#include "runtime/debug_err.h"

#include "runtime/extension.h"

#include "device/cpu/device_enqueue.h"

static cl_int ask_extensions(cl_queue_properties name, cl_queue_properties value, struct kiln_queue_config *cfg) {
  KILN_EXTENSIONS_WITH(e, parse_queue_property) {
    cl_int result = (*e)->parse_queue_property(name, value, cfg);
    if (result != KILN_QUEUE_PROPERTY_NOT_MINE) return result;
  }
  if (name == CL_QUEUE_PROPERTIES)
    return KILN_FAIL(CL_INVALID_VALUE, "CL_QUEUE_PROPERTIES bits 0x%llx are not queue properties Kiln knows",
                     (unsigned long long)value);
  return KILN_FAIL(CL_INVALID_VALUE, "queue property name 0x%llx is not one Kiln knows", (unsigned long long)name);
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
    /* ON_DEVICE_DEFAULT needs ON_DEVICE, ON_DEVICE needs out-of-order: otherwise not valid. */
    if ((bits & CL_QUEUE_ON_DEVICE_DEFAULT) && !(bits & CL_QUEUE_ON_DEVICE))
      return KILN_FAIL(CL_INVALID_VALUE, "CL_QUEUE_ON_DEVICE_DEFAULT is given without CL_QUEUE_ON_DEVICE");
    if (!(bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
      return KILN_FAIL(CL_INVALID_VALUE, "CL_QUEUE_ON_DEVICE needs CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE");
    cfg->properties = bits & known;
    /* A device queue has no extension behaviour (placement, recording, scheduling): bits
     * an extension knows are refused, with its own error if it has one for them. */
    if (unknown) {
      cl_int err = ask_extensions(CL_QUEUE_PROPERTIES, unknown, cfg);
      if (err != CL_SUCCESS) return err;
      return KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES,
                       "a device queue (CL_QUEUE_ON_DEVICE) takes no extension bits (0x%llx)",
                       (unsigned long long)unknown);
    }
    return CL_SUCCESS;
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
  cl_queue_properties size = 0;
  cl_command_queue_properties bits = 0;
  size_t n = 0;
  for (; properties[n] != 0; n += 2) {
    cl_queue_properties name = properties[n], value = properties[n + 1];
    for (size_t k = 0; k < n; k += 2)
      if (properties[k] == name)
        return KILN_FAIL(CL_INVALID_VALUE, "queue property 0x%llx is given twice", /* each name at most once */
                         (unsigned long long)name);
    if (name == CL_QUEUE_PROPERTIES) {
      seen_properties = true;
      bits = (cl_command_queue_properties)value;
    } else if (name == CL_QUEUE_SIZE) {
      seen_size = true;
      size = value;
    } else {
      cl_int err = ask_extensions(name, value, cfg);
      if (err != CL_SUCCESS) return err;
      if (cfg->ext_count == KILN_QUEUE_EXT_PROPERTIES_MAX)
        return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "cfg->ext_count == KILN_QUEUE_EXT_PROPERTIES_MAX");
      cfg->ext_names[cfg->ext_count] = name;
      cfg->ext_values[cfg->ext_count++] = value;
    }
  }
  *count = n + 1;
  if (seen_properties) {
    cl_int err = parse_bitfield(bits, true, cfg);
    if (err != CL_SUCCESS) return err;
  }
  bool on_device = (cfg->properties & CL_QUEUE_ON_DEVICE) != 0;
  /* CL_QUEUE_SIZE: only for a device queue, at most CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE. */
  if (seen_size && (!on_device || size == 0 || size > KILN_DEVICE_QUEUE_MAX_SIZE))
    return KILN_FAIL(CL_INVALID_VALUE,
                     "CL_QUEUE_SIZE %llu: only for a device queue (CL_QUEUE_ON_DEVICE), from 1 to "
                     "CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE %u",
                     (unsigned long long)size, (unsigned)KILN_DEVICE_QUEUE_MAX_SIZE);
  if (on_device) {
    if (cfg->ext_count)
      return KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES,
                       "a device queue (CL_QUEUE_ON_DEVICE) takes no extension properties");
    cfg->device_queue_size = seen_size ? (uint32_t)size : KILN_DEVICE_QUEUE_PREFERRED_SIZE;
  }
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

cl_int kiln_queue_config_validate(struct kiln_queue_config *cfg) {
  KILN_EXTENSIONS_WITH(e, validate_queue_config) {
    cl_int err = (*e)->validate_queue_config(cfg);
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int kiln_queue_info_from_providers(cl_command_queue queue, cl_command_queue_info param_name,
                                      size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  KILN_EXTENSIONS_WITH(e, queue_info) {
    cl_int err = (*e)->queue_info(queue, param_name, param_value_size, param_value, param_value_size_ret);
    if (err != CL_INVALID_VALUE) return err;
  }
  return CL_INVALID_VALUE;
}
