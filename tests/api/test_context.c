/* Contexts through the ICD loader: clCreateContext / clCreateContextFromType and their errors,
 * clGetContextInfo, retain / release counts, destructor callbacks. Errors the loader
 * intercepts (NULL handles, unknown platforms) are also checked on Kiln's own entry point,
 * called through its dispatch table as the loader would. */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <string.h>

static void CL_CALLBACK notify(const char *errinfo, const void *private_info, size_t cb, void *user_data) {
  (void)errinfo, (void)private_info, (void)cb, (void)user_data;
}

static cl_uint reference_count(cl_context context) {
  cl_uint count = 0;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL));
  return count;
}

static void test_create_and_query(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_int err = 1;
  int user = 0;
  cl_context context = clCreateContext(NULL, 1, &device, notify, &user, &err);
  assert_cl_success(err);
  assert_non_null(context);
  assert_int_equal(reference_count(context), 1);

  cl_uint num = 0;
  size_t size = 0;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_uint));
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof num, &num, NULL));
  assert_int_equal(num, 1);
  cl_device_id devices[4] = {NULL};
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_device_id));
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof devices, devices, &size));
  assert_ptr_equal(devices[0], device);
  /* No properties were given: size 0. */
  size = 99;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
  assert_int_equal(size, 0);
  /* Short buffers and unknown names. */
  assert_int_equal(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof num - 1, &num, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof(cl_device_id) - 1, devices, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, 2, &num, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetContextInfo(context, 0x7fff, sizeof num, &num, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetContextInfo(context, CL_DEVICE_NAME, sizeof num, &num, NULL), CL_INVALID_VALUE);
  assert_cl_success(clReleaseContext(context));
}

/* The same device given twice is allowed; the context lists it as given. */
static void test_create_duplicate_devices(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_device_id twice[2] = {device, device};
  cl_int err;
  cl_context context = clCreateContext(NULL, 2, twice, NULL, NULL, &err);
  assert_cl_success(err);
  cl_uint num = 0;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof num, &num, NULL));
  cl_device_id devices[4] = {NULL};
  size_t size = 0;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof devices, devices, &size));
  assert_int_equal(size, num * sizeof(cl_device_id));
  for (cl_uint i = 0; i < num; i++) assert_ptr_equal(devices[i], device);
  assert_cl_success(clReleaseContext(context));
}

static void test_properties_returned(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_device_id device = kiln_test_device();
  const cl_context_properties given[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                         CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
  cl_int err;
  cl_context context = clCreateContext(given, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_context_properties got[8];
  memset(got, 0x77, sizeof got);
  size_t size = 0;
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
  assert_int_equal(size, sizeof given);
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, size, got, NULL));
  assert_memory_equal(got, given, sizeof given);
  assert_int_equal(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, size - 1, got, NULL), CL_INVALID_VALUE);
  assert_cl_success(clReleaseContext(context));

  /* An empty list (just the terminator) is returned as given too. */
  const cl_context_properties empty[] = {0};
  context = clCreateContext(empty, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
  assert_int_equal(size, sizeof empty);
  assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, sizeof got, got, NULL));
  assert_int_equal(got[0], 0);
  assert_cl_success(clReleaseContext(context));
}

static void test_create_errors(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(device);
  int user = 0;
  cl_int err;
  /* Kiln's own entry point. */
  err = 0;
  assert_null(d->clCreateContext(NULL, 1, NULL, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  err = 0;
  assert_null(d->clCreateContext(NULL, 0, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  err = 0;
  assert_null(d->clCreateContext(NULL, 1, &device, NULL, &user, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  cl_device_id null_device = NULL;
  err = 0;
  assert_null(d->clCreateContext(NULL, 1, &null_device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE);
  struct kiln_test_fake_handle fake_device = kiln_test_fake_handle_like(device);
  cl_device_id mixed[2] = {device, (cl_device_id)&fake_device};
  err = 0;
  assert_null(d->clCreateContext(NULL, 2, mixed, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE);
  /* Through the loader. */
  err = 0;
  assert_null(clCreateContext(NULL, 0, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  err = 0;
  assert_null(clCreateContext(NULL, 1, &device, NULL, &user, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  err = 0;
  assert_null(clCreateContext(NULL, 2, mixed, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE);
  /* A NULL errcode_ret is allowed. */
  assert_null(clCreateContext(NULL, 0, &device, NULL, NULL, NULL));

  /* Properties. */
  const cl_context_properties bad_name[] = {0x7777, 1, 0};
  err = 0;
  assert_null(clCreateContext(bad_name, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  const cl_context_properties duplicated[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                              CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  err = 0;
  assert_null(clCreateContext(duplicated, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  const cl_context_properties duplicated_sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE,
                                                   CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, 0};
  err = 0;
  assert_null(clCreateContext(duplicated_sync, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  struct kiln_test_fake_handle fake_platform = kiln_test_fake_handle_like(platform);
  const cl_context_properties wrong_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)&fake_platform, 0};
  err = 0;
  assert_null(clCreateContext(wrong_platform, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PLATFORM);
  err = 0;
  assert_null(d->clCreateContext(wrong_platform, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PLATFORM);
  const cl_context_properties device_as_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)device, 0};
  err = 0;
  assert_null(d->clCreateContext(device_as_platform, 1, &device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PLATFORM);
  /* Nothing was left behind by the failures: a valid create still works. */
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(context));
}

static void test_create_from_type(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  static const cl_device_type found[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL};
  for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
    cl_int err = 1;
    cl_context context = clCreateContextFromType(props, found[i], NULL, NULL, &err);
    assert_cl_success(err);
    cl_device_id got = NULL;
    assert_cl_success(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof got, &got, NULL));
    assert_ptr_equal(got, device);
    cl_context_properties back[3];
    assert_cl_success(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, sizeof back, back, NULL));
    assert_memory_equal(back, props, sizeof props);
    assert_cl_success(clReleaseContext(context));
  }
  static const cl_device_type not_found[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM};
  for (size_t i = 0; i < sizeof not_found / sizeof not_found[0]; i++) {
    cl_int err = 0;
    assert_null(clCreateContextFromType(props, not_found[i], NULL, NULL, &err));
    assert_int_equal(err, CL_DEVICE_NOT_FOUND);
  }
  cl_int err = 0;
  assert_null(clCreateContextFromType(props, (cl_device_type)1 << 40, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE_TYPE);
  err = 0;
  assert_null(clCreateContextFromType(props, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE_TYPE);
  int user = 0;
  err = 0;
  assert_null(clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, &user, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  /* Kiln's own entry point: NULL properties select Kiln's platform; bad properties are rejected. */
  err = 1;
  cl_context context = d->clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(context));
  const cl_context_properties bad_name[] = {0x7777, 1, 0};
  err = 0;
  assert_null(d->clCreateContextFromType(bad_name, CL_DEVICE_TYPE_CPU, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  struct kiln_test_fake_handle fake_platform = kiln_test_fake_handle_like(platform);
  const cl_context_properties wrong_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)&fake_platform, 0};
  err = 0;
  assert_null(d->clCreateContextFromType(wrong_platform, CL_DEVICE_TYPE_CPU, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PLATFORM);
}

static void test_retain_release(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(device);
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clRetainContext(context));
  assert_cl_success(clRetainContext(context));
  assert_int_equal(reference_count(context), 3);
  assert_cl_success(clReleaseContext(context));
  assert_int_equal(reference_count(context), 2);
  assert_cl_success(clReleaseContext(context));
  assert_int_equal(reference_count(context), 1);
  assert_cl_success(clReleaseContext(context));
  /* The handle is dead now. The loader would read its dispatch pointer from freed memory,
   * so Kiln's entry points are called directly. */
  cl_uint count;
  assert_int_equal(d->clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(d->clRetainContext(context), CL_INVALID_CONTEXT);
  assert_int_equal(d->clReleaseContext(context), CL_INVALID_CONTEXT);
  assert_int_equal(d->clSetContextDestructorCallback(context, NULL, NULL), CL_INVALID_CONTEXT);
  /* NULL, foreign and wrongly typed handles. */
  assert_int_equal(d->clRetainContext(NULL), CL_INVALID_CONTEXT);
  assert_int_equal(d->clReleaseContext(NULL), CL_INVALID_CONTEXT);
  assert_int_equal(d->clGetContextInfo(NULL, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL),
                   CL_INVALID_CONTEXT);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clRetainContext((cl_context)&fake), CL_INVALID_CONTEXT);
  assert_int_equal(clReleaseContext((cl_context)&fake), CL_INVALID_CONTEXT);
  assert_int_equal(clGetContextInfo((cl_context)&fake, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(clRetainContext((cl_context)device), CL_INVALID_CONTEXT);
}

struct destructor_log {
  cl_context expected_context;
  int order[8];
  int calls;
};

struct destructor_arg {
  struct destructor_log *log;
  int id;
};

static void CL_CALLBACK on_destroy(cl_context context, void *user_data) {
  struct destructor_arg *arg = user_data;
  if (context == arg->log->expected_context && arg->log->calls < 8) arg->log->order[arg->log->calls] = arg->id;
  arg->log->calls++;
}

static void test_destructor_callbacks(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  struct destructor_log log = {.expected_context = context};
  struct destructor_arg args[3] = {{&log, 1}, {&log, 2}, {&log, 3}};
  for (int i = 0; i < 3; i++) assert_cl_success(clSetContextDestructorCallback(context, on_destroy, &args[i]));
  assert_int_equal(clSetContextDestructorCallback(context, NULL, &args[0]), CL_INVALID_VALUE);
  assert_cl_success(clRetainContext(context));
  assert_cl_success(clReleaseContext(context));
  assert_int_equal(log.calls, 0); /* not yet: one reference left */
  assert_cl_success(clReleaseContext(context));
  assert_int_equal(log.calls, 3);
  assert_int_equal(log.order[0], 3); /* reverse order of registration */
  assert_int_equal(log.order[1], 2);
  assert_int_equal(log.order[2], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_and_query),
      cmocka_unit_test(test_create_duplicate_devices),
      cmocka_unit_test(test_properties_returned),
      cmocka_unit_test(test_create_errors),
      cmocka_unit_test(test_create_from_type),
      cmocka_unit_test(test_retain_release),
      cmocka_unit_test(test_destructor_callbacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
