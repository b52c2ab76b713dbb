/* usm_alloc.c: USM allocations, their properties, freeing and clGetMemAllocInfoINTEL.
 * The errors follow the extension's lists in order: context, device, (capabilities: every
 * kind is supported), alignment, properties, size. */
#include "ext/intel_usm/intel_usm.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/info.h"
#include "runtime/queue.h"
#include "runtime/svm.h"

static const cl_mem_alloc_flags_intel known_flags = CL_MEM_ALLOC_WRITE_COMBINED_INTEL |
                                                    CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |
                                                    CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
static const cl_mem_alloc_flags_intel placement_flags =
    CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;

/* CL_MEM_ALLOC_FLAGS_INTEL is the only property, given at most once, with known bits; the
 * placement hints only for shared allocations, and not both. */
static cl_int parse_properties(const cl_mem_properties_intel *properties, enum kiln_svm_kind kind,
                               cl_mem_alloc_flags_intel *flags) {
  *flags = 0;
  bool seen = false;
  for (const cl_mem_properties_intel *p = properties; p && p[0]; p += 2) {
    if (p[0] != CL_MEM_ALLOC_FLAGS_INTEL || seen)
      return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "p[0] != CL_MEM_ALLOC_FLAGS_INTEL || seen");
    seen = true;
    cl_mem_alloc_flags_intel value = p[1];
    if (value & ~known_flags) return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "value & ~known_flags");
    if (kind != KILN_USM_SHARED && (value & placement_flags))
      return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)",
                       "kind != KILN_USM_SHARED && (value & placement_flags)");
    if ((value & placement_flags) == placement_flags)
      return KILN_FAIL(CL_INVALID_PROPERTY, "rejected since (%s)", "(value & placement_flags) == placement_flags");
    *flags = value;
  }
  return CL_SUCCESS;
}

static bool context_has_device(cl_context context, cl_device_id device) {
  for (cl_uint i = 0; i < context->num_devices; i++)
    if (context->devices[i] == device) return true;
  return false;
}

/* `device` is checked by the caller (NULL for host allocations and unassociated shared
 * ones). */
static void *allocate(cl_context context, cl_device_id device, enum kiln_svm_kind kind,
                      const cl_mem_properties_intel *properties, size_t size, cl_uint alignment, cl_int *errcode_ret) {
  cl_int err;
  cl_mem_alloc_flags_intel flags = 0;
  void *pointer = NULL;
  if (alignment & (alignment - 1) || alignment > KILN_USM_MAX_ALIGNMENT) err = CL_INVALID_VALUE;
  else if ((err = parse_properties(properties, kind, &flags)) == CL_SUCCESS) {
    /* kiln_svm_allocate checks the size last, as the list orders it. */
    struct kiln_svm_allocation desc = {.context = context, .kind = kind, .flags = flags, .device = device};
    pointer = kiln_svm_allocate(&desc, size, alignment ? alignment : KILN_USM_MAX_ALIGNMENT, &err);
  }
  if (errcode_ret) *errcode_ret = err;
  return pointer;
}

static void *refuse(cl_int err, cl_int *errcode_ret) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

void *CL_API_CALL kiln_usm_host_alloc(cl_context context, const cl_mem_properties_intel *properties, size_t size,
                                      cl_uint alignment, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return refuse(CL_INVALID_CONTEXT, errcode_ret);
  return allocate(context, NULL, KILN_USM_HOST, properties, size, alignment, errcode_ret);
}

void *CL_API_CALL kiln_usm_device_alloc(cl_context context, cl_device_id device,
                                        const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                        cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return refuse(CL_INVALID_CONTEXT, errcode_ret);
  if (!kiln_device_is_valid(device) || !context_has_device(context, device))
    return refuse(CL_INVALID_DEVICE, errcode_ret);
  return allocate(context, device, KILN_USM_DEVICE, properties, size, alignment, errcode_ret);
}

void *CL_API_CALL kiln_usm_shared_alloc(cl_context context, cl_device_id device,
                                        const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                        cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return refuse(CL_INVALID_CONTEXT, errcode_ret);
  if (device && (!kiln_device_is_valid(device) || !context_has_device(context, device)))
    return refuse(CL_INVALID_DEVICE, errcode_ret);
  return allocate(context, device, KILN_USM_SHARED, properties, size, alignment, errcode_ret);
}

cl_int CL_API_CALL kiln_usm_free(cl_context context, void *ptr) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  if (!ptr) return CL_SUCCESS;
  return kiln_svm_release(context, ptr, KILN_USM_KINDS) ? CL_SUCCESS : CL_INVALID_VALUE;
}

cl_int CL_API_CALL kiln_usm_blocking_free(cl_context context, void *ptr) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  if (!ptr) return CL_SUCCESS;
  struct kiln_svm_allocation a;
  if (!kiln_svm_lookup(ptr, &a) || a.base != ptr || a.context != context || !(a.kind & KILN_USM_KINDS))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "!kiln_svm_lookup(ptr, &a) || a.base != ptr || a.context != context || !(a.kind & KILN_USM_KINDS)");
  /* Kiln does not track which commands use which allocation: every command enqueued in
   * the context before this call may, so all of them complete first. */
  cl_int err = kiln_context_finish(context);
  if (err != CL_SUCCESS) return err;
  return kiln_svm_release(context, ptr, KILN_USM_KINDS) ? CL_SUCCESS : CL_INVALID_VALUE;
}

static cl_unified_shared_memory_type_intel type_of(enum kiln_svm_kind kind) {
  switch (kind) {
  case KILN_USM_HOST:
    return CL_MEM_TYPE_HOST_INTEL;
  case KILN_USM_DEVICE:
    return CL_MEM_TYPE_DEVICE_INTEL;
  case KILN_USM_SHARED:
    return CL_MEM_TYPE_SHARED_INTEL;
  default:
    return CL_MEM_TYPE_UNKNOWN_INTEL;
  }
}

cl_int CL_API_CALL kiln_usm_alloc_info(cl_context context, const void *ptr, cl_mem_info_intel param_name,
                                       size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  /* Anything but a USM allocation of this context (an SVM allocation, a system pointer)
   * is CL_MEM_TYPE_UNKNOWN_INTEL, with the NULL / 0 answers the spec gives for it. */
  struct kiln_svm_allocation a;
  bool known = ptr && kiln_svm_lookup(ptr, &a) && a.context == context && (a.kind & KILN_USM_KINDS);
  if (!known) a = (struct kiln_svm_allocation){.kind = 0};
  switch (param_name) {
  case CL_MEM_ALLOC_TYPE_INTEL:
    KILN_INFO_VALUE(cl_unified_shared_memory_type_intel, type_of(a.kind));
  case CL_MEM_ALLOC_BASE_PTR_INTEL:
    KILN_INFO_VALUE(void *, (void *)a.base);
  case CL_MEM_ALLOC_SIZE_INTEL:
    KILN_INFO_VALUE(size_t, a.size);
  case CL_MEM_ALLOC_DEVICE_INTEL:
    KILN_INFO_VALUE(cl_device_id, a.device);
  case CL_MEM_ALLOC_FLAGS_INTEL:
    KILN_INFO_VALUE(cl_mem_alloc_flags_intel, (cl_mem_alloc_flags_intel)a.flags);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
  }
}
