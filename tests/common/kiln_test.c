#include "kiln_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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


void kiln_test_expect_extension(cl_device_id device, const char *name, cl_version version) {
  if (!kiln_test_extension_listed(device, name)) fail_msg("CL_DEVICE_EXTENSIONS lacks %s", name);
  cl_version got = 0;
  size_t entries = kiln_test_extension_entries(device, name, &got);
  if (entries != 1) fail_msg("CL_DEVICE_EXTENSIONS_WITH_VERSION lists %s %zu times, expected once", name, entries);
  if (got != version)
    fail_msg("%s reported with version %u.%u.%u, expected %u.%u.%u", name, CL_VERSION_MAJOR(got),
             CL_VERSION_MINOR(got), CL_VERSION_PATCH(got), CL_VERSION_MAJOR(version), CL_VERSION_MINOR(version),
             CL_VERSION_PATCH(version));
}

void *kiln_test_extension_function(cl_platform_id platform, const char *name) {
  void *function = clGetExtensionFunctionAddressForPlatform(platform, name);
  if (!function) fail_msg("clGetExtensionFunctionAddressForPlatform(\"%s\") returned NULL", name);
  return function;
}

cl_uint kiln_test_random(cl_uint *state) {
  cl_uint x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

void kiln_test_random_ints(cl_uint *seed, cl_int *out, size_t count, cl_int range) {
  for (size_t i = 0; i < count; i++) out[i] = (cl_int)(kiln_test_random(seed) % (cl_uint)range) - range / 2;
}

double kiln_test_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void kiln_test_sleep_ms(unsigned ms) { nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL); }

bool kiln_test_ints_are(const volatile cl_int *p, size_t count, cl_int value, bool all) {
  for (size_t i = 0; i < count; i++) {
    bool equal = p[i] == value;
    if (all && !equal) return false;
    if (!all && equal) return true;
  }
  return all;
}

bool kiln_test_poll_ints(const volatile cl_int *p, size_t count, cl_int value, bool all, unsigned ms) {
  double end = kiln_test_now_ms() + ms;
  for (;;) {
    if (kiln_test_ints_are(p, count, value, all)) return true;
    if (kiln_test_now_ms() > end) return false;
    kiln_test_sleep_ms(1);
  }
}

void *kiln_test_host_alloc(size_t bytes) {
  size_t rounded = (bytes + 4095) & ~(size_t)4095;
  void *p = aligned_alloc(4096, rounded ? rounded : 4096);
  assert_non_null(p);
  memset(p, 0, rounded);
  return p;
}

void kiln_test_rect_copy(unsigned char *dst, const size_t dst_origin[3], size_t dst_row, size_t dst_slice,
                         const unsigned char *src, const size_t src_origin[3], size_t src_row, size_t src_slice,
                         const size_t region[3]) {
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      memcpy(dst + (dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row + dst_origin[0],
             src + (src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row + src_origin[0], region[0]);
}
