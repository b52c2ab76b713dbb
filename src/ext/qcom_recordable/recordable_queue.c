/* recordable_queue.c: the extension's descriptor (runtime/extension.h):
 * CL_QUEUE_RECORDABLE_QCOM (queue property parser), what may be enqueued to a recordable
 * queue (the enqueue check, and the recorder's check of recording.c), the device query
 * and the entry points. */
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/debug_err.h"

#include "runtime/extension.h"
#include "runtime/info.h"
#include "runtime/queue.h"

/* CL_QUEUE_RECORDABLE_QCOM "may not be combined with CL_QUEUE_PROFILING_ENABLE,
 * CL_QUEUE_ON_DEVICE, or CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE": such a combination is
 * not a valid property value (CL_INVALID_VALUE). */
static cl_int parse_recordable(cl_queue_properties name, cl_queue_properties value, struct kiln_queue_config *cfg) {
  if (name != CL_QUEUE_PROPERTIES || !(value & CL_QUEUE_RECORDABLE_QCOM)) return KILN_QUEUE_PROPERTY_NOT_MINE;
  if (value & ~(cl_queue_properties)CL_QUEUE_RECORDABLE_QCOM)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "value & ~(cl_queue_properties)CL_QUEUE_RECORDABLE_QCOM"); /* other unknown bits */
  if (cfg->properties & (CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "cfg->properties & (CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE)");
  cfg->recordable = true; /* its recordings attach to it */
  return CL_SUCCESS;
}

static bool is_recordable(cl_command_queue queue) {
  return (queue->config.ext_property_bits & CL_QUEUE_RECORDABLE_QCOM) != 0;
}

/* The extension: on a recordable queue "the event wait list must be empty and event NULL"
 * (the enqueue's own check, before its command is recorded). */
cl_int kiln_recordable_check_call(cl_command_type type, cl_uint num_events, const cl_event *wait_list,
                                  bool returns_event) {
  if (type != CL_COMMAND_NDRANGE_KERNEL)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "type != CL_COMMAND_NDRANGE_KERNEL");
  if (num_events != 0 || wait_list != NULL)
    return KILN_FAIL(CL_INVALID_EVENT_WAIT_LIST, "rejected since (%s)", "num_events != 0 || wait_list != NULL");
  if (returns_event) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "returns_event");
  return CL_SUCCESS;
}

/* "Only clEnqueueNDRangeKernel may be recorded. All other API enqueues to a recordable
 * queue will return CL_INVALID_OPERATION." An NDRange passes here when the active
 * recording records it (`recording`); submitted to a recordable queue, there is no active
 * recording. */
static cl_int check_enqueue(const struct kiln_enqueue_check *check) {
  if (!is_recordable(check->queue)) return CL_SUCCESS;
  if (check->type != CL_COMMAND_NDRANGE_KERNEL)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "check->type != CL_COMMAND_NDRANGE_KERNEL");
  if (check->recording) return CL_SUCCESS;
  cl_int err = kiln_recordable_check_call(check->type, check->num_events, check->wait_list, check->returns_event);
  return err != CL_SUCCESS ? err : CL_INVALID_OPERATION;
}

static cl_int device_info(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                                            void *param_value, size_t *param_value_size_ret) {
  (void)device;
  if (param_name != CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "param_name != CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM");
  KILN_INFO_VALUE(cl_uint, KILN_RECORDING_MAX_DISPATCHES);
}

#define ROW(name) {#name, (void *)name}
static const struct kiln_extension_function functions[] = {
    ROW(clNewRecordingQCOM),     ROW(clEndRecordingQCOM),        ROW(clRetainRecordingQCOM),
    ROW(clReleaseRecordingQCOM), ROW(clEnqueueRecordingQCOM),    ROW(clEnqueueRecordingSVMQCOM),
    {NULL, NULL},
};

const struct kiln_extension kiln_ext_qcom_recordable_queues = {
    .name = "cl_qcom_recordable_queues",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = functions,
    .device_info = device_info,
    .parse_queue_property = parse_recordable,
    .check_enqueue = check_enqueue,
};
