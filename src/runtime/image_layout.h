/* image_layout.h: an image descriptor (cl_image_desc) checked as the API spec's "Image
 * Descriptor" section says, and the layout it gives: dimensions, row and slice pitch,
 * bytes. For clCreateImage* (image_create.c). Images over a buffer are checked
 * here for their pitch; the caller checks the buffer itself and its size. */
#ifndef KILN_RUNTIME_IMAGE_LAYOUT_H
#define KILN_RUNTIME_IMAGE_LAYOUT_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* The device's image limits (CL_DEVICE_IMAGE*_MAX_*; alignments in pixels). */
struct kiln_image_limits {
  size_t image2d_max_width, image2d_max_height;
  size_t image3d_max_width, image3d_max_height, image3d_max_depth;
  size_t image_max_array_size, image_max_buffer_size;
  size_t pitch_alignment;        /* row and slice pitches of an image over a buffer, in elements */
  size_t base_address_alignment; /* host_ptr of a USE_HOST_PTR buffer an image is made over, in elements */
};

struct kiln_image_layout {
  size_t width, height, depth, array_size; /* unused dimensions are 1 */
  size_t row_pitch, slice_pitch;           /* bytes; slice pitch = row pitch * height for one slice */
  size_t size;                             /* bytes of the whole image */
};

/* How the image gets its memory. */
enum kiln_image_storage {
  KILN_IMAGE_OWN,          /* allocated by Kiln (pitches must be 0) */
  KILN_IMAGE_HOST_POINTER, /* CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR */
  KILN_IMAGE_OVER_BUFFER,  /* desc->mem_object is a buffer */
};

/* Checks `desc` for elements of `element_size` bytes and fills `layout`. Returns
 * CL_SUCCESS, CL_INVALID_IMAGE_DESCRIPTOR (type, pitches, mip levels, samples, no buffer
 * for a 1D image buffer), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR (an image over a buffer
 * whose row or slice pitch breaks the pitch alignment: the spec's code) or
 * CL_INVALID_IMAGE_SIZE (a dimension out of the limits, or a size beyond size_t). */
cl_int kiln_image_layout_make(const cl_image_desc *desc, size_t element_size, enum kiln_image_storage storage,
                              const struct kiln_image_limits *limits, struct kiln_image_layout *layout);

#endif
