/* recording_replay.c: clEnqueueRecordingQCOM and clEnqueueRecordingSVMQCOM. Updates are
 * checked and built completely before any is applied, so a failing call changes nothing:
 * each dispatch an update names has its kernel clone's state saved, then changed
 * (argument, SVM-argument and exec-info updates go through clSetKernelArg,
 * clSetKernelArgSVMPointer and clSetKernelExecInfo on it, with their own errors), new
 * geometry, and a new command from the core's NDRange path (which validates the sizes);
 * the recording then switches to a version sharing every other dispatch's command, or
 * the saved states are restored. The execution itself is one queue
 * command running the version's steps (runtime/replay.h); it holds the version. */
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/debug_err.h"

#include "runtime/kernel.h"
#include "runtime/queue.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct updates {
  size_t num_args;
  const cl_array_arg_qcom *args;
  size_t num_svm_args;
  const cl_array_arg_qcom *svm_args;
  size_t num_offsets;
  const cl_offset_qcom *offsets;
  size_t num_global;
  const cl_workgroup_qcom *global;
  size_t num_local;
  const cl_workgroup_qcom *local;
  size_t num_exec_info;
  const cl_array_kernel_exec_info_qcom *exec_info;
};

static bool has_updates(const struct updates *u) {
  return u->num_args || u->num_svm_args || u->num_offsets || u->num_global || u->num_local || u->num_exec_info;
}

static bool lists_ok(const struct updates *u) {
  return (!u->num_args || u->args) && (!u->num_svm_args || u->svm_args) && (!u->num_offsets || u->offsets) &&
         (!u->num_global || u->global) && (!u->num_local || u->local) && (!u->num_exec_info || u->exec_info);
}

/* Each update struct starts with the cl_uint dispatch_index it names. */
_Static_assert(offsetof(cl_array_arg_qcom, dispatch_index) == 0 && offsetof(cl_offset_qcom, dispatch_index) == 0 &&
                   offsetof(cl_workgroup_qcom, dispatch_index) == 0 &&
                   offsetof(cl_array_kernel_exec_info_qcom, dispatch_index) == 0,
               "update structs start with their dispatch index");

static bool mark_list(const void *list, size_t n, size_t size, size_t count, bool *named) {
  for (size_t i = 0; i < n; i++) {
    cl_uint d;
    memcpy(&d, (const char *)list + i * size, sizeof d);
    if (d >= count) return false;
    named[d] = true;
  }
  return true;
}

/* Marks the dispatches the updates name; false when one names none of the recording's
 * ("CL_INVALID_KERNEL_ARGS if a dispatch index is out of bounds"). */
static bool mark_named(const struct updates *u, size_t count, bool *named) {
  return mark_list(u->args, u->num_args, sizeof *u->args, count, named) &&
         mark_list(u->svm_args, u->num_svm_args, sizeof *u->svm_args, count, named) &&
         mark_list(u->offsets, u->num_offsets, sizeof *u->offsets, count, named) &&
         mark_list(u->global, u->num_global, sizeof *u->global, count, named) &&
         mark_list(u->local, u->num_local, sizeof *u->local, count, named) &&
         mark_list(u->exec_info, u->num_exec_info, sizeof *u->exec_info, count, named);
}

/* Applies to `next` (a copy of dispatch `index` with its own kernel clone) the updates
 * naming it, in the order given. */
static cl_int update_dispatch(struct kiln_recorded_dispatch *next, cl_uint index, const struct updates *u) {
  cl_int err;
  for (size_t i = 0; i < u->num_args; i++)
    if (u->args[i].dispatch_index == index &&
        (err = kiln_kernel_set_arg(next->kernel, u->args[i].arg_index, u->args[i].arg_size, u->args[i].arg_value)))
      return err;
  for (size_t i = 0; i < u->num_svm_args; i++)
    if (u->svm_args[i].dispatch_index == index &&
        (err = kiln_kernel_set_arg_pointer(next->kernel, u->svm_args[i].arg_index, u->svm_args[i].arg_value)))
      return err;
  for (size_t i = 0; i < u->num_exec_info; i++)
    if (u->exec_info[i].dispatch_index == index &&
        (err = kiln_kernel_set_exec_info(next->kernel, u->exec_info[i].param_name, u->exec_info[i].param_value_size,
                                   u->exec_info[i].param_value)))
      return err;
  cl_uint dims = next->work_dim;
  for (size_t i = 0; i < u->num_offsets; i++)
    if (u->offsets[i].dispatch_index == index) memcpy(next->offset, u->offsets[i].offsets, dims * sizeof(size_t));
  for (size_t i = 0; i < u->num_global; i++) {
    if (u->global[i].dispatch_index != index) continue;
    if (!u->global[i].workgroup_size)
      return KILN_FAIL(CL_INVALID_GLOBAL_WORK_SIZE, "rejected since (%s)", "!u->global[i].workgroup_size");
    memcpy(next->global, u->global[i].workgroup_size, dims * sizeof(size_t));
  }
  for (size_t i = 0; i < u->num_local; i++) {
    if (u->local[i].dispatch_index != index) continue;
    next->local_given = u->local[i].workgroup_size != NULL; /* NULL: Kiln picks, as in clEnqueueNDRangeKernel */
    if (next->local_given) memcpy(next->local, u->local[i].workgroup_size, dims * sizeof(size_t));
  }
  return CL_SUCCESS;
}

/* Builds the updated dispatches and the version that uses them, then switches the
 * (locked) recording to them; on any error nothing changes. */
static cl_int apply_updates(cl_recording_qcom recording, cl_command_queue queue, const struct updates *u) {
  size_t count = recording->count;
  bool *named = calloc(count, sizeof *named);
  if (!named) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!named");
  if (!mark_named(u, count, named)) {
    free(named);
    return CL_INVALID_KERNEL_ARGS;
  }
  /* Per named dispatch, packed: its index, new state and new command. */
  size_t *indices = calloc(count, sizeof *indices), replaced = 0;
  struct kiln_recorded_dispatch *next = calloc(count, sizeof *next);
  struct kiln_recorded_dispatch_saved *saved = calloc(count, sizeof *saved);
  struct kiln_command **built = calloc(count, sizeof *built);
  cl_int err = indices && next && saved && built ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  for (size_t d = 0; d < count && err == CL_SUCCESS; d++) {
    if (!named[d]) continue;
    size_t j = replaced++;
    indices[j] = d;
    next[j] = recording->dispatches[d];
    if ((err = kiln_recorded_dispatch_save(&next[j], &saved[j])) == CL_SUCCESS &&
        (err = update_dispatch(&next[j], (cl_uint)d, u)) == CL_SUCCESS)
      err = kiln_recorded_dispatch_build(queue, &next[j], &built[j]);
  }
  struct kiln_replay_version *version = NULL;
  if (err == CL_SUCCESS && !(version = kiln_replay_version_replace(recording->version, indices, built, replaced)))
    err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for the updated recording");
  for (size_t j = 0; j < replaced; j++) {
    if (err == CL_SUCCESS) {
      kiln_recorded_dispatch_forget(&saved[j]);
      recording->dispatches[indices[j]] = next[j]; /* the same clone, the new geometry */
    } else {
      kiln_recorded_dispatch_restore(&saved[j]); /* only what this call changed and built */
      if (built[j]) kiln_command_discard(built[j]);
    }
  }
  if (err == CL_SUCCESS) {
    kiln_replay_version_release(recording->version);
    recording->version = version;
  }
  free(indices);
  free(next);
  free(saved);
  free(built);
  free(named);
  return err;
}

static cl_int enqueue_recording(cl_command_queue queue, cl_recording_qcom recording, const struct updates *u,
                                cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!kiln_recording_is_valid(recording))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_recording_is_valid(recording)");
  /* "It must not be a recordable queue": nothing but NDRanges may be enqueued to one. */
  if (queue->config.ext_property_bits & CL_QUEUE_RECORDABLE_QCOM)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "queue->config.ext_property_bits & CL_QUEUE_RECORDABLE_QCOM");
  if (kiln_queue_is_out_of_order(queue))
    return KILN_FAIL(CL_INVALID_QUEUE_PROPERTIES, "rejected since (%s)",
                     "kiln_queue_is_out_of_order(queue)"); /* must be in order */
  if (queue->context != recording->context)
    return KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "queue->context != recording->context");
  if (!lists_ok(u)) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!lists_ok(u)");
  cl_int err = kiln_command_check_enqueue(queue, CL_COMMAND_NDRANGE_KERNEL, num_events, wait_list, event);
  if (err != CL_SUCCESS) return err;

  pthread_mutex_lock(&recording->lock);
  if (!recording->ended || recording->count == 0) err = CL_INVALID_OPERATION; /* open, or empty */
  else if (has_updates(u)) err = apply_updates(recording, queue, u);
  struct kiln_replay_version *version = recording->version;
  if (err == CL_SUCCESS) atomic_fetch_add(&version->refs, 1); /* the execution's */
  pthread_mutex_unlock(&recording->lock);
  if (err != CL_SUCCESS) return err;

  struct kiln_replay_execution execution = {version, false, NULL, NULL, false};
  return kiln_replay_submit(queue, CL_COMMAND_NDRANGE_KERNEL, &execution, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueRecordingQCOM(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_global_offsets, const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event) {
  KILN_API_CALL;
  struct updates u = {.num_args = num_args, .args = arg_array, .num_offsets = num_global_offsets,
                      .offsets = global_offset_array, .num_global = num_global_workgroups,
                      .global = global_workgroup_array, .num_local = num_local_workgroups,
                      .local = local_workgroups_array};
  return enqueue_recording(command_queue, recording, &u, num_events_in_wait_list, event_wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueRecordingSVMQCOM(
    cl_command_queue command_queue, cl_recording_qcom recording, size_t num_args, const cl_array_arg_qcom *arg_array,
    size_t num_svm_args, const cl_array_arg_qcom *arg_svm_array, size_t num_global_offsets,
    const cl_offset_qcom *global_offset_array, size_t num_global_workgroups,
    const cl_workgroup_qcom *global_workgroup_array, size_t num_local_workgroups,
    const cl_workgroup_qcom *local_workgroups_array, size_t num_non_arg_objs,
    const cl_array_kernel_exec_info_qcom *non_arg_obj_array, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  KILN_API_CALL;
  struct updates u = {.num_args = num_args, .args = arg_array, .num_svm_args = num_svm_args,
                      .svm_args = arg_svm_array, .num_offsets = num_global_offsets, .offsets = global_offset_array,
                      .num_global = num_global_workgroups, .global = global_workgroup_array,
                      .num_local = num_local_workgroups, .local = local_workgroups_array,
                      .num_exec_info = num_non_arg_objs, .exec_info = non_arg_obj_array};
  return enqueue_recording(command_queue, recording, &u, num_events_in_wait_list, event_wait_list, event);
}
