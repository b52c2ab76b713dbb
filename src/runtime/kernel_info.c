/* kernel_info.c: clGetKernelInfo, clGetKernelArgInfo, clGetKernelWorkGroupInfo and
 * clGetKernelSubGroupInfo, and the device limits launches are checked against. */
#include "runtime/kernel.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/info.h"
#include "runtime/program.h"

#include <CL/cl_ext.h>

#include <pthread.h>

static struct kiln_device_limits limits;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

/* The device's answers never change, so they are read once (clGetDeviceInfo is the one
 * place that knows them). */
static void limits_load(void) {
  cl_device_id device = kiln_device_get(); /* Kiln has one device */
  cl_bool non_uniform = CL_FALSE;
  cl_uint float_width = 1;
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof limits.max_work_group_size,
                  &limits.max_work_group_size, NULL);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof limits.max_work_item_sizes,
                  limits.max_work_item_sizes, NULL);
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limits.local_mem_size, &limits.local_mem_size, NULL);
  clGetDeviceInfo(device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof non_uniform, &non_uniform, NULL);
  clGetDeviceInfo(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof float_width, &float_width, NULL);
  limits.non_uniform_work_groups = non_uniform;
  limits.preferred_multiple = float_width ? float_width : 1;
}

const struct kiln_device_limits *kiln_device_limits(void) {
  pthread_once(&limits_once, limits_load);
  return &limits;
}

size_t kiln_kernel_max_work_group_size(cl_kernel kernel) {
  const struct kiln_kernel_desc *desc = kernel->desc;
  const struct kiln_device_limits *l = kiln_device_limits();
  if (desc->reqd_work_group_size[0]) {
    uint64_t reqd = desc->reqd_work_group_size[0] * desc->reqd_work_group_size[1] * desc->reqd_work_group_size[2];
    if (reqd < l->max_work_group_size) return (size_t)reqd;
  }
  return l->max_work_group_size;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
                                                void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  switch (param_name) {
  case CL_KERNEL_FUNCTION_NAME:
    KILN_INFO_STRING(kernel->desc->name);
  case CL_KERNEL_NUM_ARGS:
    KILN_INFO_VALUE(cl_uint, kernel->desc->num_args);
  case CL_KERNEL_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&kernel->obj.api_refs));
  case CL_KERNEL_CONTEXT:
    KILN_INFO_VALUE(cl_context, kernel->context);
  case CL_KERNEL_PROGRAM:
    KILN_INFO_VALUE(cl_program, kernel->program);
  case CL_KERNEL_ATTRIBUTES:
    KILN_INFO_STRING(kernel->desc->attributes ? kernel->desc->attributes : "");
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetKernelInfo knows", (unsigned)param_name);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index, cl_kernel_arg_info param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  if (arg_index >= kernel->desc->num_args)
    return KILN_FAIL(CL_INVALID_ARG_INDEX, "rejected since (%s)", "arg_index >= kernel->desc->num_args");
  const struct kiln_kernel_arg_desc *arg = &kernel->desc->args[arg_index];
  switch (param_name) {
  case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
  case CL_KERNEL_ARG_ACCESS_QUALIFIER:
  case CL_KERNEL_ARG_TYPE_NAME:
  case CL_KERNEL_ARG_TYPE_QUALIFIER:
  case CL_KERNEL_ARG_NAME:
    break;
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetKernelArgInfo knows", (unsigned)param_name);
  }
  /* Available only for programs built with -cl-kernel-arg-info (the flag is frozen while
   * the kernel exists). */
  if (!kernel->program->flags.kernel_arg_info)
    return KILN_FAIL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "rejected since (%s)",
                     "!kernel->program->flags.kernel_arg_info");
  switch (param_name) {
  case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
    KILN_INFO_VALUE(cl_kernel_arg_address_qualifier, arg->address_qualifier);
  case CL_KERNEL_ARG_ACCESS_QUALIFIER:
    KILN_INFO_VALUE(cl_kernel_arg_access_qualifier, arg->access_qualifier);
  case CL_KERNEL_ARG_TYPE_NAME:
    KILN_INFO_STRING(arg->type_name ? arg->type_name : "");
  case CL_KERNEL_ARG_TYPE_QUALIFIER:
    KILN_INFO_VALUE(cl_kernel_arg_type_qualifier, arg->type_qualifier);
  default: /* CL_KERNEL_ARG_NAME */
    if (!arg->name) return KILN_FAIL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "rejected since (%s)", "!arg->name");
    KILN_INFO_STRING(arg->name);
  }
}

/* CL_INVALID_DEVICE unless `device` is the kernel's (NULL: its only device). */
static bool device_ok(cl_kernel kernel, cl_device_id device) {
  if (!device) return true; /* Kiln's programs have one device (a list may repeat it) */
  return kiln_program_has_device(kernel->program, device);
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info param_name,
                                                         size_t param_value_size, void *param_value,
                                                         size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  if (!device_ok(kernel, device))
    return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!device_ok(kernel, device)");
  const struct kiln_kernel_desc *desc = kernel->desc;
  switch (param_name) {
  case CL_KERNEL_GLOBAL_WORK_SIZE: /* only for custom devices and built-in kernels */
    return CL_INVALID_VALUE;
  case CL_KERNEL_WORK_GROUP_SIZE:
    KILN_INFO_VALUE(size_t, kiln_kernel_max_work_group_size(kernel));
  case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
    const size_t sizes[3] = {(size_t)desc->reqd_work_group_size[0], (size_t)desc->reqd_work_group_size[1],
                             (size_t)desc->reqd_work_group_size[2]};
    KILN_INFO_ARRAY(sizes, sizeof sizes);
  }
  case CL_KERNEL_LOCAL_MEM_SIZE:
    KILN_INFO_VALUE(cl_ulong, kiln_kernel_local_mem_layout(kernel, NULL));
  case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: /* = CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    KILN_INFO_VALUE(size_t, kiln_device_limits()->preferred_multiple);
  case CL_KERNEL_PRIVATE_MEM_SIZE:
  /* cl_intel_required_subgroup_size's spill memory: a CPU spills to the same frame. */
  case CL_KERNEL_SPILL_MEM_SIZE_INTEL:
    /* From the machine code: the launcher's frame (work-items run one after another in it,
     * so it holds a work-item's private memory and spills) and the program's other frames. */
    KILN_INFO_VALUE(cl_ulong, kernel->profile.stack_bytes ? kernel->profile.stack_bytes : desc->private_bytes);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetKernelWorkGroupInfo knows",
                     (unsigned)param_name);
  }
}

/* Sub-groups are single work-items (builtins/subgroups.cl, KILN_SUB_GROUP_SIZE): a group of
 * n work-items has n sub-groups of size 1, whatever the kernel. */
static bool local_size_input(size_t input_value_size, const void *input_value, size_t *items) {
  if (!input_value || input_value_size == 0 || input_value_size % sizeof(size_t) != 0 ||
      input_value_size > 3 * sizeof(size_t))
    return false;
  const size_t *local = input_value;
  *items = 1;
  for (size_t d = 0; d < input_value_size / sizeof(size_t); d++) *items *= local[d];
  return true;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel kernel, cl_device_id device,
                                                        cl_kernel_sub_group_info param_name, size_t input_value_size,
                                                        const void *input_value, size_t param_value_size,
                                                        void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  if (!device_ok(kernel, device))
    return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!device_ok(kernel, device)");
  size_t items;
  switch (param_name) {
  case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
    if (!local_size_input(input_value_size, input_value, &items))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "!local_size_input(input_value_size, input_value, &items)");
    KILN_INFO_VALUE(size_t, KILN_SUB_GROUP_SIZE);
  case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
    if (!local_size_input(input_value_size, input_value, &items))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "!local_size_input(input_value_size, input_value, &items)");
    KILN_INFO_VALUE(size_t, items);
  case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
    if (!input_value || input_value_size != sizeof(size_t))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!input_value || input_value_size != sizeof(size_t)");
    /* The dimensions are those of the answer's array: param_value_size (3 without one). */
    size_t dims = param_value ? param_value_size / sizeof(size_t) : 3;
    if (param_value && (param_value_size % sizeof(size_t) != 0 || dims == 0 || dims > 3))
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "param_value && (param_value_size % sizeof(size_t) != 0 || dims == 0 || dims > 3)");
    size_t count = *(const size_t *)input_value;
    size_t sizes[3] = {0, 0, 0};
    if (count >= 1 && count <= kiln_kernel_max_work_group_size(kernel)) {
      sizes[0] = count;
      sizes[1] = sizes[2] = 1;
    }
    KILN_INFO_ARRAY(sizes, dims * sizeof(size_t));
  }
  case CL_KERNEL_MAX_NUM_SUB_GROUPS:
    KILN_INFO_VALUE(size_t, kiln_kernel_max_work_group_size(kernel));
  case CL_KERNEL_COMPILE_NUM_SUB_GROUPS: /* SPIR-V's SubgroupsPerWorkgroup; nothing sets it in OpenCL C */
    KILN_INFO_VALUE(size_t, kernel->desc->compile_num_sub_groups);
  case CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: /* cl_intel_required_subgroup_size */
    KILN_INFO_VALUE(size_t, kernel->desc->required_sub_group_size);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetKernelSubGroupInfo knows",
                     (unsigned)param_name);
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(cl_kernel kernel, cl_device_id device,
                                                           cl_kernel_sub_group_info param_name,
                                                           size_t input_value_size, const void *input_value,
                                                           size_t param_value_size, void *param_value,
                                                           size_t *param_value_size_ret) {
  KILN_API_CALL;
  return clGetKernelSubGroupInfo(kernel, device, param_name, input_value_size, input_value, param_value_size,
                                 param_value, param_value_size_ret);
}
