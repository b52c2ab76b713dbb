/* program_info.c: clGetProgramInfo and clGetProgramBuildInfo. */
#include "runtime/program.h"
#include "runtime/debug_err.h"

#include "runtime/info.h"

#include <stdlib.h>
#include <string.h>

static cl_int binary_info(cl_program program, cl_program_info param_name, size_t param_value_size,
                          void *param_value, size_t *param_value_size_ret) {
  void *bytes = NULL;
  size_t size = 0;
  pthread_mutex_lock(&program->lock);
  cl_int err = program->module && !program->busy ? kiln_program_binary_encode(program, &bytes, &size) : CL_SUCCESS;
  pthread_mutex_unlock(&program->lock);
  if (err != CL_SUCCESS) return err;
  cl_uint n = program->num_devices;
  if (param_name == CL_PROGRAM_BINARY_SIZES) {
    size_t *sizes = malloc(n * sizeof *sizes);
    if (!sizes) err = CL_OUT_OF_HOST_MEMORY;
    else {
      for (cl_uint i = 0; i < n; i++) sizes[i] = size;
      err = kiln_info_copy(param_value_size, param_value, param_value_size_ret, sizes, n * sizeof *sizes);
      free(sizes);
    }
  } else {
    if (param_value_size_ret) *param_value_size_ret = n * sizeof(unsigned char *);
    if (param_value && param_value_size < n * sizeof(unsigned char *)) {
      err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                      "param_value && param_value_size < n * sizeof(unsigned char *)");
    } else if (param_value) {
      unsigned char **out = param_value;
      for (cl_uint i = 0; i < n; i++)
        if (out[i] && size) memcpy(out[i], bytes, size);
    }
  }
  free(bytes);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  switch (param_name) {
  case CL_PROGRAM_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&program->obj.api_refs));
  case CL_PROGRAM_CONTEXT:
    KILN_INFO_VALUE(cl_context, program->context);
  case CL_PROGRAM_NUM_DEVICES:
    KILN_INFO_VALUE(cl_uint, program->num_devices);
  case CL_PROGRAM_DEVICES:
    KILN_INFO_ARRAY(program->devices, program->num_devices * sizeof *program->devices);
  case CL_PROGRAM_SOURCE:
    KILN_INFO_STRING(program->source ? program->source : "");
  case CL_PROGRAM_IL: /* the bytes given to clCreateProgramWithIL; other programs: none, size 0 */
    KILN_INFO_ARRAY(program->il, program->il_length);
  case CL_PROGRAM_BINARY_SIZES:
  case CL_PROGRAM_BINARIES:
    return binary_info(program, param_name, param_value_size, param_value, param_value_size_ret);
  case CL_PROGRAM_NUM_KERNELS:
  case CL_PROGRAM_KERNEL_NAMES:
  case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
  case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
    break;
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetProgramInfo knows", (unsigned)param_name);
  }
  /* Queries about the executable. */
  cl_int err;
  pthread_mutex_lock(&program->lock);
  if (!kiln_program_has_executable_locked(program)) {
    err =
        KILN_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "rejected since (%s)", "!kiln_program_has_executable_locked(program)");
  } else if (param_name == CL_PROGRAM_NUM_KERNELS) {
    size_t count = kiln_program_api_kernel_count(program->module);
    err = kiln_info_copy(param_value_size, param_value, param_value_size_ret, &count, sizeof count);
  } else if (param_name == CL_PROGRAM_KERNEL_NAMES) {
    err = kiln_info_copy(param_value_size, param_value, param_value_size_ret, program->kernel_names,
                         strlen(program->kernel_names) + 1);
  } else { /* Kiln runs no program-scope constructors or destructors */
    cl_bool none = CL_FALSE;
    err = kiln_info_copy(param_value_size, param_value, param_value_size_ret, &none, sizeof none);
  }
  pthread_mutex_unlock(&program->lock);
  return err;
}

static cl_program_binary_type binary_type_locked(cl_program program) {
  if (!program->module || program->busy) return CL_PROGRAM_BINARY_TYPE_NONE;
  switch (kiln_module_get_kind(program->module)) {
  case KILN_MODULE_OBJECT: return CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  case KILN_MODULE_LIBRARY: return CL_PROGRAM_BINARY_TYPE_LIBRARY;
  case KILN_MODULE_EXECUTABLE: return CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  }
  return CL_PROGRAM_BINARY_TYPE_NONE;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                      cl_program_build_info param_name, size_t param_value_size,
                                                      void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  if (!kiln_program_has_device(program, device))
    return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!kiln_program_has_device(program, device)");
  cl_int err;
  switch (param_name) {
  case CL_PROGRAM_BUILD_STATUS:
    pthread_mutex_lock(&program->lock);
    cl_build_status status = program->build_status;
    pthread_mutex_unlock(&program->lock);
    KILN_INFO_VALUE(cl_build_status, status);
  case CL_PROGRAM_BUILD_OPTIONS:
  case CL_PROGRAM_BUILD_LOG: {
    /* With status CL_BUILD_NONE both are empty, even for a binary's recorded options. */
    pthread_mutex_lock(&program->lock);
    bool none = program->build_status == CL_BUILD_NONE;
    const char *s = none ? "" : param_name == CL_PROGRAM_BUILD_LOG ? program->log : program->options;
    if (!s) s = "";
    err = kiln_info_copy(param_value_size, param_value, param_value_size_ret, s, strlen(s) + 1);
    pthread_mutex_unlock(&program->lock);
    return err;
  }
  case CL_PROGRAM_BINARY_TYPE:
    pthread_mutex_lock(&program->lock);
    cl_program_binary_type type = binary_type_locked(program);
    pthread_mutex_unlock(&program->lock);
    KILN_INFO_VALUE(cl_program_binary_type, type);
  case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
    pthread_mutex_lock(&program->lock);
    size_t bytes = program->module && kiln_program_has_executable_locked(program)
                       ? (size_t)kiln_module_global_variable_bytes(program->module)
                       : 0;
    pthread_mutex_unlock(&program->lock);
    KILN_INFO_VALUE(size_t, bytes);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetProgramBuildInfo knows",
                     (unsigned)param_name);
  }
}
