/* intel_usm_test.h: what the cl_intel_unified_shared_memory suites share: the entry points
 * (resolved through clGetExtensionFunctionAddressForPlatform), the three kinds of
 * allocation behind one call, a refusal check that also tries errcode_ret NULL, event
 * helpers and a thread that opens a gate after a delay (for calls that must block until a
 * gated command ran, and as a safety net that keeps a failing test from hanging). */
#ifndef INTEL_USM_TEST_H
#define INTEL_USM_TEST_H

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <CL/cl_ext.h>

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define USM_FUNCTIONS(X)                                                                                              \
  X(clHostMemAllocINTEL)                                                                                              \
  X(clDeviceMemAllocINTEL)                                                                                            \
  X(clSharedMemAllocINTEL)                                                                                            \
  X(clMemFreeINTEL)                                                                                                   \
  X(clMemBlockingFreeINTEL)                                                                                           \
  X(clGetMemAllocInfoINTEL)                                                                                           \
  X(clSetKernelArgMemPointerINTEL)                                                                                    \
  X(clEnqueueMemFillINTEL)                                                                                            \
  X(clEnqueueMemsetINTEL)                                                                                             \
  X(clEnqueueMemcpyINTEL)                                                                                             \
  X(clEnqueueMigrateMemINTEL)                                                                                         \
  X(clEnqueueMemAdviseINTEL)

static struct {
#define USM_MEMBER(name) __typeof__(&name) name;
  USM_FUNCTIONS(USM_MEMBER)
#undef USM_MEMBER
} usm;

/* Fills `usm` from the platform; fails the test when an entry point is missing. */
static inline void usm_load(cl_platform_id platform) {
#define USM_LOAD(name) usm.name = (__typeof__(&name))kiln_test_extension_function(platform, #name);
  USM_FUNCTIONS(USM_LOAD)
#undef USM_LOAD
}

/* The environment fixture, then the entry points. */
static inline int usm_env_setup(void **state) {
  kiln_test_env_setup(state);
  usm_load(((struct kiln_test_env *)*state)->platform);
  return 0;
}

/* The capabilities every query reports on Kiln (all memory is host memory the kernels
 * reach with the CPU's own loads, stores and atomics). */
#define USM_ALL_CAPABILITIES                                                                                          \
  (CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |                             \
   CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL)

/* The largest OpenCL C type (long16, double16): the default and the largest alignment. */
#define USM_MAX_ALIGNMENT 128u

/* The kinds; SYSTEM is plain malloc'd memory (shared system allocations). */
enum usm_kind { USM_HOST, USM_DEVICE, USM_SHARED, USM_SYSTEM };
#define USM_KIND_COUNT 3     /* the kinds the USM calls allocate */
#define USM_ANY_KIND_COUNT 4 /* with system memory */
static const char *const usm_kind_names[] = {"host", "device", "shared", "system"};
static const cl_unified_shared_memory_type_intel usm_types[] = {CL_MEM_TYPE_HOST_INTEL, CL_MEM_TYPE_DEVICE_INTEL,
                                                                CL_MEM_TYPE_SHARED_INTEL, CL_MEM_TYPE_UNKNOWN_INTEL};

/* One allocation call of `kind` (USM kinds only; `device` ignored for host allocations). */
static inline void *usm_alloc_call(cl_context context, enum usm_kind kind, cl_device_id device,
                                   const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                   cl_int *err) {
  switch (kind) {
  case USM_HOST:
    return usm.clHostMemAllocINTEL(context, properties, size, alignment, err);
  case USM_DEVICE:
    return usm.clDeviceMemAllocINTEL(context, device, properties, size, alignment, err);
  case USM_SHARED:
    return usm.clSharedMemAllocINTEL(context, device, properties, size, alignment, err);
  default:
    fail_msg("usm_alloc_call: kind %d is not a USM kind", (int)kind);
    return NULL;
  }
}

/* `size` bytes of `kind` for the environment's device, or malloc'd for USM_SYSTEM; fails the
 * test when refused. Free with usm_free_any. */
static inline void *usm_alloc(struct kiln_test_env *env, enum usm_kind kind, size_t size) {
  if (kind == USM_SYSTEM) {
    void *p = aligned_alloc(USM_MAX_ALIGNMENT, (size + USM_MAX_ALIGNMENT - 1) & ~(size_t)(USM_MAX_ALIGNMENT - 1));
    assert_non_null(p);
    return p;
  }
  cl_int err = 1;
  void *p = usm_alloc_call(env->context, kind, env->device, NULL, size, 0, &err);
  if (!p || err != CL_SUCCESS)
    fail_msg("%s allocation of %zu bytes: %p, error %d", usm_kind_names[kind], size, p, err);
  return p;
}

static inline void usm_free_any(struct kiln_test_env *env, enum usm_kind kind, void *p) {
  if (kind == USM_SYSTEM) free(p);
  else assert_cl_success(usm.clMemFreeINTEL(env->context, p));
}

/* An allocation call that must be refused with `want` and NULL, with errcode_ret given and
 * with errcode_ret NULL. */
static inline void usm_expect_refused(cl_context context, enum usm_kind kind, cl_device_id device,
                                      const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                      cl_int want, const char *what) {
  cl_int err = CL_SUCCESS;
  void *p = usm_alloc_call(context, kind, device, properties, size, alignment, &err);
  if (p || err != want)
    fail_msg("%s allocation, %s: returned %p with %d, expected NULL with %d", usm_kind_names[kind], what, p, err,
             want);
  p = usm_alloc_call(context, kind, device, properties, size, alignment, NULL);
  if (p) fail_msg("%s allocation, %s, errcode_ret NULL: returned %p", usm_kind_names[kind], what, p);
}

/* clGetMemAllocInfoINTEL of a fixed-size answer: checks CL_SUCCESS and the size returned. */
#define USM_INFO(context, ptr, name, type)                                                                            \
  __extension__({                                                                                                     \
    type usm_info_value_;                                                                                             \
    memset(&usm_info_value_, 0xA5, sizeof usm_info_value_);                                                          \
    size_t usm_info_size_ = 0;                                                                                        \
    assert_cl_success(usm.clGetMemAllocInfoINTEL(context, ptr, name, sizeof usm_info_value_, &usm_info_value_,      \
                                                 &usm_info_size_));                                                   \
    assert_int_equal(sizeof usm_info_value_, usm_info_size_);                                                        \
    usm_info_value_;                                                                                                  \
  })

static inline cl_command_type usm_event_type(cl_event event) {
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  return type;
}

/* Waits for `event`, checks that it completed with command type `want`, releases it. */
static inline void usm_expect_event(cl_event event, cl_command_type want, const char *what) {
  assert_cl_success(clWaitForEvents(1, &event));
  cl_command_type type = usm_event_type(event);
  if (type != want) fail_msg("%s: event command type 0x%x, expected 0x%x", what, (unsigned)type, (unsigned)want);
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(event));
  assert_cl_success(clReleaseEvent(event));
}

/* ---- a thread that, after a delay, sets a user event's status or stores to a flag ---- */

struct usm_opener {
  pthread_t thread;
  cl_event gate;        /* NULL: store to `flag` instead */
  volatile int *flag;
  unsigned delay_ms;
  cl_int status;        /* the user event's status, or the value stored */
  double opened_at_ms;  /* kiln_test_now_ms() just before the gate opened */
  int cancelled;        /* usm_opener_cancel: the gate is left alone */
};

static inline void *usm_opener_main(void *arg) {
  struct usm_opener *o = arg;
  for (unsigned waited = 0; waited < o->delay_ms; waited++) {
    if (__atomic_load_n(&o->cancelled, __ATOMIC_SEQ_CST)) return NULL;
    kiln_test_sleep_ms(1);
  }
  o->opened_at_ms = kiln_test_now_ms();
  if (o->gate) clSetUserEventStatus(o->gate, o->status);
  else __atomic_store_n(o->flag, o->status, __ATOMIC_SEQ_CST);
  return NULL;
}

static inline void usm_open_event_later(struct usm_opener *o, cl_event gate, unsigned delay_ms, cl_int status) {
  *o = (struct usm_opener){.gate = gate, .delay_ms = delay_ms, .status = status};
  assert_int_equal(0, pthread_create(&o->thread, NULL, usm_opener_main, o));
}

static inline void usm_set_flag_later(struct usm_opener *o, volatile int *flag, unsigned delay_ms, int value) {
  *o = (struct usm_opener){.flag = flag, .delay_ms = delay_ms, .status = value};
  assert_int_equal(0, pthread_create(&o->thread, NULL, usm_opener_main, o));
}

static inline void usm_opener_join(struct usm_opener *o) { assert_int_equal(0, pthread_join(o->thread, NULL)); }

/* Stops an opener that has not opened yet and joins it; whether it had opened. */
static inline bool usm_opener_cancel(struct usm_opener *o) {
  __atomic_store_n(&o->cancelled, 1, __ATOMIC_SEQ_CST);
  usm_opener_join(o);
  return o->opened_at_ms != 0;
}

#endif
