/* opencl_c_features.c: see opencl_c_features.h. */
#include "device/cpu/compiler/opencl_c_features.h"

static const struct kiln_opencl_c_macro macros[] = {
    /* Optional OpenCL C 3.0 features. */
    {"__opencl_c_fp64", true, true, false},
    {"__opencl_c_fp16", true, false, false}, /* with cl_khr_fp16 (KILN_CLANG_CL_EXT): builtins/half.cl */
    {"__opencl_c_int64", true, true, false},
    {"__opencl_c_program_scope_global_variables", true, true, false},
    {"__opencl_c_generic_address_space", true, true, false},
    {"__opencl_c_atomic_order_acq_rel", true, true, false},
    {"__opencl_c_atomic_order_seq_cst", true, true, false},
    {"__opencl_c_atomic_scope_device", true, false, false},
    {"__opencl_c_atomic_scope_all_devices", true, false, false},
    {"__opencl_c_images", true, true, false},
    {"__opencl_c_read_write_images", true, true, false},
    {"__opencl_c_3d_image_writes", true, true, false},
    {"__opencl_c_work_group_collective_functions", true, false, false}, /* builtins/work_group.cl */
    {"__opencl_c_subgroups", true, true, false},                         /* builtins/subgroups.cl */
    {"__opencl_c_pipes", true, true, false},                             /* device/cpu/pipe.h */
    {"__opencl_c_device_enqueue", true, true, false},                    /* device/cpu/device_enqueue.h */
    /* cl_khr_integer_dot_product's features: its functions are declared under them. */
    {"__opencl_c_integer_dot_product_input_4x8bit", true, false, true},
    {"__opencl_c_integer_dot_product_input_4x8bit_packed", true, false, true},
    /* Extension macros clang does not know (its own come from KILN_CLANG_CL_EXT). */
    {"cl_khr_extended_bit_ops", false, false, true},
    {"cl_khr_integer_dot_product", false, false, true},
    {"cl_khr_expect_assume", false, false, true},
    /* cl_khr_subgroups: clang's (OpenCL C 2.0 and later). */
    {"cl_khr_subgroups", false, true, false},
    /* Sub-group extensions (builtins/subgroups.cl): OpenCL C 2.0 and later, like
     * __opencl_c_subgroups (KILN_CLANG_CL_EXT). */
    {"cl_khr_subgroup_extended_types", false, false, false},
    {"cl_khr_subgroup_non_uniform_vote", false, false, false},
    {"cl_khr_subgroup_ballot", false, false, false},
    {"cl_khr_subgroup_non_uniform_arithmetic", false, false, false},
    {"cl_khr_subgroup_shuffle", false, false, false},
    {"cl_khr_subgroup_shuffle_relative", false, false, false},
    {"cl_khr_subgroup_clustered_reduce", false, false, false},
    {"cl_khr_subgroup_rotate", false, false, false},
    /* The attribute intel_reqd_sub_group_size, which clang knows in every version. */
    {"cl_intel_required_subgroup_size", false, false, true},
};

const struct kiln_opencl_c_macro *kiln_opencl_c_macros(size_t *count) {
  *count = sizeof macros / sizeof macros[0];
  return macros;
}
