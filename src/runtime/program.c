/* program.c: creating, retaining and releasing program objects, and the entry points
 * Kiln answers without a build (built-in kernels, IL and its specialization constants,
 * release callbacks). */
#include "runtime/program.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"

#include "device/cpu/compiler/spirv_translator.h"

#include <stdlib.h>
#include <string.h>

static void program_destroy(struct kiln_object *object) {
  cl_program program = (cl_program)object;
  if (program->jit) kiln_jit_free(program->jit);
  kiln_program_enqueue_table_free(program->enqueue);
  if (program->module) kiln_module_free(program->module);
  free(program->source);
  free(program->il);
  kiln_spirv_module_free(&program->spirv);
  free(program->options);
  free(program->log);
  free(program->kernel_names);
  free(program->devices);
  pthread_mutex_destroy(&program->lock);
  cl_context context = program->context;
  kiln_object_free(&program->obj);
  kiln_object_release(&context->obj);
}

cl_program kiln_program_create(cl_context context, enum kiln_program_origin origin, cl_uint num_devices,
                               const cl_device_id *devices, cl_int *errcode) {
  if (!devices) {
    num_devices = context->num_devices;
    devices = context->devices;
  }
  cl_device_id *copy = malloc(num_devices * sizeof *copy);
  cl_program program = copy ? kiln_object_alloc(KILN_OBJECT_PROGRAM, sizeof *program) : NULL;
  if (!program) {
    free(copy);
    *errcode = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memcpy(copy, devices, num_devices * sizeof *copy);
  program->num_devices = num_devices;
  program->devices = copy;
  program->context = context;
  kiln_object_retain(&context->obj);
  program->device = context->device;
  program->origin = origin;
  program->build_status = CL_BUILD_NONE;
  pthread_mutex_init(&program->lock, NULL);
  *errcode = CL_SUCCESS;
  return program;
}

cl_program kiln_program_publish(cl_program program) {
  kiln_object_init(&program->obj, KILN_OBJECT_PROGRAM, program_destroy);
  return program;
}

static bool device_flag(cl_device_id device, cl_device_info name) {
  cl_bool value = CL_FALSE;
  return clGetDeviceInfo(device, name, sizeof value, &value, NULL) == CL_SUCCESS && value;
}

bool kiln_program_compiler_available(cl_device_id device) {
  return device_flag(device, CL_DEVICE_COMPILER_AVAILABLE);
}

bool kiln_program_linker_available(cl_device_id device) { return device_flag(device, CL_DEVICE_LINKER_AVAILABLE); }

void kiln_program_kernel_attached_locked(cl_program program) {
  program->kernel_objects++;
  kiln_object_retain(&program->obj);
}

void kiln_program_kernel_detached(cl_program program) {
  pthread_mutex_lock(&program->lock);
  program->kernel_objects--;
  pthread_mutex_unlock(&program->lock);
  kiln_object_release(&program->obj);
}

static cl_program fail(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                                              const size_t *lengths, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  if (count == 0 || !strings)
    return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "count == 0 || !strings"));
  size_t total = 0;
  for (cl_uint i = 0; i < count; i++) {
    if (!strings[i]) return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!strings[i]"));
    total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  }
  char *source = malloc(total + 1);
  if (!source) return fail(errcode_ret, KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!source"));
  /* The concatenation strips NULs inside strings whose length was given (CL_PROGRAM_SOURCE). */
  size_t at = 0;
  for (cl_uint i = 0; i < count; i++) {
    size_t length = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    for (size_t j = 0; j < length; j++)
      if (strings[i][j] != '\0') source[at++] = strings[i][j];
  }
  source[at] = '\0';
  cl_int err;
  cl_program program = kiln_program_create(context, KILN_PROGRAM_FROM_SOURCE, 0, NULL, &err);
  if (!program) {
    free(source);
    return fail(errcode_ret, err);
  }
  program->source = source;
  program->source_length = at;
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return kiln_program_publish(program);
}

/* CL_INVALID_DEVICE unless every entry is a device of `context`. */
static cl_int check_context_devices(cl_context context, cl_uint num_devices, const cl_device_id *device_list) {
  for (cl_uint i = 0; i < num_devices; i++) {
    bool found = false;
    for (cl_uint j = 0; j < context->num_devices && !found; j++) found = context->devices[j] == device_list[i];
    if (!found) return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!found");
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                              const cl_device_id *device_list, const size_t *lengths,
                                                              const unsigned char **binaries, cl_int *binary_status,
                                                              cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  if (!device_list || num_devices == 0)
    return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!device_list || num_devices == 0"));
  cl_int err = check_context_devices(context, num_devices, device_list);
  if (err != CL_SUCCESS) return fail(errcode_ret, err);
  if (!lengths || !binaries)
    return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!lengths || !binaries"));
  bool missing = false;
  for (cl_uint i = 0; i < num_devices; i++) {
    bool bad = lengths[i] == 0 || !binaries[i];
    if (binary_status) binary_status[i] = bad ? CL_INVALID_VALUE : CL_SUCCESS;
    missing |= bad;
  }
  if (missing) return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "missing"));

  /* Every entry is checked (each gets its status); entries name the same device (a
   * context may list it more than once), so the first binary is the one loaded. */
  kiln_module *module = NULL;
  char *options = NULL;
  struct kiln_program_option_flags flags;
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < num_devices; i++) {
    kiln_module *m = NULL;
    char *o = NULL;
    struct kiln_program_option_flags f;
    err = kiln_program_binary_decode(binaries[i], lengths[i], &m, &o, &f);
    if (binary_status) binary_status[i] = err == CL_SUCCESS ? CL_SUCCESS : CL_INVALID_BINARY;
    if (err != CL_SUCCESS) {
      if (result == CL_SUCCESS || err != CL_INVALID_BINARY) result = err;
    } else if (!module) {
      module = m, options = o, flags = f;
    } else {
      kiln_module_free(m);
      free(o);
    }
  }
  if (result != CL_SUCCESS) {
    if (module) kiln_module_free(module);
    free(options);
    return fail(errcode_ret, result);
  }
  cl_program program = kiln_program_create(context, KILN_PROGRAM_FROM_BINARY, num_devices, device_list, &err);
  if (!program) {
    kiln_module_free(module);
    free(options);
    return fail(errcode_ret, err);
  }
  program->module = module;
  program->options = options;
  program->flags = flags;
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return kiln_program_publish(program);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                                      const cl_device_id *device_list,
                                                                      const char *kernel_names, cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  if (!device_list || num_devices == 0)
    return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!device_list || num_devices == 0"));
  /* The device has no built-in kernels: every name (and NULL) is unsupported. */
  if (!kernel_names) return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kernel_names"));
  cl_int err = check_context_devices(context, num_devices, device_list);
  if (err != CL_SUCCESS) return fail(errcode_ret, err);
  return fail(errcode_ret, CL_INVALID_VALUE);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il, size_t length,
                                                          cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  const struct kiln_spirv_translator *translator = kiln_spirv_translator();
  if (!translator) /* CL_DEVICE_IL_VERSION is empty: docs/spirv.md */
    return fail(errcode_ret, KILN_FAIL(CL_INVALID_OPERATION, "no SPIR-V translator (%s)", "docs/spirv.md"));
  if (!il || length == 0) return fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!il || length == 0"));
  struct kiln_spirv_module module;
  char *reason = NULL;
  if (kiln_spirv_module_read(il, length, 8 * sizeof(void *), translator->max_minor, &module, &reason) != 0) {
    cl_int err = reason ? KILN_FAIL(CL_INVALID_VALUE, "not a module the device accepts: %s", reason)
                        : KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!reason");
    free(reason);
    return fail(errcode_ret, err);
  }
  void *copy = malloc(length);
  cl_int err = CL_OUT_OF_HOST_MEMORY;
  cl_program program = copy ? kiln_program_create(context, KILN_PROGRAM_FROM_IL, 0, NULL, &err) : NULL;
  if (!program) {
    free(copy);
    kiln_spirv_module_free(&module);
    return fail(errcode_ret, err);
  }
  memcpy(copy, il, length);
  program->il = copy;
  program->il_length = length;
  program->spirv = module;
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return kiln_program_publish(program);
}

/* cl_khr_il_program's name for it. */
CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithILKHR(cl_context context, const void *il, size_t length,
                                                             cl_int *errcode_ret) {
  return clCreateProgramWithIL(context, il, length, errcode_ret);
}

bool kiln_program_specialized_il_locked(cl_program program, struct kiln_spirv_module *out) {
  *out = (struct kiln_spirv_module){.words = kiln_spirv_specialize(&program->spirv),
                                    .num_words = program->spirv.num_words,
                                    .version = program->spirv.version};
  return out->words != NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program program) {
  KILN_API_CALL;
  return kiln_object_api_retain(program, KILN_OBJECT_PROGRAM, CL_INVALID_PROGRAM);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  KILN_API_CALL;
  return kiln_object_api_release(program, KILN_OBJECT_PROGRAM, CL_INVALID_PROGRAM);
}

/* Kiln supports no constructors or destructors for program-scope variables, so the spec's
 * CL_INVALID_OPERATION applies to every valid program (the CTS checks exactly that). */
CL_API_ENTRY cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program program,
                                                            void(CL_CALLBACK *pfn_notify)(cl_program, void *),
                                                            void *user_data) {
  KILN_API_CALL;
  (void)pfn_notify, (void)user_data;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  return CL_INVALID_OPERATION;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program, cl_uint spec_id,
                                                                   size_t spec_size, const void *spec_value) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  if (!kiln_spirv_translator())
    return KILN_FAIL(CL_INVALID_OPERATION, "no SPIR-V translator (%s)", "CL_DEVICE_IL_VERSION is empty");
  if (program->origin != KILN_PROGRAM_FROM_IL)
    return KILN_FAIL(CL_INVALID_PROGRAM, "rejected since (%s)", "program->origin != KILN_PROGRAM_FROM_IL");
  pthread_mutex_lock(&program->lock);
  struct kiln_spirv_spec_constant *constant = kiln_spirv_find_spec_constant(&program->spirv, spec_id);
  cl_int err = CL_SUCCESS;
  if (!constant)
    err = KILN_FAIL(CL_INVALID_SPEC_ID, "the module has no specialization constant with SpecId %u", spec_id);
  else if (spec_size != constant->size || !spec_value)
    err = KILN_FAIL(CL_INVALID_VALUE, "spec_size %zu (the constant has %u bytes) or spec_value NULL", spec_size,
                    constant->size);
  if (err == CL_SUCCESS) {
    uint64_t value = 0;
    memcpy(&value, spec_value, spec_size); /* little-endian host: the low bytes */
    constant->value = value;
    constant->set = true;
  }
  pthread_mutex_unlock(&program->lock);
  return err;
}
