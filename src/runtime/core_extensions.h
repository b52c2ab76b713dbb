/* core_extensions.h: the descriptors of the extensions the core provides
 * (core_extensions.c); src/ext/extensions.c lists them with the others. */
#ifndef KILN_RUNTIME_CORE_EXTENSIONS_H
#define KILN_RUNTIME_CORE_EXTENSIONS_H

struct kiln_extension;

extern const struct kiln_extension kiln_core_khr_icd;
extern const struct kiln_extension kiln_core_khr_extended_versioning;
extern const struct kiln_extension kiln_core_khr_byte_addressable_store;
extern const struct kiln_extension kiln_core_khr_global_int32_base_atomics;
extern const struct kiln_extension kiln_core_khr_global_int32_extended_atomics;
extern const struct kiln_extension kiln_core_khr_local_int32_base_atomics;
extern const struct kiln_extension kiln_core_khr_local_int32_extended_atomics;
extern const struct kiln_extension kiln_core_khr_int64_base_atomics;
extern const struct kiln_extension kiln_core_khr_int64_extended_atomics;
extern const struct kiln_extension kiln_core_khr_fp64;
extern const struct kiln_extension kiln_core_khr_fp16;
extern const struct kiln_extension kiln_core_khr_3d_image_writes;
extern const struct kiln_extension kiln_core_khr_depth_images;
extern const struct kiln_extension kiln_core_khr_image2d_from_buffer;
extern const struct kiln_extension kiln_core_ext_image_from_buffer;
extern const struct kiln_extension kiln_core_khr_extended_bit_ops;
extern const struct kiln_extension kiln_core_khr_integer_dot_product;
extern const struct kiln_extension kiln_core_khr_expect_assume;
extern const struct kiln_extension kiln_core_khr_il_program;
extern const struct kiln_extension kiln_core_khr_spirv_no_integer_wrap_decoration;
extern const struct kiln_extension kiln_core_khr_spirv_linkonce_odr;
extern const struct kiln_extension kiln_core_khr_subgroups;
extern const struct kiln_extension kiln_core_khr_subgroup_extended_types;
extern const struct kiln_extension kiln_core_khr_subgroup_non_uniform_vote;
extern const struct kiln_extension kiln_core_khr_subgroup_ballot;
extern const struct kiln_extension kiln_core_khr_subgroup_non_uniform_arithmetic;
extern const struct kiln_extension kiln_core_khr_subgroup_shuffle;
extern const struct kiln_extension kiln_core_khr_subgroup_shuffle_relative;
extern const struct kiln_extension kiln_core_khr_subgroup_clustered_reduce;
extern const struct kiln_extension kiln_core_khr_subgroup_rotate;
extern const struct kiln_extension kiln_core_intel_required_subgroup_size;
/* image_requirements.c (with its entry point) */
extern const struct kiln_extension kiln_core_ext_image_requirements_info;

#endif
