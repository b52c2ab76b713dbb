/* recorded_dispatch.c: see recorded_dispatch.h. */
#include "runtime/recorded_dispatch.h"

#include "runtime/kernel.h"
#include "runtime/ndrange.h"

#include <stdlib.h>
#include <string.h>

void kiln_recorded_dispatch_geometry(const struct kiln_ndrange_call *call, struct kiln_recorded_dispatch *dispatch) {
  *dispatch = (struct kiln_recorded_dispatch){.work_dim = call->work_dim, .local_given = call->local_work_size != NULL};
  for (cl_uint d = 0; d < call->work_dim && d < 3; d++) {
    dispatch->offset[d] = call->global_work_offset ? call->global_work_offset[d] : 0;
    dispatch->global[d] = call->global_work_size ? call->global_work_size[d] : 0;
    dispatch->local[d] = call->local_work_size ? call->local_work_size[d] : 0;
  }
}

cl_int kiln_recorded_dispatch_capture(const struct kiln_ndrange_call *call, struct kiln_recorded_dispatch *dispatch) {
  kiln_recorded_dispatch_geometry(call, dispatch);
  cl_int err;
  dispatch->kernel = clCloneKernel(call->kernel, &err);
  return dispatch->kernel ? CL_SUCCESS : err;
}

_Static_assert(sizeof ((struct kiln_recorded_dispatch_saved *)0)->exec_info_names ==
                   sizeof ((cl_kernel)0)->exec_info_names,
               "saved exec info matches the kernel's");

cl_int kiln_recorded_dispatch_save(const struct kiln_recorded_dispatch *dispatch,
                                   struct kiln_recorded_dispatch_saved *saved) {
  cl_kernel kernel = dispatch->kernel;
  const struct kiln_kernel_desc *desc = kernel->desc;
  *saved = (struct kiln_recorded_dispatch_saved){.kernel = kernel};
  /* One block: the values, then the argument bytes. */
  size_t values_bytes = desc->num_args * sizeof *saved->values;
  saved->values = malloc(values_bytes + desc->args_block_size + 1);
  if (!saved->values) {
    saved->kernel = NULL;
    return CL_OUT_OF_HOST_MEMORY;
  }
  saved->args = (unsigned char *)saved->values + values_bytes;
  memcpy(saved->args, kernel->args, desc->args_block_size);
  memcpy(saved->values, kernel->values, values_bytes);
  saved->unset_args = kernel->unset_args;
  saved->too_many_image_args = kernel->too_many_image_args;
  saved->exec_info_count = kernel->exec_info_count;
  memcpy(saved->exec_info_names, kernel->exec_info_names, sizeof saved->exec_info_names);
  memcpy(saved->exec_info_values, kernel->exec_info_values, sizeof saved->exec_info_values);
  return CL_SUCCESS;
}

void kiln_recorded_dispatch_restore(struct kiln_recorded_dispatch_saved *saved) {
  cl_kernel kernel = saved->kernel;
  if (kernel) {
    memcpy(kernel->args, saved->args, kernel->desc->args_block_size);
    memcpy(kernel->values, saved->values, kernel->desc->num_args * sizeof *saved->values);
    kernel->unset_args = saved->unset_args;
    kernel->too_many_image_args = saved->too_many_image_args;
    kernel->exec_info_count = saved->exec_info_count;
    memcpy(kernel->exec_info_names, saved->exec_info_names, sizeof saved->exec_info_names);
    memcpy(kernel->exec_info_values, saved->exec_info_values, sizeof saved->exec_info_values);
  }
  kiln_recorded_dispatch_forget(saved);
}

void kiln_recorded_dispatch_forget(struct kiln_recorded_dispatch_saved *saved) {
  free(saved->values); /* the arguments' bytes are in the same block */
  saved->args = NULL;
  saved->values = NULL;
  saved->kernel = NULL;
}

void kiln_recorded_dispatch_release(struct kiln_recorded_dispatch *dispatch) {
  if (dispatch->kernel) clReleaseKernel(dispatch->kernel);
  dispatch->kernel = NULL;
}

bool kiln_recorded_dispatch_is_uniform(const struct kiln_recorded_dispatch *dispatch) {
  if (!dispatch->local_given) return true;
  for (cl_uint d = 0; d < dispatch->work_dim; d++)
    if (dispatch->local[d] && dispatch->global[d] % dispatch->local[d]) return false;
  return true;
}

/* A recorder that takes the command the core's NDRange path builds, nothing else. */
struct command_taker {
  struct kiln_command_recorder base;
  struct kiln_command **command;
};

static cl_int taker_check(const struct kiln_command_recorder *recorder, const struct kiln_command_sink *sink,
                          cl_command_type type) {
  (void)recorder, (void)sink, (void)type;
  return CL_SUCCESS; /* a rebuild: the recorder checked its dependencies when the dispatch was recorded */
}

static cl_int taker_record(const struct kiln_command_recorder *recorder, struct kiln_command *command,
                           const struct kiln_ndrange_call *call) {
  (void)call;
  *((const struct command_taker *)recorder)->command = command;
  return CL_SUCCESS;
}

cl_int kiln_recorded_dispatch_build(cl_command_queue queue, const struct kiln_recorded_dispatch *dispatch,
                                    struct kiln_command **command) {
  struct command_taker taker = {{taker_check, taker_record}, command};
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, 0, NULL, NULL);
  sink.recorder = &taker.base;
  *command = NULL;
  return kiln_ndrange_enqueue(&sink, dispatch->kernel, dispatch->work_dim, dispatch->offset, dispatch->global,
                              dispatch->local_given ? dispatch->local : NULL);
}
