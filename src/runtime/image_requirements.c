/* image_requirements.c: clGetImageRequirementsInfoEXT (cl_ext_image_requirements_info)
 * and the descriptors of it and cl_ext_image_from_buffer. The alignments are the ones
 * clCreateImage enforces over a buffer (image_layout.c, image_view.c): whole elements,
 * the device's CL_DEVICE_IMAGE_PITCH_ALIGNMENT and CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT
 * (1 element each) in bytes; the size and limits are those of image_layout.c. */
#include "runtime/core_extensions.h"
#include "runtime/context.h"
#include "runtime/extension.h"
#include "runtime/image_layout.h"
#include "runtime/image_view.h"
#include "runtime/info.h"

#include <CL/cl_ext.h>

/* cl_ext_image_from_buffer's query, where the installed headers predate it (cl.xml). */
#ifndef CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT
#define CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT 0x1291
#endif

/* The largest element of any format Kiln lists (RGBA of 32-bit channels): an alignment
 * in elements of it suits every format when the query names none. */
#define LARGEST_ELEMENT 16

static bool is_image_type(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER || type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

/* The largest value a dimension query may return for `type` (0: any type, the smallest
 * limit of those the query applies to); 0 when the query does not apply to the type. */
static size_t max_width(cl_mem_object_type type, const struct kiln_image_limits *l) {
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) return l->image_max_buffer_size;
  if (type == CL_MEM_OBJECT_IMAGE3D) return l->image3d_max_width;
  if (type == 0) return l->image3d_max_width < l->image2d_max_width ? l->image3d_max_width : l->image2d_max_width;
  return l->image2d_max_width;
}

static size_t max_height(cl_mem_object_type type, const struct kiln_image_limits *l) {
  if (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY) return l->image2d_max_height;
  if (type == CL_MEM_OBJECT_IMAGE3D) return l->image3d_max_height;
  if (type == 0) return l->image3d_max_height < l->image2d_max_height ? l->image3d_max_height : l->image2d_max_height;
  return 0;
}

static size_t max_depth(cl_mem_object_type type, const struct kiln_image_limits *l) {
  return type == 0 || type == CL_MEM_OBJECT_IMAGE3D ? l->image3d_max_depth : 0;
}

static size_t max_array_size(cl_mem_object_type type, const struct kiln_image_limits *l) {
  return type == 0 || type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY
             ? l->image_max_array_size
             : 0;
}

static bool is_dimension_query(cl_image_requirements_info_ext name) {
  return name == CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT || name == CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT ||
         name == CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT || name == CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT;
}

static cl_int requirements_info(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                                const cl_image_format *image_format, const cl_image_desc *image_desc,
                                cl_image_requirements_info_ext param_name, size_t param_value_size,
                                void *param_value, size_t *param_value_size_ret) {
  if (!kiln_context_is_valid(context)) return CL_INVALID_CONTEXT;
  size_t properties_count;
  cl_int err = kiln_mem_check_properties(properties, &properties_count);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_flags(flags, 0)) != CL_SUCCESS) return err;
  struct kiln_image_format_info info;
  if (image_format && !kiln_image_format_describe(image_format, &info)) return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  const struct kiln_image_limits *limits = kiln_image_device_limits();
  /* Dimension queries take a descriptor whose members may be 0 ("any"), its type too;
   * the others a whole, valid one, as clCreateImage would over a buffer. */
  struct kiln_image_layout layout;
  if (image_desc && is_dimension_query(param_name)) {
    if (image_desc->image_type != 0 && !is_image_type(image_desc->image_type)) return CL_INVALID_IMAGE_DESCRIPTOR;
  } else if (image_desc) {
    err = kiln_image_layout_make(image_desc, image_format ? info.element_size : 1, KILN_IMAGE_OVER_BUFFER, limits,
                                 &layout);
    /* a dimension out of range is an invalid descriptor here: no image is being made */
    if (err == CL_INVALID_IMAGE_SIZE) err = CL_INVALID_IMAGE_DESCRIPTOR;
    if (err != CL_SUCCESS) return err;
  }
  cl_mem_object_type type = image_desc ? image_desc->image_type : 0;
  size_t element = image_format ? info.element_size : LARGEST_ELEMENT;
  switch (param_name) {
  case CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT:
  case CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT:
    KILN_INFO_VALUE(size_t, limits->pitch_alignment * element);
  case CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT:
    KILN_INFO_VALUE(size_t, limits->base_address_alignment * element);
  case CL_IMAGE_REQUIREMENTS_SIZE_EXT:
    if (!image_format || !image_desc) return CL_INVALID_VALUE;
    KILN_INFO_VALUE(size_t, layout.size);
  case CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT:
    KILN_INFO_VALUE(cl_uint, (cl_uint)max_width(type, limits));
  case CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT:
    if (!max_height(type, limits)) return CL_INVALID_IMAGE_DESCRIPTOR;
    KILN_INFO_VALUE(cl_uint, (cl_uint)max_height(type, limits));
  case CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT:
    if (!max_depth(type, limits)) return CL_INVALID_IMAGE_DESCRIPTOR;
    KILN_INFO_VALUE(cl_uint, (cl_uint)max_depth(type, limits));
  case CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT:
    if (!max_array_size(type, limits)) return CL_INVALID_IMAGE_DESCRIPTOR;
    KILN_INFO_VALUE(cl_uint, (cl_uint)max_array_size(type, limits));
  default:
    return CL_INVALID_VALUE;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageRequirementsInfoEXT(
    cl_context context, const cl_mem_properties *properties, cl_mem_flags flags, const cl_image_format *image_format,
    const cl_image_desc *image_desc, cl_image_requirements_info_ext param_name, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  return requirements_info(context, properties, flags, image_format, image_desc, param_name, param_value_size,
                           param_value, param_value_size_ret);
}

static const struct kiln_extension_function requirements_functions[] = {
    {"clGetImageRequirementsInfoEXT", (void *)clGetImageRequirementsInfoEXT},
    {NULL, NULL},
};

const struct kiln_extension kiln_core_ext_image_requirements_info = {
    .name = "cl_ext_image_requirements_info",
    .version = CL_MAKE_VERSION(0, 5, 0),
    .scope = KILN_EXTENSION_DEVICE,
    .functions = requirements_functions};

/* API only: every image type over a buffer (image_view.c, image_layout.c). */
const struct kiln_extension kiln_core_ext_image_from_buffer = {
    .name = "cl_ext_image_from_buffer", .version = CL_MAKE_VERSION(1, 0, 0), .scope = KILN_EXTENSION_DEVICE};
