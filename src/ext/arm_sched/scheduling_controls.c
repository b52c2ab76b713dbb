/* scheduling_controls.c: see arm_sched.h. */
#include "ext/arm_sched/arm_sched.h"
#include "runtime/debug_err.h"

#include "runtime/device.h"
#include "runtime/extension.h"
#include "runtime/info.h"
#include "runtime/kernel.h"
#include "runtime/queue.h"

/* Exactly the controls the scheduler implements. */
static const cl_device_scheduling_controls_capabilities_arm implemented_controls =
    CL_DEVICE_SCHEDULING_KERNEL_BATCHING_ARM | CL_DEVICE_SCHEDULING_WORKGROUP_BATCH_SIZE_ARM |
    CL_DEVICE_SCHEDULING_WORKGROUP_BATCH_SIZE_MODIFIER_ARM | CL_DEVICE_SCHEDULING_DEFERRED_FLUSH_ARM |
    CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM | CL_DEVICE_SCHEDULING_COMPUTE_UNIT_BATCH_QUEUE_SIZE_ARM;

static cl_int device_info(cl_device_id device, cl_device_info param_name, size_t param_value_size, void *param_value,
                          size_t *param_value_size_ret) {
  (void)device;
  /* CL_DEVICE_MAX_WARP_COUNT_ARM and CL_DEVICE_SUPPORTED_REGISTER_ALLOCATIONS_ARM belong
   * to controls not reported: CL_INVALID_VALUE, like any unknown name. */
  if (param_name != CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "param_name != CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM");
  KILN_INFO_VALUE(cl_device_scheduling_controls_capabilities_arm, implemented_controls);
}

/* A cl_bool property value other than CL_TRUE or CL_FALSE is not valid. */
static cl_int parse_bool(cl_queue_properties value, bool *is_false) {
  if (value != CL_TRUE && value != CL_FALSE)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "value != CL_TRUE && value != CL_FALSE");
  *is_false = value == CL_FALSE;
  return CL_SUCCESS;
}

static cl_int parse_scheduling_property(cl_queue_properties name, cl_queue_properties value,
                                        struct kiln_queue_config *cfg) {
  switch (name) {
  case CL_QUEUE_KERNEL_BATCHING_ARM:
    return parse_bool(value, &cfg->scheduling.no_kernel_batching);
  case CL_QUEUE_DEFERRED_FLUSH_ARM:
    return parse_bool(value, &cfg->scheduling.flush_in_caller);
  case CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM:
    /* "must be greater than 0 and less than or equal to CL_DEVICE_MAX_COMPUTE_UNITS":
     * another value is not a valid property value. */
    if (value == 0 || value > kiln_device_get()->compute_units)
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "value == 0 || value > kiln_device_get()->compute_units");
    cfg->scheduling.compute_unit_limit = (unsigned)value;
    return CL_SUCCESS;
  default:
    return KILN_QUEUE_PROPERTY_NOT_MINE;
  }
}

/* The value must be exactly the type the extension names. The modifier is stored sign
 * extended (ndrange.c reads it back as int64_t). */
static cl_int accept_exec_info(cl_kernel kernel, cl_kernel_exec_info name, size_t size, const void *value,
                               uint64_t *stored) {
  (void)kernel;
  switch (name) {
  case CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM:
    if (!value || size != sizeof(cl_uint))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!value || size != sizeof(cl_uint)");
    *stored = *(const cl_uint *)value;
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM:
    if (!value || size != sizeof(cl_int))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!value || size != sizeof(cl_int)");
    *stored = (uint64_t)(int64_t) * (const cl_int *)value;
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM:
    /* Every cl_uint is supported: 0 lets Kiln choose, a bound above a worker's share of
     * the batches bounds nothing (batch_queue.h). */
    if (!value || size != sizeof(cl_uint))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!value || size != sizeof(cl_uint)");
    *stored = *(const cl_uint *)value;
    return CL_SUCCESS;
  default:
    /* CL_KERNEL_EXEC_INFO_WARP_COUNT_LIMIT_ARM falls through to the core's CL_INVALID_VALUE. */
    return KILN_KERNEL_EXEC_INFO_NOT_MINE;
  }
}

/* The kernel's batch size and modifier, for every launch's plan. */
static void launch_hints(cl_kernel kernel, struct kiln_plan_request *request) {
  uint64_t modifier = 0, bound = 0;
  kiln_kernel_exec_info_find(kernel, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, &request->batch_size);
  if (kiln_kernel_exec_info_find(kernel, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, &modifier))
    request->modifier = (int64_t)modifier;
  if (kiln_kernel_exec_info_find(kernel, CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM, &bound))
    request->queue_bound = (uint32_t)bound;
}

const struct kiln_extension kiln_ext_arm_scheduling_controls = {
    .name = "cl_arm_scheduling_controls",
    .version = CL_MAKE_VERSION(0, 6, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .device_info = device_info,
    .parse_queue_property = parse_scheduling_property,
    .kernel_exec_info = accept_exec_info,
    .launch_hints = launch_hints,
};
