/* image_region.h: the origin and region of an image command (read, write, copy, fill,
 * map) checked as the API spec's rules say, and the addressing of such a region
 * in an image's storage or in host memory with its own pitches. In the image's
 * own terms a 1D array's layers are its "rows of slices": origin[1] / region[1] index
 * layers, each one slice pitch apart. For the image commands (image_transfer.c,
 * image_fill.c, image_map.c). */
#ifndef KILN_RUNTIME_IMAGE_REGION_H
#define KILN_RUNTIME_IMAGE_REGION_H

#include "runtime/image_layout.h"

/* A region as bytes: `rows` rows of `row_bytes` per slice, `slices` slices, as
 * kiln_mem_copy_rows (mem_object.h) copies it. */
struct kiln_image_span {
  size_t row_bytes, rows, slices;
};

/* CL_INVALID_VALUE when `origin` or `region` is NULL, a region value is 0, a coordinate
 * the type does not use is not 0 (origin) or 1 (region), or the region leaves the image. */
cl_int kiln_image_region_check(cl_mem_object_type type, const struct kiln_image_layout *layout, const size_t *origin,
                               const size_t *region);

/* The span of a checked region, for elements of `element_size` bytes. */
struct kiln_image_span kiln_image_region_span(cl_mem_object_type type, size_t element_size, const size_t *region);

/* Byte offset of a checked origin in the image's storage. */
size_t kiln_image_region_offset(cl_mem_object_type type, const struct kiln_image_layout *layout, size_t element_size,
                                const size_t *origin);

/* How far apart in memory of `type`'s shape with these pitches one step of region[1] and
 * one of region[2] are (a 1D array's region[1] counts layers, slice_pitch apart): with
 * them kiln_mem_copy_rows copies a region between images of different types, host memory
 * and buffers. */
struct kiln_image_steps {
  size_t step1, step2;
};
struct kiln_image_steps kiln_image_region_steps(cl_mem_object_type type, size_t row_pitch, size_t slice_pitch);

/* The host memory pitches of clEnqueueReadImage / WriteImage for a checked region: 0 means
 * tight (row: region width × element size; slice: row pitch × rows). CL_INVALID_VALUE when
 * a given row pitch is below the tight one, a slice pitch is given for a 1D, 1D buffer
 * or 2D image, or is below row pitch × rows. */
cl_int kiln_image_host_pitches(cl_mem_object_type type, size_t element_size, const size_t *region, size_t row_pitch,
                               size_t slice_pitch, size_t *row_out, size_t *slice_out);

#endif
