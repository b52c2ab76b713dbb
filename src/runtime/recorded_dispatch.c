/* recorded_dispatch.c: see recorded_dispatch.h. */
#include "runtime/recorded_dispatch.h"

#include "runtime/ndrange.h"

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

cl_int kiln_recorded_dispatch_copy(const struct kiln_recorded_dispatch *dispatch, struct kiln_recorded_dispatch *copy) {
  cl_int err;
  *copy = *dispatch;
  copy->kernel = clCloneKernel(dispatch->kernel, &err);
  return copy->kernel ? CL_SUCCESS : err;
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
