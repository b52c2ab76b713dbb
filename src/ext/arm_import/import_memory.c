/* import_memory.c: clImportMemoryARM. Checks in the spec's order of its Errors list, then
 * creates a core buffer on the imported storage. Host imports must lie in mapped pages
 * (mincore) and may not share a page with another import of the context when either is
 * unaligned; dma-bufs are mapped with their own access mode. Kiln never frees imported
 * memory: releasing the buffer only drops its page claim or its dma-buf mapping. */
#include "ext/arm_import/arm_import.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/extension.h"
#include "runtime/mem_object.h"

#include <stdint.h>
#include <stdlib.h>

struct import_owner {
  struct kiln_import_pages *pages; /* host imports */
  size_t mapped_size;              /* dma-buf imports: the mapping to undo */
};

static void release_import(void *storage, void *data) {
  struct import_owner *owner = data;
  if (owner->pages) kiln_import_pages_release(owner->pages);
  if (owner->mapped_size) kiln_dma_buf_unmap(storage, owner->mapped_size);
  free(owner);
}

static cl_mem import_failed(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

/* CL_IMPORT_TYPE_ARM is the only property Kiln accepts: _protected and
 * _android_hardware_buffer are not reported (they mean nothing on a CPU), and the
 * dma-buf type only where dma-bufs exist. */
static cl_int parse_properties(const cl_import_properties_arm *properties, cl_import_properties_arm *type) {
  *type = CL_IMPORT_TYPE_HOST_ARM;
  if (!properties) return CL_SUCCESS;
  bool seen_type = false;
  for (size_t i = 0; properties[i] != 0; i += 2) {
    if (properties[i] != CL_IMPORT_TYPE_ARM || seen_type)
      return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "properties[i] != CL_IMPORT_TYPE_ARM || seen_type");
    seen_type = true;
    *type = properties[i + 1];
    if (*type != CL_IMPORT_TYPE_HOST_ARM && !(*type == CL_IMPORT_TYPE_DMA_BUF_ARM && kiln_dma_buf_supported()))
      return KILN_FAIL(
          CL_INVALID_PROPERTY, "rejected since (%s)",
          "*type != CL_IMPORT_TYPE_HOST_ARM && !(*type == CL_IMPORT_TYPE_DMA_BUF_ARM && kiln_dma_buf_supported())");
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_mem CL_API_CALL clImportMemoryARM(cl_context context, cl_mem_flags flags,
                                                  const cl_import_properties_arm *properties, void *memory,
                                                  size_t size, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return import_failed(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  /* Valid: access flags, host-access flags (hints), CL_MEM_USE_HOST_PTR (ignored). */
  if (flags & ~(cl_mem_flags)(KILN_MEM_ACCESS_FLAGS | KILN_MEM_HOST_ACCESS_FLAGS | CL_MEM_USE_HOST_PTR))
    return import_failed(
        errcode_ret,
        KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                  "flags & ~(cl_mem_flags)(KILN_MEM_ACCESS_FLAGS | KILN_MEM_HOST_ACCESS_FLAGS | CL_MEM_USE_HOST_PTR)"));
  flags &= ~(cl_mem_flags)CL_MEM_USE_HOST_PTR;
  cl_int err = kiln_mem_check_flags(flags, 0);
  if (err != CL_SUCCESS) return import_failed(errcode_ret, err);
  cl_import_properties_arm type;
  if ((err = parse_properties(properties, &type)) != CL_SUCCESS) return import_failed(errcode_ret, err);
  if (!memory) return import_failed(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!memory"));
  if (size == 0 || size > kiln_device_get()->max_mem_alloc_size || (uintptr_t)memory + size < (uintptr_t)memory)
    return import_failed(errcode_ret, KILN_FAIL(CL_INVALID_BUFFER_SIZE, "rejected since (%s)",
                                                "size == 0 || size > kiln_device_get()->max_mem_alloc_size || "
                                                "(uintptr_t)memory + size < (uintptr_t)memory"));

  struct import_owner *owner = calloc(1, sizeof *owner);
  if (!owner) return import_failed(errcode_ret, KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!owner"));
  void *storage = memory;
  if (type == CL_IMPORT_TYPE_DMA_BUF_ARM) {
    bool read_only = false;
    err = kiln_dma_buf_map(*(const int *)memory, size, &storage, &read_only);
    if (err == CL_SUCCESS) owner->mapped_size = size;
    /* The dma-buf's own mode is the more restrictive: it takes precedence. */
    if (read_only) flags = (flags & ~(cl_mem_flags)KILN_MEM_ACCESS_FLAGS) | CL_MEM_READ_ONLY;
  } else if (!kiln_import_range_mapped(memory, size)) {
    err = KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                    "!kiln_import_range_mapped(memory, size)"); /* pages of the range are not mapped in the process */
  } else {
    bool conflict;
    owner->pages = kiln_import_pages_claim(context, memory, size, &conflict);
    err = owner->pages ? CL_SUCCESS : conflict ? CL_INVALID_OPERATION : CL_OUT_OF_HOST_MEMORY;
  }
  if (err != CL_SUCCESS) {
    free(owner);
    return import_failed(errcode_ret, err);
  }
  struct kiln_mem_desc desc = {.flags = flags,
                               .size = size,
                               .storage = storage,
                               .release_storage = release_import,
                               .release_storage_data = owner,
                               .imported = true};
  cl_mem mem = kiln_mem_create(context, &desc, &err);
  if (!mem) {
    release_import(storage, owner);
    return import_failed(errcode_ret, err);
  }
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return mem;
}

static const struct kiln_extension_function functions[] = {
    {"clImportMemoryARM", (void *)clImportMemoryARM},
    {NULL, NULL},
};

const struct kiln_extension kiln_ext_arm_import_memory = {
    .name = "cl_arm_import_memory",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = functions,
};
const struct kiln_extension kiln_ext_arm_import_memory_host = {
    .name = "cl_arm_import_memory_host",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
};
const struct kiln_extension kiln_ext_arm_import_memory_dma_buf = {
    .name = "cl_arm_import_memory_dma_buf",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .available = kiln_dma_buf_supported,
};
