/* kiln_test_objects.h: creating and using OpenCL objects in a test, failing the test on
 * any error (the extension suites share these). */
#ifndef KILN_TEST_OBJECTS_H
#define KILN_TEST_OBJECTS_H

#include "kiln_test.h"

#include <stdlib.h>

static inline cl_command_queue kiln_test_queue(cl_context context, cl_device_id device,
                                               cl_command_queue_properties props) {
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, props, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props ? properties : NULL, &err);
  assert_cl_success(err);
  assert_non_null(queue);
  return queue;
}

static inline cl_context kiln_test_context(cl_device_id device) {
  cl_int err = CL_INVALID_VALUE;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_non_null(context);
  return context;
}

static inline cl_mem kiln_test_buffer(cl_context context, size_t size) {
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, size, NULL, &err);
  assert_cl_success(err);
  return buffer;
}

/* A buffer of `count` ints copied from `data`. */
static inline cl_mem kiln_test_buffer_with(cl_context context, size_t count, const cl_int *data) {
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer =
      clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count * sizeof(cl_int), (void *)data, &err);
  assert_cl_success(err);
  return buffer;
}

/* A CL_MEM_USE_HOST_PTR buffer over `host` (see kiln_test_host_alloc): its storage is that memory. */
static inline cl_mem kiln_test_host_buffer(cl_context context, void *host, size_t bytes) {
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
  assert_cl_success(err);
  return buffer;
}

static inline cl_mem kiln_test_sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size) {
  cl_buffer_region region = {origin, size};
  cl_int err = CL_INVALID_VALUE;
  cl_mem sub = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  return sub;
}

/* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes. */
static inline size_t kiln_test_base_align(cl_device_id device) {
  cl_uint bits = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
  return bits / 8;
}

static inline cl_uint kiln_test_compute_units(cl_device_id device) {
  cl_uint units = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  assert_true(units >= 1);
  return units;
}

/* Builds `source`; a build failure fails the test with the build log. */
static inline cl_program kiln_test_program(cl_context context, cl_device_id device, const char *source,
                                           const char *options) {
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

static inline cl_kernel kiln_test_kernel(cl_program program, const char *name) {
  cl_int err = CL_INVALID_VALUE;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static inline void kiln_test_arg_mem(cl_kernel kernel, cl_uint index, cl_mem mem) {
  assert_cl_success(clSetKernelArg(kernel, index, sizeof mem, &mem));
}

static inline void kiln_test_arg_int(cl_kernel kernel, cl_uint index, cl_int value) {
  assert_cl_success(clSetKernelArg(kernel, index, sizeof value, &value));
}

static inline cl_int kiln_test_event_status(cl_event event) {
  cl_int status = 99;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  return status;
}

static inline void kiln_test_read(cl_command_queue queue, cl_mem buffer, size_t size, void *out) {
  assert_cl_success(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, size, out, 0, NULL, NULL));
}

/* Element `index` of an int buffer (blocking). */
static inline cl_int kiln_test_read_int(cl_command_queue queue, cl_mem buffer, size_t index) {
  cl_int value = -12345;
  assert_cl_success(
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, index * sizeof value, sizeof value, &value, 0, NULL, NULL));
  return value;
}

static inline void kiln_test_write(cl_command_queue queue, cl_mem buffer, size_t size, const void *data) {
  assert_cl_success(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, size, data, 0, NULL, NULL));
}

/* Sets `count` ints of `buffer` to `value` (completed on return). */
static inline void kiln_test_fill_ints(cl_command_queue queue, cl_mem buffer, size_t count, cl_int value) {
  assert_cl_success(clEnqueueFillBuffer(queue, buffer, &value, sizeof value, 0, count * sizeof value, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
}

/* A complete event of `queue` (a marker, waited for). */
static inline cl_event kiln_test_done_marker(cl_command_queue queue) {
  cl_event event = NULL;
  assert_cl_success(clEnqueueMarkerWithWaitList(queue, 0, NULL, &event));
  assert_cl_success(clWaitForEvents(1, &event));
  return event;
}

/* The event's command type, queue and context are these, and it has one reference. */
static inline void kiln_test_expect_event_info(cl_event event, cl_command_type type, cl_command_queue queue,
                                               cl_context context) {
  cl_command_type got_type = 0;
  cl_command_queue got_queue = NULL;
  cl_context got_context = NULL;
  cl_uint refs = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof got_type, &got_type, NULL));
  assert_int_equal(type, got_type);
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof got_queue, &got_queue, NULL));
  assert_ptr_equal(queue, got_queue);
  assert_cl_success(clGetEventInfo(event, CL_EVENT_CONTEXT, sizeof got_context, &got_context, NULL));
  assert_ptr_equal(context, got_context);
  assert_cl_success(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
}

/* The event's five profiling times (queued, submit, start, end, complete) into t[]: each
 * a cl_ulong, the first not 0, none before the one before it. */
static inline void kiln_test_profiling_times(cl_event event, cl_ulong t[5], const char *what) {
  const cl_profiling_info names[5] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END,
                                      CL_PROFILING_COMMAND_COMPLETE};
  for (int i = 0; i < 5; i++) {
    size_t size = 0;
    assert_cl_success(clGetEventProfilingInfo(event, names[i], sizeof t[i], &t[i], &size));
    assert_int_equal(sizeof(cl_ulong), size);
    if (i > 0 && t[i] < t[i - 1])
      fail_msg("%s: profiling time %d (%llu) before time %d (%llu)", what, i, (unsigned long long)t[i], i - 1,
               (unsigned long long)t[i - 1]);
  }
  if (t[0] == 0) fail_msg("%s: CL_PROFILING_COMMAND_QUEUED is 0", what);
}

/* Fails with the first index where `got` differs from `want`. */
static inline void kiln_test_expect_ints(const cl_int *want, const cl_int *got, size_t count, const char *what) {
  for (size_t i = 0; i < count; i++)
    if (want[i] != got[i]) fail_msg("%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
}


/* ---- kernels several suites build, with their host models ---- */

/* count(c): every work-item adds one to c[0]. */
#define KILN_TEST_COUNT_SOURCE "kernel void count(global int *c) { atomic_inc(c); }\n"

/* scale(in, out, mul, add): out = in * mul + add. */
#define KILN_TEST_SCALE_SOURCE                                                                                         \
  "kernel void scale(global const int *in, global int *out, int mul, int add) {\n"                                     \
  "  size_t i = get_global_id(0);\n"                                                                                   \
  "  out[i] = in[i] * mul + add;\n"                                                                                    \
  "}\n"

static inline void kiln_test_scale_args(cl_kernel scale, cl_mem in, cl_mem out, cl_int mul, cl_int add) {
  kiln_test_arg_mem(scale, 0, in);
  kiln_test_arg_mem(scale, 1, out);
  kiln_test_arg_int(scale, 2, mul);
  kiln_test_arg_int(scale, 3, add);
}

/* Reads `n` ints of `out` and fails unless each is in[i] * mul + add. */
static inline void kiln_test_expect_scaled(cl_command_queue queue, cl_mem out, const cl_int *in, size_t n, cl_int mul,
                                           cl_int add, const char *what) {
  cl_int *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
  kiln_test_read(queue, out, n * sizeof *got, got);
  for (size_t i = 0; i < n; i++) want[i] = in[i] * mul + add;
  kiln_test_expect_ints(want, got, n, what);
  free(got);
  free(want);
}

/* group_sum(in, out, scratch): out[g] = the sum of work-group g's inputs (a reduction in
 * local memory: the work-group size must be a power of two). */
#define KILN_TEST_GROUP_SUM_SOURCE                                                                                     \
  "kernel void group_sum(global const int *in, global int *out, local int *scratch) {\n"                               \
  "  size_t l = get_local_id(0), n = get_local_size(0);\n"                                                             \
  "  scratch[l] = in[get_global_id(0)];\n"                                                                             \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"                                                                                  \
  "  for (size_t s = n / 2; s > 0; s /= 2) {\n"                                                                        \
  "    if (l < s) scratch[l] += scratch[l + s];\n"                                                                     \
  "    barrier(CLK_LOCAL_MEM_FENCE);\n"                                                                                \
  "  }\n"                                                                                                              \
  "  if (l == 0) out[get_group_id(0)] = scratch[0];\n"                                                                 \
  "}\n"

/* The arguments, with scratch memory for work-groups of `group` items. */
static inline void kiln_test_group_sum_args(cl_kernel group_sum, cl_mem in, cl_mem out, size_t group) {
  kiln_test_arg_mem(group_sum, 0, in);
  kiln_test_arg_mem(group_sum, 1, out);
  assert_cl_success(clSetKernelArg(group_sum, 2, group * sizeof(cl_int), NULL));
}

/* Reads the n / group sums of `out` and fails unless each is its group's sum of `in`. */
static inline void kiln_test_expect_group_sums(cl_command_queue queue, cl_mem out, const cl_int *in, size_t n,
                                               size_t group, const char *what) {
  size_t groups = n / group;
  cl_int *got = malloc(groups * sizeof *got), *want = calloc(groups, sizeof *want);
  kiln_test_read(queue, out, groups * sizeof *got, got);
  for (size_t i = 0; i < n; i++) want[i / group] += in[i];
  kiln_test_expect_ints(want, got, groups, what);
  free(got);
  free(want);
}

/* ---- a group fixture with a program ---- */

/* `env_setup` (kiln_test_env_setup, or an extension's, which also loads its entry points),
 * then `source` built with `options` into *program. */
static inline int kiln_test_program_setup(void **state, int (*env_setup)(void **), cl_program *program,
                                          const char *source, const char *options) {
  env_setup(state);
  struct kiln_test_env *env = *state;
  *program = kiln_test_program(env->context, env->device, source, options);
  return 0;
}

static inline int kiln_test_program_teardown(void **state, cl_program program) {
  assert_cl_success(clReleaseProgram(program));
  return kiln_test_env_teardown(state);
}

#endif
