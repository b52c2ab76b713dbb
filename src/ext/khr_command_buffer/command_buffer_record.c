/* command_buffer_record.c: the recording entry points. Each checks what is particular to
 * command buffers (the handle, a NULL queue, properties, mutable handle, state), then runs
 * the enqueue path's validation and command building with a recorder as the sink: the
 * recorder checks the sync-point wait list where the event wait list would be checked,
 * and appends the built command, whose sync point is its position + 1. The command
 * buffer's lock is held for the whole call, so sync points are checked against exactly
 * the commands recorded before. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/image.h"
#include "runtime/kernel.h"
#include "runtime/ndrange.h"
#include "runtime/svm.h"

#include <stdint.h>
#include <stdlib.h>

struct recorder {
  struct kiln_command_recorder base; /* first: the sink hands this back */
  cl_command_buffer_khr command_buffer;
  cl_uint num_sync_points;
  const cl_sync_point_khr *sync_points;
  cl_sync_point_khr *sync_point_ret;
  bool ndrange; /* clCommandNDRangeKernelKHR, which checks its properties itself */
  /* NDRange only: where its mutable-command handle goes (NULL: none asked), and what the
   * handle keeps of the recording's properties. */
  cl_mutable_command_khr *mutable_handle;
  const cl_command_properties_khr *properties;
  size_t properties_length;
  cl_mutable_dispatch_fields_khr updatable;
};

static cl_int check_sync_points(const struct recorder *r) {
  if ((r->sync_points == NULL) != (r->num_sync_points == 0))
    return KILN_FAIL(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, "rejected since (%s)",
                     "(r->sync_points == NULL) != (r->num_sync_points == 0)");
  for (cl_uint i = 0; i < r->num_sync_points; i++)
    if (r->sync_points[i] == 0 || r->sync_points[i] > r->command_buffer->count)
      return KILN_FAIL(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, "rejected since (%s)",
                       "r->sync_points[i] == 0 || r->sync_points[i] > r->command_buffer->count");
  return CL_SUCCESS;
}

static cl_int recorder_check(const struct kiln_command_recorder *base, const struct kiln_command_sink *sink,
                             cl_command_type type) {
  (void)sink, (void)type; /* the sink has no wait list or event: the sync points stand for them */
  return check_sync_points((const struct recorder *)base);
}

/* Appends `command` (NULL for a barrier). On failure a command is discarded. */
static cl_int append(const struct recorder *r, struct kiln_command *command) {
  cl_command_buffer_khr cb = r->command_buffer;
  if (cb->count >= CL_UINT_MAX) { /* sync points are cl_uint */
    if (command) kiln_command_discard(command);
    return CL_OUT_OF_RESOURCES;
  }
  if (cb->count == cb->capacity) {
    size_t capacity = cb->capacity ? 2 * cb->capacity : 16;
    struct kiln_command **commands = realloc(cb->commands, capacity * sizeof *commands);
    if (!commands) {
      if (command) kiln_command_discard(command);
      return CL_OUT_OF_HOST_MEMORY;
    }
    cb->commands = commands;
    cb->capacity = capacity;
  }
  cb->commands[cb->count++] = command;
  if (r->sync_point_ret) *r->sync_point_ret = (cl_sync_point_khr)cb->count;
  return CL_SUCCESS;
}

/* Room for one more mutable-command handle. */
static cl_int reserve_mutable(cl_command_buffer_khr cb) {
  if (cb->mutable_count < cb->mutable_capacity) return CL_SUCCESS;
  size_t capacity = cb->mutable_capacity ? 2 * cb->mutable_capacity : 8;
  cl_mutable_command_khr *mutables = realloc(cb->mutables, capacity * sizeof *mutables);
  if (!mutables) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for the mutable-command handles");
  cb->mutables = mutables;
  cb->mutable_capacity = capacity;
  return CL_SUCCESS;
}

static cl_int recorder_record(const struct kiln_command_recorder *base, struct kiln_command *command,
                              const struct kiln_ndrange_call *call) {
  const struct recorder *r = (const struct recorder *)base;
  cl_command_buffer_khr cb = r->command_buffer;
  if (!call || !r->mutable_handle) return append(r, command);
  cl_mutable_command_khr handle = NULL;
  cl_int err = reserve_mutable(cb);
  if (err == CL_SUCCESS)
    err = kiln_mutable_command_new(cb, cb->count, call, r->properties, r->properties_length, r->updatable, &handle);
  if (err != CL_SUCCESS) {
    kiln_command_discard(command);
    return err;
  }
  if ((err = append(r, command)) != CL_SUCCESS) {
    kiln_mutable_command_free(handle);
    return err;
  }
  cb->mutables[cb->mutable_count++] = handle;
  *r->mutable_handle = handle;
  return CL_SUCCESS;
}

/* The checks every recording entry point starts with. On success the command buffer is
 * locked (record_end unlocks it) and `r` and `sink` are ready. */
static cl_int record_begin(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                           const cl_command_properties_khr *properties, cl_uint num_sync_points,
                           const cl_sync_point_khr *sync_points, cl_sync_point_khr *sync_point,
                           cl_mutable_command_khr *mutable_handle, struct recorder *r,
                           struct kiln_command_sink *sink) {
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  /* Without cl_khr_command_buffer_multi_device a command names no queue of its own. */
  if (command_queue != NULL) return KILN_FAIL(CL_INVALID_COMMAND_QUEUE, "rejected since (%s)", "command_queue != NULL");
  /* Commands other than NDRanges have no properties and no mutable handle
   * (clCommandNDRangeKernelKHR checks its own before it gets here). */
  if (!r->ndrange) {
    if (properties && properties[0] != 0)
      return KILN_FAIL(CL_INVALID_VALUE, "this command takes no properties");
    if (mutable_handle) return KILN_FAIL(CL_INVALID_VALUE, "only NDRange commands return a mutable handle");
  }
  r->base.check = recorder_check;
  r->base.record = recorder_record;
  r->command_buffer = command_buffer;
  r->num_sync_points = num_sync_points;
  r->sync_points = sync_points;
  r->sync_point_ret = sync_point;
  *sink = kiln_command_sink_of_queue(command_buffer->queue, 0, NULL, NULL);
  sink->recorder = &r->base;
  pthread_mutex_lock(&command_buffer->lock);
  if (command_buffer->finalized) {
    pthread_mutex_unlock(&command_buffer->lock);
    return KILN_FAIL(CL_INVALID_OPERATION, "the command buffer is finalized: no more commands can be recorded");
  }
  return CL_SUCCESS;
}

static cl_int record_end(cl_command_buffer_khr command_buffer, cl_int err) {
  pthread_mutex_unlock(&command_buffer->lock);
  return err;
}

#define RECORD_BEGIN()                                                                                        \
  struct recorder r = {0};                                                                                    \
  struct kiln_command_sink sink;                                                                              \
  cl_int err = record_begin(command_buffer, command_queue, properties, num_sync_points_in_wait_list,         \
                            sync_point_wait_list, sync_point, mutable_handle, &r, &sink);                     \
  if (err != CL_SUCCESS) return err

CL_API_ENTRY cl_int CL_API_CALL clCommandBarrierWithWaitListKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  err = check_sync_points(&r);
  if (err == CL_SUCCESS) err = append(&r, NULL);
  return record_end(command_buffer, err);
}

CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_mem_copy(&sink, src_buffer, dst_buffer, src_offset, dst_offset, size));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferRectKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin, const size_t *region,
    size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_mem_copy_rect(&sink, src_buffer, dst_buffer, src_origin, dst_origin, region,
                                                       src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandFillBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem buffer, const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_mem_fill(&sink, buffer, pattern, pattern_size, offset, size));
}

/* clCommandNDRangeKernelKHR's properties: CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR
 * (default: every field the device can update) and CL_MUTABLE_DISPATCH_ASSERTS_KHR, each at
 * most once. `*length` counts the terminating 0 (0 for NULL). */
static cl_int parse_ndrange_properties(const cl_command_properties_khr *properties,
                                       cl_mutable_dispatch_fields_khr *updatable,
                                       cl_mutable_dispatch_asserts_khr *asserts, size_t *length) {
  *updatable = KILN_MUTABLE_DISPATCH_CAPABILITIES;
  *asserts = 0;
  *length = 0;
  if (!properties) return CL_SUCCESS;
  const cl_mutable_dispatch_fields_khr known =
      CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;
  bool seen_fields = false, seen_asserts = false;
  size_t i = 0;
  for (; properties[i] != 0; i += 2) {
    if (properties[i] == CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR && !seen_fields) {
      seen_fields = true;
      *updatable = (cl_mutable_dispatch_fields_khr)properties[i + 1];
      if (*updatable & ~known)
        return KILN_FAIL(CL_INVALID_VALUE, "CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR 0x%llx has unknown bits",
                         (unsigned long long)*updatable);
      if (*updatable & ~KILN_MUTABLE_DISPATCH_CAPABILITIES)
        return KILN_FAIL(CL_INVALID_OPERATION, "the device cannot update fields 0x%llx",
                         (unsigned long long)(*updatable & ~KILN_MUTABLE_DISPATCH_CAPABILITIES));
    } else if (properties[i] == CL_MUTABLE_DISPATCH_ASSERTS_KHR && !seen_asserts) {
      seen_asserts = true;
      *asserts = (cl_mutable_dispatch_asserts_khr)properties[i + 1];
      if (*asserts & ~KILN_MUTABLE_DISPATCH_ASSERTS)
        return KILN_FAIL(CL_INVALID_VALUE, "CL_MUTABLE_DISPATCH_ASSERTS_KHR 0x%llx has unknown bits",
                         (unsigned long long)*asserts);
    } else {
      return KILN_FAIL(CL_INVALID_VALUE, "NDRange command property 0x%llx is unknown or given twice",
                       (unsigned long long)properties[i]);
    }
  }
  *length = i + 1;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clCommandNDRangeKernelKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_kernel kernel, cl_uint work_dim, const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  cl_mutable_dispatch_asserts_khr asserts;
  struct recorder r = {.ndrange = true, .mutable_handle = mutable_handle, .properties = properties};
  cl_int err = parse_ndrange_properties(properties, &r.updatable, &asserts, &r.properties_length);
  if (err != CL_SUCCESS) return err;
  /* The work-group count cannot be asserted without work-groups of the application's. */
  if (((asserts | command_buffer->asserts) & CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR) &&
      !local_work_size)
    return KILN_FAIL(CL_INVALID_VALUE, "CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR needs a local_work_size");
  struct kiln_command_sink sink;
  err = record_begin(command_buffer, command_queue, properties, num_sync_points_in_wait_list, sync_point_wait_list,
                     sync_point, mutable_handle, &r, &sink);
  if (err != CL_SUCCESS) return err;
  return record_end(command_buffer, kiln_ndrange_enqueue(&sink, kernel, work_dim, global_work_offset,
                                                         global_work_size, local_work_size));
}

/* Image commands: the enqueue paths' checks and commands (runtime/image.h). */
CL_API_ENTRY cl_int CL_API_CALL clCommandCopyBufferToImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_buffer, cl_mem dst_image, size_t src_offset, const size_t *dst_origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer,
                    kiln_image_copy_from_buffer(&sink, src_buffer, dst_image, src_offset, dst_origin, region));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandCopyImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_image, cl_mem dst_image, const size_t *src_origin, const size_t *dst_origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_image_copy(&sink, src_image, dst_image, src_origin, dst_origin, region));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandCopyImageToBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin, const size_t *region, size_t dst_offset,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer,
                    kiln_image_copy_to_buffer(&sink, src_image, dst_buffer, src_origin, region, dst_offset));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandFillImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    cl_mem image, const void *fill_color, const size_t *origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_image_fill(&sink, image, fill_color, origin, region));
}

/* SVM commands: the enqueue path's checks and commands (svm.h), recorded. */
CL_API_ENTRY cl_int CL_API_CALL clCommandSVMMemcpyKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    void *dst_ptr, const void *src_ptr, size_t size, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer, kiln_svm_memcpy(&sink, CL_COMMAND_SVM_MEMCPY, dst_ptr, src_ptr, size, CL_FALSE));
}

CL_API_ENTRY cl_int CL_API_CALL clCommandSVMMemFillKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue, const cl_command_properties_khr *properties,
    void *svm_ptr, const void *pattern, size_t pattern_size, size_t size, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
    cl_mutable_command_khr *mutable_handle) {
  KILN_API_CALL;
  RECORD_BEGIN();
  return record_end(command_buffer,
                    kiln_svm_memfill(&sink, CL_COMMAND_SVM_MEMFILL, svm_ptr, pattern, pattern_size, size));
}
