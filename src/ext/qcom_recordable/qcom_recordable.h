/* src/ext/qcom_recordable/ — cl_qcom_recordable_queues: the recordable queue property,
 * its enqueue rules and the device query (recordable_queue.c), recording objects
 * (recording.c) and replay with updates (recording_replay.c).
 *
 * An active recording is the recorder attached to its recordable queue (queue.h): the
 * core's clEnqueueNDRangeKernel validates the launch and builds its command as for any
 * queue, and the queue's sink hands it to the recording, which keeps it with a dispatch:
 * a clone of the kernel (so updates never touch the application's kernel) and the
 * geometry asked for.
 * Ending the recording freezes the list into a version: the replay steps of its commands.
 * An execution runs a version inside one queue command, like a command buffer. An update
 * rebuilds only the dispatches it names (new clone, new command) into a new version that
 * shares the others; executions already enqueued keep the version they were given. */
#ifndef KILN_EXT_QCOM_RECORDABLE_H
#define KILN_EXT_QCOM_RECORDABLE_H

#include <CL/cl_ext_qcom.h>

#include "runtime/command.h"
#include "runtime/object.h"
#include "runtime/platform.h"
#include "runtime/recorded_dispatch.h"
#include "runtime/replay.h"

#include <pthread.h>

/* CL_DEVICE_RECORDABLE_QUEUE_MAX_SIZE_QCOM. */
#define KILN_RECORDING_MAX_DISPATCHES 4096u

struct _cl_recording_qcom {
  struct kiln_object obj;
  struct kiln_command_recorder recorder; /* attached to `queue` while active */
  cl_context context;         /* internal reference */
  cl_command_queue queue;     /* the recordable queue while recording (an API reference); then NULL */
  pthread_mutex_t lock;       /* dispatches and version */
  bool ended;
  struct kiln_recorded_dispatch *dispatches;
  struct kiln_command **commands; /* while recording; the version owns them afterwards */
  size_t count, capacity;
  struct kiln_replay_version *version; /* set by clEndRecordingQCOM */
};

static inline bool kiln_recording_is_valid(cl_recording_qcom recording) {
  return kiln_object_is_valid(recording, KILN_OBJECT_RECORDING);
}

/* The recorder's check: what a recordable queue allows of an NDRange enqueue's wait list
 * and event (recordable_queue.c). */
cl_int kiln_recordable_check_call(cl_command_type type, cl_uint num_events, const cl_event *wait_list,
                                  bool returns_event);

/* Keeps the NDRange `command` built for `call` as a dispatch of a locked recording
 * (recording.c): CL_INVALID_OPERATION when it has ended, is full, or the kernel calls printf. */
cl_int kiln_recording_append(cl_recording_qcom recording, const struct kiln_ndrange_call *call,
                             struct kiln_command *command);

/* The extension's descriptor (recordable_queue.c; src/ext/extensions.c lists it). */
extern const struct kiln_extension kiln_ext_qcom_recordable_queues;

#endif
