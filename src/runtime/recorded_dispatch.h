/* recorded_dispatch.h: an NDRange kept by a recorder so that it can be rebuilt with new
 * arguments or geometry (QCOM recordings, mutable command-buffer dispatches). A dispatch
 * owns a clone of the recorded kernel: the clone has the arguments the command was built
 * with, updates set its arguments, SVM pointers and exec info through the kernel module's
 * setters (kernel.h: the checks and errors of clSetKernelArg, clSetKernelArgSVMPointer and
 * clSetKernelExecInfo), and the application's kernel is never touched. Rebuilding runs the core's NDRange path, which validates the result.
 *
 * The clone is changed in place: a built command keeps a copy of the arguments (and holds
 * the kernel), so commands built before go on running as they were. An update saves the
 * clone's argument state first and restores it if the update fails. */
#ifndef KILN_RUNTIME_RECORDED_DISPATCH_H
#define KILN_RUNTIME_RECORDED_DISPATCH_H

#include "runtime/command.h"

#include <stdint.h>

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
/* The argument state of a dispatch's clone, saved before an update changes it. */
struct kiln_recorded_dispatch_saved {
  cl_kernel kernel;
  unsigned char *args;
  struct kiln_kernel_arg_value *values;
  unsigned unset_args;
  bool too_many_image_args;
  unsigned exec_info_count;
  cl_kernel_exec_info exec_info_names[8]; /* KILN_KERNEL_EXEC_INFO_MAX (kernel.h; checked in the .c) */
  uint64_t exec_info_values[8];
};
/* Saves the state of `dispatch`'s clone; CL_OUT_OF_HOST_MEMORY when it cannot. */
cl_int kiln_recorded_dispatch_save(const struct kiln_recorded_dispatch *dispatch,
                                   struct kiln_recorded_dispatch_saved *saved);
/* Puts the saved state back (the update failed), or forgets it (the update stands). */
void kiln_recorded_dispatch_restore(struct kiln_recorded_dispatch_saved *saved);
void kiln_recorded_dispatch_forget(struct kiln_recorded_dispatch_saved *saved);
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
