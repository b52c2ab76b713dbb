/* khr_command_buffer_test.h: what the cl_khr_command_buffer suites share. The ICD loader
 * does not export the extension's entry points, so every suite calls them through `kcb`,
 * filled from clGetExtensionFunctionAddressForPlatform by kcb_setup; plus small helpers
 * for buffers, programs, command buffers and events that fail the test on any error.
 *
 * Include it first: <CL/kiln_command_buffer.h> must precede every other OpenCL header. */
#ifndef KHR_COMMAND_BUFFER_TEST_H
#define KHR_COMMAND_BUFFER_TEST_H

#include <CL/kiln_command_buffer.h>

#include "kiln_test.h"
#include "kiln_test_gates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KCB_FUNCTIONS(X)                                                                                               \
  X(clCreateCommandBufferKHR)                                                                                          \
  X(clRetainCommandBufferKHR)                                                                                          \
  X(clReleaseCommandBufferKHR)                                                                                         \
  X(clFinalizeCommandBufferKHR)                                                                                        \
  X(clEnqueueCommandBufferKHR)                                                                                         \
  X(clGetCommandBufferInfoKHR)                                                                                         \
  X(clCommandBarrierWithWaitListKHR)                                                                                   \
  X(clCommandCopyBufferKHR)                                                                                            \
  X(clCommandCopyBufferRectKHR)                                                                                        \
  X(clCommandCopyBufferToImageKHR)                                                                                     \
  X(clCommandCopyImageKHR)                                                                                             \
  X(clCommandCopyImageToBufferKHR)                                                                                     \
  X(clCommandFillBufferKHR)                                                                                            \
  X(clCommandFillImageKHR)                                                                                             \
  X(clCommandNDRangeKernelKHR)                                                                                         \
  X(clCommandSVMMemcpyKHR)                                                                                             \
  X(clCommandSVMMemFillKHR)

/* The extension's entry points, as the platform hands them out. */
struct kcb_api {
#define KCB_MEMBER(name) __typeof__(&name) name;
  KCB_FUNCTIONS(KCB_MEMBER)
#undef KCB_MEMBER
};
static struct kcb_api kcb;

static inline void kcb_load(cl_platform_id platform) {
#define KCB_LOAD(name)                                                                                                 \
  kcb.name = (__typeof__(&name))clGetExtensionFunctionAddressForPlatform(platform, #name);                             \
  if (!kcb.name) fail_msg("clGetExtensionFunctionAddressForPlatform(\"%s\") returned NULL", #name);
  KCB_FUNCTIONS(KCB_LOAD)
#undef KCB_LOAD
}

/* Group fixture: kiln_test_env (context and in-order queue) plus the entry points. */
static inline int kcb_setup(void **state) {
  kiln_test_env_setup(state);
  kcb_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

/* ---- objects ---- */

static inline cl_command_buffer_khr kcb_create(cl_command_queue queue, cl_command_buffer_flags_khr flags) {
  cl_command_buffer_properties_khr properties[] = {CL_COMMAND_BUFFER_FLAGS_KHR, flags, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_buffer_khr cb = kcb.clCreateCommandBufferKHR(1, &queue, flags ? properties : NULL, &err);
  assert_cl_success(err);
  assert_non_null(cb);
  return cb;
}

static inline cl_command_buffer_state_khr kcb_state(cl_command_buffer_khr cb) {
  cl_command_buffer_state_khr state = 99;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof state, &state, NULL));
  return state;
}

static inline cl_uint kcb_refcount(cl_command_buffer_khr cb) {
  cl_uint refs = 0;
  assert_cl_success(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof refs, &refs, NULL));
  return refs;
}

static inline cl_command_queue kcb_queue(cl_context context, cl_device_id device, cl_command_queue_properties props) {
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, props, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props ? properties : NULL, &err);
  assert_cl_success(err);
  return queue;
}

static inline cl_context kcb_context(cl_device_id device) {
  cl_int err = CL_INVALID_VALUE;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  return context;
}

static inline cl_mem kcb_buffer(cl_context context, size_t size) {
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, size, NULL, &err);
  assert_cl_success(err);
  return buffer;
}

/* User events a failed test cannot leave closed (kiln_test_gates.h). */
static inline cl_event kcb_user_event(cl_context context) { return kiln_test_gate_new(context); }
#define KCB_TEST(f) KILN_GATED_TEST(f)

static inline cl_int kcb_event_status(cl_event event) {
  cl_int status = 99;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  return status;
}

static inline cl_program kcb_program(cl_context context, cl_device_id device, const char *source, const char *options) {
  cl_int err = CL_INVALID_VALUE;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(program, 1, &device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = {0};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fail_msg("clBuildProgram: %d\n%s", err, log);
  }
  return program;
}

static inline cl_kernel kcb_kernel(cl_program program, const char *name) {
  cl_int err = CL_INVALID_VALUE;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static inline void kcb_arg_mem(cl_kernel kernel, cl_uint index, cl_mem mem) {
  assert_cl_success(clSetKernelArg(kernel, index, sizeof mem, &mem));
}

static inline void kcb_arg_int(cl_kernel kernel, cl_uint index, cl_int value) {
  assert_cl_success(clSetKernelArg(kernel, index, sizeof value, &value));
}

/* ---- data ---- */

static inline void kcb_read(cl_command_queue queue, cl_mem buffer, size_t size, void *out) {
  assert_cl_success(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, size, out, 0, NULL, NULL));
}

static inline void kcb_write(cl_command_queue queue, cl_mem buffer, size_t size, const void *data) {
  assert_cl_success(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, size, data, 0, NULL, NULL));
}

/* Fails with the first index where `got` differs from `want`. */
static inline void kcb_expect_ints(const cl_int *want, const cl_int *got, size_t count, const char *what) {
  for (size_t i = 0; i < count; i++)
    if (want[i] != got[i]) fail_msg("%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
}

/* A reproducible pseudo-random sequence (xorshift32), so a failure can be replayed. */
static inline cl_uint kcb_random(cl_uint *state) {
  cl_uint x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

#endif
