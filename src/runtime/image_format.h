/* image_format.h: image formats (cl_image_format) as the OpenCL 3.0 API spec describes
 * them — which channel order and data type combinations exist, how many channels and
 * bytes an element has, and how a kernel reads it (float, int or uint) — and the formats
 * Kiln's device lists for each image type and access (clGetSupportedImageFormats, and
 * what clCreateImage* accepts). */
#ifndef KILN_RUNTIME_IMAGE_FORMAT_H
#define KILN_RUNTIME_IMAGE_FORMAT_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* What read_image* returns for a format: read_imagef (normalized, half and float),
 * read_imagei (signed integers) or read_imageui (unsigned integers). */
enum kiln_texel_kind {
  KILN_TEXEL_FLOAT,
  KILN_TEXEL_INT,
  KILN_TEXEL_UINT,
};

struct kiln_image_format_info {
  unsigned channels;   /* stored channels (CL_RGBx: 4, CL_Rx: 2) */
  size_t element_size; /* bytes of one element (pixel) */
  enum kiln_texel_kind kind;
  bool packed; /* one word holds every channel (565, 555, 101010, 101010_2) */
  bool srgb;   /* sRGB orders: reads convert to linear, writes from it */
};

/* Describes `format`; false when its order or data type is unknown, or the combination
 * is not a valid one (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR). */
bool kiln_image_format_describe(const cl_image_format *format, struct kiln_image_format_info *info);

/* The formats the device lists for images of `type` (CL_MEM_OBJECT_IMAGE*) with the
 * kernel access of `flags` (read-only, write-only, read-write, or none given: read-write);
 * *count receives their number. Includes the spec's minimum list for every type and
 * access (tested). */
const cl_image_format *kiln_image_formats_supported(cl_mem_object_type type, cl_mem_flags flags, size_t *count);

#endif
