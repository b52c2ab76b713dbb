/* mem_flags.c: the Memory Flags table rules shared by every path that creates a
 * memory object (clCreateBuffer*, clCreateSubBuffer, clCreateImage*, extension create
 * paths). */
#include "runtime/mem_object.h"

static bool more_than_one(cl_mem_flags bits) { return (bits & (bits - 1)) != 0; }

cl_int kiln_mem_check_flags(cl_mem_flags flags, cl_mem_flags extra_allowed) {
  /* CL_MEM_KERNEL_READ_AND_WRITE only queries image formats; it never creates objects. */
  const cl_mem_flags known = KILN_MEM_ACCESS_FLAGS | KILN_MEM_HOST_PTR_FLAGS | KILN_MEM_HOST_ACCESS_FLAGS;
  if (flags & ~(known | extra_allowed)) return CL_INVALID_VALUE;
  if (more_than_one(flags & KILN_MEM_ACCESS_FLAGS)) return CL_INVALID_VALUE;
  if (more_than_one(flags & KILN_MEM_HOST_ACCESS_FLAGS)) return CL_INVALID_VALUE;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

cl_int kiln_mem_inherit_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *result) {
  cl_int err = kiln_mem_check_flags(flags, 0);
  if (err != CL_SUCCESS) return err;
  if (flags & KILN_MEM_HOST_PTR_FLAGS) return CL_INVALID_VALUE;
  if ((parent & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) return CL_INVALID_VALUE;
  if ((parent & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) return CL_INVALID_VALUE;
  if ((parent & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) return CL_INVALID_VALUE;
  if ((parent & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) return CL_INVALID_VALUE;
  if ((parent & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return CL_INVALID_VALUE;
  cl_mem_flags out = flags | (parent & KILN_MEM_HOST_PTR_FLAGS);
  if (!(flags & KILN_MEM_ACCESS_FLAGS)) out |= parent & KILN_MEM_ACCESS_FLAGS;
  if (!(flags & KILN_MEM_HOST_ACCESS_FLAGS)) out |= parent & KILN_MEM_HOST_ACCESS_FLAGS;
  *result = out;
  return CL_SUCCESS;
}

cl_int kiln_mem_check_host_ptr(cl_mem_flags flags, const void *host_ptr) {
  bool wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
  return wants_ptr == (host_ptr != NULL) ? CL_SUCCESS : CL_INVALID_HOST_PTR;
}

cl_int kiln_mem_check_properties(const cl_mem_properties *properties, size_t *count) {
  *count = 0;
  if (!properties) return CL_SUCCESS;
  /* No core buffer property exists in OpenCL 3.0; an extension adding one checks its
   * name and value here (and duplicates), before this loop rejects the rest. */
  if (properties[0] != 0) return CL_INVALID_PROPERTY;
  *count = 1;
  return CL_SUCCESS;
}
