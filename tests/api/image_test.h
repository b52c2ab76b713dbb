/* image_test.h: helpers of the image suites (test_image_*.c, and the extension suites that
 * record image commands). An image is described in the coordinates of origin and region:
 * extent[1] is a 2D image's rows or a 1D array's layers, extent[2] a 3D image's slices or
 * a 2D array's layers; host models hold an image tightly in those coordinates. */
#ifndef KILN_TEST_IMAGE_TEST_H
#define KILN_TEST_IMAGE_TEST_H

#include "kiln_test.h"

#include <CL/cl_ext.h>

#include <stdlib.h>
#include <string.h>

#define IMAGE_TYPE_COUNT 6
static const cl_mem_object_type image_types[IMAGE_TYPE_COUNT] = {
    CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY,  CL_MEM_OBJECT_IMAGE3D,
};

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};

/* The kiln_test_env fixture plus clGetImageRequirementsInfoEXT, found through the
 * platform's extension functions (the suites of the two cl_ext image extensions). */
static inline int image_requirements_env_setup(void **state, clGetImageRequirementsInfoEXT_fn *fn) {
  if (kiln_test_env_setup(state) != 0) return -1;
  struct kiln_test_env *env = *state;
  *fn = (clGetImageRequirementsInfoEXT_fn)kiln_test_extension_function(env->platform, "clGetImageRequirementsInfoEXT");
  return *fn ? 0 : -1;
}

/* A descriptor of `type` whose origin/region extent is `extent` (the unused ones 1). */
static inline cl_image_desc image_desc_of(cl_mem_object_type type, const size_t extent[3]) {
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = type;
  desc.image_width = extent[0];
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    desc.image_array_size = extent[1];
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    desc.image_height = extent[1];
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    desc.image_height = extent[1];
    desc.image_array_size = extent[2];
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    desc.image_height = extent[1];
    desc.image_depth = extent[2];
    break;
  default:
    break;
  }
  return desc;
}

/* The extent a type uses out of (w, h, d): unused coordinates become 1. */
static inline void image_extent_of(cl_mem_object_type type, size_t w, size_t h, size_t d, size_t extent[3]) {
  extent[0] = w;
  extent[1] = type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? 1 : h;
  extent[2] = type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D ? d : 1;
}

/* Bytes of an element of the unpacked formats the suites use. */
static inline size_t image_element_size(const cl_image_format *format) {
  size_t channels = 1;
  switch (format->image_channel_order) {
  case CL_RG:
  case CL_RA:
    channels = 2;
    break;
  case CL_RGBA:
  case CL_BGRA:
  case CL_ARGB:
  case CL_sRGBA:
    channels = 4;
    break;
  default:
    break;
  }
  switch (format->image_channel_data_type) {
  case CL_SNORM_INT16:
  case CL_UNORM_INT16:
  case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT:
    return channels * 2;
  case CL_SIGNED_INT32:
  case CL_UNSIGNED_INT32:
  case CL_FLOAT:
    return channels * 4;
  default:
    return channels;
  }
}

/* An image of `type` and `extent`; a 1D image buffer gets a buffer of its own, made with
 * the flags and host pointer (released here: the image holds it). */
static inline cl_mem image_create(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                  cl_mem_object_type type, const size_t extent[3], void *host_ptr) {
  cl_image_desc desc = image_desc_of(type, extent);
  cl_int err = CL_SUCCESS;
  cl_mem buffer = NULL;
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    buffer = clCreateBuffer(context, flags, extent[0] * image_element_size(format), host_ptr, &err);
    assert_cl_success(err);
    desc.mem_object = buffer;
    flags &= ~(cl_mem_flags)(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR);
    host_ptr = NULL;
  }
  cl_mem image = clCreateImage(context, flags, format, &desc, host_ptr, &err);
  assert_cl_success(err);
  assert_non_null(image);
  if (buffer) assert_cl_success(clReleaseMemObject(buffer));
  return image;
}

/* clCreateImage's error for these arguments (and no image). */
static inline cl_int image_create_error(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                        const cl_image_desc *desc, void *host_ptr) {
  cl_int err = CL_SUCCESS;
  cl_mem image = clCreateImage(context, flags, format, desc, host_ptr, &err);
  assert_null(image);
  return err;
}

/* Bytes of a tight host model of `extent`. */
static inline size_t image_bytes(const size_t extent[3], size_t element) {
  return extent[0] * extent[1] * extent[2] * element;
}

/* A reproducible pattern: byte i of a fill with `seed`. */
static inline void image_pattern(unsigned char *p, size_t bytes, unsigned seed) {
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)(i * 7u + seed * 13u + (i >> 8));
}

/* Writes / reads the whole image tightly (blocking). */
static inline void image_write_all(cl_command_queue queue, cl_mem image, const size_t extent[3], const void *data) {
  const size_t origin[3] = {0, 0, 0};
  assert_cl_success(clEnqueueWriteImage(queue, image, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL));
}
static inline void image_read_all(cl_command_queue queue, cl_mem image, const size_t extent[3], void *data) {
  const size_t origin[3] = {0, 0, 0};
  assert_cl_success(clEnqueueReadImage(queue, image, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL));
}

/* Copies a region between two tight models (origin/region in elements). */
static inline void image_model_copy(unsigned char *dst, const size_t dst_extent[3], const size_t dst_origin[3],
                                    const unsigned char *src, const size_t src_extent[3], const size_t src_origin[3],
                                    const size_t region[3], size_t element) {
  const size_t d_origin[3] = {dst_origin[0] * element, dst_origin[1], dst_origin[2]};
  const size_t s_origin[3] = {src_origin[0] * element, src_origin[1], src_origin[2]};
  const size_t bytes_region[3] = {region[0] * element, region[1], region[2]};
  kiln_test_rect_copy(dst, d_origin, dst_extent[0] * element, dst_extent[0] * dst_extent[1] * element, src, s_origin,
                      src_extent[0] * element, src_extent[0] * src_extent[1] * element, bytes_region);
}

#endif
