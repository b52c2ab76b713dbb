/* image_texel.h: one image element in host code, converted as the OpenCL environment
 * spec's image conversion rules say (env/image_addressing_and_filtering: normalized
 * integers, half, float, integers with saturation, sRGB) — what clEnqueueFillImage writes
 * from its fill color and what tests read back as a reference. Kernels do the same in
 * the builtin library. */
#ifndef KILN_RUNTIME_IMAGE_TEXEL_H
#define KILN_RUNTIME_IMAGE_TEXEL_H

#include "runtime/image_format.h"

#include <stdint.h>

/* A color as read_image and write_image see it: (R, G, B, A), floats or 32-bit integers
 * according to the format's texel kind. */
union kiln_texel {
  float f[4];
  int32_t i[4];
  uint32_t u[4];
};

/* Writes `color` into the element at `element` (info->element_size bytes) of a valid
 * `format` (kiln_image_format_describe): channels in the order's memory order, each
 * converted with round to nearest even and saturation; NaN becomes 0 for normalized
 * types. Channels the order does not store (CL_Rx's x) are written 0. */
void kiln_texel_pack(const cl_image_format *format, const union kiln_texel *color, void *element);

/* Reads the element at `element` as read_image returns it, with the spec's defaults for
 * the channels the order lacks: (R, 0, 0, 1), (0, 0, 0, A), (I, I, I, I), (L, L, L, 1);
 * CL_DEPTH's value in f[0]. sRGB channels are converted to linear. */
void kiln_texel_unpack(const cl_image_format *format, const void *element, union kiln_texel *color);

#endif
