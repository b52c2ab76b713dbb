/* extensions.c: every extension Kiln offers, the only list of them (runtime/extension.h).
 * The order is the order of the extension strings. Adding an extension: its folder under
 * src/ext/ defines a descriptor, and one line here lists it. */
#include "ext/khr_command_buffer/khr_command_buffer.h" /* first: it includes <CL/cl_ext.h> itself */
#include "ext/arm_import/arm_import.h"
#include "ext/arm_sched/arm_sched.h"
#include "ext/intel_queue_families/intel_queue_families.h"
#include "ext/intel_usm/intel_usm.h"
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/core_extensions.h"
#include "runtime/extension.h"

const struct kiln_extension *const kiln_extensions[] = {
    &kiln_core_khr_icd,
    &kiln_core_khr_byte_addressable_store,
    &kiln_core_khr_global_int32_base_atomics,
    &kiln_core_khr_global_int32_extended_atomics,
    &kiln_core_khr_local_int32_base_atomics,
    &kiln_core_khr_local_int32_extended_atomics,
    &kiln_core_khr_int64_base_atomics,
    &kiln_core_khr_int64_extended_atomics,
    &kiln_core_khr_fp64,
    &kiln_core_khr_fp16,
    &kiln_core_khr_3d_image_writes,
    &kiln_core_khr_depth_images,
    &kiln_core_khr_extended_bit_ops,
    &kiln_core_khr_integer_dot_product,
    &kiln_core_khr_expect_assume,
    &kiln_core_khr_il_program,
    &kiln_core_khr_spirv_no_integer_wrap_decoration,
    &kiln_core_khr_spirv_linkonce_odr,
    &kiln_core_khr_subgroups,
    &kiln_core_khr_subgroup_extended_types,
    &kiln_core_khr_subgroup_non_uniform_vote,
    &kiln_core_khr_subgroup_ballot,
    &kiln_core_khr_subgroup_non_uniform_arithmetic,
    &kiln_core_khr_subgroup_shuffle,
    &kiln_core_khr_subgroup_shuffle_relative,
    &kiln_core_khr_subgroup_clustered_reduce,
    &kiln_core_khr_subgroup_rotate,
    &kiln_core_intel_required_subgroup_size,
    &kiln_core_khr_image2d_from_buffer,
    &kiln_core_ext_image_requirements_info,
    &kiln_core_ext_image_from_buffer,
    &kiln_core_khr_extended_versioning,
    &kiln_ext_khr_command_buffer,
    &kiln_ext_khr_command_buffer_mutable_dispatch,
    &kiln_ext_qcom_recordable_queues,
    &kiln_ext_arm_import_memory,
    &kiln_ext_arm_import_memory_host,
    &kiln_ext_arm_scheduling_controls,
    &kiln_ext_intel_command_queue_families,
    &kiln_ext_arm_import_memory_dma_buf,
    &kiln_ext_intel_unified_shared_memory,
    NULL,
};
