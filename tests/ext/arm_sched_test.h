/* arm_sched_test.h: what the cl_arm_scheduling_controls suites share.
 *
 * The scheduling trace: ast_trace_enable (first thing in main(), before any OpenCL call:
 * Kiln reads KILN_TRACE and KILN_TRACE_FILE once) points KILN_TRACE=sched at a file of
 * this process; a test takes ast_trace_mark() before its work and, after clFinish, reads
 * the NDRange lines appended since with ast_trace_since (every line must have the
 * documented format and consistent numbers). Plus queues with scheduling properties,
 * the two batch hints and the batch-size arithmetic the extension defines. (Host memory
 * watched without calling OpenCL, what the kernel-batching and deferred-flush checks see,
 * is kiln_test_poll_ints.)
 *
 * A suite that also uses cl_khr_command_buffer includes khr_command_buffer_test.h first. */
#ifndef ARM_SCHED_TEST_H
#define ARM_SCHED_TEST_H

#include "kiln_test.h"
#include "kiln_test_gates.h"
#include "kiln_test_objects.h"

#include <CL/cl_ext.h>
#include <CL/kiln_arm_scheduling_controls.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the trace ---- */

static char ast_trace_path[256];

/* Sends the scheduling trace to an empty file of this process. Call before any OpenCL call. */
static inline void ast_trace_enable(const char *suite) {
  const char *dir = getenv("TMPDIR");
  snprintf(ast_trace_path, sizeof ast_trace_path, "%s/kiln-%s-%ld.trace", dir && *dir ? dir : "/tmp", suite,
           (long)getpid());
  FILE *f = fopen(ast_trace_path, "w");
  if (!f) {
    fprintf(stderr, "cannot create %s\n", ast_trace_path);
    exit(1);
  }
  fclose(f);
  setenv("KILN_TRACE", "sched", 1);
  setenv("KILN_TRACE_FILE", ast_trace_path, 1);
}

static inline void ast_trace_remove(void) { unlink(ast_trace_path); }

/* The trace file's size: lines appended after this are the caller's. */
static inline long ast_trace_mark(void) {
  struct stat st;
  if (stat(ast_trace_path, &st) != 0) fail_msg("trace file %s is gone", ast_trace_path);
  return (long)st.st_size;
}

/* One "kiln-trace sched ndrange ..." line. */
struct ast_line {
  char kernel[64];
  unsigned long long groups, batch_size, batches;
  unsigned workers, cu_limit;
};

#define AST_MAX_LINES 256

/* Reads the lines appended since `mark` whose kernel is `kernel` (every kernel when NULL)
 * into out[0 .. max-1] and returns how many there were. Fails on any line that is not in
 * the documented format or whose numbers do not add up: 1 <= batch_size <= groups,
 * batches = ceil(groups / batch_size), 1 <= workers <= batches, workers <= cu_limit when
 * there is a limit. */
static inline size_t ast_trace_since(long mark, const char *kernel, struct ast_line *out, size_t max) {
  FILE *f = fopen(ast_trace_path, "r");
  if (!f) fail_msg("cannot read the trace file %s", ast_trace_path);
  if (fseek(f, mark, SEEK_SET) != 0) fail_msg("cannot seek the trace file to %ld", mark);
  char text[1024];
  size_t count = 0;
  while (fgets(text, sizeof text, f)) {
    size_t length = strlen(text);
    if (length == 0 || text[length - 1] != '\n') fail_msg("trace line without its newline: '%s'", text);
    text[--length] = '\0';
    struct ast_line line;
    int end = -1;
    int fields =
        sscanf(text,
               "kiln-trace sched ndrange kernel=%63s groups=%llu batch_size=%llu batches=%llu "
               "workers=%u cu_limit=%u%n",
               line.kernel, &line.groups, &line.batch_size, &line.batches, &line.workers, &line.cu_limit, &end);
    if (fields != 6 || end != (int)length) fail_msg("trace line not in the documented format: '%s'", text);
    if (line.batch_size < 1 || line.batch_size > line.groups ||
        line.batches != (line.groups + line.batch_size - 1) / line.batch_size)
      fail_msg("trace line with inconsistent batches: '%s'", text);
    if (line.workers < 1 || line.workers > line.batches || (line.cu_limit && line.workers > line.cu_limit))
      fail_msg("trace line with an impossible worker count: '%s'", text);
    if (kernel && strcmp(kernel, line.kernel) != 0) continue;
    if (count < max) out[count] = line;
    count++;
  }
  fclose(f);
  return count;
}

/* The one line of `kernel` since `mark` (fails unless there is exactly one). */
static inline struct ast_line ast_trace_one(long mark, const char *kernel, const char *what) {
  struct ast_line lines[4];
  size_t n = ast_trace_since(mark, kernel, lines, 4);
  if (n != 1) fail_msg("%s: %zu trace lines for kernel %s, expected 1", what, n, kernel);
  return lines[0];
}

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

/* Kiln's documented default: ranges under 1024 work-items run as one batch, larger ones in
 * about four batches per compute unit. */
static inline unsigned long long ast_documented_default(unsigned long long groups, unsigned long long items,
                                                        cl_uint compute_units) {
  if (items < 1024) return groups;
  unsigned long long target = 4ull * compute_units;
  return (groups + target - 1) / target;
}

#endif
