/* image.h: image memory objects. An image is a cl_mem (mem_object.h) whose `image`
 * part says how its bytes are laid out: the format, the descriptor as given, the layout
 * (image_layout.h) and the view kernels get (struct kiln_device_image, kernel_abi.h).
 * An image over a buffer (1D buffer images, cl_khr_image2d_from_buffer) has no storage
 * of its own: its `storage` is the buffer's, and the buffer is held as its parent, so
 * writes through either are seen by the other. */
#ifndef KILN_RUNTIME_IMAGE_H
#define KILN_RUNTIME_IMAGE_H

#include "device/cpu/kernel_abi.h"
#include "runtime/image_format.h"
#include "runtime/image_layout.h"
#include "runtime/mem_object.h"

struct kiln_image {
  cl_image_format format;
  struct kiln_image_format_info info; /* channels, element size, texel kind */
  cl_image_desc desc;                 /* as given (CL_IMAGE_* queries; mem_object: the buffer) */
  struct kiln_image_layout layout;    /* dimensions and pitches as stored */
  struct kiln_device_image device;    /* what a kernel argument points at */
};

static inline bool kiln_mem_is_image(cl_mem mem) { return kiln_mem_is_valid(mem) && mem->image != NULL; }

/* For an enqueue on a valid queue: CL_INVALID_MEM_OBJECT unless `mem` is a live image,
 * CL_INVALID_CONTEXT unless it belongs to the queue's context. */
static inline cl_int kiln_mem_check_queue_image(cl_command_queue queue, cl_mem mem) {
  if (!kiln_mem_is_image(mem)) return CL_INVALID_MEM_OBJECT;
  return mem->context == kiln_queue_context(queue) ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

#endif
