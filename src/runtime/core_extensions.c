/* core_extensions.c: the descriptors of the extensions the core itself provides: the ICD
 * and versioning (platform), and the kernel-language extensions the compiler and the
 * builtin library implement (the compiler enables the same set: clang_flags.h). */
#include "runtime/core_extensions.h"
#include "runtime/debug_err.h"

#include "device/cpu/compiler/compiler.h" /* KILN_SUB_GROUP_SIZE */
#include "runtime/extension.h"
#include "runtime/il_versions.h"
#include "runtime/info.h"

#include <CL/cl_ext.h>

static const struct kiln_extension_function icd_functions[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
    {NULL, NULL},
};

const struct kiln_extension kiln_core_khr_icd = {
    .name = "cl_khr_icd", .version = CL_MAKE_VERSION(1, 0, 0), .scope = KILN_EXTENSION_PLATFORM,
    .functions = icd_functions};
/* Platform and device: it has device queries (CL_DEVICE_*_WITH_VERSION). */
const struct kiln_extension kiln_core_khr_extended_versioning = {
    .name = "cl_khr_extended_versioning", .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_PLATFORM | KILN_EXTENSION_DEVICE};

#define LANGUAGE_EXTENSION(id, text) \
  const struct kiln_extension id = {.name = text, .version = CL_MAKE_VERSION(1, 0, 0), .scope = KILN_EXTENSION_DEVICE}
LANGUAGE_EXTENSION(kiln_core_khr_byte_addressable_store, "cl_khr_byte_addressable_store");
LANGUAGE_EXTENSION(kiln_core_khr_global_int32_base_atomics, "cl_khr_global_int32_base_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_global_int32_extended_atomics, "cl_khr_global_int32_extended_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_local_int32_base_atomics, "cl_khr_local_int32_base_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_local_int32_extended_atomics, "cl_khr_local_int32_extended_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_int64_base_atomics, "cl_khr_int64_base_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_int64_extended_atomics, "cl_khr_int64_extended_atomics");
LANGUAGE_EXTENSION(kiln_core_khr_fp64, "cl_khr_fp64");
/* half arithmetic and builtins (builtins/half.cl, conversions.cl, ...), computed in float. */
LANGUAGE_EXTENSION(kiln_core_khr_fp16, "cl_khr_fp16");
/* Images (builtins/image.cl): write_image* on image3d_t, and depth image types. */
LANGUAGE_EXTENSION(kiln_core_khr_3d_image_writes, "cl_khr_3d_image_writes");
LANGUAGE_EXTENSION(kiln_core_khr_depth_images, "cl_khr_depth_images");
/* A 2D image over a buffer's memory (runtime/image_view.c): API only, no entry points. */
const struct kiln_extension kiln_core_khr_image2d_from_buffer = {
    .name = "cl_khr_image2d_from_buffer", .version = CL_MAKE_VERSION(1, 0, 0), .scope = KILN_EXTENSION_DEVICE};
/* Images of every type over a buffer's memory, with row and slice pitches (image_view.c,
 * image_layout.c): API only; its one query is clGetImageRequirementsInfoEXT's
 * (image_requirements.c). cl.xml's revision. */
const struct kiln_extension kiln_core_ext_image_from_buffer = {
    .name = "cl_ext_image_from_buffer", .version = CL_MAKE_VERSION(1, 0, 0), .scope = KILN_EXTENSION_DEVICE};

/* SPIR-V programs (program.c's clCreateProgramWithIL; docs/spirv.md): advertised when the
 * translator is there, like CL_DEVICE_IL_VERSION. */
static const struct kiln_extension_function il_program_functions[] = {
    {"clCreateProgramWithILKHR", (void *)clCreateProgramWithILKHR},
    {NULL, NULL},
};
const struct kiln_extension kiln_core_khr_il_program = {.name = "cl_khr_il_program",
                                                        .version = CL_MAKE_VERSION(1, 0, 0),
                                                        .scope = KILN_EXTENSION_DEVICE,
                                                        .available = kiln_il_supported,
                                                        .functions = il_program_functions};

/* SPIR-V extensions a module may use (compiler/spirv_support.c lets them through; the
 * translator reads them): with IL, like cl_khr_il_program. */
const struct kiln_extension kiln_core_khr_spirv_no_integer_wrap_decoration = {
    .name = "cl_khr_spirv_no_integer_wrap_decoration",
    .version = CL_MAKE_VERSION(1, 0, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .available = kiln_il_supported};
const struct kiln_extension kiln_core_khr_spirv_linkonce_odr = {.name = "cl_khr_spirv_linkonce_odr",
                                                                .version = CL_MAKE_VERSION(1, 0, 0),
                                                                .scope = KILN_EXTENSION_DEVICE,
                                                                .available = kiln_il_supported};

/* Integer builtins (builtins/integer_extensions.cl); the compiler defines their macros
 * (compiler/opencl_c_features.c). */
LANGUAGE_EXTENSION(kiln_core_khr_extended_bit_ops, "cl_khr_extended_bit_ops");
/* __builtin_expect and __builtin_assume: clang's own, for every OpenCL C version. */
LANGUAGE_EXTENSION(kiln_core_khr_expect_assume, "cl_khr_expect_assume");

/* cl_khr_subgroups: OpenCL 3.0's sub-groups (__opencl_c_subgroups; builtins/subgroups.cl)
 * with independent forward progress, which it requires: a kernel that may wait in a loop
 * for another work-item runs its work-items as fibers (device/cpu/fibers.h). Its one entry
 * point is clGetKernelSubGroupInfo's (kernel_info.c). */
static const struct kiln_extension_function subgroups_functions[] = {
    {"clGetKernelSubGroupInfoKHR", (void *)clGetKernelSubGroupInfoKHR},
    {NULL, NULL},
};
const struct kiln_extension kiln_core_khr_subgroups = {.name = "cl_khr_subgroups",
                                                       .version = CL_MAKE_VERSION(1, 0, 0),
                                                       .scope = KILN_EXTENSION_DEVICE,
                                                       .functions = subgroups_functions};
/* Sub-group extensions over those sub-groups. */
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_extended_types, "cl_khr_subgroup_extended_types");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_non_uniform_vote, "cl_khr_subgroup_non_uniform_vote");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_ballot, "cl_khr_subgroup_ballot");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_non_uniform_arithmetic, "cl_khr_subgroup_non_uniform_arithmetic");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_shuffle, "cl_khr_subgroup_shuffle");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_shuffle_relative, "cl_khr_subgroup_shuffle_relative");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_clustered_reduce, "cl_khr_subgroup_clustered_reduce");
LANGUAGE_EXTENSION(kiln_core_khr_subgroup_rotate, "cl_khr_subgroup_rotate");

/* intel_reqd_sub_group_size (compiler/module.cpp refuses sizes other than the one Kiln
 * runs) and its queries (kernel_info.c). Version: cl.xml's revision. */
static cl_int required_subgroup_size_info(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                                          void *param_value, size_t *param_value_size_ret) {
  (void)device;
  static const size_t sizes[] = {KILN_SUB_GROUP_SIZE};
  if (param_name != CL_DEVICE_SUB_GROUP_SIZES_INTEL)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "param_name != CL_DEVICE_SUB_GROUP_SIZES_INTEL");
  KILN_INFO_ARRAY(sizes, sizeof sizes);
}

const struct kiln_extension kiln_core_intel_required_subgroup_size = {.name = "cl_intel_required_subgroup_size",
                                                                      .version = CL_MAKE_VERSION(0, 0, 0),
                                                                      .scope = KILN_EXTENSION_DEVICE,
                                                                      .device_info = required_subgroup_size_info};

/* Both input forms; none is claimed faster than the same arithmetic written out (the JIT
 * may or may not find AVX-VNNI/AVX512-VNNI instructions for it). */
static cl_int integer_dot_product_info(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                                       void *param_value, size_t *param_value_size_ret) {
  (void)device;
  static const cl_device_integer_dot_product_acceleration_properties_khr not_accelerated = {0};
  switch (param_name) {
  case CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR:
    KILN_INFO_VALUE(cl_device_integer_dot_product_capabilities_khr,
                    CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR);
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR:
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR:
    KILN_INFO_ARRAY(&not_accelerated, sizeof not_accelerated);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
  }
}

const struct kiln_extension kiln_core_khr_integer_dot_product = {.name = "cl_khr_integer_dot_product",
                                                                  .version = CL_MAKE_VERSION(2, 0, 0),
                                                                  .scope = KILN_EXTENSION_DEVICE,
                                                                  .device_info = integer_dot_product_info};
