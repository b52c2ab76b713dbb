/* image_layout.c: see image_layout.h. */
#include "runtime/image_layout.h"
#include "runtime/debug_err.h"

#include <stdint.h>

static bool in_range(size_t value, size_t max) { return value >= 1 && value <= max; }

/* The dimensions the type uses, checked against the limits; unused ones become 1. */
static cl_int check_dimensions(const cl_image_desc *desc, const struct kiln_image_limits *limits,
                               struct kiln_image_layout *layout) {
  *layout = (struct kiln_image_layout){desc->image_width, 1, 1, 1, 0, 0, 0};
  bool ok;
  switch (desc->image_type) {
  case CL_MEM_OBJECT_IMAGE1D:
    ok = in_range(desc->image_width, limits->image2d_max_width);
    break;
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    ok = in_range(desc->image_width, limits->image_max_buffer_size);
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    ok = in_range(desc->image_width, limits->image2d_max_width) &&
         in_range(desc->image_array_size, limits->image_max_array_size);
    layout->array_size = desc->image_array_size;
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    ok = in_range(desc->image_width, limits->image2d_max_width) &&
         in_range(desc->image_height, limits->image2d_max_height);
    layout->height = desc->image_height;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    ok = in_range(desc->image_width, limits->image2d_max_width) &&
         in_range(desc->image_height, limits->image2d_max_height) &&
         in_range(desc->image_array_size, limits->image_max_array_size);
    layout->height = desc->image_height;
    layout->array_size = desc->image_array_size;
    break;
  default: /* CL_MEM_OBJECT_IMAGE3D */
    ok = in_range(desc->image_width, limits->image3d_max_width) &&
         in_range(desc->image_height, limits->image3d_max_height) &&
         in_range(desc->image_depth, limits->image3d_max_depth);
    layout->height = desc->image_height;
    layout->depth = desc->image_depth;
    break;
  }
  return ok ? CL_SUCCESS : CL_INVALID_IMAGE_SIZE;
}

static bool has_slices(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

cl_int kiln_image_layout_make(const cl_image_desc *desc, size_t element_size, enum kiln_image_storage storage,
                              const struct kiln_image_limits *limits, struct kiln_image_layout *layout) {
  cl_mem_object_type type = desc->image_type;
  if (type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER && type != CL_MEM_OBJECT_IMAGE1D_ARRAY &&
      type != CL_MEM_OBJECT_IMAGE2D && type != CL_MEM_OBJECT_IMAGE2D_ARRAY && type != CL_MEM_OBJECT_IMAGE3D)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (desc->num_mip_levels != 0 || desc->num_samples != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                     "desc->num_mip_levels != 0 || desc->num_samples != 0");
  /* A 1D buffer image needs a buffer; any type may have one (cl_ext_image_from_buffer). */
  bool over_buffer = storage == KILN_IMAGE_OVER_BUFFER;
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER && !over_buffer)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                     "type == CL_MEM_OBJECT_IMAGE1D_BUFFER && !over_buffer");
  cl_int err = check_dimensions(desc, limits, layout);
  if (err != CL_SUCCESS) return err;

  size_t tight_row;
  if (__builtin_mul_overflow(layout->width, element_size, &tight_row))
    return KILN_FAIL(CL_INVALID_IMAGE_SIZE, "rejected since (%s)",
                     "__builtin_mul_overflow(layout->width, element_size, &tight_row)");
  /* Pitches may be given only with a host pointer or over a buffer (a 1D image buffer has
   * one row, whose pitch, which the CTS passes, must still hold the row). Over a buffer, a
   * pitch off the alignment clGetImageRequirementsInfoEXT reports (whole elements) is
   * CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, as cl_ext_image_from_buffer says; a pitch too
   * small or not a multiple of the row pitch, CL_INVALID_IMAGE_DESCRIPTOR, as for any image. */
  size_t pitch_alignment = limits->pitch_alignment * element_size;
  bool pitches_allowed = storage == KILN_IMAGE_HOST_POINTER || over_buffer;
  size_t row_pitch = desc->image_row_pitch;
  if (row_pitch && !pitches_allowed)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)", "row_pitch && !pitches_allowed");
  bool has_rows = type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER; /* one row: no alignment */
  if (over_buffer && has_rows && row_pitch % pitch_alignment != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "rejected since (%s)",
                     "over_buffer && has_rows && row_pitch % pitch_alignment != 0");
  if (row_pitch == 0) row_pitch = tight_row;
  if (row_pitch < tight_row || row_pitch % element_size != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                     "row_pitch < tight_row || row_pitch % element_size != 0");

  size_t tight_slice = row_pitch;
  if (type != CL_MEM_OBJECT_IMAGE1D_ARRAY && __builtin_mul_overflow(row_pitch, layout->height, &tight_slice))
    return KILN_FAIL(
        CL_INVALID_IMAGE_SIZE, "rejected since (%s)",
        "type != CL_MEM_OBJECT_IMAGE1D_ARRAY && __builtin_mul_overflow(row_pitch, layout->height, &tight_slice)");
  size_t slice_pitch = desc->image_slice_pitch;
  /* "Must be zero if host_ptr is NULL", whatever the type, except over a buffer. */
  if (slice_pitch && !pitches_allowed)
    return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)", "slice_pitch && !pitches_allowed");
  if (over_buffer && slice_pitch % pitch_alignment != 0)
    return KILN_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "rejected since (%s)",
                     "over_buffer && slice_pitch % pitch_alignment != 0");
  if (has_slices(type)) {
    if (slice_pitch == 0) slice_pitch = tight_slice;
    if (slice_pitch < tight_slice || slice_pitch % row_pitch != 0)
      return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)",
                       "slice_pitch < tight_slice || slice_pitch % row_pitch != 0");
  } else {
    slice_pitch = tight_slice; /* unused by the type: one slice */
  }
  size_t slices = type == CL_MEM_OBJECT_IMAGE3D ? layout->depth : layout->array_size;
  layout->row_pitch = row_pitch;
  layout->slice_pitch = slice_pitch;
  /* A 1D image is one scanline: a row pitch beyond it pads nothing that belongs to the
   * image, and the spec asks of a buffer under it only width x element bytes. */
  if (!has_rows) {
    layout->size = tight_row;
    return CL_SUCCESS;
  }
  if (__builtin_mul_overflow(slice_pitch, slices, &layout->size))
    return KILN_FAIL(CL_INVALID_IMAGE_SIZE, "rejected since (%s)",
                     "__builtin_mul_overflow(slice_pitch, slices, &layout->size)");
  return CL_SUCCESS;
}
