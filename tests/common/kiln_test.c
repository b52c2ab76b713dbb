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

bool kiln_test_extension_listed(cl_device_id device, const char *name) {
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
  char *list = calloc(size + 1, 1);
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, list, NULL));
  size_t n = strlen(name);
  bool listed = false;
  for (const char *p = strstr(list, name); p && !listed; p = strstr(p + 1, name))
    listed = (p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0');
  free(list);
  return listed;
}

size_t kiln_test_extension_entries(cl_device_id device, const char *name, cl_version *version) {
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &size));
  assert_int_equal(0, size % sizeof(cl_name_version));
  cl_name_version *entries = malloc(size ? size : 1);
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, entries, NULL));
  size_t found = 0;
  for (size_t i = 0; i < size / sizeof *entries; i++)
    if (strcmp(entries[i].name, name) == 0) {
      found++;
      *version = entries[i].version;
    }
  free(entries);
  return found;
}

