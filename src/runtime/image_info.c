/* image_info.c: clGetImageInfo and clGetSupportedImageFormats. The memory-object queries
 * of an image (clGetMemObjectInfo) are mem_object.c's, as for any memory object. */
#include "runtime/image.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/info.h"

static bool is_array(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

static bool has_height(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name, size_t param_value_size,
                                               void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_mem_is_image(image))
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)", "!kiln_mem_is_image(image)");
  const struct kiln_image *im = image->image;
  cl_mem_object_type type = image->type;
  switch (param_name) {
  case CL_IMAGE_FORMAT:
    KILN_INFO_VALUE(cl_image_format, im->format);
  case CL_IMAGE_ELEMENT_SIZE:
    KILN_INFO_VALUE(size_t, im->info.element_size);
  case CL_IMAGE_ROW_PITCH:
    KILN_INFO_VALUE(size_t, im->layout.row_pitch);
  case CL_IMAGE_SLICE_PITCH: /* "For a 1D image, 1D image buffer and 2D image object return 0" */
    KILN_INFO_VALUE(size_t, is_array(type) || type == CL_MEM_OBJECT_IMAGE3D ? im->layout.slice_pitch : 0);
  case CL_IMAGE_WIDTH:
    KILN_INFO_VALUE(size_t, im->layout.width);
  case CL_IMAGE_HEIGHT:
    KILN_INFO_VALUE(size_t, has_height(type) ? im->layout.height : 0);
  case CL_IMAGE_DEPTH:
    KILN_INFO_VALUE(size_t, type == CL_MEM_OBJECT_IMAGE3D ? im->layout.depth : 0);
  case CL_IMAGE_ARRAY_SIZE:
    KILN_INFO_VALUE(size_t, is_array(type) ? im->layout.array_size : 0);
  case CL_IMAGE_BUFFER:
    KILN_INFO_VALUE(cl_mem, im->buffer);
  case CL_IMAGE_NUM_MIP_LEVELS:
  case CL_IMAGE_NUM_SAMPLES:
    KILN_INFO_VALUE(cl_uint, 0);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetImageInfo knows", (unsigned)param_name);
  }
}

static bool image_type_is_valid(cl_mem_object_type type) {
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D:
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
  case CL_MEM_OBJECT_IMAGE2D:
  case CL_MEM_OBJECT_IMAGE3D:
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    return true;
  default:
    return false;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                           cl_mem_object_type image_type, cl_uint num_entries,
                                                           cl_image_format *image_formats, cl_uint *num_image_formats) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
  if (kiln_mem_check_flags(flags, CL_MEM_KERNEL_READ_AND_WRITE) != CL_SUCCESS)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "kiln_mem_check_flags(flags, CL_MEM_KERNEL_READ_AND_WRITE) != CL_SUCCESS");
  if (!image_type_is_valid(image_type))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!image_type_is_valid(image_type)");
  if (num_entries == 0 && image_formats)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "num_entries == 0 && image_formats");
  size_t count;
  const cl_image_format *formats = kiln_image_formats_supported(image_type, flags, &count);
  if (image_formats)
    for (size_t i = 0; i < count && i < num_entries; i++) image_formats[i] = formats[i];
  if (num_image_formats) *num_image_formats = (cl_uint)count;
  return CL_SUCCESS;
}
