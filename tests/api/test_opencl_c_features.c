/* OpenCL C versions, optional features and extension macros, through the loader: what
 * CL_DEVICE_OPENCL_C_FEATURES, CL_DEVICE_OPENCL_C_ALL_VERSIONS and CL_DEVICE_EXTENSIONS
 * report is exactly what a kernel sees as macros (under OpenCL C 2.0 and 3.0); a refused
 * option's log names it and says why; cl_khr_integer_dot_product's queries; and the
 * single-precision configuration's correctly rounded division and sqrt. */
#include "builtins_harness.h"

#include <CL/cl_ext.h>

/* Every optional feature of OpenCL C 3.0 (OpenCL C spec, "Features"), reported or not. */
static const char *const all_features[] = {
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_fp16",
    "__opencl_c_fp64",
    "__opencl_c_generic_address_space",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_kernel_clock_scope_device",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
};

/* Extensions whose macro a kernel sees when the device lists them (OpenCL C spec,
 * "Preprocessor Directives and Macros"), for every -cl-std. */
static const char *const language_extensions[] = {
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product",
    "cl_khr_expect_assume",
    "cl_khr_subgroups",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
};

static cl_name_version *query_versions(cl_device_id device, cl_device_info name, size_t *count) {
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(device, name, 0, NULL, &size));
  assert_int_equal(0, size % sizeof(cl_name_version));
  cl_name_version *list = malloc(size ? size : 1);
  assert_non_null(list);
  assert_cl_success(clGetDeviceInfo(device, name, size, list, NULL));
  *count = size / sizeof(cl_name_version);
  return list;
}

static bool feature_reported(const cl_name_version *list, size_t count, const char *name) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(list[i].name, name) == 0) return true;
  return false;
}

/* Builds a kernel that fails to compile unless `name` is defined exactly when `defined`. */
static cl_int build_macro_probe(struct kiln_test_env *env, const char *name, bool defined, const char *options) {
  char source[512];
  snprintf(source, sizeof source,
           "#%s %s\n#error \"%s is %s\"\n#endif\nkernel void k(global int *p) { p[0] = 1; }\n",
           defined ? "ifndef" : "ifdef", name, name, defined ? "undefined" : "defined");
  const char *text = source;
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &text, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  assert_cl_success(clReleaseProgram(program));
  return err;
}

static void test_features_are_macros(void **state) {
  struct kiln_test_env *env = *state;
  size_t count;
  cl_name_version *features = query_versions(env->device, CL_DEVICE_OPENCL_C_FEATURES, &count);
  /* Every reported feature is one of OpenCL C 3.0's, version 3.0.0, listed once. */
  for (size_t i = 0; i < count; i++) {
    bool known = false;
    for (size_t j = 0; j < sizeof all_features / sizeof *all_features; j++) known |= strcmp(features[i].name, all_features[j]) == 0;
    if (!known) fail_msg("CL_DEVICE_OPENCL_C_FEATURES lists unknown '%s'", features[i].name);
    assert_int_equal(CL_MAKE_VERSION(3, 0, 0), features[i].version);
    for (size_t j = i + 1; j < count; j++) assert_string_not_equal(features[i].name, features[j].name);
  }
  for (size_t j = 0; j < sizeof all_features / sizeof *all_features; j++) {
    bool reported = feature_reported(features, count, all_features[j]);
    if (build_macro_probe(env, all_features[j], reported, BT_CL30) != CL_SUCCESS)
      fail_msg("%s: reported %d, but the CL3.0 macro disagrees", all_features[j], reported);
  }
  /* What this issue added is reported. */
  assert_true(feature_reported(features, count, "__opencl_c_generic_address_space"));
  assert_true(feature_reported(features, count, "__opencl_c_work_group_collective_functions"));
  assert_true(feature_reported(features, count, "__opencl_c_integer_dot_product_input_4x8bit"));
  assert_true(feature_reported(features, count, "__opencl_c_subgroups"));
  free(features);
}

static void test_generic_support_query_matches(void **state) {
  struct kiln_test_env *env = *state;
  size_t count;
  cl_name_version *features = query_versions(env->device, CL_DEVICE_OPENCL_C_FEATURES, &count);
  cl_bool generic = CL_FALSE, collectives = CL_FALSE;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof generic, &generic, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                                    sizeof collectives, &collectives, NULL));
  assert_int_equal(feature_reported(features, count, "__opencl_c_generic_address_space"), generic == CL_TRUE);
  assert_int_equal(feature_reported(features, count, "__opencl_c_work_group_collective_functions"),
                   collectives == CL_TRUE);
  free(features);
}

/* OpenCL C 2.0 and later only: sub-groups. */
static bool from_2_0(const char *extension) { return strncmp(extension, "cl_khr_subgroup", 15) == 0; }

static void test_extension_macros_every_version(void **state) {
  struct kiln_test_env *env = *state;
  static const char *const stds[] = {BT_CL12, "-cl-std=CL1.2", "-cl-std=CL2.0", BT_CL30};
  for (size_t e = 0; e < sizeof language_extensions / sizeof *language_extensions; e++) {
    bool listed = kiln_test_extension_listed(env->device, language_extensions[e]);
    for (size_t s = 0; s < sizeof stds / sizeof *stds; s++)
      if (build_macro_probe(env, language_extensions[e], listed && (s >= 2 || !from_2_0(language_extensions[e])),
                            stds[s]) != CL_SUCCESS)
        fail_msg("%s: listed %d, but its macro disagrees under \"%s\"", language_extensions[e], listed, stds[s]);
  }
  assert_true(kiln_test_extension_listed(env->device, "cl_khr_extended_bit_ops"));
  assert_true(kiln_test_extension_listed(env->device, "cl_khr_expect_assume"));
  kiln_test_expect_extension(env->device, "cl_khr_integer_dot_product", CL_MAKE_VERSION(2, 0, 0));
}

/* OpenCL C 1.x programs see no 3.0 feature macro. */
static void test_no_feature_macros_before_3_0(void **state) {
  struct kiln_test_env *env = *state;
  static const char *const core[] = {"__opencl_c_generic_address_space", "__opencl_c_work_group_collective_functions",
                                     "__opencl_c_program_scope_global_variables", "__opencl_c_atomic_scope_device"};
  for (size_t i = 0; i < sizeof core / sizeof *core; i++)
    assert_cl_success(build_macro_probe(env, core[i], false, BT_CL12));
}

static void test_versions(void **state) {
  struct kiln_test_env *env = *state;
  size_t count;
  cl_name_version *versions = query_versions(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &count);
  bool has_3_0 = false, has_2_0 = false, has_1_2 = false;
  for (size_t i = 0; i < count; i++) {
    assert_string_equal("OpenCL C", versions[i].name);
    has_3_0 |= versions[i].version == CL_MAKE_VERSION(3, 0, 0);
    has_2_0 |= CL_VERSION_MAJOR(versions[i].version) == 2;
    has_1_2 |= versions[i].version == CL_MAKE_VERSION(1, 2, 0);
  }
  assert_true(has_3_0 && has_2_0 && has_1_2);
  free(versions);
  /* OpenCL C 2.0 has every feature reported (its mandatory ones among them). */
  size_t feature_count;
  cl_name_version *features = query_versions(env->device, CL_DEVICE_OPENCL_C_FEATURES, &feature_count);
  for (size_t i = 0; i < feature_count; i++)
    if (build_macro_probe(env, features[i].name, true, "-cl-std=CL2.0") != CL_SUCCESS)
      fail_msg("%s is reported but not defined under -cl-std=CL2.0", features[i].name);
  free(features);
  assert_cl_success(build_macro_probe(env, "__opencl_c_device_enqueue", true, "-cl-std=CL2.0"));
  char version[64] = "";
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_VERSION, sizeof version, version, NULL));
  assert_int_equal(0, strncmp(version, "OpenCL C 1.2 ", 13)); /* the highest 1.x, as 3.0 devices report */
  assert_cl_success(build_macro_probe(env, "__OPENCL_C_VERSION__", true, BT_CL30));
}

static char *build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  assert_cl_success(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  char *log = calloc(size + 1, 1);
  assert_non_null(log);
  assert_cl_success(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
  return log;
}

/* A refused option is named in the log with the reason. */
static void expect_refused(struct kiln_test_env *env, const char *options, const char *bad, const char *reason) {
  const char *source = "kernel void k(global int *p) { p[0] = 1; }";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_BUILD_OPTIONS, clBuildProgram(program, 1, &env->device, options, NULL, NULL));
  char *log = build_log(program, env->device);
  if (!strstr(log, bad) || !strstr(log, reason)) fail_msg("options \"%s\": log lacks '%s'/'%s': %s", options, bad, reason, log);
  free(log);
  assert_cl_success(clReleaseProgram(program));
}

static void test_refused_options_explained(void **state) {
  struct kiln_test_env *env = *state;
  expect_refused(env, "-cl-std=CL4.0", "'-cl-std=CL4.0'", "unknown OpenCL C version");
  expect_refused(env, "-cl-mad-enable -no-such-option", "'-no-such-option'", "not an OpenCL compiler");
  expect_refused(env, "-create-library", "'-create-library'", "clLinkProgram");
  expect_refused(env, "-D", "'-D'", "macro name");
}

static void test_integer_dot_product_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_integer_dot_product_capabilities_khr caps = 0;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR, sizeof caps, &caps, &size));
  assert_int_equal(sizeof caps, size);
  assert_int_equal(CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR,
                   caps);
  static const cl_device_info acceleration[] = {CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
                                                CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR};
  for (int i = 0; i < 2; i++) {
    cl_device_integer_dot_product_acceleration_properties_khr p;
    memset(&p, 0xff, sizeof p);
    assert_cl_success(clGetDeviceInfo(env->device, acceleration[i], sizeof p, &p, &size));
    assert_int_equal(sizeof p, size);
    /* Nothing claimed: the builtins are plain arithmetic. */
    assert_int_equal(CL_FALSE, p.signed_accelerated);
    assert_int_equal(CL_FALSE, p.accumulating_saturating_mixed_signedness_accelerated);
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, acceleration[i], sizeof p - 1, &p, NULL));
  }
  /* The feature bits and the feature macros agree (test_features_are_macros checks the macros). */
  size_t count;
  cl_name_version *features = query_versions(env->device, CL_DEVICE_OPENCL_C_FEATURES, &count);
  assert_true(feature_reported(features, count, "__opencl_c_integer_dot_product_input_4x8bit_packed"));
  free(features);
}

/* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT is reported, and -cl-fp32-correctly-rounded-divide-sqrt
 * gives the host's correctly rounded results (also without the option, on this device). */
static void test_correctly_rounded_divide_sqrt(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_fp_config config = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL));
  assert_true(config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
  static const char *source = "kernel void k(global const float *a, global const float *b, global float *q,\n"
                              "              global float *r) {\n"
                              "  size_t i = get_global_id(0);\n"
                              "  q[i] = a[i] / b[i];\n"
                              "  r[i] = sqrt(a[i]);\n"
                              "}\n";
  enum { N = 4096 };
  static float a[N], b[N], q[N], r[N];
  cl_uint seed = 12345;
  for (int i = 0; i < N; i++) {
    cl_uint x = kiln_test_random(&seed), y = kiln_test_random(&seed);
    a[i] = ldexpf(1.0f + (float)(x & 0xffffff) / 16777216.0f, (int)(x >> 24) % 200 - 100);
    b[i] = ldexpf(1.0f + (float)(y & 0xffffff) / 16777216.0f, (int)(y >> 24) % 200 - 100);
  }
  a[0] = 0x1p-140f; /* a denormal */
  b[1] = 0x1p-130f;
  for (int with = 0; with < 2; with++) {
    memset(q, 0, sizeof q);
    memset(r, 0, sizeof r);
    bt_run_source(env, source, with ? "-cl-fp32-correctly-rounded-divide-sqrt" : BT_CL12, "k", N, 64,
                  BT_ARGS(BT_IN(a, sizeof a), BT_IN(b, sizeof b), BT_OUT(q, sizeof q), BT_OUT(r, sizeof r)));
    for (int i = 0; i < N; i++) {
      volatile float expect_q = a[i] / b[i], expect_r = sqrtf(a[i]);
      if (bt_bits_of_float(q[i]) != bt_bits_of_float(expect_q) || bt_bits_of_float(r[i]) != bt_bits_of_float(expect_r))
        fail_msg("option %d, %a / %a = %a (want %a), sqrt = %a (want %a)", with, a[i], b[i], q[i], expect_q, r[i],
                 expect_r);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_features_are_macros),
      cmocka_unit_test(test_generic_support_query_matches),
      cmocka_unit_test(test_extension_macros_every_version),
      cmocka_unit_test(test_no_feature_macros_before_3_0),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_refused_options_explained),
      cmocka_unit_test(test_integer_dot_product_queries),
      cmocka_unit_test(test_correctly_rounded_divide_sqrt),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
