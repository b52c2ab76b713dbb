/* mem_object.c: memory object lifetime (create, retain, release, destroy), queries and
 * destructor callbacks; clCreateBuffer and clCreateBufferWithProperties. Images are memory
 * objects with an image part (image.h), created in image_create.c. */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/info.h"
#include "runtime/svm.h"

#include <stdlib.h>
#include <string.h>

static void mem_destroy(struct kiln_object *object) {
  cl_mem mem = (cl_mem)object;
  /* The last holder is gone (API and every command using it), no lock is held: the
   * callbacks run newest first, before the storage goes, so a USE_HOST_PTR owner may
   * free its memory from the callback. */
  struct kiln_mem_destructor *d = mem->destructors;
  while (d) {
    struct kiln_mem_destructor *next = d->next;
    d->notify(mem, d->user_data);
    free(d);
    d = next;
  }
  struct kiln_mem_mapping *m = mem->mappings;
  while (m) {
    struct kiln_mem_mapping *next = m->next;
    free(m);
    m = next;
  }
  if (mem->owns_storage) free(mem->storage);
  else if (mem->release_storage) mem->release_storage(mem->storage, mem->release_storage_data);
  if (mem->parent) kiln_object_release(&mem->parent->obj);
  kiln_object_release(&mem->context->obj);
  pthread_mutex_destroy(&mem->lock);
  free(mem->properties);
  free(mem->image);
  kiln_object_free(&mem->obj);
}

static size_t round_up(size_t value, size_t to) { return (value + to - 1) / to * to; }

cl_mem kiln_mem_create(cl_context context, const struct kiln_mem_desc *desc, cl_int *errcode) {
  cl_mem mem = kiln_object_alloc(KILN_OBJECT_MEM, sizeof *mem);
  if (!mem) {
    *errcode = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!mem");
    return NULL;
  }
  if (desc->properties_count) {
    mem->properties = malloc(desc->properties_count * sizeof *mem->properties);
    if (!mem->properties) {
      kiln_object_free(&mem->obj);
      *errcode = CL_OUT_OF_HOST_MEMORY;
      return NULL;
    }
    memcpy(mem->properties, desc->properties, desc->properties_count * sizeof *mem->properties);
    mem->properties_count = desc->properties_count;
  }
  if (desc->storage) {
    mem->storage = desc->storage;
    mem->release_storage = desc->release_storage;
    mem->release_storage_data = desc->release_storage_data;
  } else {
    /* Rounded up so that aligned_alloc's size rule holds and vector loads past the
     * last element stay inside the allocation. */
    mem->storage = aligned_alloc(KILN_MEM_BASE_ADDR_ALIGN_BYTES, round_up(desc->size, KILN_MEM_BASE_ADDR_ALIGN_BYTES));
    if (!mem->storage) {
      free(mem->properties);
      kiln_object_free(&mem->obj);
      *errcode = CL_MEM_OBJECT_ALLOCATION_FAILURE;
      return NULL;
    }
    mem->owns_storage = true;
    if (desc->copy_from) memcpy(mem->storage, desc->copy_from, desc->size);
  }
  pthread_mutex_init(&mem->lock, NULL);
  mem->type = desc->type ? desc->type : CL_MEM_OBJECT_BUFFER;
  mem->image = desc->image;
  mem->flags = desc->flags;
  mem->size = desc->size;
  mem->host_ptr = desc->host_ptr;
  mem->uses_svm_pointer = desc->uses_svm_pointer;
  mem->offset = desc->offset;
  mem->imported = desc->imported;
  mem->context = context;
  kiln_object_retain(&context->obj);
  if (desc->parent) {
    mem->parent = desc->parent;
    kiln_object_retain(&desc->parent->obj);
  }
  kiln_object_init(&mem->obj, KILN_OBJECT_MEM, mem_destroy);
  *errcode = CL_SUCCESS;
  return mem;
}

cl_int kiln_mem_check_alignment(cl_mem mem) {
  return mem->offset % KILN_MEM_BASE_ADDR_ALIGN_BYTES ? CL_MISALIGNED_SUB_BUFFER_OFFSET : CL_SUCCESS;
}

static cl_mem create_buffer(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                            size_t size, void *host_ptr, cl_int *errcode_ret) {
  cl_int err;
  cl_mem mem = NULL;
  size_t properties_count = 0;
  if (!kiln_context_is_valid(context)) {
    err = KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  } else if ((err = kiln_mem_check_properties(properties, &properties_count)) != CL_SUCCESS) {
  } else if ((err = kiln_mem_check_flags(flags, 0)) != CL_SUCCESS) {
  } else if (size == 0 || size > kiln_device_get()->max_mem_alloc_size) {
    err = KILN_FAIL(CL_INVALID_BUFFER_SIZE, "rejected since (%s)",
                    "size == 0 || size > kiln_device_get()->max_mem_alloc_size");
  } else if ((err = kiln_mem_check_host_ptr(flags, host_ptr)) == CL_SUCCESS) {
    struct kiln_mem_desc desc = {
        .flags = flags,
        .size = size,
        .properties = properties,
        .properties_count = properties_count,
    };
    /* Over (USE_HOST_PTR) or from (COPY_HOST_PTR) a clSVMAlloc allocation: not past its end. */
    struct kiln_svm_allocation svm;
    bool over_svm = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) && kiln_svm_lookup(host_ptr, &svm) &&
                    svm.kind == KILN_SVM_BUFFER && svm.context == context;
    if (over_svm && size > svm.size - (size_t)((char *)host_ptr - svm.base)) {
      err = KILN_FAIL(CL_INVALID_BUFFER_SIZE, "rejected since (%s)",
                      "over_svm && size > svm.size - (size_t)((char *)host_ptr - svm.base)");
      goto done;
    }
    desc.uses_svm_pointer = over_svm && (flags & CL_MEM_USE_HOST_PTR);
    if (flags & CL_MEM_USE_HOST_PTR) {
      desc.storage = host_ptr; /* zero copy: the buffer is the application's memory */
      desc.host_ptr = host_ptr;
    } else if (flags & CL_MEM_COPY_HOST_PTR) {
      desc.copy_from = host_ptr;
    }
    mem = kiln_mem_create(context, &desc, &err);
  }
done:
  if (errcode_ret) *errcode_ret = err;
  return mem;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                                               cl_int *errcode_ret) {
  KILN_API_CALL;
  return create_buffer(context, NULL, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context, const cl_mem_properties *properties,
                                                             cl_mem_flags flags, size_t size, void *host_ptr,
                                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  return create_buffer(context, properties, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem memobj) {
  KILN_API_CALL;
  return kiln_object_api_retain(memobj, KILN_OBJECT_MEM, CL_INVALID_MEM_OBJECT);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  KILN_API_CALL;
  return kiln_object_api_release(memobj, KILN_OBJECT_MEM, CL_INVALID_MEM_OBJECT);
}

CL_API_ENTRY cl_int CL_API_CALL clSetMemObjectDestructorCallback(cl_mem memobj,
                                                                 void(CL_CALLBACK *pfn_notify)(cl_mem, void *),
                                                                 void *user_data) {
  KILN_API_CALL;
  if (!kiln_mem_is_valid(memobj)) return KILN_FAIL_HANDLE(CL_INVALID_MEM_OBJECT, memobj, cl_mem);
  if (!pfn_notify) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!pfn_notify");
  struct kiln_mem_destructor *d = malloc(sizeof *d);
  if (!d) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!d");
  d->notify = pfn_notify;
  d->user_data = user_data;
  pthread_mutex_lock(&memobj->lock);
  d->next = memobj->destructors;
  memobj->destructors = d;
  pthread_mutex_unlock(&memobj->lock);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name, size_t param_value_size,
                                                   void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_mem_is_valid(memobj)) return KILN_FAIL_HANDLE(CL_INVALID_MEM_OBJECT, memobj, cl_mem);
  switch (param_name) {
  case CL_MEM_TYPE:
    KILN_INFO_VALUE(cl_mem_object_type, memobj->type);
  case CL_MEM_FLAGS:
    KILN_INFO_VALUE(cl_mem_flags, memobj->flags);
  case CL_MEM_SIZE:
    KILN_INFO_VALUE(size_t, memobj->size);
  case CL_MEM_HOST_PTR:
    KILN_INFO_VALUE(void *, memobj->host_ptr);
  case CL_MEM_MAP_COUNT: {
    pthread_mutex_lock(&memobj->lock);
    cl_uint count = memobj->map_count;
    pthread_mutex_unlock(&memobj->lock);
    KILN_INFO_VALUE(cl_uint, count);
  }
  case CL_MEM_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&memobj->obj.api_refs));
  case CL_MEM_CONTEXT:
    KILN_INFO_VALUE(cl_context, memobj->context);
  case CL_MEM_ASSOCIATED_MEMOBJECT:
    KILN_INFO_VALUE(cl_mem, memobj->parent);
  case CL_MEM_OFFSET:
    KILN_INFO_VALUE(size_t, memobj->offset);
  case CL_MEM_USES_SVM_POINTER:
    KILN_INFO_VALUE(cl_bool, memobj->type == CL_MEM_OBJECT_BUFFER && kiln_mem_root(memobj)->uses_svm_pointer);
  case CL_MEM_PROPERTIES:
    KILN_INFO_ARRAY(memobj->properties, memobj->properties_count * sizeof *memobj->properties);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetMemObjectInfo knows", (unsigned)param_name);
  }
}
