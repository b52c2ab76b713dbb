/* image_requirements.c: clGetImageRequirementsInfoEXT (cl_ext_image_requirements_info,
 * with cl_ext_image_from_buffer's slice pitch query) and the extension's descriptor,
 * which carries the entry point. The alignments are the ones
 * clCreateImage enforces over a buffer (image_layout.c, image_view.c): whole elements,
 * the device's CL_DEVICE_IMAGE_PITCH_ALIGNMENT and CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT
 * (1 element each) in bytes; the size and limits are those of image_layout.c. */
#include "runtime/core_extensions.h"
#include "runtime/debug_err.h"
#include "runtime/context.h"
#include "runtime/extension.h"
#include "runtime/image_layout.h"
#include "runtime/image_view.h"
#include "runtime/info.h"

#include <CL/cl_ext.h>
#include <stdint.h>

/* The largest element of any valid format (RGBA of 32-bit channels); every element size
 * divides it, so an alignment in elements of it suits every format when the query names
 * none. */
#define LARGEST_ELEMENT 16

static bool is_image_type(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER || type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

static size_t smaller(size_t a, size_t b) { return a < b ? a : b; }

/* The device's limit of each dimension for `type`, 0 where the type has no such dimension;
 * type 0 ("any type") gets the smallest limit of the types that have it. */
static size_t width_limit(cl_mem_object_type type, const struct kiln_image_limits *l) {
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) return l->image_max_buffer_size;
  if (type == CL_MEM_OBJECT_IMAGE3D) return l->image3d_max_width;
  if (type == 0) return smaller(l->image_max_buffer_size, smaller(l->image3d_max_width, l->image2d_max_width));
  return l->image2d_max_width;
}

static size_t height_limit(cl_mem_object_type type, const struct kiln_image_limits *l) {
  if (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY) return l->image2d_max_height;
  if (type == CL_MEM_OBJECT_IMAGE3D) return l->image3d_max_height;
  return type == 0 ? smaller(l->image3d_max_height, l->image2d_max_height) : 0;
}

static size_t depth_limit(cl_mem_object_type type, const struct kiln_image_limits *l) {
  return type == 0 || type == CL_MEM_OBJECT_IMAGE3D ? l->image3d_max_depth : 0;
}

static size_t array_size_limit(cl_mem_object_type type, const struct kiln_image_limits *l) {
  bool arrayed = type == 0 || type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  return arrayed ? l->image_max_array_size : 0;
}

static bool is_dimension_query(cl_image_requirements_info_ext name) {
  return name == CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT || name == CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT ||
         name == CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT || name == CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT;
}

/* A dimension query's descriptor: its type 0 or an image type; the queried dimension is
 * ignored and members left 0 stand for "any", so both become 1 before the rest is checked
 * as clCreateImage checks an image over a buffer (a member out of the limits, a pitch that
 * cannot hold a row: CL_INVALID_IMAGE_DESCRIPTOR). */
static cl_int check_dimension_desc(const cl_image_desc *desc, cl_image_requirements_info_ext name, size_t element,
                                   const struct kiln_image_limits *limits) {
  if (desc->num_mip_levels != 0 || desc->num_samples != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                     "desc->num_mip_levels != 0 || desc->num_samples != 0");
  if (desc->image_type == 0) return CL_SUCCESS;
  if (!is_image_type(desc->image_type))
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)", "!is_image_type(desc->image_type)");
  cl_image_desc any = *desc;
  if (name == CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT || any.image_width == 0) any.image_width = 1;
  if (name == CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT || any.image_height == 0) any.image_height = 1;
  if (name == CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT || any.image_depth == 0) any.image_depth = 1;
  if (name == CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT || any.image_array_size == 0) any.image_array_size = 1;
  struct kiln_image_layout layout;
  return kiln_image_layout_make(&any, element, KILN_IMAGE_OVER_BUFFER, limits, &layout) == CL_SUCCESS
             ? CL_SUCCESS
             : CL_INVALID_IMAGE_DESCRIPTOR;
}

/* The largest value of the queried dimension an image with `desc` (NULL: any) may have:
 * the device's limit, and no more elements than a given row pitch holds (width) or rows
 * than a given slice pitch holds (height, with a row pitch given too), since clCreateImage
 * refuses a pitch that cannot hold them. 0: the dimension does not exist for the type. */
static size_t dimension_max(cl_image_requirements_info_ext name, const cl_image_desc *desc, size_t element,
                            const struct kiln_image_limits *limits) {
  cl_mem_object_type type = desc ? desc->image_type : 0;
  size_t row_pitch = desc ? desc->image_row_pitch : 0, slice_pitch = desc ? desc->image_slice_pitch : 0;
  switch (name) {
  case CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT:
    return row_pitch ? smaller(width_limit(type, limits), row_pitch / element) : width_limit(type, limits);
  case CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT: {
    /* a 2D image has one slice: its slice pitch, if any, bounds nothing */
    size_t limit = height_limit(type, limits);
    bool bounded = limit && row_pitch && slice_pitch && type != CL_MEM_OBJECT_IMAGE2D;
    return bounded ? smaller(limit, slice_pitch / row_pitch) : limit;
  }
  case CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT:
    return depth_limit(type, limits);
  default: /* CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT */
    return array_size_limit(type, limits);
  }
}

/* The descriptor of any other query: a whole one, checked as clCreateImage checks an image
 * over a buffer; every fault is one of the descriptor's here (no image is being made, and
 * the spec names CL_INVALID_IMAGE_DESCRIPTOR for "values specified in image_desc"). */
static cl_int check_whole_desc(const cl_image_desc *desc, size_t element, const struct kiln_image_limits *limits,
                               struct kiln_image_layout *layout) {
  return kiln_image_layout_make(desc, element, KILN_IMAGE_OVER_BUFFER, limits, layout) == CL_SUCCESS
             ? CL_SUCCESS
             : CL_INVALID_IMAGE_DESCRIPTOR;
}

static cl_int requirements_info(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                                const cl_image_format *image_format, const cl_image_desc *image_desc,
                                cl_image_requirements_info_ext param_name, size_t param_value_size,
                                void *param_value, size_t *param_value_size_ret) {
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  size_t properties_count;
  cl_int err = kiln_mem_check_properties(properties, &properties_count);
  if (err != CL_SUCCESS) return err;
  /* The spec lets the query be specialized for CL_MEM_KERNEL_READ_AND_WRITE images. */
  if ((err = kiln_mem_check_flags(flags, CL_MEM_KERNEL_READ_AND_WRITE)) != CL_SUCCESS) return err;
  struct kiln_image_format_info info;
  if (image_format && !kiln_image_format_describe(image_format, &info))
    return KILN_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "rejected since (%s)",
                     "image_format && !kiln_image_format_describe(image_format, &info)");
  const struct kiln_image_limits *limits = kiln_image_device_limits();
  /* Without a format, a descriptor is checked for 1-byte elements (the pitches any format
   * might need) and alignments are given for the largest element. */
  size_t checked_element = image_format ? info.element_size : 1;
  struct kiln_image_layout layout;
  if (image_desc) {
    err = is_dimension_query(param_name) ? check_dimension_desc(image_desc, param_name, checked_element, limits)
                                         : check_whole_desc(image_desc, checked_element, limits, &layout);
    if (err != CL_SUCCESS) return err;
  }
  /* Kiln's alignments depend on the element size only: not on the type, flags or size. */
  size_t element = image_format ? info.element_size : LARGEST_ELEMENT;
  switch (param_name) {
  case CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT:
  case CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT:
    KILN_INFO_VALUE(size_t, limits->pitch_alignment * element);
  case CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT:
    KILN_INFO_VALUE(size_t, limits->base_address_alignment * element);
  case CL_IMAGE_REQUIREMENTS_SIZE_EXT:
    if (!image_format || !image_desc)
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!image_format || !image_desc");
    KILN_INFO_VALUE(size_t, layout.size);
  case CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT:
  case CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT:
  case CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT:
  case CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT: {
    size_t max = dimension_max(param_name, image_desc, checked_element, limits);
    if (max == 0)
      return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                       "max == 0"); /* the type has no such dimension */
    KILN_INFO_VALUE(cl_uint, (cl_uint)smaller(max, UINT32_MAX));
  }
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query Kiln knows here", (unsigned)param_name);
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
