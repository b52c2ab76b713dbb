/* recorded_dispatch.h: an NDRange kept by a recorder so that it can be rebuilt with new
 * arguments or geometry (QCOM recordings, mutable command-buffer dispatches). A dispatch
 * owns a clone of the recorded kernel: the clone has the arguments the command was built
 * with, updates go through clSetKernelArg, clSetKernelArgSVMPointer and
 * clSetKernelExecInfo on it (with their own errors), and the application's kernel is
 * never touched. Rebuilding runs the core's NDRange path, which validates the result. */
#ifndef KILN_RUNTIME_RECORDED_DISPATCH_H
#define KILN_RUNTIME_RECORDED_DISPATCH_H

#include "runtime/command.h"

struct kiln_recorded_dispatch {
  cl_kernel kernel; /* the clone (an API reference the dispatch holds); NULL when only the geometry is kept */
  cl_uint work_dim;
  size_t offset[3], global[3], local[3]; /* zeros where the call gave none */
  bool local_given;
};

/* The geometry of `call`, without a kernel. */
void kiln_recorded_dispatch_geometry(const struct kiln_ndrange_call *call, struct kiln_recorded_dispatch *dispatch);
/* The geometry of `call` and a clone of its kernel. */
cl_int kiln_recorded_dispatch_capture(const struct kiln_ndrange_call *call, struct kiln_recorded_dispatch *dispatch);
/* `*copy` = `dispatch` with a clone of its own, for an update to change. */
cl_int kiln_recorded_dispatch_copy(const struct kiln_recorded_dispatch *dispatch, struct kiln_recorded_dispatch *copy);
/* Drops the clone (if any). */
void kiln_recorded_dispatch_release(struct kiln_recorded_dispatch *dispatch);

/* True when every dimension's global size is a multiple of the given local size (or no
 * local size was given: the work-groups are then Kiln's choice). */
bool kiln_recorded_dispatch_is_uniform(const struct kiln_recorded_dispatch *dispatch);

/* Builds the NDRange command of `dispatch` on `queue` through the core's NDRange path:
 * its validation errors, or CL_SUCCESS with `*command` a recorded command. */
cl_int kiln_recorded_dispatch_build(cl_command_queue queue, const struct kiln_recorded_dispatch *dispatch,
                                    struct kiln_command **command);

#endif
