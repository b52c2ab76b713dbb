/* image.h: image memory objects. An image is a cl_mem (mem_object.h) whose `image`
 * part says how its bytes are laid out: the format, the descriptor as given, the layout
 * (image_layout.h) and the view kernels get (struct kiln_device_image, kernel_abi.h).
 * An image over a buffer (1D buffer images, cl_khr_image2d_from_buffer) or over another
 * 2D image has no storage of its own: its `storage` is the other object's, and that
 * object is held as its parent, so writes through either are seen by the other. */
#ifndef KILN_RUNTIME_IMAGE_H
#define KILN_RUNTIME_IMAGE_H

#include "device/cpu/kernel_abi.h"
#include "runtime/image_format.h"
#include "runtime/image_layout.h"
#include "runtime/mem_object.h"

struct kiln_image {
  cl_image_format format;
  struct kiln_image_format_info info; /* channels, element size, texel kind */
  cl_image_desc desc;                 /* as given (CL_IMAGE_* queries; mem_object: the parent) */
  struct kiln_image_layout layout;    /* dimensions and pitches as stored */
  cl_mem buffer;                      /* CL_IMAGE_BUFFER: the buffer whose storage it is, or NULL */
  struct kiln_device_image device;    /* what a kernel argument points at */
};

/* Kernel argument limits of a device with images (CL_DEVICE_MAX_*_IMAGE_ARGS,
 * CL_DEVICE_MAX_SAMPLERS): the spec's minimums; an enqueue checks a kernel against them. */
#define KILN_MAX_READ_IMAGE_ARGS 128u
#define KILN_MAX_WRITE_IMAGE_ARGS 64u
#define KILN_MAX_READ_WRITE_IMAGE_ARGS 64u
#define KILN_MAX_SAMPLERS 16u

/* The device's image limits (image_limits.c): what CL_DEVICE_IMAGE* reports and what
 * creation checks. Pitch and base-address alignments are in pixels. */
const struct kiln_image_limits *kiln_image_device_limits(void);

static inline bool kiln_mem_is_image(cl_mem mem) { return kiln_mem_is_valid(mem) && mem->image != NULL; }

/* For an enqueue on a valid queue: CL_INVALID_MEM_OBJECT unless `mem` is a live image,
 * CL_INVALID_CONTEXT unless it belongs to the queue's context. */
static inline cl_int kiln_mem_check_queue_image(cl_command_queue queue, cl_mem mem) {
  if (!kiln_mem_is_image(mem)) return CL_INVALID_MEM_OBJECT;
  return mem->context == kiln_queue_context(queue) ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

/* The checks and commands of clEnqueueCopyImage, clEnqueueFillImage,
 * clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage after the queue check, for any
 * sink (command buffers record them): image_transfer.c and image_fill.c. */
cl_int kiln_image_copy(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, const size_t *src_origin,
                       const size_t *dst_origin, const size_t *region);
cl_int kiln_image_fill(const struct kiln_command_sink *sink, cl_mem image, const void *fill_color,
                       const size_t *origin, const size_t *region);
cl_int kiln_image_copy_to_buffer(const struct kiln_command_sink *sink, cl_mem src_image, cl_mem dst_buffer,
                                 const size_t *src_origin, const size_t *region, size_t dst_offset);
cl_int kiln_image_copy_from_buffer(const struct kiln_command_sink *sink, cl_mem src_buffer, cl_mem dst_image,
                                   size_t src_offset, const size_t *dst_origin, const size_t *region);

#endif
