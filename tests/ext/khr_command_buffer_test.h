/* khr_command_buffer_test.h: what the cl_khr_command_buffer suites (and the layered
 * cl_khr_command_buffer_mutable_dispatch's) share. The ICD loader does not export the
 * extensions' entry points, so every suite calls them through `kcb`,
 * filled from clGetExtensionFunctionAddressForPlatform by kcb_setup; plus small helpers
 * for command buffers and events that fail the test on any error, and the shared object
 * helpers (kiln_test_objects.h) under this suite's prefix.
 *
 * Include it first: <CL/kiln_command_buffer.h> must precede every other OpenCL header. */
#ifndef KHR_COMMAND_BUFFER_TEST_H
#define KHR_COMMAND_BUFFER_TEST_H

#include <CL/kiln_command_buffer.h>

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

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
  X(clCommandSVMMemFillKHR)                                                                                            \
  X(clUpdateMutableCommandsKHR)                                                                                        \
  X(clGetMutableCommandInfoKHR)

/* The extension's entry points, as the platform hands them out. */
struct kcb_api {
#define KCB_MEMBER(name) __typeof__(&name) name;
  KCB_FUNCTIONS(KCB_MEMBER)
#undef KCB_MEMBER
};
static struct kcb_api kcb;

static inline void kcb_load(cl_platform_id platform) {
#define KCB_LOAD(name) kcb.name = (__typeof__(&name))kiln_test_extension_function(platform, #name);
  KCB_FUNCTIONS(KCB_LOAD)
#undef KCB_LOAD
}

/* Group fixture: kiln_test_env (context and in-order queue) plus the entry points. */
static inline int kcb_setup(void **state) {
  kiln_test_env_setup(state);
  kcb_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

/* Shared object helpers (kiln_test_objects.h) under this suite's prefix. */
#define kcb_queue kiln_test_queue
#define kcb_buffer kiln_test_buffer
#define kcb_program kiln_test_program
#define kcb_kernel kiln_test_kernel
#define kcb_arg_mem kiln_test_arg_mem
#define kcb_arg_int kiln_test_arg_int
#define kcb_event_status kiln_test_event_status
#define kcb_read kiln_test_read
#define kcb_write kiln_test_write
#define kcb_expect_ints kiln_test_expect_ints
#define kcb_context kiln_test_context
#define kcb_buffer_with kiln_test_buffer_with
#define kcb_random kiln_test_random
#define kcb_random_ints kiln_test_random_ints

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

/* User events a failed test cannot leave closed (kiln_test_gates.h). */
static inline cl_event kcb_user_event(cl_context context) { return kiln_test_gate_new(context); }
#define KCB_TEST(f) KILN_GATED_TEST(f)

#endif
