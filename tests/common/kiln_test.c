#include "kiln_test.h"

#include <stdlib.h>
#include <string.h>

cl_platform_id kiln_test_platform(void) {
  cl_uint count = 0;
  assert_cl_success(clGetPlatformIDs(0, NULL, &count));
  assert_true(count > 0);
  cl_platform_id platforms[16];
  if (count > 16) count = 16;
  assert_cl_success(clGetPlatformIDs(count, platforms, NULL));
  for (cl_uint i = 0; i < count; i++) {
    char name[64] = {0};
    assert_cl_success(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (strcmp(name, "Kiln") == 0) return platforms[i];
  }
  fail_msg("no platform named Kiln among %u", count);
  return NULL;
}

cl_device_id kiln_test_device(void) {
  cl_device_id device = NULL;
  assert_cl_success(clGetDeviceIDs(kiln_test_platform(), CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  return device;
}

int kiln_test_env_setup(void **state) {
  struct kiln_test_env *env = calloc(1, sizeof *env);
  cl_int err;
  env->platform = kiln_test_platform();
  env->device = kiln_test_device();
  env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  env->queue = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  *state = env;
  return 0;
}

int kiln_test_env_teardown(void **state) {
  struct kiln_test_env *env = *state;
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseCommandQueue(env->queue));
  assert_cl_success(clReleaseContext(env->context));
  free(env);
  return 0;
}

struct kiln_test_fake_handle kiln_test_fake_handle_like(const void *real) {
  struct kiln_test_fake_handle fake;
  fake.dispatch = kiln_test_dispatch_of(real);
  memset(fake.garbage, 0xA5, sizeof fake.garbage);
  return fake;
}

const struct _cl_icd_dispatch *kiln_test_dispatch_of(const void *handle) {
  return *(const struct _cl_icd_dispatch *const *)handle;
}
