/* mem_sub_buffer.c: clCreateSubBuffer. A sub-buffer is a window on its parent's storage
 * (no copy) and holds an internal reference on the parent. */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

#include "runtime/device.h"

static cl_mem create_sub_buffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void *info,
                                cl_int *err) {
  if (!kiln_mem_is_buffer(buffer) || buffer->parent) {
    *err = KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)", "!kiln_mem_is_buffer(buffer) || buffer->parent");
    return NULL;
  }
  cl_mem_flags sub_flags;
  if ((*err = kiln_mem_inherit_flags(buffer->flags, flags, &sub_flags)) != CL_SUCCESS) return NULL;
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) {
    *err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "type != CL_BUFFER_CREATE_TYPE_REGION || !info");
    return NULL;
  }
  const cl_buffer_region *region = info;
  if (region->size == 0) {
    *err = KILN_FAIL(CL_INVALID_BUFFER_SIZE, "rejected since (%s)", "region->size == 0");
    return NULL;
  }
  if (!kiln_mem_range_ok(buffer, region->origin, region->size)) {
    *err =
        KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_mem_range_ok(buffer, region->origin, region->size)");
    return NULL;
  }
  if (region->origin % KILN_MEM_BASE_ADDR_ALIGN_BYTES) {
    *err = KILN_FAIL(CL_MISALIGNED_SUB_BUFFER_OFFSET, "rejected since (%s)",
                     "region->origin % KILN_MEM_BASE_ADDR_ALIGN_BYTES");
    return NULL;
  }
  struct kiln_mem_desc desc = {
      .flags = sub_flags,
      .size = region->size,
      .storage = buffer->storage + region->origin,
      .host_ptr = buffer->host_ptr ? (char *)buffer->host_ptr + region->origin : NULL,
      .parent = buffer,
      .offset = region->origin,
  };
  return kiln_mem_create(buffer->context, &desc, err);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                  cl_buffer_create_type buffer_create_type,
                                                  const void *buffer_create_info, cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  cl_mem mem = create_sub_buffer(buffer, flags, buffer_create_type, buffer_create_info, &err);
  if (errcode_ret) *errcode_ret = err;
  return mem;
}
