/* khr_mutable_dispatch_test.h: what the cl_khr_command_buffer_mutable_dispatch suites
 * share: mutable command buffers, recording an NDRange with a handle, one-config updates,
 * and the handle queries, each failing the test on an unexpected error.
 *
 * Include it first (it includes khr_command_buffer_test.h, which must come first). */
#ifndef KHR_MUTABLE_DISPATCH_TEST_H
#define KHR_MUTABLE_DISPATCH_TEST_H

#include "khr_command_buffer_test.h"

#define KMD_ALL_FIELDS                                                                                                 \
  ((cl_mutable_dispatch_fields_khr)(CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |      \
                                    CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR |           \
                                    CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))

/* A command buffer with CL_COMMAND_BUFFER_MUTABLE_KHR and `extra_flags`. */
static inline cl_command_buffer_khr kmd_create(cl_command_queue queue, cl_command_buffer_flags_khr extra_flags) {
  return kcb_create(queue, CL_COMMAND_BUFFER_MUTABLE_KHR | extra_flags);
}

/* Records a 1-D NDRange of `global` items (`local` 0: Kiln picks) with a mutable handle. */
static inline cl_mutable_command_khr kmd_record_1d(cl_command_buffer_khr cb, cl_kernel kernel,
                                                   const cl_command_properties_khr *properties, size_t global,
                                                   size_t local) {
  cl_mutable_command_khr handle = NULL;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, properties, kernel, 1, NULL, &global,
                                                  local ? &local : NULL, 0, NULL, NULL, &handle));
  assert_non_null(handle);
  return handle;
}

/* A config that changes nothing yet, for `command`. */
static inline cl_mutable_dispatch_config_khr kmd_config(cl_mutable_command_khr command) {
  cl_mutable_dispatch_config_khr config = {0};
  config.command = command;
  return config;
}

/* clUpdateMutableCommandsKHR with `count` dispatch configs. */
static inline cl_int kmd_update_n(cl_command_buffer_khr cb, cl_uint count, const cl_mutable_dispatch_config_khr *configs) {
  cl_command_buffer_update_type_khr types[8];
  const void *pointers[8];
  assert_true(count <= 8);
  for (cl_uint i = 0; i < count; i++) {
    types[i] = CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
    pointers[i] = &configs[i];
  }
  return kcb.clUpdateMutableCommandsKHR(cb, count, types, pointers);
}

static inline cl_int kmd_update(cl_command_buffer_khr cb, const cl_mutable_dispatch_config_khr *config) {
  return kmd_update_n(cb, 1, config);
}

/* Updates argument `index` of `command` (as clSetKernelArg would set it). */
static inline void kmd_update_arg(cl_command_buffer_khr cb, cl_mutable_command_khr command, cl_uint index, size_t size,
                                  const void *value) {
  cl_mutable_dispatch_arg_khr arg = {index, size, value};
  cl_mutable_dispatch_config_khr config = kmd_config(command);
  config.num_args = 1;
  config.arg_list = &arg;
  assert_cl_success(kmd_update(cb, &config));
}

static inline void kmd_update_mem_arg(cl_command_buffer_khr cb, cl_mutable_command_khr command, cl_uint index,
                                      cl_mem mem) {
  kmd_update_arg(cb, command, index, sizeof mem, &mem);
}

static inline void kmd_update_int_arg(cl_command_buffer_khr cb, cl_mutable_command_khr command, cl_uint index,
                                      cl_int value) {
  kmd_update_arg(cb, command, index, sizeof value, &value);
}

/* A size_t[] query of a handle: its size in bytes, the values in `out` (at most 3). */
static inline size_t kmd_info_sizes(cl_mutable_command_khr command, cl_mutable_command_info_khr param, size_t out[3]) {
  size_t size = 99;
  out[0] = out[1] = out[2] = 77;
  assert_cl_success(kcb.clGetMutableCommandInfoKHR(command, param, 3 * sizeof(size_t), out, &size));
  return size;
}

/* Enqueues `cb` and waits for it. */
static inline void kmd_run(cl_command_queue queue, cl_command_buffer_khr cb) {
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
}

#endif
