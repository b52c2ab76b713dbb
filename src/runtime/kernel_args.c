/* kernel_args.c: clSetKernelArg (buffers, images, pipes and samplers checked against the
 * argument's declaration), SVM pointer arguments, the exec-info entry point (the core's SVM
 * names; extensions accept theirs through a handler table), and the layout of local memory
 * for a launch. */
#include "runtime/kernel.h"
#include "runtime/debug_err.h"

#include "runtime/extension.h"
#include "runtime/image.h"
#include "runtime/sampler.h"

#include <string.h>

static cl_int set_mem_arg(cl_kernel kernel, const struct kiln_kernel_arg_desc *arg, struct kiln_kernel_arg_value *v,
                          size_t arg_size, const void *arg_value) {
  if (arg_size != sizeof(cl_mem))
    return KILN_FAIL(CL_INVALID_ARG_SIZE, "the argument is a buffer (%s): arg_size %zu is not sizeof(cl_mem) (%zu)",
                     arg->type_name, arg_size, sizeof(cl_mem));
  cl_mem mem = NULL;
  if (arg_value) memcpy(&mem, arg_value, sizeof mem);
  if (mem && !kiln_mem_is_buffer(mem))
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "the argument is a buffer (%s): *arg_value (%p) is not a valid buffer",
                     arg->type_name, (void *)mem);
  if (mem && mem->context != kernel->context)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "the buffer given belongs to another context than the kernel");
  v->mem = mem;
  return CL_SUCCESS;
}

/* A pipe argument: a pipe of the kernel's context (there is no NULL pipe). */
static cl_int set_pipe_arg(cl_kernel kernel, struct kiln_kernel_arg_value *v, size_t arg_size, const void *arg_value) {
  if (arg_size != sizeof(cl_mem))
    return KILN_FAIL(CL_INVALID_ARG_SIZE, "the argument is a pipe: arg_size %zu is not sizeof(cl_mem) (%zu)", arg_size,
                     sizeof(cl_mem));
  if (!arg_value) return KILN_FAIL(CL_INVALID_ARG_VALUE, "the argument is a pipe: arg_value is NULL");
  cl_mem mem;
  memcpy(&mem, arg_value, sizeof mem);
  if (!kiln_mem_is_pipe(mem) || mem->context != kernel->context)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT,
                     "the argument is a pipe: *arg_value (%p) is not a valid pipe of the kernel's context",
                     (void *)mem);
  v->mem = mem;
  return CL_SUCCESS;
}

/* queue_t: a device queue of the kernel's context (OpenCL API: CL_INVALID_DEVICE_QUEUE). */
static cl_int set_queue_arg(cl_kernel kernel, struct kiln_kernel_arg_value *v, size_t arg_size, const void *arg_value) {
  if (arg_size != sizeof(cl_command_queue))
    return KILN_FAIL(CL_INVALID_ARG_SIZE, "rejected since (%s)", "arg_size != sizeof(cl_command_queue)");
  if (!arg_value) return KILN_FAIL(CL_INVALID_ARG_VALUE, "rejected since (%s)", "!arg_value");
  cl_command_queue queue;
  memcpy(&queue, arg_value, sizeof queue);
  if (!kiln_object_is_valid(queue, KILN_OBJECT_DEVICE_QUEUE) || queue->context != kernel->context)
    return KILN_FAIL(CL_INVALID_DEVICE_QUEUE, "rejected since (%s)",
                     "!kiln_object_is_valid(queue, KILN_OBJECT_DEVICE_QUEUE) || queue->context != kernel->context");
  v->queue = queue;
  return CL_SUCCESS;
}

/* The image type an image argument's declared type takes (its kernel_arg_type name), and
 * whether it is a depth type; 0 for a type that is no image (no value can be valid). */
static cl_mem_object_type declared_image_type(const char *type_name, bool *depth) {
  static const struct {
    const char *name;
    cl_mem_object_type type;
    bool depth;
  } types[] = {
      {"image1d_t", CL_MEM_OBJECT_IMAGE1D, false},
      {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER, false},
      {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY, false},
      {"image2d_t", CL_MEM_OBJECT_IMAGE2D, false},
      {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, false},
      {"image3d_t", CL_MEM_OBJECT_IMAGE3D, false},
      {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D, true},
      {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, true},
  };
  for (size_t i = 0; type_name && i < sizeof types / sizeof types[0]; i++) {
    if (strcmp(type_name, types[i].name) == 0) {
      *depth = types[i].depth;
      return types[i].type;
    }
  }
  return 0;
}

/* An image argument: a live image of the kernel's context of the declared type (a depth
 * type takes CL_DEPTH images), whose kernel access its flags allow; NULL is no image. */
static cl_int set_image_arg(cl_kernel kernel, const struct kiln_kernel_arg_desc *arg, struct kiln_kernel_arg_value *v,
                            size_t arg_size, const void *arg_value) {
  if (arg_size != sizeof(cl_mem))
    return KILN_FAIL(CL_INVALID_ARG_SIZE, "the argument is an image (%s): arg_size %zu is not sizeof(cl_mem) (%zu)",
                     arg->type_name, arg_size, sizeof(cl_mem));
  bool depth = false;
  cl_mem_object_type type = declared_image_type(arg->type_name, &depth);
  if (!type)
    return KILN_FAIL(CL_INVALID_ARG_VALUE, "rejected since (%s)", "!type"); /* an opaque type Kiln has no objects for */
  cl_mem mem = NULL;
  if (arg_value) memcpy(&mem, arg_value, sizeof mem);
  if (!kiln_mem_is_image(mem) || mem->context != kernel->context || mem->type != type)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)",
                     "!kiln_mem_is_image(mem) || mem->context != kernel->context || mem->type != type");
  if (depth && mem->image->format.image_channel_order != CL_DEPTH)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)",
                     "depth && mem->image->format.image_channel_order != CL_DEPTH");
  if (arg->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY && (mem->flags & CL_MEM_WRITE_ONLY))
    return KILN_FAIL(CL_INVALID_ARG_VALUE, "rejected since (%s)",
                     "arg->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY && (mem->flags & CL_MEM_WRITE_ONLY)");
  if (arg->access_qualifier == CL_KERNEL_ARG_ACCESS_WRITE_ONLY && (mem->flags & CL_MEM_READ_ONLY))
    return KILN_FAIL(CL_INVALID_ARG_VALUE, "rejected since (%s)",
                     "arg->access_qualifier == CL_KERNEL_ARG_ACCESS_WRITE_ONLY && (mem->flags & CL_MEM_READ_ONLY)");
  v->mem = mem;
  return CL_SUCCESS;
}

/* A sampler argument: its bits go into the block now (the kernel never holds the sampler).
 * The spec ties memory objects, not samplers, to the kernel's context. */
static cl_int set_sampler_arg(cl_kernel kernel, const struct kiln_kernel_arg_desc *arg, size_t arg_size,
                              const void *arg_value) {
  if (arg_size != sizeof(cl_sampler))
    return KILN_FAIL(CL_INVALID_ARG_SIZE, "rejected since (%s)", "arg_size != sizeof(cl_sampler)");
  if (!arg_value) return KILN_FAIL(CL_INVALID_SAMPLER, "rejected since (%s)", "!arg_value");
  cl_sampler sampler;
  memcpy(&sampler, arg_value, sizeof sampler);
  if (!kiln_sampler_is_valid(sampler)) return KILN_FAIL_HANDLE(CL_INVALID_SAMPLER, sampler, cl_sampler);
  memcpy(kernel->args + arg->offset, &sampler->bits, sizeof sampler->bits);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                               const void *arg_value) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  return kiln_kernel_set_arg(kernel, arg_index, arg_size, arg_value);
}

cl_int kiln_kernel_set_arg(cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void *arg_value) {
  if (arg_index >= kernel->desc->num_args)
    return KILN_FAIL(CL_INVALID_ARG_INDEX, "arg_index %u: kernel %s has %u arguments", arg_index, kernel->desc->name,
                     kernel->desc->num_args);
  const struct kiln_kernel_arg_desc *arg = &kernel->desc->args[arg_index];
  struct kiln_kernel_arg_value *v = &kernel->values[arg_index];
  cl_int err = CL_SUCCESS;
  switch (arg->kind) {
  case KILN_ARG_BY_VALUE:
    if (!arg_value)
      return KILN_FAIL(CL_INVALID_ARG_VALUE, "argument %u of kernel %s is passed by value (%s): arg_value is NULL",
                       arg_index, kernel->desc->name, arg->type_name);
    if (arg_size != arg->size)
      return KILN_FAIL(CL_INVALID_ARG_SIZE, "argument %u of kernel %s is a %s of %u bytes: arg_size is %zu", arg_index,
                       kernel->desc->name, arg->type_name, arg->size, arg_size);
    memcpy(kernel->args + arg->offset, arg_value, arg_size);
    break;
  case KILN_ARG_GLOBAL_PTR:
  case KILN_ARG_CONSTANT_PTR:
    err = set_mem_arg(kernel, arg, v, arg_size, arg_value);
    break;
  case KILN_ARG_LOCAL_PTR:
    if (arg_value)
      return KILN_FAIL(CL_INVALID_ARG_VALUE, "argument %u of kernel %s is __local: arg_value must be NULL", arg_index,
                       kernel->desc->name);
    if (arg_size == 0)
      return KILN_FAIL(CL_INVALID_ARG_SIZE,
                       "argument %u of kernel %s is __local: arg_size (the bytes to allocate) is 0", arg_index,
                       kernel->desc->name);
    v->local_bytes = arg_size;
    break;
  case KILN_ARG_SAMPLER:
    err = set_sampler_arg(kernel, arg, arg_size, arg_value);
    break;
  case KILN_ARG_IMAGE:
    err = set_image_arg(kernel, arg, v, arg_size, arg_value);
    break;
  case KILN_ARG_PIPE:
    err = set_pipe_arg(kernel, v, arg_size, arg_value);
    break;
  case KILN_ARG_QUEUE:
    err = set_queue_arg(kernel, v, arg_size, arg_value);
    break;
  default:
    return CL_INVALID_ARG_VALUE;
  }
  if (err != CL_SUCCESS) return err;
  v->pointer = false;
  if (!v->set) {
    v->set = true;
    kernel->unset_args--;
  }
  return CL_SUCCESS;
}

uint64_t kiln_kernel_local_mem_layout(cl_kernel kernel, unsigned char *args) {
  const struct kiln_kernel_desc *desc = kernel->desc;
  uint64_t at = desc->static_local_bytes;
  for (uint32_t i = 0; i < desc->num_args; i++) {
    if (desc->args[i].kind != KILN_ARG_LOCAL_PTR) continue;
    at = (at + KILN_LOCAL_MEM_ALIGN - 1) & ~(uint64_t)(KILN_LOCAL_MEM_ALIGN - 1);
    if (args) memcpy(args + desc->args[i].offset, &at, sizeof at);
    at += kernel->values[i].local_bytes;
  }
  return at;
}

cl_int kiln_kernel_set_arg_pointer(cl_kernel kernel, cl_uint arg_index, const void *pointer) {
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  if (arg_index >= kernel->desc->num_args)
    return KILN_FAIL(CL_INVALID_ARG_INDEX, "rejected since (%s)", "arg_index >= kernel->desc->num_args");
  const struct kiln_kernel_arg_desc *arg = &kernel->desc->args[arg_index];
  if (arg->kind != KILN_ARG_GLOBAL_PTR && arg->kind != KILN_ARG_CONSTANT_PTR)
    return KILN_FAIL(CL_INVALID_ARG_VALUE, "rejected since (%s)",
                     "arg->kind != KILN_ARG_GLOBAL_PTR && arg->kind != KILN_ARG_CONSTANT_PTR");
  struct kiln_kernel_arg_value *v = &kernel->values[arg_index];
  memcpy(kernel->args + arg->offset, &pointer, sizeof pointer);
  v->mem = NULL;
  v->pointer = true;
  if (!v->set) {
    v->set = true;
    kernel->unset_args--;
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index, const void *arg_value) {
  KILN_API_CALL;
  return kiln_kernel_set_arg_pointer(kernel, arg_index, arg_value);
}

bool kiln_kernel_exec_info_find(cl_kernel kernel, cl_kernel_exec_info name, uint64_t *value) {
  for (unsigned i = 0; i < kernel->exec_info_count; i++) {
    if (kernel->exec_info_names[i] == name) {
      *value = kernel->exec_info_values[i];
      return true;
    }
  }
  return false;
}

static cl_int record_exec_info(cl_kernel kernel, cl_kernel_exec_info name, uint64_t value) {
  for (unsigned i = 0; i < kernel->exec_info_count; i++) {
    if (kernel->exec_info_names[i] == name) {
      kernel->exec_info_values[i] = value;
      return CL_SUCCESS;
    }
  }
  if (kernel->exec_info_count == KILN_KERNEL_EXEC_INFO_MAX)
    return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)",
                     "kernel->exec_info_count == KILN_KERNEL_EXEC_INFO_MAX");
  kernel->exec_info_names[kernel->exec_info_count] = name;
  kernel->exec_info_values[kernel->exec_info_count++] = value;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel, cl_kernel_exec_info param_name,
                                                    size_t param_value_size, const void *param_value) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  return kiln_kernel_set_exec_info(kernel, param_name, param_value_size, param_value);
}

cl_int kiln_kernel_set_exec_info(cl_kernel kernel, cl_kernel_exec_info param_name, size_t param_value_size,
                                 const void *param_value) {
  switch (param_name) {
  /* Every host address is reachable from a kernel here, so naming the pointers a kernel
   * may reach through others asks for nothing more; the arguments are still checked. */
  case CL_KERNEL_EXEC_INFO_SVM_PTRS:
    /* NULL with size 0 is the empty set. */
    if (!param_value != !param_value_size || param_value_size % sizeof(void *))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "!param_value != !param_value_size || param_value_size % sizeof(void *)");
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
    if (!param_value || param_value_size != sizeof(cl_bool))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!param_value || param_value_size != sizeof(cl_bool)");
    return CL_SUCCESS; /* the device supports fine-grain system SVM either way */
  default:
    break;
  }
  KILN_EXTENSIONS_WITH(e, kernel_exec_info) {
    uint64_t stored = 0;
    cl_int err = (*e)->kernel_exec_info(kernel, param_name, param_value_size, param_value, &stored);
    if (err == KILN_KERNEL_EXEC_INFO_NOT_MINE) continue;
    return err == CL_SUCCESS ? record_exec_info(kernel, param_name, stored) : err;
  }
  return CL_INVALID_VALUE;
}
