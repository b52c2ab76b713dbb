/* kernel.c: creating, cloning, retaining and releasing kernel objects. */
#include "runtime/kernel.h"
#include "runtime/debug_err.h"

#include "runtime/image.h"

#include "runtime/program.h"

#include <stdlib.h>
#include <string.h>

static void kernel_destroy(struct kiln_object *object) {
  cl_kernel kernel = (cl_kernel)object;
  cl_program program = kernel->program;
  free(kernel->args);
  free(kernel->values);
  kiln_object_free(&kernel->obj);
  kiln_program_kernel_detached(program);
}

/* The caller holds the program's lock and checked that it has an executable. The first
 * kernel of a program generates its machine code (program_code.c). */
/* Whether the kernel's read-only image, write-only or read-write image and sampler
 * arguments fit the device's limits (image.h); launches of one that does not fail with
 * CL_OUT_OF_RESOURCES. Decided once, not at every enqueue. */
static bool image_args_fit(const struct kiln_kernel_desc *desc) {
  unsigned read_images = 0, write_images = 0, samplers = 0;
  for (uint32_t i = 0; i < desc->num_args; i++) {
    if (desc->args[i].kind == KILN_ARG_SAMPLER) samplers++;
    if (desc->args[i].kind != KILN_ARG_IMAGE) continue;
    if (desc->args[i].access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY) read_images++;
    else write_images++;
  }
  return read_images <= KILN_MAX_READ_IMAGE_ARGS && write_images <= KILN_MAX_READ_WRITE_IMAGE_ARGS &&
         samplers <= KILN_MAX_SAMPLERS;
}

static cl_kernel kernel_new(cl_program program, size_t index, cl_int *errcode) {
  const struct kiln_kernel_desc *desc = kiln_module_kernel(program->module, index);
  *errcode = kiln_program_load_code_locked(program);
  if (*errcode == CL_SUCCESS) *errcode = kiln_program_enqueue_table_locked(program);
  if (*errcode != CL_SUCCESS) return NULL;
  cl_kernel kernel = kiln_object_alloc(KILN_OBJECT_KERNEL, sizeof *kernel);
  if (!kernel) {
    *errcode = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!kernel");
    return NULL;
  }
  size_t block = desc->args_block_size ? desc->args_block_size : 1;
  kernel->args = calloc(1, block);
  kernel->values = calloc(desc->num_args ? desc->num_args : 1, sizeof *kernel->values);
  if (!kernel->args || !kernel->values) {
    free(kernel->args);
    free(kernel->values);
    kiln_object_free(&kernel->obj);
    *errcode = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  kernel->program = program;
  kernel->context = program->context;
  kernel->index = index;
  kernel->desc = desc;
  kernel->profile.name = desc->name;
  kernel->profile.stack_bytes = kiln_jit_launcher_stack(program->jit, index);
  kernel->profile.fibers = kiln_jit_launcher_uses_fibers(program->jit, index);
  atomic_init(&kernel->profile.ns_per_kilo_item, 0);
  kernel->profile.enqueue = desc->enqueues ? program->enqueue : NULL;
  kernel->launcher = kiln_jit_launcher(program->jit, index);
  kernel->unset_args = desc->num_args;
  kernel->too_many_image_args = !image_args_fit(desc);
  kiln_program_kernel_attached_locked(program);
  kiln_object_init(&kernel->obj, KILN_OBJECT_KERNEL, kernel_destroy);
  *errcode = CL_SUCCESS;
  return kernel;
}

static cl_kernel fail(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program));
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = NULL;
  pthread_mutex_lock(&program->lock);
  if (!kiln_program_has_executable_locked(program) || program->busy) {
    err = KILN_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "rejected since (%s)",
                    "!kiln_program_has_executable_locked(program) || program->busy");
  } else if (!kernel_name) {
    err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kernel_name");
  } else {
    size_t count = kiln_module_kernel_count(program->module), index = 0;
    while (index < count && (kiln_module_kernel(program->module, index)->is_block ||
                             strcmp(kiln_module_kernel(program->module, index)->name, kernel_name) != 0))
      index++;
    if (index == count)
      err = KILN_FAIL(CL_INVALID_KERNEL_NAME, "program %p has no kernel named \"%s\" (its kernels: %s)",
                      (void *)program, kernel_name, program->kernel_names ? program->kernel_names : "none");
    else kernel = kernel_new(program, index, &err);
  }
  pthread_mutex_unlock(&program->lock);
  if (errcode_ret) *errcode_ret = err;
  return kernel;
}

CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel *kernels,
                                                         cl_uint *num_kernels_ret) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  cl_int err = CL_SUCCESS;
  size_t created = 0;
  pthread_mutex_lock(&program->lock);
  size_t count = 0;
  if (!kiln_program_has_executable_locked(program) || program->busy) {
    err = KILN_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "rejected since (%s)",
                    "!kiln_program_has_executable_locked(program) || program->busy");
  } else {
    count = kiln_program_api_kernel_count(program->module);
    if (kernels && num_kernels < count) err = CL_INVALID_VALUE;
    for (size_t index = 0; kernels && err == CL_SUCCESS && created < count; index++) {
      if (kiln_module_kernel(program->module, index)->is_block) continue;
      kernels[created] = kernel_new(program, index, &err);
      if (!kernels[created]) break;
      created++;
    }
  }
  pthread_mutex_unlock(&program->lock);
  if (err != CL_SUCCESS) {
    for (size_t i = 0; i < created; i++) clReleaseKernel(kernels[i]);
    return err;
  }
  if (num_kernels_ret) *num_kernels_ret = (cl_uint)count;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(source_kernel))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_KERNEL, source_kernel, cl_kernel));
  cl_program program = source_kernel->program;
  cl_int err;
  pthread_mutex_lock(&program->lock);
  cl_kernel clone = kernel_new(program, source_kernel->index, &err);
  pthread_mutex_unlock(&program->lock);
  if (!clone) return fail(errcode_ret, err);
  const struct kiln_kernel_desc *desc = source_kernel->desc;
  memcpy(clone->args, source_kernel->args, desc->args_block_size);
  memcpy(clone->values, source_kernel->values, desc->num_args * sizeof *clone->values);
  clone->unset_args = source_kernel->unset_args;
  clone->exec_info_count = source_kernel->exec_info_count;
  memcpy(clone->exec_info_names, source_kernel->exec_info_names, sizeof clone->exec_info_names);
  memcpy(clone->exec_info_values, source_kernel->exec_info_values, sizeof clone->exec_info_values);
  atomic_store(&clone->profile.ns_per_kilo_item, atomic_load(&source_kernel->profile.ns_per_kilo_item));
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return clone;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) {
  KILN_API_CALL;
  return kiln_object_api_retain(kernel, KILN_OBJECT_KERNEL, CL_INVALID_KERNEL);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  KILN_API_CALL;
  return kiln_object_api_release(kernel, KILN_OBJECT_KERNEL, CL_INVALID_KERNEL);
}
