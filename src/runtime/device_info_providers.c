/* device_info_providers.c: the extension hooks clGetDeviceInfo tries for param_names the core
 * does not answer. An extension folder adds its provider to the list when it is advertised. */
#include "ext/khr_command_buffer/khr_command_buffer.h" /* first: it includes <CL/cl_ext.h> itself */
#include "ext/arm_sched/arm_sched.h"
#include "ext/intel_queue_families/intel_queue_families.h"
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/device_info_providers.h"

const kiln_device_info_provider_fn kiln_device_info_providers[] = {
    kiln_ext_khr_command_buffer_device_info,
    kiln_ext_qcom_recordable_device_info,
    kiln_ext_arm_sched_device_info,
    kiln_ext_intel_queue_families_device_info,
    NULL, /* terminator; providers go above */
};
