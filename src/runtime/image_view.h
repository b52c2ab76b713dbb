/* image_view.h: images made over another memory object's storage (image_view.c) — an
 * image of any type over a buffer (1D image buffers, cl_khr_image2d_from_buffer,
 * cl_ext_image_from_buffer), a 2D image over a 2D image in a compatible channel order —
 * for clCreateImage* (image_create.c). */
#ifndef KILN_RUNTIME_IMAGE_VIEW_H
#define KILN_RUNTIME_IMAGE_VIEW_H

#include "runtime/image.h"

/* The object desc->mem_object names, checked for `context`: a live buffer (any type) or
 * 2D image (2D) of the context, else CL_INVALID_IMAGE_DESCRIPTOR. */
cl_int kiln_image_view_parent(cl_context context, const cl_image_desc *desc, cl_mem *parent);

/* The layout of an image over `parent` and the checks of the parent against it:
 *  over a buffer — the descriptor's layout (kiln_image_layout_make), the buffer large
 *    enough (CL_INVALID_IMAGE_SIZE), the base address aligned when the buffer uses a host
 *    pointer (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
 *  over an image — the descriptor matches the image's (CL_INVALID_IMAGE_DESCRIPTOR), the
 *    data type is the same and the order compatible (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR). */
cl_int kiln_image_view_layout(cl_mem parent, const cl_image_desc *desc, const cl_image_format *format,
                              const struct kiln_image_format_info *info, struct kiln_image_layout *layout);

#endif
