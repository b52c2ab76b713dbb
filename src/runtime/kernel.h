/* kernel.h: kernel objects. A kernel holds its program (internal reference), whose
 * executable cannot change while the kernel exists, so the kernel's description
 * (kiln_kernel_desc) and launcher stay valid. Arguments live in a packed block laid out
 * as the description says; memory-object arguments are kept as handles (the spec forbids
 * a kernel to retain them) and resolved to storage pointers, validated, at enqueue. */
#ifndef KILN_RUNTIME_KERNEL_H
#define KILN_RUNTIME_KERNEL_H

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/kernel_profile.h"
#include "runtime/object.h"

struct kiln_kernel_arg_value {
  bool set;
  cl_mem mem;             /* global/constant pointer and image arguments: the object, or NULL */
  bool pointer;           /* global/constant pointer set to an address (SVM, USM): it stays in the
                           * argument block as given, `mem` is NULL */
  uint64_t local_bytes;   /* __local pointer arguments: the size given */
  cl_command_queue queue; /* queue_t arguments: the device queue (not retained, like memory objects) */
};

/* Execution info an extension accepted through clSetKernelExecInfo (copied by clone). */
#define KILN_KERNEL_EXEC_INFO_MAX 8 /* Arm's two, USM's four, room for more */

struct _cl_kernel {
  struct kiln_object obj;
  cl_program program;     /* internal reference */
  cl_context context;
  size_t index;           /* in the program's executable */
  const struct kiln_kernel_desc *desc;
  kiln_launcher_fn launcher;
  unsigned char *args;    /* desc->args_block_size bytes (by-value bytes; pointers filled at enqueue) */
  struct kiln_kernel_arg_value *values; /* desc->num_args entries */
  unsigned unset_args;
  bool too_many_image_args; /* beyond the device's image or sampler arguments: launches fail */
  unsigned exec_info_count;
  cl_kernel_exec_info exec_info_names[KILN_KERNEL_EXEC_INFO_MAX];
  uint64_t exec_info_values[KILN_KERNEL_EXEC_INFO_MAX];
  struct kiln_kernel_profile profile; /* its launches' measured cost (a clone starts from it) */
};

static inline bool kiln_kernel_is_valid(cl_kernel kernel) { return kiln_object_is_valid(kernel, KILN_OBJECT_KERNEL); }

/* Extension hook for clSetKernelExecInfo names the core does not know (e.g.
 * cl_arm_scheduling_controls' CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM). Return
 * KILN_KERNEL_EXEC_INFO_NOT_MINE to let other handlers look, a CL error to reject, or
 * CL_SUCCESS with *stored set to the value to record for the kernel (the core keeps it,
 * copies it on clone, and kiln_kernel_exec_info_find returns it). */
typedef cl_int (*kiln_kernel_exec_info_handler)(cl_kernel kernel, cl_kernel_exec_info name, size_t size,
                                                const void *value, uint64_t *stored);
#define KILN_KERNEL_EXEC_INFO_NOT_MINE 1
/* True and *value when an extension's exec info `name` was set on the kernel. */
bool kiln_kernel_exec_info_find(cl_kernel kernel, cl_kernel_exec_info name, uint64_t *value);

/* clSetKernelArg and clSetKernelExecInfo on a kernel known to be valid (a recorder's own
 * clone): the same checks and errors, inside the caller's entry-point call. */
cl_int kiln_kernel_set_arg(cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void *arg_value);
cl_int kiln_kernel_set_exec_info(cl_kernel kernel, cl_kernel_exec_info param_name, size_t param_value_size,
                                 const void *param_value);

/* clSetKernelArgSVMPointer and clSetKernelArgMemPointerINTEL: a global or constant
 * pointer argument set to an address (any: every host address is fine-grain system SVM).
 * CL_INVALID_KERNEL, CL_INVALID_ARG_INDEX, or CL_INVALID_ARG_VALUE for another kind of
 * argument. */
cl_int kiln_kernel_set_arg_pointer(cl_kernel kernel, cl_uint arg_index, const void *pointer);

/* Local memory a launch of `kernel` needs per work-group: static __local variables, then
 * each __local argument at KILN_LOCAL_MEM_ALIGN; fills the offsets into `args` when non-NULL. */
uint64_t kiln_kernel_local_mem_layout(cl_kernel kernel, unsigned char *args);

/* Bounds-checked launches (KILN_CHECK=bounds): writes the extent of every pointer argument
 * after the argument block snapshot `args` (kernel_abi.h's table; kernel_bounds.c). */
void kiln_kernel_bounds_table(cl_kernel kernel, unsigned char *args);

/* CL_KERNEL_WORK_GROUP_SIZE. */
size_t kiln_kernel_max_work_group_size(cl_kernel kernel);

#endif
