/* recording.c: recording objects — clNewRecordingQCOM, clEndRecordingQCOM, retain and
 * release — their recorder (what the recordable queue's sink hands NDRange commands to
 * while the recording is active) and versions. */
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/kernel.h"
#include "runtime/ndrange.h"
#include "runtime/queue.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>

static void recording_destroy(struct kiln_object *object) {
  cl_recording_qcom recording = (cl_recording_qcom)object;
  for (size_t i = 0; i < recording->count; i++) kiln_recorded_dispatch_release(&recording->dispatches[i]);
  if (recording->version) {
    kiln_replay_version_release(recording->version);
  } else {
    for (size_t i = 0; i < recording->count; i++) kiln_command_discard(recording->commands[i]);
    free(recording->commands);
  }
  free(recording->dispatches);
  pthread_mutex_destroy(&recording->lock);
  kiln_object_release(&recording->context->obj);
  kiln_object_free(object);
}

static cl_recording_qcom new_failed(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

static cl_int recorder_check(const struct kiln_command_recorder *recorder, const struct kiln_command_sink *sink,
                             cl_command_type type) {
  (void)recorder;
  return kiln_recordable_check_call(type, sink->num_events, sink->wait_list, sink->event != NULL);
}

static cl_int recorder_record(const struct kiln_command_recorder *recorder, struct kiln_command *command,
                              const struct kiln_ndrange_call *call) {
  cl_recording_qcom recording = (cl_recording_qcom)((char *)recorder - offsetof(struct _cl_recording_qcom, recorder));
  pthread_mutex_lock(&recording->lock);
  cl_int err = kiln_recording_append(recording, call, command);
  pthread_mutex_unlock(&recording->lock);
  if (err != CL_SUCCESS) kiln_command_discard(command);
  return err;
}

CL_API_ENTRY cl_recording_qcom CL_API_CALL clNewRecordingQCOM(cl_command_queue command_queue, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return new_failed(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue));
  if (!(command_queue->config.ext_property_bits & CL_QUEUE_RECORDABLE_QCOM))
    return new_failed(errcode_ret, KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES, "rejected since (%s)",
                                             "!(command_queue->config.ext_property_bits & CL_QUEUE_RECORDABLE_QCOM)"));
  cl_recording_qcom recording = kiln_object_alloc(KILN_OBJECT_RECORDING, sizeof *recording);
  if (!recording) return new_failed(errcode_ret, KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!recording"));
  recording->context = command_queue->context;
  recording->queue = command_queue;
  recording->recorder = (struct kiln_command_recorder){recorder_check, recorder_record};
  pthread_mutex_init(&recording->lock, NULL);
  if (!kiln_queue_attach_recorder(command_queue, &recording->recorder)) { /* one active recording per queue */
    pthread_mutex_destroy(&recording->lock);
    kiln_object_free(&recording->obj);
    return new_failed(errcode_ret, CL_INVALID_OPERATION);
  }
  kiln_object_retain(&command_queue->context->obj);
  /* "The new recording holds a refcount on command_queue": an API reference, visible in
   * CL_QUEUE_REFERENCE_COUNT, dropped by clEndRecordingQCOM. */
  kiln_object_api_retain(command_queue, KILN_OBJECT_QUEUE, CL_INVALID_COMMAND_QUEUE);
  kiln_object_init(&recording->obj, KILN_OBJECT_RECORDING, recording_destroy);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return recording;
}

cl_int kiln_recording_append(cl_recording_qcom recording, const struct kiln_ndrange_call *call,
                             struct kiln_command *command) {
  if (recording->ended)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "recording->ended"); /* ended while the enqueue was validated */
  /* "Kernel Enqueue Kernel and printf features are not supported with this extension." */
  if (call->kernel->desc->uses_printf || call->kernel->desc->enqueues)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "call->kernel->desc->uses_printf || call->kernel->desc->enqueues");
  if (recording->count == KILN_RECORDING_MAX_DISPATCHES)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "recording->count == KILN_RECORDING_MAX_DISPATCHES"); /* the recording is full */
  if (recording->count == recording->capacity) {
    size_t capacity = recording->capacity ? 2 * recording->capacity : 16;
    struct kiln_recorded_dispatch *dispatches = realloc(recording->dispatches, capacity * sizeof *dispatches);
    if (!dispatches) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!dispatches");
    recording->dispatches = dispatches;
    struct kiln_command **commands = realloc(recording->commands, capacity * sizeof *commands);
    if (!commands) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!commands");
    recording->commands = commands;
    recording->capacity = capacity;
  }
  /* The clone has the arguments the command was built with: updates start from them. */
  struct kiln_recorded_dispatch dispatch;
  cl_int err = kiln_recorded_dispatch_capture(call, &dispatch);
  if (err != CL_SUCCESS) return err;
  recording->dispatches[recording->count] = dispatch;
  recording->commands[recording->count++] = command;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clEndRecordingQCOM(cl_recording_qcom recording) {
  KILN_API_CALL;
  if (!kiln_recording_is_valid(recording))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_recording_is_valid(recording)");
  /* The recorder leaves the queue as the recording ends, under the queue's recorder lock
   * (taken first, as enqueues take it before the recording's lock): whoever sees the
   * recording ended, and a clEndRecordingQCOM of another thread fail with that, can start
   * the queue's next recording at once. The queue is held meanwhile: another thread's end
   * may drop the recording's reference on it. */
  pthread_mutex_lock(&recording->lock);
  cl_command_queue queue = recording->queue;
  if (queue) kiln_object_retain(&queue->obj);
  pthread_mutex_unlock(&recording->lock);
  if (!queue) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "!queue"); /* ended */
  kiln_queue_recorder_lock(queue);
  pthread_mutex_lock(&recording->lock);
  cl_int err = CL_SUCCESS;
  struct kiln_replay_version *version = NULL;
  if (recording->ended) err = CL_INVALID_OPERATION;
  else if (!(version = kiln_replay_version_new(recording->commands, recording->count))) err = CL_OUT_OF_HOST_MEMORY;
  if (err == CL_SUCCESS) {
    recording->commands = NULL;
    recording->version = version;
    recording->ended = true;
    recording->queue = NULL;
    if (queue->recorder == &recording->recorder) queue->recorder = NULL;
  }
  pthread_mutex_unlock(&recording->lock);
  kiln_queue_recorder_unlock(queue);
  /* The last reference may destroy the queue. The recording's commands hold nothing of it. */
  if (err == CL_SUCCESS) kiln_object_api_release(queue, KILN_OBJECT_QUEUE, CL_INVALID_COMMAND_QUEUE);
  kiln_object_release(&queue->obj);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainRecordingQCOM(cl_recording_qcom recording) {
  KILN_API_CALL;
  return kiln_object_api_retain(recording, KILN_OBJECT_RECORDING, CL_INVALID_OPERATION);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseRecordingQCOM(cl_recording_qcom recording) {
  KILN_API_CALL;
  if (!kiln_recording_is_valid(recording))
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "!kiln_recording_is_valid(recording)");
  pthread_mutex_lock(&recording->lock);
  bool active = !recording->ended;
  pthread_mutex_unlock(&recording->lock);
  if (active)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "active"); /* an active recording cannot be released */
  return kiln_object_api_release(recording, KILN_OBJECT_RECORDING, CL_INVALID_OPERATION);
}
