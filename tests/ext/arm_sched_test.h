/* arm_sched_test.h: what the cl_arm_scheduling_controls suites share: the scheduling
 * trace (kiln_test_sched_trace.h), queues with scheduling properties, the two batch hints,
 * the batch-size arithmetic the extension defines and Kiln's documented default plan. (Host memory
 * watched without calling OpenCL, what the kernel-batching and deferred-flush checks see,
 * is kiln_test_poll_ints.)
 *
 * A suite that also uses cl_khr_command_buffer includes khr_command_buffer_test.h first. */
#ifndef ARM_SCHED_TEST_H
#define ARM_SCHED_TEST_H

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"
#include "kiln_test_sched_trace.h"

#include <CL/cl_ext.h>
#include <CL/kiln_arm_scheduling_controls.h>

#include <limits.h>

/* ---- queues, hints ---- */

/* A queue from a property list (NULL allowed); fails the test when refused. */
static inline cl_command_queue ast_queue(cl_context context, cl_device_id device, const cl_queue_properties *props) {
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props, &err);
  if (err != CL_SUCCESS || !queue) fail_msg("clCreateCommandQueueWithProperties: %d", err);
  return queue;
}

/* A queue whose only scheduling property is `name` = `value`, plus CL_QUEUE_PROPERTIES `bits`. */
static inline cl_command_queue ast_queue_with(cl_context context, cl_device_id device, cl_queue_properties name,
                                              cl_queue_properties value, cl_command_queue_properties bits) {
  cl_queue_properties props[] = {name, value, CL_QUEUE_PROPERTIES, bits, 0};
  return ast_queue(context, device, props);
}

static inline void ast_set_batch_size(cl_kernel kernel, cl_uint groups) {
  assert_cl_success(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof groups, &groups));
}

static inline void ast_set_modifier(cl_kernel kernel, cl_int modifier) {
  assert_cl_success(
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, sizeof modifier, &modifier));
}

static inline void ast_set_hints(cl_kernel kernel, cl_uint groups, cl_int modifier) {
  ast_set_batch_size(kernel, groups);
  ast_set_modifier(kernel, modifier);
}

/* The extension's arithmetic: the application's batch size (the runtime's `fallback` when
 * 0) plus the modifier, at least one work-group, at most all of them. */
static inline unsigned long long ast_expected_batch(unsigned long long fallback, cl_uint groups_hint, cl_int modifier,
                                                    unsigned long long groups) {
  long long size = (long long)(groups_hint ? groups_hint : fallback) + modifier;
  if (size < 1) size = 1;
  return (unsigned long long)size > groups ? groups : (unsigned long long)size;
}

/* Kiln's documented default plan for a loop-free kernel: one batch below 1024 work-items
 * or on one thread. Else the smallest size is max(1, min(ceil(1024 / group items), groups
 * / threads)); a launch every worker may run (`queues`: no compute-unit limit below the
 * workers) has batches of one size, max(smallest, ceil(groups / (16 x threads))); any other
 * has rounds of `threads` batches, the first of ceil(groups / (2 x threads)) work-groups,
 * each round's half the last's, down to the smallest size, which the rest of the range
 * uses. largest: the first batch's size; smallest: that of the round the range ends in. */
struct ast_plan {
  unsigned long long largest, smallest, batches;
};

static inline struct ast_plan ast_documented_default(unsigned long long groups, unsigned long long items,
                                                     unsigned long long group_items, cl_uint threads, bool queues) {
  if (items < 1024 || threads <= 1) return (struct ast_plan){groups, groups, 1};
  unsigned long long smallest = (1024 + group_items - 1) / group_items;
  if (smallest > groups / threads) smallest = groups / threads;
  if (smallest < 1) smallest = 1;
  if (queues) {
    unsigned long long size = (groups + 16ull * threads - 1) / (16ull * threads);
    if (size < smallest) size = smallest;
    return (struct ast_plan){size, size, (groups + size - 1) / size};
  }
  unsigned long long first = (groups + 2ull * threads - 1) / (2ull * threads);
  if (first < smallest) first = smallest;
  struct ast_plan plan = {first, first, 0};
  unsigned long long left = groups, size = first;
  for (unsigned round = 1; left > 0; round++) {
    unsigned long long take = size > smallest && left > threads * size ? threads * size : left;
    plan.batches += (take + size - 1) / size;
    plan.smallest = size;
    left -= take;
    size = first >> round > smallest ? first >> round : smallest;
  }
  return plan;
}

#endif
