/* intel_families_test.h: what the cl_intel_command_queue_families suites share: the
 * families Kiln documents (docs/intel-command-queue-families.md), the device query,
 * queues on a (family, index), their info, byte patterns, and waits that never help the
 * worker pool and never last longer than a bound (host memory is watched with
 * kiln_test_poll_ints).
 *
 * A suite that also uses cl_khr_command_buffer includes khr_command_buffer_test.h first
 * (its header must precede <CL/cl_ext.h>). */
#ifndef INTEL_FAMILIES_TEST_H
#define INTEL_FAMILIES_TEST_H

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <CL/cl_ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the families Kiln documents ---- */

#define IFAM_COUNT 3
#define IFAM_COMPUTE 0u   /* "compute (worker pool lanes)": default capabilities */
#define IFAM_COPY 1u      /* "copy (copy engine threads)" */
#define IFAM_IMMEDIATE 2u /* "immediate copy (calling thread)" */

#define IFAM_EVENT_CAPS                                                                                                \
  (CL_QUEUE_CAPABILITY_CREATE_SINGLE_QUEUE_EVENTS_INTEL | CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL |        \
   CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL | CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL)
#define IFAM_TRANSFER_CAPS                                                                                             \
  (CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL |                        \
   CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL | CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL |                                      \
   CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL | CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL |                                    \
   CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL |                            \
   CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL | CL_QUEUE_CAPABILITY_MARKER_INTEL |                                \
   CL_QUEUE_CAPABILITY_BARRIER_INTEL)
#define IFAM_HOST_QUEUE_BITS (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)

static const char *const ifam_family_names[IFAM_COUNT] = {"compute", "copy", "immediate copy"};

/* ---- device queries ---- */

/* CL_DEVICE_QUEUE_ON_HOST_PROPERTIES: what a default family lists. */
static inline cl_command_queue_properties ifam_on_host_properties(cl_device_id device) {
  cl_command_queue_properties on_host = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof on_host, &on_host, NULL));
  return on_host;
}

/* The family table (size query first, then the data); fails unless there are IFAM_COUNT. */
static inline void ifam_families(cl_device_id device, cl_queue_family_properties_intel out[IFAM_COUNT]) {
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, 0, NULL, &size));
  if (size != IFAM_COUNT * sizeof *out)
    fail_msg("CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL size %zu, expected %zu (%d families)", size,
             IFAM_COUNT * sizeof *out, IFAM_COUNT);
  size_t got = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, size, out, &got));
  assert_int_equal(size, got);
}

/* How many queues (indices) the device reports for `family`. */
static inline cl_uint ifam_family_count(cl_device_id device, cl_uint family) {
  cl_queue_family_properties_intel families[IFAM_COUNT];
  ifam_families(device, families);
  assert_true(family < IFAM_COUNT);
  return families[family].count;
}

/* ---- queues ---- */

/* clCreateCommandQueueWithProperties with CL_QUEUE_FAMILY_INTEL / CL_QUEUE_INDEX_INTEL and
 * CL_QUEUE_PROPERTIES `bits` (left out when 0); fails the test when refused. */
static inline cl_command_queue ifam_queue(cl_context context, cl_device_id device, cl_uint family, cl_uint index,
                                          cl_command_queue_properties bits) {
  cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL, family, CL_QUEUE_INDEX_INTEL, index, 0, 0, 0};
  if (bits) {
    props[4] = CL_QUEUE_PROPERTIES;
    props[5] = bits;
  }
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props, &err);
  if (err != CL_SUCCESS || !queue)
    fail_msg("queue of family %u index %u (properties 0x%llx): error %d", family, index, (unsigned long long)bits, err);
  return queue;
}

/* A refused creation: NULL and `want`. */
static inline void ifam_expect_refused(cl_context context, cl_device_id device, const cl_queue_properties *props,
                                       cl_int want, const char *what) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props, &err);
  if (queue)
    clReleaseCommandQueue(queue);
  if (err != want || queue)
    fail_msg("%s: error %d (queue %p), expected %d and no queue", what, err, (void *)queue, want);
}

/* clGetCommandQueueInfo of a cl_uint (CL_QUEUE_FAMILY_INTEL, CL_QUEUE_INDEX_INTEL), with its size checked. */
static inline cl_uint ifam_queue_uint(cl_command_queue queue, cl_command_queue_info name) {
  cl_uint value = 0xDEADBEEF;
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(queue, name, sizeof value, &value, &size));
  assert_int_equal(sizeof(cl_uint), size);
  return value;
}

/* ---- time and waits that never help the worker pool ---- */

/* How long any wait of these suites may last before the test gives up. */
#define IFAM_TIMEOUT_MS 10000

/* Polls the event's status (clGetEventInfo only: no waiting call, which could run queued
 * work in this thread) until it is complete or failed, for at most `ms`. Returns whether
 * it completed (CL_COMPLETE). */
static inline bool ifam_poll_complete(cl_event event, unsigned ms) {
  double end = kiln_test_now_ms() + ms;
  for (;;) {
    cl_int status = kiln_test_event_status(event);
    if (status == CL_COMPLETE)
      return true;
    if (status < 0 || kiln_test_now_ms() > end)
      return false;
    kiln_test_sleep_ms(1);
  }
}

/* What is left of a wait that ends at `end` (kiln_test_now_ms() + bound), at least 1 ms. */
static inline unsigned ifam_remaining_ms(double end) {
  double left = end - kiln_test_now_ms();
  return left < 1 ? 1u : (unsigned)left;
}

/* ---- byte patterns ---- */

/* A reproducible byte pattern: byte `i` of pattern `seed`. */
static inline unsigned char ifam_byte(size_t i, unsigned seed) {
  return (unsigned char)((i * 2654435761u + seed * 40503u + (i >> 8) * 97u) >> 7);
}

static inline void ifam_fill_pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = ifam_byte(i, seed);
}

/* Fails with the first byte where `got` differs from `want`. */
static inline void ifam_expect_bytes(const unsigned char *want, const unsigned char *got, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (want[i] != got[i])
      fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
}

#endif
