/* kiln_test_objects.h: creating and using OpenCL objects in a test, failing the test on
 * any error (the extension suites share these). */
#ifndef KILN_TEST_OBJECTS_H
#define KILN_TEST_OBJECTS_H

#include "kiln_test.h"

static inline cl_command_queue kiln_test_queue(cl_context context, cl_device_id device,
                                               cl_command_queue_properties props) {
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, props, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props ? properties : NULL, &err);
  assert_cl_success(err);
  assert_non_null(queue);
  return queue;
}

static inline cl_mem kiln_test_buffer(cl_context context, size_t size) {
  cl_int err = CL_INVALID_VALUE;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, size, NULL, &err);
  assert_cl_success(err);
  return buffer;
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

static inline void kiln_test_write(cl_command_queue queue, cl_mem buffer, size_t size, const void *data) {
  assert_cl_success(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, size, data, 0, NULL, NULL));
}

/* Fails with the first index where `got` differs from `want`. */
static inline void kiln_test_expect_ints(const cl_int *want, const cl_int *got, size_t count, const char *what) {
  for (size_t i = 0; i < count; i++)
    if (want[i] != got[i]) fail_msg("%s: element %zu is %d, expected %d", what, i, got[i], want[i]);
}

#endif
