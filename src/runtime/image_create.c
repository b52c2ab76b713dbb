/* image_create.c: clCreateImage, clCreateImageWithProperties and the deprecated
 * clCreateImage2D / clCreateImage3D. An image is a memory object (mem_object.c) with its
 * own storage — allocated, or the application's with CL_MEM_USE_HOST_PTR (zero copy, its
 * pitches as given) — or a view of another object's storage (image_view.c). With
 * CL_MEM_COPY_HOST_PTR the image keeps the given pitches, which CL_IMAGE_ROW_PITCH and
 * CL_IMAGE_SLICE_PITCH then report as the spec's image queries say. */
#include "runtime/image_view.h"
#include "runtime/debug_err.h"

#include "runtime/context.h"
#include "runtime/device.h"

#include <stdlib.h>

/* The kernel's view of an image whose storage starts at `data`. */
static struct kiln_device_image device_view(const struct kiln_image *image, cl_mem_object_type type, char *data) {
  const struct kiln_image_layout *l = &image->layout;
  return (struct kiln_device_image){
      .data = data,
      .row_pitch = l->row_pitch,
      .slice_pitch = l->slice_pitch,
      .width = (int32_t)l->width,
      .height = (int32_t)l->height,
      .depth = (int32_t)l->depth,
      .array_size = (int32_t)l->array_size,
      .channel_order = image->format.image_channel_order,
      .channel_data_type = image->format.image_channel_data_type,
      .element_size = (uint32_t)image->info.element_size,
      .image_type = type,
  };
}

/* Every check of clCreateImage after the context's, in the spec's order, filling `image`
 * (its layout), *parent and *flags (with what a view inherits). */
static cl_int check_image(cl_context context, cl_mem_flags *flags, const cl_image_format *format,
                          const cl_image_desc *desc, void *host_ptr, struct kiln_image *image, cl_mem *parent) {
  cl_int err = kiln_mem_check_flags(*flags, 0);
  if (err != CL_SUCCESS) return err;
  cl_mem_flags given = *flags; /* a view inherits host-pointer flags but takes no pointer */
  *parent = NULL;
  if (desc && desc->mem_object) {
    if ((err = kiln_image_view_parent(context, desc, parent)) != CL_SUCCESS) return err;
    if ((err = kiln_mem_inherit_flags((*parent)->flags, *flags, flags)) != CL_SUCCESS) return err;
  }
  if (!format || !kiln_image_format_describe(format, &image->info))
    return KILN_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "rejected since (%s)",
                     "!format || !kiln_image_format_describe(format, &image->info)");
  if (!desc) return KILN_FAIL(CL_INVALID_IMAGE_DESCRIPTOR, "rejected since (%s)", "!desc");
  image->format = *format;
  image->desc = *desc;
  if (*parent) {
    err = kiln_image_view_layout(*parent, desc, format, &image->info, &image->layout);
  } else {
    bool from_host = (*flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
    err = kiln_image_layout_make(desc, image->info.element_size, from_host ? KILN_IMAGE_HOST_POINTER : KILN_IMAGE_OWN,
                                 kiln_image_device_limits(), &image->layout);
  }
  if (err != CL_SUCCESS) return err;
  /* Beyond one allocation's limit, the image's dimensions are not valid on the device. */
  if (image->layout.size > kiln_device_get()->max_mem_alloc_size)
    return KILN_FAIL(CL_INVALID_IMAGE_SIZE, "rejected since (%s)",
                     "image->layout.size > kiln_device_get()->max_mem_alloc_size");
  if ((err = kiln_mem_check_host_ptr(given, host_ptr)) != CL_SUCCESS) return err;
  /* The formats listed for the image's type and kernel access. */
  size_t count;
  const cl_image_format *formats = kiln_image_formats_supported(desc->image_type, *flags, &count);
  for (size_t i = 0; i < count; i++)
    if (formats[i].image_channel_order == format->image_channel_order &&
        formats[i].image_channel_data_type == format->image_channel_data_type)
      return CL_SUCCESS;
  return CL_IMAGE_FORMAT_NOT_SUPPORTED;
}

static cl_mem create_image(cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
                           const cl_image_format *format, const cl_image_desc *desc, void *host_ptr, cl_int *err) {
  if (!kiln_context_is_valid(context)) {
    *err = KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context);
    return NULL;
  }
  size_t properties_count;
  if ((*err = kiln_mem_check_properties(properties, &properties_count)) != CL_SUCCESS) return NULL;
  struct kiln_image *image = calloc(1, sizeof *image);
  if (!image) {
    *err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!image");
    return NULL;
  }
  cl_mem parent;
  if ((*err = check_image(context, &flags, format, desc, host_ptr, image, &parent)) != CL_SUCCESS) {
    free(image);
    return NULL;
  }
  struct kiln_mem_desc mem_desc = {
      .flags = flags,
      .size = image->layout.size,
      .properties = properties,
      .properties_count = properties_count,
      .type = desc->image_type,
      .image = image,
      .parent = parent,
  };
  if (parent) {
    mem_desc.storage = parent->storage; /* no copy: the parent's bytes are the image's */
    image->buffer = parent->image ? parent->image->buffer : parent;
  } else if (flags & CL_MEM_USE_HOST_PTR) {
    mem_desc.storage = host_ptr;
    mem_desc.host_ptr = host_ptr;
  } else if (flags & CL_MEM_COPY_HOST_PTR) {
    mem_desc.copy_from = host_ptr;
  }
  cl_mem mem = kiln_mem_create(context, &mem_desc, err);
  if (!mem) {
    free(image);
    return NULL;
  }
  image->device = device_view(image, desc->image_type, mem->storage);
  return mem;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                              const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  cl_mem mem = create_image(context, NULL, flags, format, desc, host_ptr, &err);
  if (errcode_ret) *errcode_ret = err;
  return mem;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context, const cl_mem_properties *properties,
                                                            cl_mem_flags flags, const cl_image_format *format,
                                                            const cl_image_desc *desc, void *host_ptr,
                                                            cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  cl_mem mem = create_image(context, properties, flags, format, desc, host_ptr, &err);
  if (errcode_ret) *errcode_ret = err;
  return mem;
}

/* The 1.1 entry points name a bad size or pitch CL_INVALID_IMAGE_SIZE, where clCreateImage
 * says CL_INVALID_IMAGE_DESCRIPTOR. */
static cl_mem create_legacy(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                            const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret) {
  cl_int err;
  cl_mem mem = create_image(context, NULL, flags, format, desc, host_ptr, &err);
  if (err == CL_INVALID_IMAGE_DESCRIPTOR) err = CL_INVALID_IMAGE_SIZE;
  if (errcode_ret) *errcode_ret = err;
  return mem;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                                size_t width, size_t height, size_t row_pitch, void *host_ptr,
                                                cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_image_desc desc = {
      .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width, .image_height = height, .image_row_pitch = row_pitch};
  return create_legacy(context, flags, format, &desc, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                                size_t width, size_t height, size_t depth, size_t row_pitch,
                                                size_t slice_pitch, void *host_ptr, cl_int *errcode_ret) {
  KILN_API_CALL;
  /* "image_depth ... must be a value > 1": a one-slice 3D image is CL_INVALID_IMAGE_SIZE
   * here, where clCreateImage accepts it. */
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D,
                        .image_width = width,
                        .image_height = height,
                        .image_depth = depth <= 1 ? 0 : depth,
                        .image_row_pitch = row_pitch,
                        .image_slice_pitch = slice_pitch};
  return create_legacy(context, flags, format, &desc, host_ptr, errcode_ret);
}
