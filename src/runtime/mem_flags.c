/* mem_flags.c: the Memory Flags table rules shared by every path that creates a
 * memory object (clCreateBuffer*, clCreateSubBuffer, clCreateImage*, extension create
 * paths). */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

static bool more_than_one(cl_mem_flags bits) { return (bits & (bits - 1)) != 0; }

cl_int kiln_mem_check_flags(cl_mem_flags flags, cl_mem_flags extra_allowed) {
  /* CL_MEM_KERNEL_READ_AND_WRITE only queries image formats; it never creates objects. */
  const cl_mem_flags known = KILN_MEM_ACCESS_FLAGS | KILN_MEM_HOST_PTR_FLAGS | KILN_MEM_HOST_ACCESS_FLAGS;
  if (flags & ~(known | extra_allowed))
    return KILN_FAIL(CL_INVALID_VALUE, "flags 0x%llx: bits 0x%llx are not memory flags Kiln accepts here",
                     (unsigned long long)flags, (unsigned long long)(flags & ~(known | extra_allowed)));
  if (more_than_one(flags & KILN_MEM_ACCESS_FLAGS))
    return KILN_FAIL(CL_INVALID_VALUE,
                     "flags combine more than one of CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY");
  if (more_than_one(flags & KILN_MEM_HOST_ACCESS_FLAGS))
    return KILN_FAIL(
        CL_INVALID_VALUE,
        "flags combine more than one of CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS");
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return KILN_FAIL(CL_INVALID_VALUE,
                     "flags combine CL_MEM_USE_HOST_PTR with CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR");
  return CL_SUCCESS;
}

cl_int kiln_mem_inherit_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *result) {
  cl_int err = kiln_mem_check_flags(flags, 0);
  if (err != CL_SUCCESS) return err;
  if (flags & KILN_MEM_HOST_PTR_FLAGS)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "flags & KILN_MEM_HOST_PTR_FLAGS");
  if ((parent & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(parent & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))");
  if ((parent & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(parent & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))");
  if ((parent & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(parent & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)");
  if ((parent & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(parent & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)");
  if ((parent & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(parent & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))");
  cl_mem_flags out = flags | (parent & KILN_MEM_HOST_PTR_FLAGS);
  if (!(flags & KILN_MEM_ACCESS_FLAGS)) out |= parent & KILN_MEM_ACCESS_FLAGS;
  if (!(flags & KILN_MEM_HOST_ACCESS_FLAGS)) out |= parent & KILN_MEM_HOST_ACCESS_FLAGS;
  *result = out;
  return CL_SUCCESS;
}

cl_int kiln_mem_check_host_ptr(cl_mem_flags flags, const void *host_ptr) {
  bool wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
  if (wants_ptr == (host_ptr != NULL)) return CL_SUCCESS;
  return KILN_FAIL(CL_INVALID_HOST_PTR, "%s",
                   wants_ptr
                       ? "host_ptr is NULL but flags include CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR"
                       : "host_ptr is not NULL but flags include neither CL_MEM_USE_HOST_PTR nor CL_MEM_COPY_HOST_PTR");
}

cl_int kiln_mem_check_properties(const cl_mem_properties *properties, size_t *count) {
  *count = 0;
  if (!properties) return CL_SUCCESS;
  /* No core buffer property exists in OpenCL 3.0; an extension adding one checks its
   * name and value here (and duplicates), before this loop rejects the rest. */
  if (properties[0] != 0) return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "properties[0] != 0");
  *count = 1;
  return CL_SUCCESS;
}
