/* clEnqueueNativeKernel through the loader: argument copying, memory objects replaced by
 * their storage, ordering with other commands, and the error rules. Needs
 * CL_EXEC_NATIVE_KERNEL in CL_DEVICE_EXECUTION_CAPABILITIES. */
#include "kiln_test.h"

#include <string.h>

struct native_args {
  int *data;        /* a cl_mem handle at enqueue, the storage when it runs */
  int *other;
  int add;
};

static void CL_CALLBACK add_into(void *p) {
  struct native_args *a = p;
  for (int i = 0; i < 8; i++) a->data[i] += a->add + (a->other ? a->other[i] : 0);
}

static void test_runs_with_storage_pointers(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_exec_capabilities caps = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL));
  assert_true(caps & CL_EXEC_NATIVE_KERNEL);
  cl_int err;
  int init[8] = {0, 1, 2, 3, 4, 5, 6, 7}, tens[8] = {10, 10, 10, 10, 10, 10, 10, 10};
  cl_mem data = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof init, init, &err);
  assert_cl_success(err);
  cl_mem other = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof tens, tens, &err);
  assert_cl_success(err);
  struct native_args args = {(int *)data, (int *)other, 100};
  cl_mem mems[2] = {data, other};
  const void *locs[2] = {&args.data, &args.other};
  cl_event event;
  assert_cl_success(clEnqueueNativeKernel(env->queue, add_into, &args, sizeof args, 2, mems, locs, 0, NULL, &event));
  args.add = -1000; /* copied at enqueue */
  assert_cl_success(clWaitForEvents(1, &event));
  cl_command_type type;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_NATIVE_KERNEL, type);
  assert_cl_success(clReleaseEvent(event));
  /* A NULL memory object becomes a NULL pointer. */
  struct native_args second = {(int *)data, NULL, 1};
  cl_mem with_null[2] = {data, NULL};
  const void *locs2[2] = {&second.data, &second.other};
  assert_cl_success(clEnqueueNativeKernel(env->queue, add_into, &second, sizeof second, 2, with_null, locs2, 0, NULL, NULL));
  int out[8];
  assert_cl_success(clEnqueueReadBuffer(env->queue, data, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < 8; i++) assert_int_equal(i + 100 + 10 + 1, out[i]);
  assert_cl_success(clReleaseMemObject(data));
  assert_cl_success(clReleaseMemObject(other));
}

static int counter;
static void CL_CALLBACK bump(void *p) {
  (void)p;
  counter++;
}

static void test_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem data = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  struct native_args args = {(int *)data, NULL, 0};
  const void *loc = &args.data;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clEnqueueNativeKernel((cl_command_queue)&fake, bump, NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueNativeKernel(env->queue, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueNativeKernel(env->queue, bump, NULL, 4, 0, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clEnqueueNativeKernel(env->queue, bump, &args, 0, 0, NULL, NULL, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   clEnqueueNativeKernel(env->queue, bump, &args, sizeof args, 1, NULL, &loc, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   clEnqueueNativeKernel(env->queue, bump, &args, sizeof args, 0, &data, NULL, 0, NULL, NULL));
  const void *outside = (const char *)&args + sizeof args;
  assert_int_equal(CL_INVALID_VALUE,
                   clEnqueueNativeKernel(env->queue, bump, &args, sizeof args, 1, &data, &outside, 0, NULL, NULL));
  cl_mem not_mem = (cl_mem)env->queue;
  assert_int_equal(CL_INVALID_MEM_OBJECT,
                   clEnqueueNativeKernel(env->queue, bump, &args, sizeof args, 1, &not_mem, &loc, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   clEnqueueNativeKernel(env->queue, bump, NULL, 0, 0, NULL, NULL, 1, NULL, NULL));
  counter = 0;
  assert_cl_success(clEnqueueNativeKernel(env->queue, bump, NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_int_equal(1, counter);
  assert_cl_success(clReleaseMemObject(data));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs_with_storage_pointers),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
