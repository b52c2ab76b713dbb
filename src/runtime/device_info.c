/* device_info.c: clGetDeviceInfo for the CPU device. Every OpenCL 3.0 core query is answered
 * for what Kiln implements today (pipes; no device-side enqueue; sub-groups of one work-item);
 * unknown names go to the extension providers. */
#include "runtime/device.h"
#include "runtime/debug_err.h"

#include "device/cpu/compiler/opencl_c_features.h"
#include "device/cpu/device_enqueue.h"
#include "device/cpu/pipe.h"
#include "device/cpu/printf_buffer.h" /* KILN_PRINTF_BUFFER_SIZE: the per-launch buffer */
#include "device/cpu/topology.h"
#include "runtime/extension.h"
#include "runtime/il_versions.h"
#include "runtime/image.h"
#include "runtime/info.h"

#include <CL/cl_ext.h>
#include <pthread.h>
#include <stdio.h>

#define KILN_DEVICE_VERSION "OpenCL 3.0 Kiln " KILN_VERSION_STRING
#define KILN_MAX_WORK_GROUP_SIZE 4096
/* Local memory is ordinary host memory (CL_GLOBAL) given to each work-group; 64 KiB is twice
 * the spec's minimum and fits a typical L2 alongside the work-group's other data. */
#define KILN_LOCAL_MEM_SIZE (64u * 1024u)
#define KILN_MAX_CONSTANT_BUFFER_SIZE (64u * 1024u)
/* Not conformant yet: year 0000 says "never passed"; month and day must still be valid
 * dates because the CTS checks the vYYYY-MM-DD-XX format. */
#define KILN_CONFORMANCE_VERSION "v0000-01-01-00"

struct vector_widths {
  cl_uint char_, short_, int_, long_, float_;
};

/* 16 is the widest OpenCL C vector type; applications build type names from these widths. */
static cl_uint cap_width(unsigned width) {
  return width > 16 ? 16 : width;
}

/* Native widths follow the widest SIMD registers the CPU has for each element type.
 * Double and half report 0 while cl_khr_fp64 / cl_khr_fp16 are not advertised. */
static struct vector_widths device_vector_widths(void) {
  unsigned int_bytes = 16, float_bytes = 16; /* SSE2 is the x86-64 baseline; NEON is 128-bit too */
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx")) float_bytes = 32;
  if (__builtin_cpu_supports("avx2")) int_bytes = 32;
  if (__builtin_cpu_supports("avx512f")) float_bytes = 64;
  unsigned small_int_bytes = __builtin_cpu_supports("avx512bw") ? 64 : int_bytes; /* char/short need BW */
  unsigned wide_int_bytes = __builtin_cpu_supports("avx512f") ? 64 : int_bytes;   /* int/long need F */
#else
  unsigned small_int_bytes = int_bytes, wide_int_bytes = int_bytes;
#endif
  return (struct vector_widths){cap_width(small_int_bytes / 1), cap_width(small_int_bytes / 2),
                                cap_width(wide_int_bytes / 4), cap_width(wide_int_bytes / 8),
                                cap_width(float_bytes / 4)};
}

static const cl_name_version opencl_c_all_versions[] = {
    {CL_MAKE_VERSION(1, 0, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
    {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"},
    {CL_MAKE_VERSION(2, 0, 0), "OpenCL C"},
    {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"},
};

/* CL_DEVICE_OPENCL_C_FEATURES: the features of the compiler's macro list
 * (compiler/opencl_c_features.h), built once. */
static cl_name_version opencl_c_features[32];
static size_t opencl_c_feature_count;
static pthread_once_t opencl_c_features_once = PTHREAD_ONCE_INIT;

static void opencl_c_features_init(void) {
  size_t count;
  const struct kiln_opencl_c_macro *macros = kiln_opencl_c_macros(&count);
  for (size_t i = 0; i < count && opencl_c_feature_count < sizeof opencl_c_features / sizeof opencl_c_features[0]; i++) {
    if (!macros[i].feature) continue;
    cl_name_version *f = &opencl_c_features[opencl_c_feature_count++];
    f->version = CL_MAKE_VERSION(3, 0, 0);
    snprintf(f->name, sizeof f->name, "%s", macros[i].name);
  }
}

static cl_ulong device_global_mem_cache_size(const struct kiln_cpu_topology *t) {
  return t->l3_cache_bytes ? t->l3_cache_bytes : t->l2_cache_bytes ? t->l2_cache_bytes : t->l1d_cache_bytes;
}

static const char *device_vendor(const struct kiln_cpu_topology *t) {
  return t->cpu_vendor[0] ? t->cpu_vendor : "Unknown CPU vendor";
}

static cl_int device_info_from_providers(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                                         void *param_value, size_t *param_value_size_ret) {
  KILN_EXTENSIONS_WITH(e, device_info) {
    cl_int err = (*e)->device_info(device, param_name, param_value_size, param_value, param_value_size_ret);
    if (err != CL_INVALID_VALUE) return err;
  }
  return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a device query Kiln knows", (unsigned)param_name);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_device_is_valid(device)) return KILN_FAIL_HANDLE(CL_INVALID_DEVICE, device, cl_device_id);
  const struct kiln_cpu_topology *topology = device->topology;
  switch (param_name) {
  /* Identity and versions. */
  case CL_DEVICE_TYPE:
    KILN_INFO_VALUE(cl_device_type, CL_DEVICE_TYPE_CPU);
  case CL_DEVICE_VENDOR_ID:
    /* Kiln has no PCI or Khronos vendor id; reporting the CPU maker's (0x8086, 0x1022) would
     * make applications take code paths meant for that vendor's own driver. */
    KILN_INFO_VALUE(cl_uint, 0);
  case CL_DEVICE_NAME:
    KILN_INFO_STRING(topology->cpu_name);
  case CL_DEVICE_VENDOR:
    KILN_INFO_STRING(device_vendor(topology));
  case CL_DRIVER_VERSION:
    KILN_INFO_STRING(KILN_VERSION_STRING);
  case CL_DEVICE_PROFILE:
    KILN_INFO_STRING("FULL_PROFILE");
  case CL_DEVICE_VERSION:
    KILN_INFO_STRING(KILN_DEVICE_VERSION);
  case CL_DEVICE_NUMERIC_VERSION:
    KILN_INFO_VALUE(cl_version, CL_MAKE_VERSION(3, 0, 0));
  case CL_DEVICE_OPENCL_C_VERSION:
    KILN_INFO_STRING("OpenCL C 1.2 Kiln"); /* OpenCL 3.0 devices report 1.2 here */
  case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
    KILN_INFO_ARRAY(opencl_c_all_versions, sizeof opencl_c_all_versions);
  case CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR: /* cl_khr_extended_versioning's form of the above */
    KILN_INFO_VALUE(cl_version, CL_MAKE_VERSION(1, 2, 0));
  case CL_DEVICE_EXTENSIONS:
    KILN_INFO_STRING(kiln_extension_string(KILN_EXTENSION_DEVICE));
  case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
    size_t count;
    const cl_name_version *versions = kiln_extension_versions(KILN_EXTENSION_DEVICE, &count);
    KILN_INFO_ARRAY(versions, count * sizeof *versions);
  }
  case CL_DEVICE_OPENCL_C_FEATURES:
    pthread_once(&opencl_c_features_once, opencl_c_features_init);
    KILN_INFO_ARRAY(opencl_c_features, opencl_c_feature_count * sizeof opencl_c_features[0]);
  case CL_DEVICE_ILS_WITH_VERSION: {
    size_t count;
    const cl_name_version *versions = kiln_spirv_versions(&count);
    KILN_INFO_ARRAY(versions, count * sizeof *versions);
  }
  case CL_DEVICE_IL_VERSION:
    KILN_INFO_STRING(kiln_spirv_version_string());
  case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    KILN_INFO_ARRAY(NULL, 0);
  case CL_DEVICE_BUILT_IN_KERNELS:
    KILN_INFO_STRING("");
  case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
    KILN_INFO_STRING(KILN_CONFORMANCE_VERSION);
  case CL_DEVICE_PLATFORM:
    KILN_INFO_VALUE(cl_platform_id, device->platform);
  case CL_DEVICE_AVAILABLE:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_COMPILER_AVAILABLE: /* src/device/cpu/compiler/ */
  case CL_DEVICE_LINKER_AVAILABLE:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);

  /* Execution. */
  case CL_DEVICE_MAX_COMPUTE_UNITS:
    KILN_INFO_VALUE(cl_uint, device->compute_units);
  case CL_DEVICE_MAX_CLOCK_FREQUENCY:
    KILN_INFO_VALUE(cl_uint, topology->max_clock_mhz);
  case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
    KILN_INFO_VALUE(cl_uint, 3);
  case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
    const size_t sizes[3] = {KILN_MAX_WORK_GROUP_SIZE, KILN_MAX_WORK_GROUP_SIZE, KILN_MAX_WORK_GROUP_SIZE};
    KILN_INFO_ARRAY(sizes, sizeof sizes);
  }
  case CL_DEVICE_MAX_WORK_GROUP_SIZE:
    KILN_INFO_VALUE(size_t, KILN_MAX_WORK_GROUP_SIZE);
  case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    /* What clGetKernelWorkGroupInfo's CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE answers
     * for every kernel (kernel_info.c): the floats of one vector register, the narrower
     * width the work-item vectorizers fill (wfv.hpp's widths are it and twice it). */
    KILN_INFO_VALUE(size_t, device_vector_widths().float_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().char_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().short_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().int_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().long_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().float_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE: /* as wide as long: both are 64-bit lanes */
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().long_);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF: /* 16-bit lanes, like short (computed in float) */
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
    KILN_INFO_VALUE(cl_uint, device_vector_widths().short_);
  case CL_DEVICE_SINGLE_FP_CONFIG:
    /* Division and sqrt are the host's IEEE instructions (divss/sqrtss and their vector
     * forms; builtins/math.cl's sqrt is __builtin_sqrtf): correctly rounded unless a
     * kernel is built with -cl-fast-relaxed-math or -cl-unsafe-math-optimizations. */
    KILN_INFO_VALUE(cl_device_fp_config, CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                             CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA |
                                             CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
  case CL_DEVICE_DOUBLE_FP_CONFIG: /* cl_khr_fp64's required set: IEEE double on the host */
    KILN_INFO_VALUE(cl_device_fp_config, CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                             CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM);
  case CL_DEVICE_HALF_FP_CONFIG: /* cl_khr_fp16: float arithmetic rounded to nearest half, fma in double */
    KILN_INFO_VALUE(cl_device_fp_config, CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA);
  case CL_DEVICE_EXECUTION_CAPABILITIES:
    KILN_INFO_VALUE(cl_device_exec_capabilities, CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL);
  case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES: /* == CL_DEVICE_QUEUE_PROPERTIES */
    KILN_INFO_VALUE(cl_command_queue_properties,
                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
  case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
    KILN_INFO_VALUE(size_t, 1);
  case CL_DEVICE_MAX_PARAMETER_SIZE:
    KILN_INFO_VALUE(size_t, 4096);
  case CL_DEVICE_PRINTF_BUFFER_SIZE:
    KILN_INFO_VALUE(size_t, KILN_PRINTF_BUFFER_SIZE);

  /* Memory. */
  case CL_DEVICE_ADDRESS_BITS:
    KILN_INFO_VALUE(cl_uint, sizeof(void *) * 8);
  case CL_DEVICE_ENDIAN_LITTLE:
    KILN_INFO_VALUE(cl_bool, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? CL_TRUE : CL_FALSE);
  case CL_DEVICE_GLOBAL_MEM_SIZE:
    KILN_INFO_VALUE(cl_ulong, device->global_mem_size);
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
    KILN_INFO_VALUE(cl_ulong, device->max_mem_alloc_size);
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
    KILN_INFO_VALUE(cl_uint, KILN_MEM_BASE_ADDR_ALIGN_BYTES * 8);
  case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
    KILN_INFO_VALUE(cl_uint, 128); /* the largest built-in type, long16 */
  case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
    KILN_INFO_VALUE(cl_device_mem_cache_type, CL_READ_WRITE_CACHE);
  case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
    KILN_INFO_VALUE(cl_uint, topology->cache_line_bytes);
  case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
    KILN_INFO_VALUE(cl_ulong, device_global_mem_cache_size(topology));
  case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
    KILN_INFO_VALUE(cl_ulong, KILN_MAX_CONSTANT_BUFFER_SIZE);
  case CL_DEVICE_MAX_CONSTANT_ARGS:
    KILN_INFO_VALUE(cl_uint, 8);
  case CL_DEVICE_LOCAL_MEM_TYPE:
    KILN_INFO_VALUE(cl_device_local_mem_type, CL_GLOBAL);
  case CL_DEVICE_LOCAL_MEM_SIZE:
    KILN_INFO_VALUE(cl_ulong, KILN_LOCAL_MEM_SIZE);
  case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    KILN_INFO_VALUE(cl_bool, CL_FALSE);
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  /* Program-scope global variables live in JIT memory; the limits are the spec's minimum
   * (64 KiB per variable) and a generous preferred total. */
  case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    KILN_INFO_VALUE(size_t, 64 * 1024);
  case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
    KILN_INFO_VALUE(size_t, 16 * 1024 * 1024);
  /* The device is the host's CPU: every host address is a kernel address, and kernel
   * atomics are the host's own instructions on the same cache-coherent memory. */
  case CL_DEVICE_SVM_CAPABILITIES:
    KILN_INFO_VALUE(cl_device_svm_capabilities, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                                                    CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS);
  case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT: /* 0: natural alignment */
  case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
  case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    KILN_INFO_VALUE(cl_uint, 0);
  /* Host atomics give every order at every scope (matching the __opencl_c_atomic_* features). */
  case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
    KILN_INFO_VALUE(cl_device_atomic_capabilities,
                    CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                        CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                        CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
  case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
    KILN_INFO_VALUE(cl_device_atomic_capabilities,
                    CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL | CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                        CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                        CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);

  /* Images (image_limits.c, image.h): the host side of every image type, 2D images over
   * buffers included; the same limits bound creation. */
  case CL_DEVICE_IMAGE_SUPPORT:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_MAX_READ_IMAGE_ARGS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_READ_IMAGE_ARGS);
  case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_WRITE_IMAGE_ARGS);
  case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_READ_WRITE_IMAGE_ARGS);
  case CL_DEVICE_MAX_SAMPLERS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_SAMPLERS);
  case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    KILN_INFO_VALUE(cl_uint, (cl_uint)kiln_image_device_limits()->pitch_alignment);
  case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
    KILN_INFO_VALUE(cl_uint, (cl_uint)kiln_image_device_limits()->base_address_alignment);
  case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image2d_max_width);
  case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image2d_max_height);
  case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image3d_max_width);
  case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image3d_max_height);
  case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image3d_max_depth);
  case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image_max_buffer_size);
  case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
    KILN_INFO_VALUE(size_t, kiln_image_device_limits()->image_max_array_size);

  /* Optional 3.0 features: which Kiln has. */
  case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: /* launchers run partial last groups */
  case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:  /* builtins/address_spaces.cl */
  case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: /* builtins/work_group.cl */
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  /* Sub-groups are single work-items (builtins/subgroups.cl): as many as work-items in a
   * group. A kernel that may wait in a loop for another one runs them as fibers
   * (device/cpu/fibers.h): independent forward progress. */
  case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_WORK_GROUP_SIZE);
  case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  /* Pipes: device/cpu/pipe.h. A reservation costs nothing but its packets: the limit on
   * active ones is a round number, not a table size. */
  case CL_DEVICE_PIPE_SUPPORT:
    KILN_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_MAX_PIPE_ARGS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_PIPE_ARGS);
  case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    KILN_INFO_VALUE(cl_uint, KILN_PIPE_MAX_ACTIVE_RESERVATIONS);
  case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    KILN_INFO_VALUE(cl_uint, KILN_PIPE_MAX_PACKET_SIZE);
  /* Device-side enqueue: device/cpu/device_enqueue.h. Device queues cost nothing until a
   * kernel enqueues to them: the number of them is not limited beyond the one reported. */
  case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    KILN_INFO_VALUE(cl_uint, KILN_DEVICE_QUEUE_PREFERRED_SIZE);
  case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    KILN_INFO_VALUE(cl_uint, KILN_DEVICE_QUEUE_MAX_SIZE);
  case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_ON_DEVICE_QUEUES);
  case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    KILN_INFO_VALUE(cl_uint, KILN_MAX_ON_DEVICE_EVENTS);
  case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
    KILN_INFO_VALUE(cl_command_queue_properties, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
  case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
    KILN_INFO_VALUE(cl_device_device_enqueue_capabilities, CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT);

  /* Partitioning: none. */
  case CL_DEVICE_PARENT_DEVICE:
    KILN_INFO_VALUE(cl_device_id, NULL);
  case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
    KILN_INFO_VALUE(cl_uint, 0);
  case CL_DEVICE_PARTITION_PROPERTIES: /* "a value of 0 will be returned" */
    KILN_INFO_VALUE(cl_device_partition_property, 0);
  case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
    KILN_INFO_VALUE(cl_device_affinity_domain, 0);
  case CL_DEVICE_PARTITION_TYPE: /* a root device has no partition type: size 0 */
    KILN_INFO_ARRAY(NULL, 0);
  case CL_DEVICE_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, 1); /* root devices are not reference counted */

  default:
    return device_info_from_providers(device, param_name, param_value_size, param_value, param_value_size_ret);
  }
}
