/* image_view.c: see image_view.h. The view shares the parent's storage; image_create.c
 * holds the parent and inherits its flags (kiln_mem_inherit_flags). */
#include "runtime/image_view.h"
#include "runtime/debug_err.h"

#include <stdint.h>

cl_int kiln_image_view_parent(cl_context context, const cl_image_desc *desc, cl_mem *parent) {
  cl_mem mem = desc->mem_object;
  if (!kiln_mem_is_valid(mem) || mem->context != context)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                     "!kiln_mem_is_valid(mem) || mem->context != context");
  /* Any type over a buffer (cl_ext_image_from_buffer; kiln_image_layout_make checks the
   * type itself), a 2D image over a 2D image. */
  bool ok = mem->type == CL_MEM_OBJECT_BUFFER ||
            (desc->image_type == CL_MEM_OBJECT_IMAGE2D && mem->type == CL_MEM_OBJECT_IMAGE2D);
  if (!ok) return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)", "!ok");
  *parent = mem;
  return CL_SUCCESS;
}

static cl_int buffer_view_layout(cl_mem buffer, const cl_image_desc *desc, const struct kiln_image_format_info *info,
                                 struct kiln_image_layout *layout) {
  const struct kiln_image_limits *limits = kiln_image_device_limits();
  cl_int err = kiln_image_layout_make(desc, info->element_size, KILN_IMAGE_OVER_BUFFER, limits, layout);
  if (err != CL_SUCCESS) return err;
  if (layout->size > buffer->size)
    return KILN_FAIL(CL_INVALID_IMAGE_SIZE, "rejected since (%s)", "layout->size > buffer->size");
  /* The spec asks it of images over a buffer that uses a host pointer; Kiln's own
   * allocations and sub-buffer origins are aligned further. */
  size_t base_alignment = limits->base_address_alignment * info->element_size;
  if ((buffer->flags & CL_MEM_USE_HOST_PTR) && (uintptr_t)buffer->storage % base_alignment != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "rejected since (%s)",
                     "(buffer->flags & CL_MEM_USE_HOST_PTR) && (uintptr_t)buffer->storage % base_alignment != 0");
  return CL_SUCCESS;
}

/* The API spec's Compatible Image Channel Orders table: `order` may view an image of
 * `parent_order`. */
static bool orders_compatible(cl_channel_order order, cl_channel_order parent_order) {
  static const cl_channel_order pairs[][2] = {
      {CL_sBGRA, CL_BGRA}, {CL_BGRA, CL_sBGRA}, {CL_sRGBA, CL_RGBA}, {CL_RGBA, CL_sRGBA}, {CL_sRGB, CL_RGB},
      {CL_RGB, CL_sRGB},   {CL_sRGBx, CL_RGBx}, {CL_RGBx, CL_sRGBx}, {CL_DEPTH, CL_R},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (pairs[i][0] == order && pairs[i][1] == parent_order) return true;
  return false;
}

static cl_int image_view_layout(cl_mem parent, const cl_image_desc *desc, const cl_image_format *format,
                                struct kiln_image_layout *layout) {
  const struct kiln_image *of = parent->image;
  /* "All of the values specified in image_desc must match"; a pitch may also be left 0. */
  bool row_pitch_ok = desc->image_row_pitch == 0 || desc->image_row_pitch == of->layout.row_pitch;
  if (desc->image_width != of->layout.width || desc->image_height != of->layout.height || !row_pitch_ok ||
      desc->image_slice_pitch != 0 || desc->num_mip_levels != 0 || desc->num_samples != 0)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (format->image_channel_data_type != of->format.image_channel_data_type ||
      !orders_compatible(format->image_channel_order, of->format.image_channel_order))
    return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  *layout = of->layout;
  return CL_SUCCESS;
}

cl_int kiln_image_view_layout(cl_mem parent, const cl_image_desc *desc, const cl_image_format *format,
                              const struct kiln_image_format_info *info, struct kiln_image_layout *layout) {
  if (parent->image) return image_view_layout(parent, desc, format, layout);
  return buffer_view_layout(parent, desc, info, layout);
}
