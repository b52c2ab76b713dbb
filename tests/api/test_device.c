/* Device entry points through the ICD loader: clGetDeviceIDs, clGetDeviceInfo (every
 * OpenCL 3.0 query), clCreateSubDevices, clRetainDevice / clReleaseDevice, and the
 * KILN_NUM_WORKERS variable (checked in child processes, since it is read once). */
#include "kiln_test.h"

#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How a query's value is shaped, from the return types of the spec's device-queries table. */
enum shape { FIXED, STRING, ARRAY };
struct query {
  cl_device_info name;
  const char *label;
  enum shape shape;
  size_t size; /* FIXED: exact size; ARRAY: element size */
};
#define Q_FIXED(n, type) {n, #n, FIXED, sizeof(type)}
#define Q_STRING(n) {n, #n, STRING, 1}
#define Q_ARRAY(n, type) {n, #n, ARRAY, sizeof(type)}

static const struct query device_queries[] = {
    Q_FIXED(CL_DEVICE_TYPE, cl_device_type),
    Q_FIXED(CL_DEVICE_VENDOR_ID, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, cl_uint),
    Q_ARRAY(CL_DEVICE_MAX_WORK_ITEM_SIZES, size_t),
    Q_FIXED(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, cl_uint),
    Q_FIXED(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint),
    Q_FIXED(CL_DEVICE_ADDRESS_BITS, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong),
    Q_FIXED(CL_DEVICE_IMAGE_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_MAX_READ_IMAGE_ARGS, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, cl_uint),
    Q_STRING(CL_DEVICE_IL_VERSION),
    Q_ARRAY(CL_DEVICE_ILS_WITH_VERSION, cl_name_version),
    Q_FIXED(CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t),
    Q_FIXED(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t),
    Q_FIXED(CL_DEVICE_IMAGE3D_MAX_WIDTH, size_t),
    Q_FIXED(CL_DEVICE_IMAGE3D_MAX_HEIGHT, size_t),
    Q_FIXED(CL_DEVICE_IMAGE3D_MAX_DEPTH, size_t),
    Q_FIXED(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, size_t),
    Q_FIXED(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, size_t),
    Q_FIXED(CL_DEVICE_MAX_SAMPLERS, cl_uint),
    Q_FIXED(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, cl_uint),
    Q_FIXED(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_PIPE_ARGS, cl_uint),
    Q_FIXED(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, cl_uint),
    Q_FIXED(CL_DEVICE_PIPE_MAX_PACKET_SIZE, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_PARAMETER_SIZE, size_t),
    Q_FIXED(CL_DEVICE_MEM_BASE_ADDR_ALIGN, cl_uint),
    Q_FIXED(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, cl_uint),
    Q_FIXED(CL_DEVICE_SINGLE_FP_CONFIG, cl_device_fp_config),
    Q_FIXED(CL_DEVICE_DOUBLE_FP_CONFIG, cl_device_fp_config),
    Q_FIXED(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cl_device_mem_cache_type),
    Q_FIXED(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, cl_uint),
    Q_FIXED(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cl_ulong),
    Q_FIXED(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong),
    Q_FIXED(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, cl_ulong),
    Q_FIXED(CL_DEVICE_MAX_CONSTANT_ARGS, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, size_t),
    Q_FIXED(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, size_t),
    Q_FIXED(CL_DEVICE_LOCAL_MEM_TYPE, cl_device_local_mem_type),
    Q_FIXED(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong),
    Q_FIXED(CL_DEVICE_ERROR_CORRECTION_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_HOST_UNIFIED_MEMORY, cl_bool),
    Q_FIXED(CL_DEVICE_PROFILING_TIMER_RESOLUTION, size_t),
    Q_FIXED(CL_DEVICE_ENDIAN_LITTLE, cl_bool),
    Q_FIXED(CL_DEVICE_AVAILABLE, cl_bool),
    Q_FIXED(CL_DEVICE_COMPILER_AVAILABLE, cl_bool),
    Q_FIXED(CL_DEVICE_LINKER_AVAILABLE, cl_bool),
    Q_FIXED(CL_DEVICE_EXECUTION_CAPABILITIES, cl_device_exec_capabilities),
    Q_FIXED(CL_DEVICE_QUEUE_PROPERTIES, cl_command_queue_properties),
    Q_FIXED(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, cl_command_queue_properties),
    Q_FIXED(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, cl_command_queue_properties),
    Q_FIXED(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, cl_uint),
    Q_FIXED(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_ON_DEVICE_QUEUES, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_ON_DEVICE_EVENTS, cl_uint),
    Q_STRING(CL_DEVICE_BUILT_IN_KERNELS),
    Q_ARRAY(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, cl_name_version),
    Q_FIXED(CL_DEVICE_PLATFORM, cl_platform_id),
    Q_STRING(CL_DEVICE_NAME),
    Q_STRING(CL_DEVICE_VENDOR),
    Q_STRING(CL_DRIVER_VERSION),
    Q_STRING(CL_DEVICE_PROFILE),
    Q_STRING(CL_DEVICE_VERSION),
    Q_FIXED(CL_DEVICE_NUMERIC_VERSION, cl_version),
    Q_STRING(CL_DEVICE_OPENCL_C_VERSION),
    Q_ARRAY(CL_DEVICE_OPENCL_C_ALL_VERSIONS, cl_name_version),
    Q_ARRAY(CL_DEVICE_OPENCL_C_FEATURES, cl_name_version),
    Q_STRING(CL_DEVICE_EXTENSIONS),
    Q_ARRAY(CL_DEVICE_EXTENSIONS_WITH_VERSION, cl_name_version),
    Q_FIXED(CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR, cl_version),
    Q_FIXED(CL_DEVICE_PRINTF_BUFFER_SIZE, size_t),
    Q_FIXED(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, cl_bool),
    Q_FIXED(CL_DEVICE_PARENT_DEVICE, cl_device_id),
    Q_FIXED(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, cl_uint),
    Q_ARRAY(CL_DEVICE_PARTITION_PROPERTIES, cl_device_partition_property),
    Q_FIXED(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, cl_device_affinity_domain),
    Q_ARRAY(CL_DEVICE_PARTITION_TYPE, cl_device_partition_property),
    Q_FIXED(CL_DEVICE_REFERENCE_COUNT, cl_uint),
    Q_FIXED(CL_DEVICE_SVM_CAPABILITIES, cl_device_svm_capabilities),
    Q_FIXED(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, cl_uint),
    Q_FIXED(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, cl_uint),
    Q_FIXED(CL_DEVICE_MAX_NUM_SUB_GROUPS, cl_uint),
    Q_FIXED(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, cl_bool),
    Q_FIXED(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, cl_device_atomic_capabilities),
    Q_FIXED(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, cl_device_atomic_capabilities),
    Q_FIXED(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, cl_device_device_enqueue_capabilities),
    Q_FIXED(CL_DEVICE_PIPE_SUPPORT, cl_bool),
    Q_FIXED(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, size_t),
    Q_STRING(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED),
};

/* Size query, then the value with exactly that size, then one byte too few. */
static void test_every_query_answered(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  for (size_t q = 0; q < sizeof device_queries / sizeof device_queries[0]; q++) {
    const struct query *query = &device_queries[q];
    size_t size = (size_t)-1;
    cl_int err = clGetDeviceInfo(device, query->name, 0, NULL, &size);
    if (err != CL_SUCCESS) fail_msg("%s: size query returned %d", query->label, err);
    switch (query->shape) {
    case FIXED:
      if (size != query->size) fail_msg("%s: size %zu, expected %zu", query->label, size, query->size);
      break;
    case STRING:
      if (size < 1) fail_msg("%s: string without terminator", query->label);
      break;
    case ARRAY:
      if (size % query->size) fail_msg("%s: size %zu not a multiple of %zu", query->label, size, query->size);
      break;
    }
    unsigned char value[8192];
    assert_true(size <= sizeof value - 1);
    memset(value, 0xCC, sizeof value);
    size_t size2 = 0;
    err = clGetDeviceInfo(device, query->name, size, size ? value : NULL, &size2);
    if (err != CL_SUCCESS) fail_msg("%s: value query returned %d", query->label, err);
    assert_int_equal(size, size2);
    assert_int_equal(value[size], 0xCC); /* nothing written past the size */
    if (query->shape == STRING) {
      if (value[size - 1] != '\0') fail_msg("%s: not NUL-terminated", query->label);
      if (strlen((char *)value) + 1 != size) fail_msg("%s: embedded NUL", query->label);
    }
    if (size > 0 && clGetDeviceInfo(device, query->name, size - 1, value, NULL) != CL_INVALID_VALUE)
      fail_msg("%s: a short buffer was accepted", query->label);
    /* Without size_ret the query works too. */
    if (size > 0) assert_cl_success(clGetDeviceInfo(device, query->name, size, value, NULL));
  }
}

#define GET(param, var) assert_cl_success(clGetDeviceInfo(device, param, sizeof(var), &(var), NULL))

static void get_string(cl_device_id device, cl_device_info param, char *out, size_t out_size) {
  assert_cl_success(clGetDeviceInfo(device, param, out_size, out, NULL));
}

static size_t get_versions(cl_device_id device, cl_device_info param, cl_name_version *out, size_t max) {
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, param, 0, NULL, &size));
  assert_true(size <= max * sizeof *out);
  if (size) assert_cl_success(clGetDeviceInfo(device, param, size, out, NULL));
  return size / sizeof *out;
}

static unsigned usable_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
  return (unsigned)CPU_COUNT(&set);
}

static void test_identity(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_device_id device = kiln_test_device();
  cl_device_type type;
  GET(CL_DEVICE_TYPE, type);
  assert_int_equal(type, CL_DEVICE_TYPE_CPU);
  cl_platform_id device_platform;
  GET(CL_DEVICE_PLATFORM, device_platform);
  assert_ptr_equal(device_platform, platform);
  char s[1024];
  get_string(device, CL_DEVICE_NAME, s, sizeof s);
  assert_true(strlen(s) > 0);
  get_string(device, CL_DEVICE_VENDOR, s, sizeof s);
  assert_true(strlen(s) > 0);
  get_string(device, CL_DRIVER_VERSION, s, sizeof s);
  assert_true(strlen(s) > 0);
  get_string(device, CL_DEVICE_PROFILE, s, sizeof s);
  assert_string_equal(s, "FULL_PROFILE");
  /* "OpenCL<space><major.minor><space><vendor-specific information>" agreeing with the numeric version. */
  get_string(device, CL_DEVICE_VERSION, s, sizeof s);
  unsigned major = 0, minor = 0;
  assert_int_equal(sscanf(s, "OpenCL %u.%u ", &major, &minor), 2);
  cl_version version;
  GET(CL_DEVICE_NUMERIC_VERSION, version);
  assert_int_equal(CL_VERSION_MAJOR(version), major);
  assert_int_equal(CL_VERSION_MINOR(version), minor);
  assert_int_equal(major, 3);
  /* OpenCL 3.0 devices report OpenCL C 1.2 here, and list every version they accept. */
  get_string(device, CL_DEVICE_OPENCL_C_VERSION, s, sizeof s);
  assert_int_equal(strncmp(s, "OpenCL C 1.2 ", 13), 0);
  cl_name_version versions[16];
  size_t n = get_versions(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, versions, 16);
  const cl_version expected[] = {CL_MAKE_VERSION(1, 0, 0), CL_MAKE_VERSION(1, 1, 0), CL_MAKE_VERSION(1, 2, 0),
                                 CL_MAKE_VERSION(2, 0, 0), CL_MAKE_VERSION(3, 0, 0)};
  assert_int_equal(n, 5);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(versions[i].name, "OpenCL C");
    assert_int_equal(versions[i].version, expected[i]);
  }
  /* vYYYY-MM-DD-XX */
  get_string(device, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, s, sizeof s);
  unsigned y, m, d, x;
  int used = 0;
  assert_int_equal(sscanf(s, "v%4u-%2u-%2u-%2u%n", &y, &m, &d, &x, &used), 4);
  assert_int_equal(used, 14);
  assert_int_equal(strlen(s), 14);
  cl_bool yes;
  GET(CL_DEVICE_AVAILABLE, yes);
  assert_int_equal(yes, CL_TRUE);
  cl_uint reference_count;
  GET(CL_DEVICE_REFERENCE_COUNT, reference_count);
  assert_int_equal(reference_count, 1);
}

/* The extension string and the versioned list name the same extensions. */
static void test_extensions_consistent(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  char extensions[8192];
  get_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
  char extensions_copy[8192];
  memcpy(extensions_copy, extensions, sizeof extensions);
  cl_name_version list[128];
  size_t count = get_versions(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, list, 128);
  size_t words = 0;
  for (char *w = strtok(extensions, " "); w; w = strtok(NULL, " ")) {
    words++;
    size_t found = 0;
    for (size_t i = 0; i < count; i++) found += strcmp(list[i].name, w) == 0;
    if (found != 1) fail_msg("%s listed %zu times with version", w, found);
  }
  assert_int_equal(words, count);
  /* cl_khr_extended_versioning's own query agrees with the OpenCL C version string. */
  if (strstr(extensions_copy, "cl_khr_extended_versioning")) {
    cl_version c_version;
    GET(CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR, c_version);
    char s[256];
    get_string(device, CL_DEVICE_OPENCL_C_VERSION, s, sizeof s);
    unsigned major, minor;
    assert_int_equal(sscanf(s, "OpenCL C %u.%u", &major, &minor), 2);
    assert_int_equal(CL_VERSION_MAJOR(c_version), major);
    assert_int_equal(CL_VERSION_MINOR(c_version), minor);
  }
  /* Nothing unimplemented is advertised: fp64 and fp16 need their configs. */
  cl_device_fp_config fp64, fp16;
  GET(CL_DEVICE_DOUBLE_FP_CONFIG, fp64);
  GET(CL_DEVICE_HALF_FP_CONFIG, fp16);
  char again[8192];
  get_string(device, CL_DEVICE_EXTENSIONS, again, sizeof again);
  assert_int_equal(strstr(again, "cl_khr_fp64") != NULL, fp64 != 0);
  assert_int_equal(strstr(again, "cl_khr_fp16") != NULL, fp16 != 0);
}

/* True when `name` is one whole space-separated word of `list`. */
static bool has_word(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

/* CL_DEVICE_EXTENSIONS: "The following Khronos extension names must be returned by all
 * devices that support OpenCL 1.1" - with and without version. */
/* Every OpenCL 1.1+ device must list these kernel-language extensions. Each one listed
 * must really work: a kernel using it builds and computes the right answer. */
struct kernel_extension_probe {
  const char *name;
  const char *source; /* kernel "probe(global int *out)": writes 42 to out[0] */
};

static const struct kernel_extension_probe kernel_extension_probes[] = {
    {"cl_khr_byte_addressable_store",
     "kernel void probe(global int *out) { global char *c = (global char *)out; c[0] = 42; c[1] = 0; c[2] = 0; c[3] = 0; }"},
    {"cl_khr_global_int32_base_atomics", "kernel void probe(global int *out) { out[0] = 40; atomic_add(out, 2); }"},
    {"cl_khr_global_int32_extended_atomics", "kernel void probe(global int *out) { out[0] = 7; atomic_max(out, 42); }"},
    {"cl_khr_local_int32_base_atomics",
     "kernel void probe(global int *out) { local int l; l = 40; atomic_add(&l, 2); out[0] = l; }"},
    {"cl_khr_local_int32_extended_atomics",
     "kernel void probe(global int *out) { local int l; l = 50; atomic_min(&l, 42); out[0] = l; }"},
};

static cl_int run_probe(cl_device_id device, const char *source) {
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  assert_cl_success(err);
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  assert_cl_success(err);
  cl_int result = -1;
  err = clBuildProgram(program, 1, &device, NULL, NULL, NULL);
  if (err == CL_SUCCESS) {
    cl_kernel kernel = clCreateKernel(program, "probe", &err);
    assert_cl_success(err);
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
    size_t one = 1;
    assert_cl_success(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, &result, 0, NULL, NULL));
    assert_cl_success(clReleaseMemObject(out));
    assert_cl_success(clReleaseKernel(kernel));
  }
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(queue));
  assert_cl_success(clReleaseContext(context));
  return result;
}

static void test_opencl_1_1_kernel_extensions_work_when_listed(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_version version;
  GET(CL_DEVICE_NUMERIC_VERSION, version);
  assert_true(version >= CL_MAKE_VERSION(1, 1, 0));
  cl_bool compiler;
  GET(CL_DEVICE_COMPILER_AVAILABLE, compiler);
  char extensions[8192];
  get_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
  cl_name_version list[128];
  size_t count = get_versions(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, list, 128);
  for (size_t r = 0; r < sizeof kernel_extension_probes / sizeof kernel_extension_probes[0]; r++) {
    const char *name = kernel_extension_probes[r].name;
    bool versioned = false;
    for (size_t i = 0; i < count; i++) versioned |= strcmp(list[i].name, name) == 0;
    bool listed = has_word(extensions, name);
    if (listed != versioned) fail_msg("%s: in the string %d, in the versioned list %d", name, listed, versioned);
    if (!listed) continue;
    if (!compiler) fail_msg("%s listed without a compiler", name);
    cl_int result = run_probe(device, kernel_extension_probes[r].source);
    if (result != 42) fail_msg("%s is listed but its probe kernel gave %d", name, result);
  }
  /* Byte-addressable stores need nothing beyond the compiler itself. */
  assert_int_equal(compiler == CL_TRUE, has_word(extensions, "cl_khr_byte_addressable_store"));
}

static void test_compute_and_work_groups(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_uint units;
  GET(CL_DEVICE_MAX_COMPUTE_UNITS, units);
  assert_true(units >= 1 && units <= usable_cpus());
  cl_uint dims;
  GET(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
  assert_true(dims >= 3);
  size_t sizes[16], wg;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL, &size));
  assert_int_equal(size, dims * sizeof(size_t));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, NULL));
  GET(CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
  assert_true(wg >= 1);
  for (cl_uint i = 0; i < dims; i++) assert_true(sizes[i] >= 1 && sizes[i] <= wg);
  size_t multiple;
  GET(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, multiple);
  assert_true(multiple >= 1 && multiple <= wg);
  size_t parameter_size, printf_size, resolution;
  GET(CL_DEVICE_MAX_PARAMETER_SIZE, parameter_size);
  assert_true(parameter_size >= 1024);
  GET(CL_DEVICE_PRINTF_BUFFER_SIZE, printf_size);
  assert_true(printf_size >= 1024 * 1024);
  GET(CL_DEVICE_PROFILING_TIMER_RESOLUTION, resolution);
  assert_true(resolution >= 1);
  cl_device_exec_capabilities exec;
  GET(CL_DEVICE_EXECUTION_CAPABILITIES, exec);
  assert_true(exec & CL_EXEC_KERNEL);
  cl_command_queue_properties host_props, legacy_props, device_props;
  GET(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, host_props);
  GET(CL_DEVICE_QUEUE_PROPERTIES, legacy_props);
  assert_int_equal(host_props, legacy_props);
  assert_true(host_props & CL_QUEUE_PROFILING_ENABLE); /* mandatory */
  GET(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, device_props);
  cl_device_device_enqueue_capabilities enqueue;
  GET(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, enqueue);
  cl_uint on_device_queues;
  GET(CL_DEVICE_MAX_ON_DEVICE_QUEUES, on_device_queues);
  if (!enqueue) {
    assert_int_equal(device_props, 0);
    assert_int_equal(on_device_queues, 0);
  }
}

static void test_vector_widths_and_fp(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  static const cl_device_info preferred[] = {
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,  CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT};
  static const cl_device_info native[] = {CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
                                          CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
                                          CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT};
  for (size_t i = 0; i < 5; i++) {
    cl_uint p, n;
    GET(preferred[i], p);
    GET(native[i], n);
    /* 1, 2, 4, 8 or 16: widths of OpenCL C vector types. */
    assert_true(p >= 1 && p <= 16 && n >= 1 && n <= 16);
    assert_int_equal(p & (p - 1), 0);
    assert_int_equal(n & (n - 1), 0);
  }
  /* Double and half widths are 0 exactly when the type is unsupported. */
  cl_device_fp_config fp64, fp32;
  GET(CL_DEVICE_DOUBLE_FP_CONFIG, fp64);
  cl_uint pd, nd, ph, nh;
  GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, pd);
  GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, nd);
  assert_int_equal(pd == 0, fp64 == 0);
  assert_int_equal(nd == 0, fp64 == 0);
  char extensions[8192];
  get_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
  GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, ph);
  GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, nh);
  if (!strstr(extensions, "cl_khr_fp16")) {
    assert_int_equal(ph, 0);
    assert_int_equal(nh, 0);
  }
  /* Full profile minimum for single precision. */
  GET(CL_DEVICE_SINGLE_FP_CONFIG, fp32);
  assert_true(fp32 & CL_FP_ROUND_TO_NEAREST);
  assert_true(fp32 & CL_FP_INF_NAN);
  assert_false(fp32 & CL_FP_SOFT_FLOAT);
}

static void test_memory(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_ulong global, alloc, cache, constant, local;
  GET(CL_DEVICE_GLOBAL_MEM_SIZE, global);
  GET(CL_DEVICE_MAX_MEM_ALLOC_SIZE, alloc);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  cl_ulong ram = (cl_ulong)pages * (cl_ulong)page;
  /* hwloc and sysconf count slightly differently (reserved pages); allow 5 %. */
  assert_true(global <= ram + ram / 20 && global >= ram - ram / 20);
  cl_ulong floor = global / 4 < (1ull << 30) ? global / 4 : (1ull << 30);
  if (floor < 32ull << 20) floor = 32ull << 20;
  assert_true(alloc >= floor && alloc <= global);
  cl_uint address_bits, base_align, min_align, line;
  GET(CL_DEVICE_ADDRESS_BITS, address_bits);
  assert_int_equal(address_bits, sizeof(void *) * 8);
  GET(CL_DEVICE_MEM_BASE_ADDR_ALIGN, base_align);
  assert_true(base_align >= 1024); /* at least long16, in bits */
  assert_int_equal(base_align & (base_align - 1), 0);
  GET(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, min_align);
  assert_int_equal(min_align, 128);
  cl_device_mem_cache_type cache_type;
  GET(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cache_type);
  assert_int_equal(cache_type, CL_READ_WRITE_CACHE);
  GET(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, line);
  assert_true(line >= 16 && (line & (line - 1)) == 0);
  GET(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache);
  assert_true(cache == 0 || cache >= line);
  GET(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, constant);
  assert_true(constant >= 64 * 1024);
  cl_uint constant_args;
  GET(CL_DEVICE_MAX_CONSTANT_ARGS, constant_args);
  assert_true(constant_args >= 8);
  cl_device_local_mem_type local_type;
  GET(CL_DEVICE_LOCAL_MEM_TYPE, local_type);
  assert_true(local_type == CL_LOCAL || local_type == CL_GLOBAL);
  GET(CL_DEVICE_LOCAL_MEM_SIZE, local);
  assert_true(local >= 32 * 1024);
  cl_bool little, unified;
  GET(CL_DEVICE_ENDIAN_LITTLE, little);
  const unsigned one = 1;
  assert_int_equal(little, *(const unsigned char *)&one == 1 ? CL_TRUE : CL_FALSE);
  GET(CL_DEVICE_HOST_UNIFIED_MEMORY, unified);
  assert_int_equal(unified, CL_TRUE);
  cl_device_atomic_capabilities memory_caps, fence_caps;
  GET(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, memory_caps);
  GET(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, fence_caps);
  const cl_device_atomic_capabilities memory_min = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  const cl_device_atomic_capabilities fence_min =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  assert_int_equal(memory_caps & memory_min, memory_min);
  assert_int_equal(fence_caps & fence_min, fence_min);
}

/* The device supports images: every image limit at least the spec's minimum for such a
 * device, and the 2D-from-buffer alignments powers of two. */
static void test_images(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_bool images;
  GET(CL_DEVICE_IMAGE_SUPPORT, images);
  assert_int_equal(images, CL_TRUE);
  static const struct {
    cl_device_info name;
    cl_uint min;
  } uint_limits[] = {{CL_DEVICE_MAX_READ_IMAGE_ARGS, 128},
                     {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64},
                     {CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 64},
                     {CL_DEVICE_MAX_SAMPLERS, 16}};
  static const struct {
    cl_device_info name;
    size_t min;
  } size_limits[] = {{CL_DEVICE_IMAGE2D_MAX_WIDTH, 16384},    {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 16384},
                     {CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048},     {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 2048},
                     {CL_DEVICE_IMAGE3D_MAX_DEPTH, 2048},     {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536},
                     {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048}};
  for (size_t i = 0; i < sizeof uint_limits / sizeof uint_limits[0]; i++) {
    cl_uint v;
    GET(uint_limits[i].name, v);
    assert_true(v >= uint_limits[i].min);
  }
  for (size_t i = 0; i < sizeof size_limits / sizeof size_limits[0]; i++) {
    size_t v;
    GET(size_limits[i].name, v);
    assert_true(v >= size_limits[i].min);
  }
  cl_uint pitch, base;
  GET(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, pitch);
  GET(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, base);
  assert_true(pitch != 0 && (pitch & (pitch - 1)) == 0);
  assert_true(base != 0 && (base & (base - 1)) == 0);
}

/* Optional 3.0 features: each "unsupported" answer must be the value the spec requires. */
static void test_optional_features_consistent(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_bool pipes, compiler, linker;
  GET(CL_DEVICE_PIPE_SUPPORT, pipes);
  cl_uint pipe_args, reservations, packet, subgroups;
  GET(CL_DEVICE_MAX_PIPE_ARGS, pipe_args);
  GET(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, reservations);
  GET(CL_DEVICE_PIPE_MAX_PACKET_SIZE, packet);
  if (!pipes) assert_int_equal(pipe_args | reservations | packet, 0);
  GET(CL_DEVICE_MAX_NUM_SUB_GROUPS, subgroups);
  cl_bool forward;
  GET(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, forward);
  if (!subgroups) assert_int_equal(forward, CL_FALSE);
  /* "must return CL_TRUE for devices that support the cl_khr_subgroups extension" */
  if (kiln_test_extension_listed(device, "cl_khr_subgroups")) assert_int_equal(forward, CL_TRUE);
  size_t global_var, global_var_total;
  GET(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, global_var);
  GET(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, global_var_total);
  assert_true(global_var == 0 || global_var >= 64 * 1024);
  if (!global_var) assert_int_equal(global_var_total, 0);
  cl_device_svm_capabilities svm;
  GET(CL_DEVICE_SVM_CAPABILITIES, svm);
  assert_int_equal(svm & ~(cl_device_svm_capabilities)(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
                                                      CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                                                      CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS),
                   0);
  /* The OpenCL C features list names optional features by their __opencl_c_ macro. */
  GET(CL_DEVICE_COMPILER_AVAILABLE, compiler);
  GET(CL_DEVICE_LINKER_AVAILABLE, linker);
  if (!compiler) assert_int_equal(linker, CL_FALSE);
  cl_name_version features[64];
  size_t n = get_versions(device, CL_DEVICE_OPENCL_C_FEATURES, features, 64);
  for (size_t i = 0; i < n; i++) assert_int_equal(strncmp(features[i].name, "__opencl_c_", 11), 0);
  /* An IL version string and the ILs list agree (both empty without IL support). */
  char il[1024];
  get_string(device, CL_DEVICE_IL_VERSION, il, sizeof il);
  cl_name_version ils[16];
  size_t n_ils = get_versions(device, CL_DEVICE_ILS_WITH_VERSION, ils, 16);
  assert_int_equal(il[0] == '\0', n_ils == 0);
  char kernels[1024];
  get_string(device, CL_DEVICE_BUILT_IN_KERNELS, kernels, sizeof kernels);
  cl_name_version builtins[16];
  size_t n_builtins = get_versions(device, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, builtins, 16);
  assert_int_equal(kernels[0] == '\0', n_builtins == 0);
}

static void test_partitioning(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  cl_device_id parent = (cl_device_id)1;
  GET(CL_DEVICE_PARENT_DEVICE, parent);
  assert_null(parent);
  cl_uint max_sub;
  GET(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, max_sub);
  cl_device_partition_property props[8];
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_PARTITION_PROPERTIES, sizeof props, props, &size));
  /* No partitioning: "a value of 0 will be returned". */
  if (max_sub == 0) {
    assert_int_equal(size, sizeof(cl_device_partition_property));
    assert_int_equal(props[0], 0);
  }
  cl_device_affinity_domain domains;
  GET(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, domains);
  if (max_sub == 0) assert_int_equal(domains, 0);
  /* A root device: size 0 or a single 0. */
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_PARTITION_TYPE, sizeof props, props, &size));
  assert_true(size == 0 || (size == sizeof props[0] && props[0] == 0));

  cl_device_id out[4];
  cl_uint n = 99;
  const cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
                                                 0};
  const cl_device_partition_property affinity[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                                   CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  const cl_device_partition_property bogus[] = {0x7777, 1, 0};
  assert_int_equal(clCreateSubDevices(device, equally, 4, out, &n), CL_INVALID_VALUE);
  assert_int_equal(clCreateSubDevices(device, counts, 4, out, &n), CL_INVALID_VALUE);
  assert_int_equal(clCreateSubDevices(device, affinity, 4, out, &n), CL_INVALID_VALUE);
  assert_int_equal(clCreateSubDevices(device, bogus, 4, out, &n), CL_INVALID_VALUE);
  assert_int_equal(kiln_test_dispatch_of(device)->clCreateSubDevices(device, NULL, 0, NULL, &n), CL_INVALID_VALUE);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clCreateSubDevices((cl_device_id)&fake, equally, 4, out, &n), CL_INVALID_DEVICE);
  assert_int_equal(kiln_test_dispatch_of(device)->clCreateSubDevices(NULL, equally, 4, out, &n), CL_INVALID_DEVICE);
}

static void test_retain_release(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(device);
  for (int i = 0; i < 3; i++) assert_cl_success(clRetainDevice(device));
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseDevice(device)); /* root device: no-op */
  cl_uint count;
  GET(CL_DEVICE_REFERENCE_COUNT, count);
  assert_int_equal(count, 1);
  char name[256];
  get_string(device, CL_DEVICE_NAME, name, sizeof name); /* still usable */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clRetainDevice((cl_device_id)&fake), CL_INVALID_DEVICE);
  assert_int_equal(clReleaseDevice((cl_device_id)&fake), CL_INVALID_DEVICE);
  assert_int_equal(d->clRetainDevice(NULL), CL_INVALID_DEVICE);
  assert_int_equal(d->clReleaseDevice(NULL), CL_INVALID_DEVICE);
  /* A platform handle is not a device. */
  assert_int_equal(d->clRetainDevice((cl_device_id)kiln_test_platform()), CL_INVALID_DEVICE);
}

static void test_get_device_ids(void **state) {
  (void)state;
  cl_platform_id platform = kiln_test_platform();
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(platform);
  static const cl_device_type found[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL,
                                         CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU};
  for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
    cl_device_id got[2] = {NULL, NULL};
    cl_uint n = 0;
    assert_cl_success(clGetDeviceIDs(platform, found[i], 0, NULL, &n));
    assert_int_equal(n, 1);
    assert_cl_success(clGetDeviceIDs(platform, found[i], 2, got, &n));
    assert_ptr_equal(got[0], device);
    assert_null(got[1]);
  }
  static const cl_device_type not_found[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM};
  for (size_t i = 0; i < sizeof not_found / sizeof not_found[0]; i++) {
    cl_device_id got = NULL;
    cl_uint n = 99;
    assert_int_equal(clGetDeviceIDs(platform, not_found[i], 1, &got, &n), CL_DEVICE_NOT_FOUND);
    assert_null(got);
  }
  cl_device_id got;
  cl_uint n;
  assert_int_equal(clGetDeviceIDs(platform, (cl_device_type)1 << 40, 1, &got, &n), CL_INVALID_DEVICE_TYPE);
  assert_int_equal(clGetDeviceIDs(platform, 0, 1, &got, &n), CL_INVALID_DEVICE_TYPE);
  assert_int_equal(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 0, &got, &n), CL_INVALID_VALUE);
  assert_int_equal(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, NULL, NULL), CL_INVALID_VALUE);
  /* Kiln's own entry point: NULL is Kiln's platform; a non-platform handle is rejected. */
  n = 0;
  assert_cl_success(d->clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 0, NULL, &n));
  assert_int_equal(n, 1);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(platform);
  assert_int_equal(d->clGetDeviceIDs((cl_platform_id)&fake, CL_DEVICE_TYPE_ALL, 1, &got, &n), CL_INVALID_PLATFORM);
  assert_int_equal(d->clGetDeviceIDs((cl_platform_id)device, CL_DEVICE_TYPE_ALL, 1, &got, &n), CL_INVALID_PLATFORM);
}

static void test_device_info_errors(void **state) {
  (void)state;
  cl_device_id device = kiln_test_device();
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(device);
  cl_uint v;
  size_t size;
  assert_int_equal(clGetDeviceInfo(device, 0x7fff, sizeof v, &v, &size), CL_INVALID_VALUE);
  assert_int_equal(clGetDeviceInfo(device, CL_PLATFORM_NAME, sizeof v, &v, &size), CL_INVALID_VALUE);
  /* Queries of extensions that are not advertised. */
  char extensions[8192];
  get_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
  if (!strstr(extensions, "cl_khr_fp16"))
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_HALF_FP_CONFIG, 0, NULL, &size), CL_INVALID_VALUE);
  if (!strstr(extensions, "cl_khr_device_uuid"))
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_UUID_KHR, 0, NULL, &size), CL_INVALID_VALUE);
  if (!strstr(extensions, "cl_khr_command_buffer"))
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, 0, NULL, &size),
                     CL_INVALID_VALUE);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(device);
  assert_int_equal(clGetDeviceInfo((cl_device_id)&fake, CL_DEVICE_TYPE, sizeof v, &v, NULL), CL_INVALID_DEVICE);
  assert_int_equal(d->clGetDeviceInfo(NULL, CL_DEVICE_TYPE, sizeof v, &v, NULL), CL_INVALID_DEVICE);
  assert_int_equal(d->clGetDeviceInfo((cl_device_id)kiln_test_platform(), CL_DEVICE_TYPE, sizeof v, &v, NULL),
                   CL_INVALID_DEVICE);
}

/* ---- KILN_NUM_WORKERS and CPU binding, each in a fresh process ---- */

static const char *self_path;

/* Child mode: print the compute units (optionally after pinning to one CPU) and exit. */
static int child_print_compute_units(int pin) {
  if (pin) {
    cpu_set_t set, one;
    sched_getaffinity(0, sizeof set, &set);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &set)) {
        CPU_SET(c, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) != 0) return 2;
  }
  cl_uint count = 0;
  cl_platform_id platforms[16];
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return 3;
  for (cl_uint i = 0; i < count && i < 16; i++) {
    char name[64] = {0};
    cl_device_id device;
    cl_uint units;
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strcmp(name, "Kiln") != 0) continue;
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) return 4;
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL) != CL_SUCCESS) return 5;
    printf("%u\n", units);
    return 0;
  }
  return 6;
}

/* Child mode: the first calls of the process race from several threads; all must see the
 * same platform and device. Prints the number of threads that agreed. */
enum { RACE_THREADS = 8 };
static pthread_barrier_t race_barrier;

static void *race_thread_main(void *arg) {
  cl_device_id *out = arg;
  pthread_barrier_wait(&race_barrier);
  cl_platform_id platforms[16];
  cl_uint count = 0;
  *out = NULL;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return NULL;
  for (cl_uint i = 0; i < count && i < 16; i++) {
    char name[64] = {0};
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strcmp(name, "Kiln") == 0) clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, out, NULL);
  }
  return NULL;
}

static int child_race_first_calls(void) {
  pthread_t threads[RACE_THREADS];
  cl_device_id devices[RACE_THREADS];
  pthread_barrier_init(&race_barrier, NULL, RACE_THREADS);
  for (int i = 0; i < RACE_THREADS; i++) pthread_create(&threads[i], NULL, race_thread_main, &devices[i]);
  for (int i = 0; i < RACE_THREADS; i++) pthread_join(threads[i], NULL);
  int agreed = 0;
  for (int i = 0; i < RACE_THREADS; i++) agreed += devices[i] != NULL && devices[i] == devices[0];
  printf("%d\n", agreed);
  return 0;
}

/* Runs this program in child `mode` with KILN_NUM_WORKERS = workers (NULL: unset); returns what it printed. */
static cl_uint run_child(const char *workers, const char *mode) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    if (workers) setenv("KILN_NUM_WORKERS", workers, 1);
    else unsetenv("KILN_NUM_WORKERS");
    execl(self_path, self_path, mode, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char buffer[64] = {0};
  ssize_t got = read(fds[0], buffer, sizeof buffer - 1);
  close(fds[0]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) != 0) fail_msg("child exited with %d", WEXITSTATUS(status));
  assert_true(got > 0);
  return (cl_uint)strtoul(buffer, NULL, 10);
}

static cl_uint child_compute_units(const char *workers, int pin) {
  return run_child(workers, pin ? "--child-pinned" : "--child");
}

static void test_first_calls_race(void **state) {
  (void)state;
  for (int round = 0; round < 5; round++) assert_int_equal(run_child(NULL, "--child-race"), RACE_THREADS);
}

static void test_num_workers_env(void **state) {
  (void)state;
  cl_uint all = child_compute_units(NULL, 0);
  assert_true(all >= 1 && all <= usable_cpus());
  assert_int_equal(child_compute_units("1", 0), 1);
  assert_int_equal(child_compute_units("100000", 0), all); /* clamped to the cores */
  assert_int_equal(child_compute_units("0", 0), all);      /* out of range: ignored */
  assert_int_equal(child_compute_units("two", 0), all);    /* not a number: ignored */
  /* The device counts only the cores the process may run on. */
  assert_int_equal(child_compute_units(NULL, 1), 1);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0) return child_print_compute_units(0);
  if (argc > 1 && strcmp(argv[1], "--child-pinned") == 0) return child_print_compute_units(1);
  if (argc > 1 && strcmp(argv[1], "--child-race") == 0) return child_race_first_calls();
  self_path = "/proc/self/exe";
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_get_device_ids),
      cmocka_unit_test(test_every_query_answered),
      cmocka_unit_test(test_identity),
      cmocka_unit_test(test_extensions_consistent),
      cmocka_unit_test(test_opencl_1_1_kernel_extensions_work_when_listed),
      cmocka_unit_test(test_compute_and_work_groups),
      cmocka_unit_test(test_vector_widths_and_fp),
      cmocka_unit_test(test_memory),
      cmocka_unit_test(test_images),
      cmocka_unit_test(test_optional_features_consistent),
      cmocka_unit_test(test_partitioning),
      cmocka_unit_test(test_retain_release),
      cmocka_unit_test(test_device_info_errors),
      cmocka_unit_test(test_num_workers_env),
      cmocka_unit_test(test_first_calls_race),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
